//! Every periodic balance pass the kernel ran, asked of the model in the real state (`schedlab
//! replay --balance DUMP`, issue 18).
//!
//! The trace shows the passes that moved a task (`sched_migrate_task`), not the ones that found
//! the domain balanced or failed to move anything; yet those decide when the next move comes:
//! a failure sets `balance_interval` back to its minimum and raises `nr_balance_failed`, which
//! lets `detach_tasks()` take a task too heavy for the imbalance and `can_migrate_task()` a
//! cache-hot one; a balanced pass doubles the interval. A dump of
//! `tools/capture/schedlab-balance.bt` taken beside the trace records each CPU's
//! `nr_balance_failed` and `balance_interval` before and after every SCHED softirq
//! (`import::balance`). As the replay reaches a recorded pass, a copy of the model, in the
//! state of that moment (with `--cpu-avg`, every sample up to the pass applied), is given the
//! kernel's `nr_balance_failed` and `balance_interval` of that CPU's lowest domain and runs that
//! domain's pass (`update_blocked_averages()`, then `sched_balance_rq()`, busy or `CPU_IDLE` as
//! the interrupted task says: pid 0, the idle task, is a named shortcut for
//! `rq->idle_balance`, which a softirq run from ksoftirqd would not show). The kernel's
//! transition and the copy's are each read as one outcome ([`PassOutcome::of`], the ends of
//! 6.18's `sched_balance_rq()`):
//!
//! * balanced: `nr_balance_failed` back to 0, the interval doubled below its maximum or kept at
//!   it (`out_balanced`, `out_all_pinned`);
//! * failed: `nr_balance_failed` one up, the interval at its minimum (an imbalance and nothing
//!   moved; an active balance's pass too: the stopper's push comes after it);
//! * moved: `nr_balance_failed` back to 0, the interval at its minimum (`ld_moved`);
//! * other: anything else (`out_one_pinned` doubles the interval and keeps the count).
//!
//! Agreement is the same outcome. Nothing is fitted; the model's averages are its own, or the
//! kernel's with `--cpu-avg`. The dump is used only if it is on the trace's clock (`mono`, as
//! both): its busy passes each find their tick's record just before them, and the busy CPUs'
//! balance moves the trace shows (`MigrateHow::Other`, written by the destination) each fall
//! within a recorded pass of that CPU.

use super::{MigrateHow, ObsEvent, Replayer};
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
    /// Any other transition (`out_one_pinned`, or a state the three do not explain).
    Other,
}

impl PassOutcome {
    /// The outcome of a pass that took `failed` and `interval` (ms) from their first values to
    /// their second, in a domain whose interval runs from `min` to `max` ms.
    pub fn of(failed: [u32; 2], interval: [u32; 2], min: u32, max: u32) -> PassOutcome {
        let (from, to) = (interval[0] as u64, interval[1] as u64);
        // `out_balanced`/`out_all_pinned` double the interval below `max_interval` (below
        // MAX_PINNED_INTERVAL when every task was pinned) and keep it there.
        let balanced = to == from * 2 && from < max.max(MAX_PINNED_INTERVAL) as u64 || to == from && from >= max as u64;
        match (failed, to) {
            ([_, 0], i) if i != min as u64 && balanced => PassOutcome::Balanced,
            ([a, b], i) if b as u64 == a as u64 + 1 && i == min as u64 => PassOutcome::Failed,
            ([_, 0], i) if i == min as u64 => PassOutcome::Moved,
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
/// `MAX_PINNED_INTERVAL` (ms): how far a pass that found every task pinned doubles the interval.
const MAX_PINNED_INTERVAL: u32 = 512;
/// How long after a pass's softirq exit the `sched_migrate_task` it wrote may be recorded.
const MOVE_NS: u64 = 50_000;
/// How far before a busy pass's softirq entry its tick's records lie (they are µs apart).
pub const MATCH_NS: u64 = 100_000;
/// The share of the busy passes inside the trace that must find a record of their CPU within
/// [`MATCH_NS`] before them, and of the busy balance moves that must fall within a pass (per
/// mille), for the dump to be on the trace's clock.
pub const MIN_MATCHED_PER_MILLE: u64 = 900;

pub(super) struct PassAsker {
    /// Passes on model CPUs, in time order (trace clock).
    passes: Vec<(u64, u32, BalancePassRecord)>,
    next: usize,
    pub(super) report: BalancePassReport,
}

impl PassAsker {
    pub(super) fn new(obs: &Observed) -> Option<PassAsker> {
        let balance = obs.balance.as_deref()?;
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
        let mut report = BalancePassReport { passes: balance.len() as u64, ..Default::default() };
        let mut passes = Vec::new();
        let (mut busy, mut at_tick) = (0u64, 0u64);
        for p in balance {
            let Some(cpu) = obs.model_cpu(p.cpu) else { continue };
            if (t0..=t1).contains(&p.entry_ns) {
                report.in_trace += 1;
                if !p.idle {
                    busy += 1;
                    at_tick += near(cpu, p.entry_ns) as u64;
                }
                passes.push((p.entry_ns, cpu, *p));
            }
        }
        // The busy CPUs' balance moves inside the dump's span: each within a pass of its CPU.
        let span = passes.first().zip(passes.last()).map(|(a, b)| (a.0, b.2.exit_ns));
        let (mut moves, mut within) = (0u64, 0u64);
        for e in &obs.events {
            let ObsEvent::Migrate { to, by, how: MigrateHow::Other, .. } = e.ev else { continue };
            if to != by || !span.is_some_and(|(a, b)| (a..=b).contains(&e.ts)) {
                continue;
            }
            moves += 1;
            let i = passes.partition_point(|q| q.0 <= e.ts);
            within += passes[..i]
                .iter()
                .rev()
                .take_while(|q| e.ts - q.0 <= 1_000_000)
                .any(|q| q.1 == to && e.ts <= q.2.exit_ns + MOVE_NS) as u64;
        }
        // A dump on another clock than the trace's finds neither its ticks (alone they line up
        // by chance at about one offset in twenty: the tick's period) nor its moves.
        let enough = |n: u64, of: u64| n * 1000 >= of * MIN_MATCHED_PER_MILLE;
        report.used = busy > 0 && enough(at_tick, busy) && enough(within, moves);
        if !report.used {
            passes.clear();
        }
        Some(PassAsker { passes, next: 0, report })
    }
}

impl Replayer<'_> {
    /// Asks the model every recorded pass that began before `ts` (trace clock).
    pub(super) fn ask_passes(&mut self, ts: u64) {
        while let Some((at, cpu, p)) =
            self.passes.as_ref().and_then(|a| a.passes.get(a.next).copied()).filter(|(at, _, _)| *at < ts)
        {
            // The kernel's averages of the samples before the pass, when a dump gave them.
            self.seed_cpu_avg(at);
            let (kernel, model, why) = self.ask_pass(cpu, &p);
            let model_nr_running = self.f.rqs[cpu as usize].nr_running;
            let t = at.saturating_sub(self.t0);
            let a = self.passes.as_mut().expect("checked above");
            a.next += 1;
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

    /// A copy of the model runs `cpu`'s lowest domain's pass from the kernel's state before
    /// it: the kernel's outcome, the copy's, and in words what the copy found.
    fn ask_pass(&mut self, cpu: u32, p: &BalancePassRecord) -> (PassOutcome, PassOutcome, String) {
        let log = std::mem::take(&mut self.f.log);
        let mut f = self.f.clone();
        self.f.log = log;
        let c = cpu as usize;
        let (min, max) = {
            let d = &mut f.smp.as_deref_mut().expect("balancing is enabled").topo.cpus[c].domains[0];
            d.nr_balance_failed = p.failed[0];
            d.balance_interval = p.interval[0];
            (d.min_interval as u32, d.max_interval as u32)
        };
        let kind = if p.idle { CpuIdle::Idle } else { CpuIdle::NotIdle };
        f.update_blocked_averages(cpu);
        f.sched_balance_pass(cpu, 0, kind);
        let d = &f.smp.as_deref().expect("balancing is enabled").topo.cpus[c].domains[0];
        let kernel = PassOutcome::of(p.failed, p.interval, min, max);
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
        (kernel, model, format!("the model's pass {}: {found}; {}", model.word(), avgs.join(", ")))
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
        // out_one_pinned: the count kept, the interval doubled.
        assert_eq!(of([1, 1], [2, 4]), Other);
        // Every task pinned: doubled past the maximum, up to 512 ms.
        assert_eq!(of([0, 0], [8, 16]), Balanced);
        assert_eq!(of([0, 0], [512, 512]), Balanced);
        // Values the parser takes do not overflow.
        assert_eq!(of([u32::MAX, 0], [u32::MAX, u32::MAX]), Balanced);
        assert_eq!(of([u32::MAX, u32::MAX], [2, 2]), Other);
    }
}
