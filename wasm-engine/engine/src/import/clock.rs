//! Do a bpftrace EEVDF dump and the tracepoints imported with it share a clock?
//!
//! bpftrace stamps its lines with `nsecs`, `ktime_get_ns()`: CLOCK_MONOTONIC. tracefs stamps
//! events with its `trace_clock`, by default `local` (the per-CPU sched_clock), which runs apart
//! from CLOCK_MONOTONIC by an offset that depends on the machine and drifts slowly; only the `mono`
//! trace clock (`ktime_get_mono_fast_ns()`) reads CLOCK_MONOTONIC. `tools/capture/schedlab-capture.sh`
//! selects `mono` and says so in both files; the captures in `traces/linux-6.18/` kept `local`.
//!
//! [`check_clocks`] reports what the files declare and what the data shows: every `S` line is
//! printed at a `sched_switch` of the task it describes, so with a shared clock each `S` sample
//! inside the trace's time span has a `sched_switch` of the same pid out of the same CPU within
//! microseconds. When most do not, it estimates the offset (trace − dump) that matches the most
//! samples: candidate offsets from a histogram over a bounded set of samples, each then counted
//! over all samples. Periodic workloads make offsets one period apart match almost as well, so the
//! runner-up count is reported beside the winner. Deterministic: sorted vectors, no hashing.

use super::record::EevdfEntity;
use super::store::TraceStore;
use serde::Serialize;
use std::collections::BTreeMap;

/// A sample and a switch this close (ns) are the same event.
pub const TOLERANCE_NS: i64 = 50_000;
/// Shared when at least this share (per mille) of the samples inside the trace match at offset 0.
pub const SHARED_PER_MILLE: u64 = 900;
/// Offsets searched by the estimate: ±10 s.
pub const SEARCH_NS: i64 = 10_000_000_000;
const BIN_NS: i64 = 20_000;
const SUBSAMPLE: usize = 256;
const CANDIDATES: usize = 8;

#[derive(Clone, Debug, Serialize, PartialEq, Eq, ts_rs::TS)]
pub struct OffsetEstimate {
    /// Median of (switch − sample) over the samples this offset matches.
    pub offset_ns: i64,
    pub matched: u64,
    /// Samples matched by the best other candidate offset (more than 40 µs away from this one).
    pub runner_up: u64,
}

#[derive(Clone, Debug, Serialize, PartialEq, Eq, ts_rs::TS)]
pub struct ClockCheck {
    /// The trace's clock as declared: a `.dat`'s clock option, or the `# trace_clock:` line that
    /// schedlab-capture.sh writes. None: not declared (plain tracefs text; tracefs' default is `local`).
    pub trace_clock: Option<String>,
    /// The dump's clock as its header declares it; None for dumps without a header (bpftrace
    /// `nsecs` is CLOCK_MONOTONIC in every version).
    pub dump_clock: Option<String>,
    /// What the declarations say: true for trace clock `mono`, false for any other declared trace
    /// clock, None when the trace clock is not declared.
    pub declared_shared: Option<bool>,
    /// `S` samples in the dump.
    pub samples: u64,
    /// Of those, the samples inside the trace's time span on a CPU the trace has switches for.
    pub in_span: u64,
    /// Of those, samples with a `sched_switch` of the same pid out of the same CPU within
    /// [`TOLERANCE_NS`] at offset 0.
    pub matched: u64,
    /// Median and largest |switch − sample| over the matched samples.
    pub median_offset_ns: Option<i64>,
    pub max_abs_offset_ns: Option<i64>,
    /// Measured: in_span > 0 and matched ≥ 90 % of in_span.
    pub shared: bool,
    /// When not shared: the offset (trace − dump) matching the most samples.
    pub estimate: Option<OffsetEstimate>,
}

/// Switch-out times per (cpu, pid), sorted (also `align`'s).
pub type SwitchIndex = BTreeMap<(u32, i32), Vec<u64>>;

pub(super) fn switch_index(store: &TraceStore) -> SwitchIndex {
    let mut idx: SwitchIndex = BTreeMap::new();
    let s = &store.switches;
    for i in 0..s.ts.len() {
        let pid = store.tasks[s.prev[i] as usize].pid;
        idx.entry((s.cpu[i], pid)).or_default().push(s.ts[i]);
    }
    for v in idx.values_mut() {
        v.sort_unstable();
    }
    idx
}

/// (switch − sample) of the switch nearest to `t` in `ts`.
pub(super) fn nearest(ts: &[u64], t: i128) -> Option<i64> {
    let i = ts.partition_point(|&x| i128::from(x) < t);
    [i.checked_sub(1), Some(i)]
        .into_iter()
        .flatten()
        .filter_map(|j| ts.get(j))
        .map(|&x| i128::from(x) - t)
        .min_by_key(|d| d.abs())
        .map(|d| d.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64)
}

/// Residuals (switch − sample − offset) of the samples within the tolerance at `offset`.
fn residuals(samples: &[(u64, (u32, i32))], idx: &SwitchIndex, offset: i64) -> Vec<i64> {
    let mut out = Vec::new();
    for (ts, key) in samples {
        let Some(sw) = idx.get(key) else { continue };
        if let Some(d) = nearest(sw, i128::from(*ts) + i128::from(offset)) {
            if d.unsigned_abs() <= TOLERANCE_NS as u64 {
                out.push(d + offset);
            }
        }
    }
    out
}

fn median(v: &mut [i64]) -> Option<i64> {
    v.sort_unstable();
    v.get(v.len() / 2).copied()
}

/// The clock report for a store holding a trace and a dump (None unless it has both dump samples
/// and tracepoint records).
pub fn check_clocks(store: &TraceStore) -> Option<ClockCheck> {
    if store.records == 0 {
        return None;
    }
    let samples: Vec<(u64, (u32, i32))> = store
        .eevdf
        .iter()
        .filter(|e| matches!(e.entity, EevdfEntity::Task { .. }))
        .map(|e| (e.ts_ns, (e.cpu, e.pid)))
        .collect();
    if samples.is_empty() {
        return None;
    }
    let trace_clock = store.meta.get("trace_clock").cloned();
    let dump_clock = store.meta.get("eevdf_clock").cloned();
    let idx = switch_index(store);
    let cpus: Vec<u32> = idx.keys().map(|k| k.0).collect();
    let (first, last) = (store.first_ts.unwrap_or(0), store.last_ts);
    let span =
        |t: i128| t >= i128::from(first) - i128::from(TOLERANCE_NS) && t <= i128::from(last) + i128::from(TOLERANCE_NS);
    let in_span = samples.iter().filter(|(t, k)| cpus.contains(&k.0) && span(i128::from(*t))).count() as u64;
    let mut at_zero = residuals(&samples, &idx, 0);
    let matched = at_zero.len() as u64;
    let shared = in_span > 0 && matched * 1000 >= in_span * SHARED_PER_MILLE;
    let max_abs_offset_ns = at_zero.iter().map(|d| d.abs()).max();
    let estimate = if shared || idx.is_empty() { None } else { estimate(&samples, &idx) };
    Some(ClockCheck {
        declared_shared: trace_clock.as_deref().map(|c| c == "mono"),
        trace_clock,
        dump_clock,
        samples: samples.len() as u64,
        in_span,
        matched,
        median_offset_ns: median(&mut at_zero),
        max_abs_offset_ns,
        shared,
        estimate,
    })
}

fn estimate(samples: &[(u64, (u32, i32))], idx: &SwitchIndex) -> Option<OffsetEstimate> {
    let step = samples.len().div_ceil(SUBSAMPLE);
    let mut bins: Vec<i64> = Vec::new();
    for (ts, key) in samples.iter().step_by(step) {
        let Some(sw) = idx.get(key) else { continue };
        let t = i128::from(*ts);
        let lo = sw.partition_point(|&x| i128::from(x) < t - i128::from(SEARCH_NS));
        for &x in &sw[lo..] {
            let d = i128::from(x) - t;
            if d > i128::from(SEARCH_NS) {
                break;
            }
            bins.push((d as i64).div_euclid(BIN_NS));
        }
    }
    bins.sort_unstable();
    let mut counts: Vec<(usize, i64)> = Vec::new();
    for run in bins.chunk_by(|a, b| a == b) {
        counts.push((run.len(), run[0]));
    }
    counts.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.abs().cmp(&b.1.abs())).then(a.1.cmp(&b.1)));
    let mut scored: Vec<(u64, i64, i64)> = Vec::new(); // (matched, median offset, candidate bin)
    for &(_, bin) in counts.iter().take(CANDIDATES) {
        let centre = bin * BIN_NS + BIN_NS / 2;
        let mut r = residuals(samples, idx, centre);
        // Re-centre on the matched samples' median, then count again.
        let Some(m) = median(&mut r) else { continue };
        let mut r = residuals(samples, idx, m);
        if let Some(m2) = median(&mut r) {
            scored.push((r.len() as u64, m2, bin));
        }
    }
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.abs().cmp(&b.1.abs())));
    let &(matched, offset_ns, _) = scored.first()?;
    let runner_up = scored.iter().filter(|s| (s.1 - offset_ns).abs() > 2 * BIN_NS).map(|s| s.0).max().unwrap_or(0);
    Some(OffsetEstimate { offset_ns, matched, runner_up })
}
