//! Every periodic balance pass the kernel ran, asked of the model in the real state (`schedlab
//! replay --balance DUMP`, issue 18).
//!
//! The trace shows the passes that moved a task (`sched_migrate_task`), not the ones that found
//! the domain balanced or failed to move anything; yet those decide when the next move comes:
//! a failure halves `balance_interval` back to its minimum and raises `nr_balance_failed`,
//! which lets `detach_tasks()` take a task too heavy for the imbalance and `can_migrate_task()`
//! a cache-hot one; a balanced pass doubles the interval. A dump of
//! `tools/capture/schedlab-balance.bt` taken beside the trace records each CPU's
//! `nr_balance_failed` and `balance_interval` before and after every SCHED softirq
//! (`import::balance`). As the replay reaches a recorded pass, a copy of the model, in the
//! state of that moment, is given the kernel's `nr_balance_failed` and `balance_interval` of
//! that CPU's domain before the pass and runs the pass (`sched_balance_domains()`, the
//! domain due, busy or `CPU_IDLE` as the interrupted task says); the kernel's transition and
//! the copy's are each read as one outcome:
//!
//! * balanced: `nr_balance_failed` back to 0 and the interval doubled or kept at its maximum
//!   (`out_balanced`);
//! * failed: `nr_balance_failed` one up (an imbalance, nothing moved);
//! * moved: `nr_balance_failed` back to 0 and the interval at its minimum (`ld_moved`).
//!
//! Agreement is the same outcome. Nothing is fitted; the model's averages are its own, or the
//! kernel's with `--cpu-avg`. The dump is used only if its busy passes inside the trace each
//! find a record of their CPU just before them (their tick's): the same `mono` clock.

use super::Replayer;
use crate::import::balance::BalancePassRecord;
use crate::replay::observe::Observed;
use crate::sched::balance::CpuIdle;
use serde::Serialize;

/// One pass's outcome, read from the domain's state before and after.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum PassOutcome {
    Balanced,
    Failed,
    Moved,
    /// Any other transition (an active balance's, or a state the three do not explain).
    Other,
}

impl PassOutcome {
    /// The outcome of a pass that took `failed` and `interval` (ms) from their first values to
    /// their second, in a domain whose interval runs from `min` to `max` ms.
    pub fn of(failed: [u32; 2], interval: [u32; 2], min: u32, max: u32) -> PassOutcome {
        let doubled = interval[1] == (interval[0] * 2).min(max.max(interval[0]));
        match (failed, interval[1]) {
            ([_, 0], i) if i != min && doubled => PassOutcome::Balanced,
            ([a, b], i) if b == a + 1 && i == min => PassOutcome::Failed,
            ([_, 0], i) if i == min => PassOutcome::Moved,
            _ => PassOutcome::Other,
        }
    }

    /// In words.
    pub fn word(self) -> &'static str {
        match self {
            PassOutcome::Balanced => "balanced",
            PassOutcome::Failed => "failed",
            PassOutcome::Moved => "moved",
            PassOutcome::Other => "other",
        }
    }
}

/// How often the kernel's outcome met the model's.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct PassOutcomeCount {
    pub kernel: PassOutcome,
    pub model: PassOutcome,
    pub count: u64,
}

/// A recorded pass the model answered differently.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct PassDisagreement {
    /// Trace time (ns from the trace's first record).
    pub t: u64,
    pub cpu: u32,
    pub kernel: PassOutcome,
    pub model: PassOutcome,
    /// The kernel's `nr_balance_failed` and `balance_interval` before the pass.
    pub failed: u32,
    pub interval_ms: u32,
    /// The CPU's `rq->nr_running` at the pass, the kernel's and the model's.
    pub nr_running: u32,
    pub model_nr_running: u32,
    /// In words: what the model's pass found, with each CPU's root averages.
    pub why: String,
}

/// What the balance-pass dump gave the replay.
#[derive(Debug, Clone, Default, Serialize, ts_rs::TS)]
pub struct BalancePassReport {
    /// Passes in the dump; those inside the trace's span.
    pub passes: u64,
    pub in_trace: u64,
    /// The dump agreed with the trace's clock and was used.
    pub used: bool,
    /// Passes asked of the model, and those it answered as the kernel did.
    pub scored: u64,
    /// Of the scored: passes where the model's `nr_running` on the CPU was the kernel's.
    pub same_nr_running: u64,
    pub agreed: u64,
    pub agreement_pct: f64,
    /// Of the scored: the kernel's outcome against the model's.
    pub outcomes: Vec<PassOutcomeCount>,
    /// The first disagreements, in time order.
    pub first_disagreements: Vec<PassDisagreement>,
}

/// Disagreements listed.
const LISTED: usize = 12;
/// How far before a busy pass's softirq entry its tick's records lie (they are µs apart).
pub const MATCH_NS: u64 = 100_000;
/// The share of the busy passes inside the trace that must find a record of their CPU within
/// [`MATCH_NS`] before them (per mille), for the dump to be on the trace's clock.
pub const MIN_MATCHED_PER_MILLE: u64 = 900;

pub(super) struct PassAsker {
    /// Passes on model CPUs, in time order (trace clock).
    passes: Vec<(u64, u32, BalancePassRecord)>,
    next: usize,
    pub(super) report: BalancePassReport,
}

impl PassAsker {
    pub(super) fn new(obs: &Observed) -> Option<PassAsker> {
        if obs.balance.is_empty() {
            return None;
        }
        let model_cpu = |trace_cpu: u32| -> Option<u32> {
            if obs.cpu_ids.is_empty() {
                (trace_cpu < obs.cpus.max(1)).then_some(trace_cpu)
            } else {
                obs.cpu_ids.iter().position(|&c| c == trace_cpu).map(|i| i as u32)
            }
        };
        let (t0, t1) = (obs.t0.unwrap_or(0), obs.t1);
        // Each CPU's record times: a busy CPU's pass runs at its tick's interrupt exit,
        // microseconds after the tick's own records (`sched_stat_runtime` of the running task).
        let mut on_cpu: Vec<Vec<u64>> = vec![Vec::new(); obs.cpus.max(1) as usize];
        for e in &obs.events {
            for c in e.ev.cpus() {
                if let Some(v) = on_cpu.get_mut(c as usize) {
                    v.push(e.ts);
                }
            }
        }
        let near = |cpu: u32, ts: u64| {
            on_cpu.get(cpu as usize).is_some_and(|v| {
                let i = v.partition_point(|&t| t < ts.saturating_sub(MATCH_NS));
                v.get(i).is_some_and(|&t| t <= ts)
            })
        };
        let mut report = BalancePassReport { passes: obs.balance.len() as u64, ..Default::default() };
        let mut passes = Vec::new();
        let (mut busy, mut matched) = (0u64, 0u64);
        for p in &obs.balance {
            let Some(cpu) = model_cpu(p.cpu) else { continue };
            if (t0..=t1).contains(&p.entry_ns) {
                report.in_trace += 1;
                if !p.idle {
                    busy += 1;
                    matched += near(cpu, p.entry_ns) as u64;
                }
                passes.push((p.entry_ns, cpu, *p));
            }
        }
        // A dump on another clock than the trace's finds no tick records before its passes.
        report.used = busy > 0 && matched * 1000 >= busy * MIN_MATCHED_PER_MILLE;
        if !report.used {
            passes.clear();
        }
        Some(PassAsker { passes, next: 0, report })
    }
}

impl Replayer<'_> {
    /// Asks the model every recorded pass that began before `ts` (trace clock).
    pub(super) fn ask_passes(&mut self, ts: u64) {
        loop {
            let Some(a) = self.passes.as_mut() else { return };
            let Some(&(at, cpu, p)) = a.passes.get(a.next).filter(|(at, _, _)| *at < ts) else { return };
            a.next += 1;
            let (model, why) = self.ask_pass(cpu, &p);
            let (min, max) = self.interval_range(cpu);
            let kernel = PassOutcome::of(p.failed, p.interval, min, max);
            let t = at.saturating_sub(self.t0);
            let model_nr_running = self.f.rqs[cpu as usize].nr_running;
            let Some(a) = self.passes.as_mut() else { return };
            let r = &mut a.report;
            r.scored += 1;
            r.same_nr_running += (model_nr_running == p.nr_running) as u64;
            r.agreed += (kernel == model) as u64;
            match r.outcomes.iter_mut().find(|o| o.kernel == kernel && o.model == model) {
                Some(o) => o.count += 1,
                None => r.outcomes.push(PassOutcomeCount { kernel, model, count: 1 }),
            }
            if kernel != model && r.first_disagreements.len() < LISTED {
                r.first_disagreements.push(PassDisagreement {
                    t,
                    cpu,
                    kernel,
                    model,
                    failed: p.failed[0],
                    interval_ms: p.interval[0],
                    nr_running: p.nr_running,
                    model_nr_running,
                    why,
                });
            }
        }
    }

    /// `min_interval` and `max_interval` (ms) of `cpu`'s lowest domain.
    fn interval_range(&self, cpu: u32) -> (u32, u32) {
        let d = &self.f.smp.as_deref().expect("balancing is enabled").topo.cpus[cpu as usize].domains[0];
        (d.min_interval as u32, d.max_interval as u32)
    }

    /// A copy of the model runs `cpu`'s lowest domain's pass from the kernel's state before
    /// it: its outcome, and in words what it found.
    fn ask_pass(&mut self, cpu: u32, p: &BalancePassRecord) -> (PassOutcome, String) {
        let log = std::mem::take(&mut self.f.log);
        let mut f = self.f.clone();
        self.f.log = log;
        let c = cpu as usize;
        let jiffies = f.jiffies();
        let smp = f.smp.as_deref_mut().expect("balancing is enabled");
        let (min, max) = {
            let d = &mut smp.topo.cpus[c].domains[0];
            d.nr_balance_failed = p.failed[0];
            d.balance_interval = p.interval[0];
            (d.min_interval as u32, d.max_interval as u32)
        };
        // This domain is due; the ones above it are not (the dump shows the lowest only).
        for (level, l) in smp.lb.last_balance[c].iter_mut().enumerate() {
            *l = if level == 0 { 0 } else { jiffies };
        }
        smp.lb.moved.clear();
        let kind = if p.idle { CpuIdle::Idle } else { CpuIdle::NotIdle };
        f.update_blocked_averages(cpu);
        f.sched_balance_domains(cpu, kind);
        let d = &f.smp.as_deref().expect("balancing is enabled").topo.cpus[c].domains[0];
        let model = PassOutcome::of([p.failed[0], d.nr_balance_failed], [p.interval[0], d.balance_interval], min, max);
        let found = match crate::obs::why_cpu::last_row(&f.log, crate::obs::log::EventKind::Balance, cpu, usize::MAX) {
            Some(i) => crate::obs::why_cpu::balance_words(&f.log, i),
            None => "found every domain balanced".to_string(),
        };
        let avgs: Vec<String> = (0..f.rqs.len())
            .map(|k| {
                let q = &f.qs[f.rqs[k].cfs as usize];
                format!("CPU {k} load {} util {} ({} running)", q.avg.load_avg, q.avg.util_avg, f.rqs[k].nr_running)
            })
            .collect();
        (model, format!("the model's pass {}: {found}; {}", model.word(), avgs.join(", ")))
    }
}

#[cfg(test)]
mod tests {
    use super::PassOutcome::{self, *};

    #[test]
    fn reads_the_outcome_off_the_domain_state() {
        // min 2 ms, max 4 ms: the 2-CPU machine's MC domain.
        let of = |f: [u32; 2], i: [u32; 2]| PassOutcome::of(f, i, 2, 4);
        assert_eq!(of([0, 0], [2, 4]), Balanced);
        assert_eq!(of([0, 0], [4, 4]), Balanced);
        assert_eq!(of([2, 0], [2, 4]), Balanced);
        assert_eq!(of([0, 1], [4, 2]), Failed);
        assert_eq!(of([1, 2], [2, 2]), Failed);
        assert_eq!(of([1, 0], [2, 2]), Moved);
        assert_eq!(of([0, 0], [4, 2]), Moved);
        assert_eq!(of([3, 3], [2, 2]), Other);
        assert_eq!(of([0, 1], [4, 4]), Other);
    }
}
