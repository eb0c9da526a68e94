//! The kernel's per-CPU PELT averages fed to the per-decision replay (`schedlab replay
//! --cpu-avg DUMP`, issue 18).
//!
//! Placement (`select_task_rq_fair()`) and balancing read each CPU's root cfs_rq averages:
//! `cpu_load()`, `cpu_runnable()`, `cpu_util()`. The trace shows who ran, not those averages,
//! and the replay builds them from the tasks it sees, starting from what the tasks' observed
//! shares suggest (`shadow::existing_averages`): whatever ran before the trace, or is not in it
//! (the capture's own shell, bpftrace starting), is missing, and the first forks of a workload
//! are decided on it. A dump of `tools/capture/schedlab-cpu-avg.bt`, taken beside a trace on
//! the `mono` clock, records each CPU's `rq->cfs.avg` at its switches (at most one sample per
//! CPU per millisecond). Here, as the replay reaches each sample's time, the model's root cfs_rq
//! of that CPU is set to the recorded `load_avg`, `runnable_avg` and `util_avg` less what is
//! leaving the CPU (`CpuAvgSample::settled`: `cfs_rq->removed`, and an exiting outgoing task's
//! own averages, whose removal the sample comes before; a task of a group is taken out of
//! the root one for one, a named shortcut: its group entity's share would scale the load),
//! with sums derived as `Fair::start_cfs_rq_avg` derives them, and from there the model's own
//! updates carry it to the next sample. The tasks' own averages stay the model's. Nothing is fitted: the values are
//! the kernel's, read; the placements and balance decisions scored are still the model's.
//!
//! A sample belongs to the `sched_switch` of its `pid` out of its CPU at the same time: the dump
//! is used only when at least [`MIN_MATCHED_PER_MILLE`] of its samples inside the trace find
//! theirs within [`NEAR_NS`], and at least [`MIN_TIGHT_PER_MILLE`] within [`MATCH_NS`] (a trace
//! on another clock than `mono` has neither). The looser window is for a capture that runs the
//! EEVDF dump too: its bpftrace program on the same tracepoint can run first and delay this
//! one's `nsecs` (measured with `schedlab-capture.sh --cpu-avg`: 5 of 36 samples 20–155 µs from
//! their record).

use super::{ObsEvent, Replayer};
use crate::import::cpu_avg::CpuAvgSample;
use crate::replay::observe::Observed;
use serde::Serialize;
use std::collections::BTreeMap;

/// How far a sample's time may lie from its `sched_switch` record: both are taken in the same
/// tracepoint call, microseconds apart.
pub const MATCH_NS: u64 = 20_000;
/// The share of the dump's samples inside the trace that must find their switch within
/// [`NEAR_NS`] (per mille).
pub const MIN_MATCHED_PER_MILLE: u64 = 900;
/// The wider window: another bpftrace program on the same tracepoint may run first.
pub const NEAR_NS: u64 = 200_000;
/// The share that must find their switch within [`MATCH_NS`] (per mille): most samples are taken
/// microseconds from their record, which a trace on another clock does not show by chance.
pub const MIN_TIGHT_PER_MILLE: u64 = 500;

/// What the dump gave the replay.
#[derive(Debug, Clone, Default, Serialize, ts_rs::TS)]
pub struct CpuAvgReport {
    /// Samples in the dump; those inside the trace's span; those that found their switch
    /// (within `NEAR_NS`).
    pub samples: u64,
    pub in_trace: u64,
    pub matched: u64,
    /// The dump agreed with the trace's clock and was used.
    pub used: bool,
    /// Samples applied to the model (every sample up to the trace's first record, the last of
    /// each CPU prevailing, then every sample inside it).
    pub applied: u64,
}

pub(super) struct CpuAvgSeeder {
    /// Samples on model CPUs, in time order.
    samples: Vec<(u64, u32, CpuAvgSample)>,
    next: usize,
    pub(super) report: CpuAvgReport,
}

impl CpuAvgSeeder {
    pub(super) fn new(obs: &Observed) -> Option<CpuAvgSeeder> {
        if obs.cpu_avg.is_empty() {
            return None;
        }
        let mut outs: BTreeMap<(u32, i32), Vec<u64>> = BTreeMap::new();
        for e in &obs.events {
            if let ObsEvent::Switch { cpu, prev, .. } = e.ev {
                outs.entry((cpu, obs.tasks[prev as usize].pid)).or_default().push(e.ts);
            }
        }
        for v in outs.values_mut() {
            v.sort_unstable();
        }
        let (t0, t1) = (obs.t0.unwrap_or(0), obs.t1);
        let mut report = CpuAvgReport { samples: obs.cpu_avg.len() as u64, ..Default::default() };
        let mut samples = Vec::new();
        let mut tight = 0u64;
        for s in &obs.cpu_avg {
            let Some(cpu) = obs.model_cpu(s.cpu) else { continue };
            if (t0..=t1).contains(&s.ts_ns) {
                report.in_trace += 1;
                let within = |w: u64| {
                    outs.get(&(cpu, s.pid)).is_some_and(|ts| {
                        let i = ts.partition_point(|&t| t < s.ts_ns.saturating_sub(w));
                        ts.get(i).is_some_and(|&t| t <= s.ts_ns.saturating_add(w))
                    })
                };
                report.matched += within(NEAR_NS) as u64;
                tight += within(MATCH_NS) as u64;
            }
            samples.push((s.ts_ns, cpu, *s));
        }
        report.used = report.in_trace > 0
            && report.matched * 1000 >= report.in_trace * MIN_MATCHED_PER_MILLE
            && tight * 1000 >= report.in_trace * MIN_TIGHT_PER_MILLE;
        if !report.used {
            samples.clear();
        }
        samples.sort_by_key(|&(ts, cpu, _)| (ts, cpu));
        Some(CpuAvgSeeder { samples, next: 0, report })
    }
}

impl Replayer<'_> {
    /// Applies every sample of the dump up to `ts` (trace clock) to the model's root cfs_rqs.
    pub(super) fn seed_cpu_avg(&mut self, ts: u64) {
        let Some(s) = self.cpu_avg.as_mut() else { return };
        while let Some(&(_, cpu, x)) = s.samples.get(s.next).filter(|(at, _, _)| *at <= ts) {
            s.next += 1;
            s.report.applied += 1;
            let [load, runnable, util] = x.settled();
            self.f.start_cfs_rq_avg(cpu, load, runnable, util);
        }
    }
}
