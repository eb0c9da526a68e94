//! `schedlab replay <trace> [--cgroups LAYOUT] [--variant K=V]... [--json | --emit-scenario]`:
//! shadow re-simulation of a trace (`schedlab_engine::replay`): the workload the trace shows,
//! simulated under the baseline or a variant, per task observed vs simulated share and switches,
//! and the time-weighted agreement. `--eevdf DUMP` seeds the per-decision replay's queues from
//! the kernel's recorded EEVDF state (`replay::decisions::seed`); `--cpu-avg DUMP` sets its root
//! cfs_rqs to the kernel's recorded PELT averages (`replay::decisions::cpu_avg`). `--emit-scenario` prints the shadow scenario as TOML instead,
//! to open in the web app or edit.

use crate::args::ReplayArgs;
use schedlab_engine::import::{EevdfSample, Skipped, TraceRecord, TraceSink};
use schedlab_engine::replay::compare::{replay, ReplayReport};
use schedlab_engine::replay::observe::Observed;
use schedlab_engine::replay::shadow::{Layout, Pin};
use std::fmt::Write as _;

/// Reads a trace (text or `.dat`) into the observed schedule.
pub fn observe(file: &str) -> Result<Observed, String> {
    let mut obs = Observed::default();
    obs.source = file.to_string();
    crate::import::read_trace(file, &mut obs)?;
    obs.finish();
    Ok(obs)
}

/// The `S`/`G` lines of a bpftrace EEVDF-state dump (`--eevdf`).
#[derive(Default)]
struct Dump {
    samples: Vec<EevdfSample>,
}

impl TraceSink for Dump {
    fn record(&mut self, _rec: TraceRecord) {}
    fn lost(&mut self, _cpu: u32, _count: u64, _line: u64) {}
    fn skipped(&mut self, _s: Skipped) {}
    fn eevdf(&mut self, s: EevdfSample) {
        self.samples.push(s);
    }
}

fn read_dump(file: &str) -> Result<Vec<EevdfSample>, String> {
    let mut d = Dump::default();
    crate::import::read_trace(file, &mut d)?;
    if d.samples.is_empty() {
        return Err(format!("{file}: expected a bpftrace EEVDF-state dump (`S`/`G` lines), found none"));
    }
    Ok(d.samples)
}

pub fn run(a: &ReplayArgs) -> Result<String, String> {
    let (file, variants) = (a.trace.as_str(), &a.variants.variant);
    let layout = match a.cgroups.as_deref() {
        Some(p) => {
            let text = std::fs::read_to_string(p).map_err(|e| format!("{p}: cannot read: {e}"))?;
            Layout::parse(p, &text)?
        }
        None => Layout::default(),
    };
    let mut layout = layout;
    if let Some(pin) = a.pin.as_deref() {
        layout.pin = Pin::parse(pin)?;
    }
    let mut obs = observe(file)?;
    if let Some(dump) = a.eevdf.as_deref() {
        obs.eevdf = read_dump(dump)?;
    }
    if let Some(dump) = a.cpu_avg.as_deref() {
        obs.cpu_avg = schedlab_engine::import::cpu_avg::parse(dump, &read_text_dump(dump, "schedlab-cpu-avg.bt")?)?;
    }
    if let Some(dump) = a.balance.as_deref() {
        let records = schedlab_engine::import::balance::parse(dump, &read_text_dump(dump, "schedlab-balance.bt")?)?;
        obs.balance = Some(schedlab_engine::import::balance::passes(&records));
    }
    let name = format!("replay/{}", std::path::Path::new(file).file_stem().and_then(|s| s.to_str()).unwrap_or("trace"));
    if let Some(n) = a.seeds {
        return crate::replay_spread::table(&obs, &layout, &name, variants, "seeds", n, a.json);
    }
    if let Some(n) = a.tick_phases {
        return crate::replay_spread::table(&obs, &layout, &name, variants, "tick_phases", n, a.json);
    }
    let (shadow, report) = replay(&obs, &layout, &name, variants)?;
    if a.emit_scenario {
        return toml::to_string(&shadow.scenario).map_err(|e| format!("writing the scenario: {e}"));
    }
    if a.json {
        return Ok(format!("{}\n", serde_json::to_string_pretty(&report).expect("report serialises")));
    }
    Ok(text(&report))
}

fn text(r: &ReplayReport) -> String {
    let mut s = String::new();
    let v = if r.variants.is_empty() {
        "baseline".to_string()
    } else {
        r.variants.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(" ")
    };
    let _ = writeln!(
        s,
        "shadow re-simulation of {} ({v}): {:.3} ms on {} CPUs, tasks {} ({} causal wakeups replayed)",
        r.scenario,
        r.window_ns as f64 / 1e6,
        r.cpus,
        if r.pin == "free" { "free (placed and balanced by the model)" } else { "pinned where each ran most" },
        r.causal_wakeups
    );
    let spins: Vec<&str> = r.tasks.iter().filter(|t| t.wall_paced).map(|t| t.name.as_str()).collect();
    let _ = writeln!(
        s,
        "switch gaps: {:.1} us from a preempting wakeup to its switch (charged to the wakee), {:.1} us from the \
         clock read to any other switch{}; bursts replayed as wall-clock spins: {}",
        r.wakeup_switch_latency_ns as f64 / 1e3,
        r.schedule_clock_lead_ns as f64 / 1e3,
        r.cpu_switch_gaps_ns
            .iter()
            .map(|&(cpu, w, l)| format!(
                "; on CPU {cpu}, its own: {:.1} us and {:.1} us",
                w as f64 / 1e3,
                l as f64 / 1e3
            ))
            .collect::<String>(),
        if spins.is_empty() { "none".to_string() } else { spins.join(", ") }
    );
    let trace_ticks = match r.trace_tick_phase_ns {
        Some(p) if p == r.tick_phase_ns => "at the trace's".to_string(),
        Some(p) => format!("the trace's at +{:.3} ms (--variant tick_phase=trace)", p as f64 / 1e6),
        None => "the trace shows none".to_string(),
    };
    let _ = writeln!(s, "ticks: the shadow's at +{:.3} ms of each period, {trace_ticks}", r.tick_phase_ns as f64 / 1e6);
    let _ = writeln!(
        s,
        "{:<24} {:>4} {:>11} {:>11} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8}",
        "task",
        "cpu",
        "real ms",
        "model ms",
        "real %",
        "model %",
        "real cpu%",
        "model",
        "real sw",
        "model sw",
        "real mig",
        "model"
    );
    for t in &r.tasks {
        let _ = writeln!(
            s,
            "{:<24} {:>4} {:>11.3} {:>11.3} {:>8.2} {:>8.2} {:>9.2} {:>8.2} {:>8} {:>8} {:>8} {:>8}",
            t.name,
            t.cpu,
            t.observed_ns as f64 / 1e6,
            t.simulated_ns as f64 / 1e6,
            t.observed_share_pct,
            t.simulated_share_pct,
            t.observed_cpu_pct,
            t.simulated_cpu_pct,
            t.observed_switches,
            t.simulated_switches,
            t.observed_migrations,
            t.simulated_migrations
        );
    }
    for l in &r.left_out {
        let _ = writeln!(
            s,
            "left out: {} (pid {}, prio {}): {:.3} ms not fair class",
            l.comm,
            l.pid,
            l.prio,
            l.runtime_ns as f64 / 1e6
        );
    }
    let _ = writeln!(
        s,
        "agreement: the same task on the same CPU {:.1} % of the observed time; largest share error {:.2} pp",
        r.agreement_pct, r.max_share_error_pp
    );
    let d = &r.decisions;
    let _ = writeln!(
        s,
        "picks along the real schedule: the model picked as the kernel did at {} of {} ({:.1} %; {} at quiet \
         yields, {} idle); not scored: {} not queued in the model, {} other class",
        d.agreed, d.scored, d.agreement_pct, d.quiet_yields, d.idle_picks, d.not_queued, d.other_class
    );
    if let Some(seed) = &d.seed {
        match seed.alignment.as_ref().filter(|a| a.accepted) {
            None => {
                let why = seed.alignment.as_ref().and_then(|a| a.reason.clone()).unwrap_or_default();
                let _ = writeln!(s, "eevdf dump: not aligned with the trace ({why}); nothing seeded");
            }
            Some(a) => {
                let _ = writeln!(
                    s,
                    "eevdf dump: {} records on the trace's switch-outs (offset {} ns, {} of {} S lines matched); \
                     {} queues seeded from the kernel's state; group weights taken from {} records ({} changed the \
                     model's); picks after the seed: {} of {} ({:.1} %)",
                    seed.records,
                    a.offset_ns,
                    a.matched,
                    a.in_trace,
                    seed.queues.len(),
                    seed.group_weights,
                    seed.group_reweights,
                    seed.agreed_after,
                    seed.scored_after,
                    seed.agreement_after_pct
                );
                if seed.queues.is_empty() {
                    let _ = writeln!(
                        s,
                        "  no queue was seeded: none had its whole population recorded at the model's weights and \
                         hierarchy (does the layout file give the kernel's cgroups and autogroups?)"
                    );
                }
                for q in &seed.queues {
                    let moved: Vec<String> =
                        q.entities.iter().zip(&q.moved_ns).map(|(e, m)| format!("{e} {m:+}")).collect();
                    let _ = writeln!(
                        s,
                        "  seeded {:>10.3} ms cpu {} depth {}: {}",
                        q.at_ns as f64 / 1e6,
                        q.cpu,
                        q.depth,
                        moved.join(", ")
                    );
                }
            }
        }
    }
    if let Some(c) = &d.cpu_avg {
        if c.used {
            let _ = writeln!(
                s,
                "cpu averages dump: {} samples ({} of {} inside the trace on their switch); the model's root cfs_rqs \
                 set to the kernel's averages {} times",
                c.samples, c.matched, c.in_trace, c.applied
            );
        } else {
            let _ = writeln!(
                s,
                "cpu averages dump: not on the trace's clock ({} of {} samples inside the trace on their switch; \
                 capture with the trace clock `mono`); nothing seeded",
                c.matched, c.in_trace
            );
        }
    }
    if let Some(b) = &d.balance_passes {
        if b.used {
            let counts: Vec<String> = b
                .outcomes
                .iter()
                .map(|o| format!("kernel {} / model {} {}", o.kernel.word(), o.model.word(), o.count))
                .collect();
            let _ = writeln!(
                s,
                "balance passes: the model, asked each pass the kernel ran from the kernel's nr_balance_failed and \
                 balance_interval, decided as the kernel did at {} of {} ({:.1} %): {}; its nr_running was the \
                 kernel's at {}",
                b.agreed,
                b.scored,
                b.agreement_pct,
                counts.join(", "),
                b.same_nr_running
            );
            for x in &b.first_disagreements {
                let _ = writeln!(
                    s,
                    "  {:>12.3} ms cpu {}: kernel {}, model {} (nr_balance_failed {}, interval {} ms, nr_running {} in \
                     the kernel, {} in the model): {}",
                    x.t as f64 / 1e6,
                    x.cpu,
                    x.kernel.word(),
                    x.model.word(),
                    x.failed,
                    x.interval_ms,
                    x.nr_running,
                    x.model_nr_running,
                    x.why
                );
            }
        } else if b.passes == 0 {
            let _ = writeln!(
                s,
                "balance passes dump: its softirq records hold no balance pass (no domain's last_balance moved \
                 while it ran: were the CPUs busy, and did it run through the trace?); nothing asked"
            );
        } else {
            let _ = writeln!(
                s,
                "balance passes dump: does not line up with the trace ({} of its {} passes inside it; a busy pass \
                 must follow its tick's record and a balance move lie within a pass; capture both with the trace \
                 clock `mono`); nothing asked",
                b.in_trace, b.passes
            );
        }
    }
    if d.throttled + d.unthrottles > 0 {
        let timers = if d.period_timers > 0 {
            format!("at {} period timer expiries the trace shows", d.period_timers)
        } else {
            "where the trace first shows them (the period timer is not in the trace; \
             tools/capture records it)"
                .to_string()
        };
        let _ = writeln!(
            s,
            "CFS bandwidth replayed: {} tasks throttled at their return to user space, {} unthrottles {timers}",
            d.throttled, d.unthrottles
        );
    }
    if d.throttle_resyncs > 0 {
        let _ = writeln!(
            s,
            "CFS bandwidth: {} throttles the trace shows where the model still had runtime; the model took the kernel's state there",
            d.throttle_resyncs
        );
    }
    if d.cgroup_moves > 0 {
        let _ = writeln!(s, "cgroup moves replayed where the trace shows them: {}", d.cgroup_moves);
    }
    if !r.unseen_moves.is_empty() {
        let _ = writeln!(
            s,
            "moves not in the trace: {} were forked in the trace into another cgroup than their parent's, and the \
             trace has no cgroup_attach_task of theirs: each starts in its cgroup here, where the kernel moved it \
             later, and where the groups' lags start decides the picks (tools/capture records the moves; an EEVDF \
             dump seeds the start)",
            r.unseen_moves.join(", ")
        );
    }
    let p = &d.placements;
    let _ = writeln!(
        s,
        "placements along the real schedule: the model chose the kernel's CPU at {} of {} wakeups and execs ({:.1} %; \
         {} new tasks, {} exec, {} inferred sync); not scored: {} pinned, {} first seen",
        p.agreed, p.scored, p.agreement_pct, p.new_tasks, p.exec, p.sync, p.pinned, p.first_seen
    );
    if p.balance_migrations > 0 {
        let _ = writeln!(
            s,
            "balance migrations: {}; the model's balancer on the destination, asked at that moment, pulls from the \
             same CPU at {} and the same task at {}",
            p.balance_migrations, p.balance_same_source, p.balance_same_task
        );
    }
    if p.wakeup_of_queued > 0 {
        let _ = writeln!(
            s,
            "wakeups that moved a task the model still held queued (a dequeue it delayed and the kernel did not): {}; \
             dequeued there and scored as placements, not as balance migrations",
            p.wakeup_of_queued
        );
    }
    let w = &d.preemptions;
    let _ = writeln!(
        s,
        "wakeup preemption along the real schedule: the model decided as the kernel did at {} of {} wakeups ({:.1} %); \
         the kernel preempted at {}, the model alone at {}, the kernel alone at {}; not scored: {}",
        w.agreed, w.scored, w.agreement_pct, w.kernel_preempted, w.model_only, w.kernel_only, w.unscored
    );
    for x in w.first_disagreements.iter().take(40) {
        let _ = writeln!(
            s,
            "  {:>12.3} ms cpu {}: {} woke while {} ran: kernel {}, model {} (wakee lag {}, deadline−V {}; curr lag {}, \
             deadline−V {}, protected {})",
            x.at_ns as f64 / 1e6,
            x.cpu,
            x.wakee,
            x.curr,
            if x.kernel { "preempted" } else { "did not preempt" },
            if x.model { "preempted" } else { "did not preempt" },
            x.wakee_lag,
            x.wakee_deadline,
            x.curr_lag,
            x.curr_deadline,
            x.curr_protected
        );
    }
    if !p.by_rule.is_empty() {
        let rules: Vec<String> = p.by_rule.iter().map(|(r, n, a)| format!("{r} {a}/{n}")).collect();
        let _ = writeln!(s, "  by the model's rule: {}", rules.join(", "));
    }
    for x in p.first_disagreements.iter().take(5) {
        let _ = writeln!(
            s,
            "  {:>12.3} ms {}: kernel cpu {}, model cpu {} (prev {}, woken from {}{}{}; rule {}, wake_affine {}, target {})",
            x.at_ns as f64 / 1e6,
            x.task,
            x.kernel_cpu,
            x.model_cpu,
            x.prev_cpu,
            x.waker_cpu,
            if x.sync { ", sync" } else { "" },
            if x.new_task { ", new task" } else if x.exec { ", exec" } else { "" },
            x.rule,
            x.affine,
            x.target
        );
    }
    for x in p.balance_disagreements.iter().take(5) {
        let _ = writeln!(
            s,
            "  {:>12.3} ms balance: the kernel moved {} from cpu {} to cpu {}; the model: {}",
            x.at_ns as f64 / 1e6,
            x.task,
            x.src_cpu,
            x.dst_cpu,
            x.model
        );
    }
    for x in d.first_disagreements.iter().take(5) {
        let _ = writeln!(
            s,
            "  {:>12.3} ms cpu {}: kernel {} (lag {}, deadline−V {}), model {} (lag {}, deadline−V {}) at level {}",
            x.at_ns as f64 / 1e6,
            x.cpu,
            x.kernel,
            x.kernel_lag,
            x.kernel_deadline,
            x.model,
            x.model_lag.map_or("-".into(), |v| v.to_string()),
            x.model_deadline.map_or("-".into(), |v| v.to_string()),
            x.level
        );
    }
    s
}

/// A bpftrace dump's text (`tool` names the script), or what is wrong with the file.
fn read_text_dump(dump: &str, tool: &str) -> Result<String, String> {
    let bytes = std::fs::read(dump).map_err(|e| format!("{dump}: cannot read: {e}"))?;
    String::from_utf8(bytes)
        .map_err(|_| format!("{dump}: expected a {tool} dump (text), found binary data (is it the trace?)"))
}
