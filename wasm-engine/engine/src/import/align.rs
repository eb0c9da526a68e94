//! Puts a bpftrace EEVDF-state dump on a trace's clock.
//!
//! The dump's times are bpftrace `nsecs` (`ktime_get_ns()`, CLOCK_MONOTONIC); the tracepoints'
//! are the trace clock (`local`: the scheduler clock). Both tick in nanoseconds from about the
//! same origin but are not the same clock, so a dump and a trace captured together differ by an
//! offset. Every `S` line of the dump is written at a `sched_switch` whose `prev` is that task on
//! that CPU, so the offset is the one that puts the most `S` lines on a switch-out of the same
//! pid on the same CPU:
//!
//! 1. for a few `S` lines spread over the dump (whose pid switches out in the trace), every
//!    switch-out of that pid on that CPU proposes `switch time − sample time`;
//! 2. the proposals are sorted; each [`TOLERANCE_NS`]-wide stretch of them is a candidate (the
//!    true offset is proposed once per line, false ones scatter, but a periodic workload
//!    proposes offsets whole periods away almost as often), and the densest few distinct ones
//!    are kept, each at its median;
//! 3. for each candidate every `S` line that falls inside the trace once shifted is checked for a
//!    switch-out of its pid on its CPU within [`TOLERANCE_NS`]; the candidate matching the most
//!    lines wins (then the smaller median error), and the matched fraction says how good the fit is.
//!
//! An alignment is accepted when at least [`MIN_MATCHED`] lines and half of those inside the
//! trace match.

pub use super::clock::SwitchIndex;
use super::clock::{nearest, switch_index};
use super::record::{EevdfEntity, EevdfSample};
use super::store::TraceStore;
use serde::Serialize;

/// How far a shifted `S` line may lie from its switch-out (clock read jitter and drift).
pub const TOLERANCE_NS: u64 = 50_000;
/// Lines used to propose offsets.
const PROBES: usize = 24;
/// Offsets checked against every line (the densest distinct windows of proposals).
const CANDIDATES: usize = 8;
/// Fewest matched lines for an accepted alignment.
pub const MIN_MATCHED: u64 = 8;

#[derive(Clone, Debug, Serialize, PartialEq, Eq, ts_rs::TS)]
pub struct Alignment {
    /// Add to a dump time to get the trace clock.
    pub offset_ns: i64,
    /// `S` lines that fall inside the trace once shifted, and those with a switch-out of their
    /// pid on their CPU within the tolerance.
    pub in_trace: u64,
    pub matched: u64,
    /// Median |shifted line − its switch-out| of the matched lines (ns).
    pub median_error_ns: u64,
    pub accepted: bool,
    /// Why not, when not.
    pub reason: Option<String>,
}

/// Finds the offset that puts `dump`'s `S` lines on `store`'s switch-outs (see the module docs).
pub fn align(store: &TraceStore, dump: &[EevdfSample]) -> Alignment {
    align_index(&switch_index(store), (store.first_ts.unwrap_or(0), store.last_ts), dump)
}

/// [`align`] on switch-out times per (cpu, pid) (sorted) of a trace spanning `span` (first and
/// last record, ns): the replay's observed schedule has no store.
pub fn align_index(outs: &SwitchIndex, span: (u64, u64), dump: &[EevdfSample]) -> Alignment {
    let tasks: Vec<&EevdfSample> = dump
        .iter()
        .filter(|s| matches!(s.entity, EevdfEntity::Task { .. }) && s.pid != 0 && outs.contains_key(&(s.cpu, s.pid)))
        .collect();
    let fail = |reason: &str| Alignment {
        offset_ns: 0,
        in_trace: 0,
        matched: 0,
        median_error_ns: 0,
        accepted: false,
        reason: Some(reason.to_string()),
    };
    if tasks.is_empty() {
        return fail("no S line of the dump names a task that switches out on the same CPU in the trace");
    }
    let mut proposals: Vec<i128> = Vec::new();
    let step = (tasks.len() / PROBES).max(1);
    for s in tasks.iter().step_by(step).take(PROBES) {
        for &t in &outs[&(s.cpu, s.pid)] {
            proposals.push(t as i128 - s.ts_ns as i128);
        }
    }
    proposals.sort_unstable();
    // Every window of proposals within the tolerance, by how many it holds; the densest few
    // distinct ones are candidates (a periodic workload proposes offsets one period apart
    // almost as often as the true one).
    let mut windows: Vec<(usize, i128)> = Vec::new();
    let mut a = 0usize;
    for b in 0..proposals.len() {
        while proposals[b] - proposals[a] > TOLERANCE_NS as i128 {
            a += 1;
        }
        windows.push((b + 1 - a, proposals[(a + b) / 2]));
    }
    windows.sort_by(|x, y| y.0.cmp(&x.0).then(x.1.cmp(&y.1)));
    let mut candidates: Vec<i128> = Vec::new();
    for &(_, off) in &windows {
        if candidates.len() == CANDIDATES {
            break;
        }
        if candidates.iter().all(|&c| (c - off).abs() > 2 * TOLERANCE_NS as i128) {
            candidates.push(off);
        }
    }
    // Each candidate checked against every line; the most matched wins, then the smallest
    // median error, then the earliest offset.
    let best = candidates
        .iter()
        .map(|&off| fit(outs, span, &tasks, off))
        .min_by(|x, y| {
            y.matched
                .cmp(&x.matched)
                .then(x.median_error_ns.cmp(&y.median_error_ns))
                .then(x.offset_ns.cmp(&y.offset_ns))
        })
        .expect("at least one proposal");
    best
}

/// How well `offset` puts `tasks`' lines on their switch-outs.
fn fit(outs: &SwitchIndex, span: (u64, u64), tasks: &[&EevdfSample], offset: i128) -> Alignment {
    let (lo, hi) = (span.0 as i128, span.1 as i128);
    let (mut in_trace, mut errors) = (0u64, Vec::new());
    for s in tasks {
        let t = s.ts_ns as i128 + offset;
        if t < lo || t > hi {
            continue;
        }
        in_trace += 1;
        if let Some(d) = nearest(&outs[&(s.cpu, s.pid)], t).map(i64::unsigned_abs).filter(|&d| d <= TOLERANCE_NS) {
            errors.push(d);
        }
    }
    errors.sort_unstable();
    let matched = errors.len() as u64;
    let accepted = matched >= MIN_MATCHED && 2 * matched >= in_trace;
    Alignment {
        offset_ns: offset.clamp(i64::MIN as i128, i64::MAX as i128) as i64,
        in_trace,
        matched,
        median_error_ns: errors.get(errors.len() / 2).copied().unwrap_or(0),
        accepted,
        reason: (!accepted).then(|| {
            format!("only {matched} of the {in_trace} S lines inside the trace lie on a switch-out of their task")
        }),
    }
}

/// The dump's samples moved onto the trace clock.
pub fn shifted(dump: &[EevdfSample], offset_ns: i64) -> Vec<EevdfSample> {
    dump.iter().map(|s| EevdfSample { ts_ns: s.ts_ns.saturating_add_signed(offset_ns), ..s.clone() }).collect()
}
