//! [`ImportSummary`]: what an import found, what it skipped and why, and what the views need that
//! the trace lacks (with the capture command that would provide it). Serialised as JSON by
//! `schedlab import --json` and for the web worker; [`ImportSummary::text`] is the CLI's report.

use super::clock::{check_clocks, ClockCheck};
use super::depth::{CpuRunqueue, RunqueueDepth};
use super::detect::Format;
use super::record::PrevState;
use super::store::TraceStore;
use super::text::ImportStats;
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Clone, Debug, Serialize, PartialEq, Eq, ts_rs::TS)]
pub struct SkipReason {
    pub reason: String,
    pub count: u64,
    /// `line:column` of the first few.
    pub examples: Vec<String>,
}

#[derive(Clone, Debug, Serialize, PartialEq, Eq, ts_rs::TS)]
pub struct TaskRow {
    pub pid: i32,
    pub generation: u32,
    /// Comms in the order seen, joined with ` → `.
    pub comm: String,
    /// Times switched out (prev of a sched_switch) ...
    pub switches: u64,
    /// ... of which still runnable (`R`) and preempted (`R+`).
    pub switches_runnable: u64,
    pub switches_preempted: u64,
    pub switches_in: u64,
    pub wakeups: u64,
}

/// Tasks of the bpftrace EEVDF-state dump.
#[derive(Clone, Debug, Serialize, PartialEq, Eq, ts_rs::TS)]
pub struct EevdfTaskRow {
    pub pid: i32,
    pub comm: String,
    /// `S` lines (the task's own entity).
    pub samples: u64,
    /// `G` lines (its parent group entity).
    pub group_samples: u64,
}

/// Something a view needs that the trace does not have.
#[derive(Clone, Debug, Serialize, PartialEq, Eq, ts_rs::TS)]
pub struct Missing {
    /// The event or data.
    pub what: String,
    /// The view or figure that needs it.
    pub needed_for: String,
    /// How to capture it.
    pub capture: String,
}

#[derive(Clone, Debug, Serialize, PartialEq, Eq, ts_rs::TS)]
pub struct ImportSummary {
    pub format: Option<Format>,
    pub format_name: String,
    /// Event-line grammar (differs from `format` for systrace HTML).
    pub grammar: Option<Format>,
    /// Set for binary input that the text importer does not read.
    pub binary: Option<String>,
    pub bytes: u64,
    pub lines_read: u64,
    pub lines_skipped: u64,
    pub skipped: Vec<SkipReason>,
    pub total_events: u64,
    pub events: BTreeMap<String, u64>,
    pub eevdf_samples: u64,
    pub eevdf_tasks: Vec<EevdfTaskRow>,
    /// First and last bpftrace `nsecs` (CLOCK_MONOTONIC; the tracepoints share it only with the
    /// `mono` trace clock, see `clocks`).
    pub eevdf_span_ns: Option<(u64, u64)>,
    /// Whether the dump and the tracepoints share a clock (declared and measured), when a dump
    /// was imported.
    pub clocks: Option<ClockCheck>,
    pub tasks: Vec<TaskRow>,
    pub cpus: Vec<u32>,
    /// `cpus=N` / `#P:N` from the header, when present.
    pub cpus_declared: Option<u32>,
    pub first_ts_ns: Option<u64>,
    pub last_ts_ns: Option<u64>,
    pub duration_ns: u64,
    /// CPU → events lost (`LOST`/`EVENTS DROPPED` lines; 0 when the count was not printed).
    pub lost_events: BTreeMap<u32, u64>,
    pub lost_lines: u64,
    /// Records whose timestamp is earlier than the previous record of the same CPU (kept).
    pub out_of_order: u64,
    /// sched_switch renderings seen (`kernel`, `plugin`, `raw`).
    pub switch_forms: Vec<String>,
    /// Raw numeric prev_state values that could not be decoded, with their counts.
    pub raw_prev_states: BTreeMap<i64, u64>,
    pub missing: Vec<Missing>,
    /// Per CPU: runqueue depth, idle time and idle time while another CPU had more than one
    /// runnable task (`import::depth`); empty without `sched_switch` records.
    pub runqueues: Vec<CpuRunqueue>,
}

fn miss(what: &str, needed_for: &str, capture: &str) -> Missing {
    Missing { what: what.to_string(), needed_for: needed_for.to_string(), capture: capture.to_string() }
}

impl ImportSummary {
    pub fn new(stats: &ImportStats, store: &TraceStore) -> Self {
        let mut events = BTreeMap::new();
        for (id, &n) in store.event_counts.iter().enumerate() {
            events.insert(store.events.get(id as u32).to_string(), n);
        }
        let mut skipped: Vec<SkipReason> = store
            .skipped
            .iter()
            .map(|(reason, g)| SkipReason {
                reason: reason.clone(),
                count: g.count,
                examples: g.examples.iter().map(|(l, c)| format!("{l}:{c}")).collect(),
            })
            .collect();
        skipped.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.reason.cmp(&b.reason)));
        let tasks = store
            .tasks
            .iter()
            .map(|t| TaskRow {
                pid: t.pid,
                generation: t.generation,
                comm: store.task_comm(t),
                switches: t.switches_out,
                switches_runnable: t.out_runnable,
                switches_preempted: t.out_preempted,
                switches_in: t.switches_in,
                wakeups: t.wakeups,
            })
            .collect();
        let mut lost_events = BTreeMap::new();
        for &(cpu, n, _) in &store.lost {
            let e: &mut u64 = lost_events.entry(cpu).or_insert(0);
            *e = e.saturating_add(n);
        }
        let mut raw_prev_states = BTreeMap::new();
        for s in &store.switches.prev_state {
            if let PrevState::Raw(n) = s {
                *raw_prev_states.entry(*n).or_insert(0) += 1;
            }
        }
        let switch_forms: Vec<String> =
            store.meta.get("switch_form").map(|v| v.split(',').map(str::to_string).collect()).unwrap_or_default();
        let eevdf_span_ns = store.eevdf.iter().map(|e| e.ts_ns).min().zip(store.eevdf.iter().map(|e| e.ts_ns).max());
        let mut s = ImportSummary {
            format: stats.format,
            format_name: match (stats.binary, stats.format) {
                (Some(b), _) => b.to_string(),
                (None, Some(f)) => f.name().to_string(),
                (None, None) => "unrecognised".to_string(),
            },
            grammar: stats.grammar,
            binary: stats.binary.map(str::to_string),
            bytes: stats.bytes,
            lines_read: stats.lines,
            lines_skipped: stats.skipped_lines,
            skipped,
            total_events: store.records,
            events,
            eevdf_samples: store.eevdf.len() as u64,
            eevdf_tasks: super::report::eevdf_tasks(&store.eevdf),
            eevdf_span_ns,
            clocks: check_clocks(store),
            tasks,
            cpus: (0..store.cpus.len() as u32).filter(|&c| store.cpus[c as usize].records > 0).collect(),
            cpus_declared: store.meta.get("cpus").and_then(|v| v.trim().parse().ok()),
            first_ts_ns: store.first_ts,
            last_ts_ns: store.first_ts.map(|_| store.last_ts),
            duration_ns: store.first_ts.map_or(0, |f| store.last_ts - f),
            lost_events,
            lost_lines: store.lost.len() as u64,
            out_of_order: store.out_of_order,
            switch_forms,
            raw_prev_states,
            missing: Vec::new(),
            runqueues: Vec::new(),
        };
        s.missing = s.compute_missing();
        if store.count("sched_switch") > 0 {
            s.runqueues = RunqueueDepth::build(store).cpus;
        }
        s
    }

    fn n(&self, ev: &str) -> u64 {
        self.events.get(ev).copied().unwrap_or(0)
    }

    fn compute_missing(&self) -> Vec<Missing> {
        let mut m = Vec::new();
        // A binary file the text importer refused (nothing decoded): no view to speak of. A
        // decoded `.dat` is judged like text.
        if self.binary.is_some() && self.total_events == 0 {
            return m;
        }
        let tracepoints = self.total_events > 0;
        if self.n("sched_switch") == 0 {
            m.push(miss(
                "sched_switch",
                "CPU lanes (who ran when) and the replay",
                "trace-cmd record -e sched:sched_switch (or echo 1 > /sys/kernel/tracing/events/sched/sched_switch/enable)",
            ));
        }
        if self.n("sched_wakeup") == 0 && self.n("sched_waking") == 0 {
            m.push(miss(
                "sched_wakeup",
                "wakeup links and wakeup latency",
                "trace-cmd record -e sched_wakeup -e sched_waking",
            ));
        } else if self.n("sched_waking") == 0 {
            m.push(miss(
                "sched_waking",
                "the waker of each wakeup (sched_wakeup may fire on the target CPU from the wake list, where the current task is not the waker)",
                "trace-cmd record -e sched_waking",
            ));
        }
        if self.n("sched_wakeup_new") == 0 {
            m.push(miss("sched_wakeup_new", "placement of newly forked tasks", "trace-cmd record -e sched_wakeup_new"));
        }
        if self.n("sched_migrate_task") == 0 {
            m.push(miss("sched_migrate_task", "migrations between CPUs", "trace-cmd record -e sched_migrate_task"));
        }
        if self.n("sched_process_fork") == 0 || self.n("sched_process_exit") == 0 {
            m.push(miss(
                "sched_process_fork/sched_process_exit",
                "task lifetimes and PID reuse (without them a reused pid is taken for the same task)",
                "trace-cmd record -e sched_process_fork -e sched_process_exit",
            ));
        }
        if self.switch_forms.iter().any(|f| f == "plugin") {
            m.push(miss(
                "R+ (preempted) vs R (runnable) switch-outs",
                "preemption marks and yield analysis (the libtraceevent plugin prints both as R)",
                "trace-cmd report -N (kernel TP_printk form), or read /sys/kernel/tracing/trace",
            ));
        }
        if !self.raw_prev_states.is_empty() {
            m.push(miss(
                "decoded prev_state numbers",
                "sleep/preempt classification of switch-outs (numbers above 2 depend on the kernel version)",
                "trace-cmd report without -R (states as letters), or import the .dat with its format files",
            ));
        }
        if self.eevdf_samples == 0 {
            m.push(miss(
                "EEVDF state (vruntime, deadline, lag, slice, weights)",
                "real vruntime/deadline lanes (no stock tracepoint prints them since v6.8); without it they are rebuilt by the simulator",
                "tools/capture/schedlab-capture.sh records the trace and the dump together (bpftrace tools/capture/schedlab-eevdf.bt); then schedlab import trace.txt --eevdf eevdf-state.txt",
            ));
        }
        if let Some(c) = self.clocks.as_ref().filter(|c| !c.shared) {
            let offset = c.estimate.as_ref().map_or(String::new(), |e| {
                format!(" (estimated trace − dump offset {} ms)", fixed3(e.offset_ns, 1_000_000))
            });
            m.push(miss(
                "a clock shared by the EEVDF dump and the trace",
                &format!("lining up the dump's vruntime/deadline samples with the CPU lanes{offset}"),
                "tools/capture/schedlab-capture.sh (it records both with CLOCK_MONOTONIC: trace_clock mono)",
            ));
        }
        if !self.lost_events.is_empty() {
            let total = self.lost_events.values().fold(0u64, |a, &n| a.saturating_add(n));
            m.push(miss(
                "events lost to ring-buffer overflow",
                &format!(
                    "complete timelines ({total} events lost on CPUs {:?})",
                    self.lost_events.keys().collect::<Vec<_>>()
                ),
                "a larger per-CPU buffer: trace-cmd record -b 20000 (KiB), or fewer events",
            ));
        }
        if !tracepoints && self.eevdf_samples > 0 {
            m.retain(|x| x.what != "EEVDF state (vruntime, deadline, lag, slice, weights)");
        }
        m
    }

    /// The CLI's readable report.
    pub fn text(&self) -> String {
        let mut s = String::new();
        let ms = |ns: u64| format!("{}.{:06} ms", ns / 1_000_000, ns % 1_000_000);
        s.push_str(&format!("format: {}\n", self.format_name));
        s.push_str(&format!(
            "read {} bytes, {} lines; {} events, {} EEVDF samples; {} lines skipped\n",
            self.bytes, self.lines_read, self.total_events, self.eevdf_samples, self.lines_skipped
        ));
        if let (Some(a), Some(b)) = (self.first_ts_ns, self.last_ts_ns) {
            s.push_str(&format!("time: {} .. {} ns ({})\n", a, b, ms(self.duration_ns)));
        }
        if !self.cpus.is_empty() {
            let declared = self.cpus_declared.map(|n| format!(" (header: {n})")).unwrap_or_default();
            s.push_str(&format!("CPUs with events: {:?}{declared}\n", self.cpus));
        }
        if !self.switch_forms.is_empty() {
            s.push_str(&format!("sched_switch form: {}\n", self.switch_forms.join(", ")));
        }
        if !self.events.is_empty() {
            s.push_str("events:\n");
            for (e, n) in &self.events {
                s.push_str(&format!("  {n:>9}  {e}\n"));
            }
        }
        if !self.lost_events.is_empty() {
            s.push_str(&format!("lost events per CPU: {:?} ({} LOST lines)\n", self.lost_events, self.lost_lines));
        }
        if self.out_of_order > 0 {
            s.push_str(&format!("out-of-order timestamps (per CPU, kept): {}\n", self.out_of_order));
        }
        if !self.raw_prev_states.is_empty() {
            s.push_str(&format!("undecoded numeric prev_state values: {:?}\n", self.raw_prev_states));
        }
        if !self.skipped.is_empty() {
            s.push_str("skipped lines:\n");
            for r in &self.skipped {
                s.push_str(&format!("  {:>7}  {} (e.g. line:col {})\n", r.count, r.reason, r.examples.join(", ")));
            }
        }
        if let Some((a, b)) = self.eevdf_span_ns {
            s.push_str(&format!("EEVDF samples: {} .. {} ns (bpftrace nsecs) ({})\n", a, b, ms(b - a)));
            s.push_str("      pid   S lines   G lines  comm\n");
            for t in &self.eevdf_tasks {
                s.push_str(&format!("  {:>7}  {:>8}  {:>8}  {}\n", t.pid, t.samples, t.group_samples, t.comm));
            }
        }
        if let Some(c) = &self.clocks {
            s.push_str(&clock_text(c));
        }
        let mut tasks: Vec<&TaskRow> = self.tasks.iter().filter(|t| t.switches > 0).collect();
        tasks.sort_by(|a, b| b.switches.cmp(&a.switches).then(a.pid.cmp(&b.pid)));
        if !tasks.is_empty() {
            s.push_str(&format!(
                "tasks: {} ({} switched out at least once); busiest:\n",
                self.tasks.len(),
                tasks.len()
            ));
            s.push_str("      pid  gen  switches  (R / R+)  wakeups  comm\n");
            for t in tasks.iter().take(20) {
                s.push_str(&format!(
                    "  {:>7}  {:>3}  {:>8}  ({} / {})  {:>7}  {}\n",
                    t.pid, t.generation, t.switches, t.switches_runnable, t.switches_preempted, t.wakeups, t.comm
                ));
            }
        }
        if !self.runqueues.is_empty() {
            s.push_str("runqueues (from the trace's switches, wakeups and migrations):\n");
            s.push_str("  cpu  max depth  mean depth  idle          idle while another CPU had > 1 runnable\n");
            for r in &self.runqueues {
                s.push_str(&format!(
                    "  {:>3}  {:>9}  {:>10.3}  {:>12}  {}\n",
                    r.cpu,
                    r.max_depth,
                    r.mean_depth_milli as f64 / 1000.0,
                    ms(r.idle_ns),
                    ms(r.idle_while_overloaded_ns)
                ));
            }
        }
        if !self.missing.is_empty() {
            s.push_str("missing for the views:\n");
            for m in &self.missing {
                s.push_str(&format!("  - {}: needed for {}; capture: {}\n", m.what, m.needed_for, m.capture));
            }
        }
        s
    }
}

/// The clock report as the CLI prints it.
fn clock_text(c: &ClockCheck) -> String {
    let us = |ns: i64| format!("{} µs", fixed3(ns, 1_000));
    let mut s = format!(
        "clocks: trace {}, dump {}",
        c.trace_clock.as_deref().map_or("not declared".to_string(), |t| format!("`{t}`")),
        c.dump_clock.as_deref().unwrap_or("CLOCK_MONOTONIC (bpftrace nsecs; no header)")
    );
    if c.in_span == 0 {
        s.push_str(&format!("; none of the {} S samples falls inside the trace's time span\n", c.samples));
        return s;
    }
    s.push_str(&format!(
        "; {}: {} of the {} S samples inside the trace match a sched_switch of the same task within {}",
        if c.shared { "shared" } else { "NOT shared" },
        c.matched,
        c.in_span,
        us(super::clock::TOLERANCE_NS)
    ));
    if let (true, Some(m), Some(x)) = (c.shared, c.median_offset_ns, c.max_abs_offset_ns) {
        s.push_str(&format!(" (trace − dump: median {}, at most {})", us(m), us(x)));
    }
    s.push('\n');
    if let Some(e) = &c.estimate {
        s.push_str(&format!(
            "  estimated offset trace − dump: {} ms, matching {} samples (next best offset: {})\n",
            fixed3(e.offset_ns, 1_000_000),
            e.matched,
            e.runner_up
        ));
    }
    s
}

/// `ns / unit` with three decimals (truncated), in integers.
fn fixed3(ns: i64, unit: u64) -> String {
    let sign = if ns < 0 { "-" } else { "" };
    let a = ns.unsigned_abs();
    format!("{sign}{}.{:03}", a / unit, (a % unit) / (unit / 1000))
}
