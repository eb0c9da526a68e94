//! Two imported traces of the same workload compared (`schedlab diff A B`): the A/B table a
//! reviewer reads for a baseline and a patched kernel.
//!
//! Both traces go through [`window_metrics`] over the same [`MetricsWindow`] (the whole trace by
//! default). Tasks are matched by comm: every task of a trace with the same (last) comm is summed
//! into one row (per-CPU kernel threads, thread pools), and `matches` maps a comm of A to a comm
//! of B for renamed tasks (that comm of B then meets no other comm of A). A comm in one trace only gives a row with that side missing, counted
//! as zero for CPU time and rates. CPUs are matched by number; a CPU whose runqueue depth is
//! known in neither trace (no `sched_switch` on it) has no row.
//!
//! Captures of slightly different lengths compare: CPU time is a share of the trace's window
//! (100 % = one CPU for the whole window), and counts are rates per second of the window.
//!
//! Each figure comes with B − A and (B − A)/A. It is flagged when both hold:
//! * the relative difference exceeds the noise level the user gives (`noise_pct`; a figure
//!   absent or zero in A and not in B counts as exceeding it);
//! * the absolute difference exceeds the figure's floor (the named constants below): a difference
//!   that is large relative to a tiny figure is not a finding (3 µs against 4 µs is +33 %).
//!   - shares of time (CPU time, busy time, time at a runqueue depth, idle while overloaded):
//!     [`FLOOR_PCT_POINTS`] percentage points;
//!   - wakeup latency: [`FLOOR_LATENCY_NS`]; and a percentile `p` is flagged only when both sides
//!     have at least [`TAIL_SAMPLES`] samples above it (`n·(1 − p/100)`: p50 needs 10 samples,
//!     p90 50, p99 500: a tail percentile of few samples is one sample) and the two samples'
//!     confidence bands for it do not overlap ([`quantile_band`], [`QUANTILE_SIGMAS`]): in a
//!     distribution with two modes (a wakeup that preempts at once, or waits for the tick) a
//!     percentile near the boundary jumps between the modes when the mix moves by a percent,
//!     which the band covers. The maximum is shown and never flagged (one sample by definition);
//!   - rates (wakeups, switches, involuntary switches, migrations per second): the count
//!     difference (B's count scaled to A's window) must exceed [`POISSON_SIGMAS`] standard
//!     deviations of a Poisson count, `√(nA + nB)`, and [`FLOOR_RATE_PER_S`];
//!   - mean runqueue depth: [`FLOOR_DEPTH`].

mod figures;
mod text;

pub use figures::quantile_band;

use super::metrics::{window_metrics, CpuMetrics, MetricsWindow, MigrationSource, WindowMetrics};
use super::store::TraceStore;
use super::timeline::TraceTimeline;
use figures::Compare;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use ts_rs::TS;

/// The noise level when none is given (%): above the run-to-run differences of the same workload
/// captured twice on our VM (`traces/linux-6.18-ab` `base-1`/`base-2`: CPU time within 1.6 %,
/// rates within 1.3 %), below the effect of one doubled weight (`shares-2048`: 13 to 52 %).
pub const DEFAULT_NOISE_PCT: f64 = 5.0;
/// Floor of a difference between shares of time, in percentage points.
pub const FLOOR_PCT_POINTS: f64 = 0.5;
/// Floor of a difference between wakeup latencies (ns).
pub const FLOOR_LATENCY_NS: f64 = 50_000.0;
/// Samples above a percentile each side needs for it to be flagged.
pub const TAIL_SAMPLES: f64 = 5.0;
/// Standard deviations of a percentile's rank in its confidence band ([`quantile_band`]).
pub const QUANTILE_SIGMAS: f64 = 3.0;
/// Standard deviations of a Poisson count a count difference must exceed.
pub const POISSON_SIGMAS: f64 = 3.0;
/// Floor of a difference between rates (events per second).
pub const FLOOR_RATE_PER_S: f64 = 5.0;
/// Floor of a difference between mean runqueue depths (tasks).
pub const FLOOR_DEPTH: f64 = 0.1;
/// Runqueue depths shown one by one; deeper ones are summed into one `≥` bucket.
pub const DEPTH_BUCKETS: usize = 4;

/// What a figure measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    /// A share of time, % (CPU time: of the window; a depth: of the CPU's known time).
    Percent,
    /// A latency, ns.
    Ns,
    /// Events per second of the window.
    PerSecond,
    /// A mean runqueue depth, tasks.
    Depth,
}

/// One figure of A and B.
#[derive(Clone, Debug, PartialEq, Serialize, TS)]
pub struct Figure {
    /// `cpu`, `latency_p50`, `switches`, `depth_2`, `depth_4+`, ...
    pub name: String,
    pub unit: Unit,
    /// `None`: the side has no such figure (the task is not in that trace, no wakeup).
    pub a: Option<f64>,
    pub b: Option<f64>,
    /// B − A (a missing side counts as 0 for shares and rates).
    pub delta: Option<f64>,
    /// (B − A) / A × 100; `None` when A is 0 or missing.
    pub relative_pct: Option<f64>,
    /// The raw counts behind a rate (A, B).
    pub counts: Option<(u64, u64)>,
    /// Above the noise level and the floor (module docs).
    pub flagged: bool,
}

/// One comm's row.
#[derive(Clone, Debug, PartialEq, Serialize, TS)]
pub struct TaskDiff {
    /// The comm in A (or in B for a comm only in B).
    pub comm: String,
    /// The comm in B when `--match` renamed it.
    pub comm_b: Option<String>,
    /// Tasks of that comm summed in each trace.
    pub tasks_a: u32,
    pub tasks_b: u32,
    /// CPU time (ns) in each trace.
    pub cpu_ns_a: u64,
    pub cpu_ns_b: u64,
    pub figures: Vec<Figure>,
    pub flagged: u32,
}

/// One CPU's row.
#[derive(Clone, Debug, PartialEq, Serialize, TS)]
pub struct CpuDiff {
    pub cpu: u32,
    pub figures: Vec<Figure>,
    pub flagged: u32,
}

/// One trace as the diff saw it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, TS)]
pub struct DiffSide {
    /// Trace clock, ns.
    pub t0: u64,
    pub t1: u64,
    pub window_ns: u64,
    pub tasks: u32,
    pub migrations_from: MigrationSource,
}

/// The flagging rule's constants, as applied.
#[derive(Clone, Debug, PartialEq, Serialize, TS)]
pub struct DiffRule {
    pub noise_pct: f64,
    pub floor_pct_points: f64,
    pub floor_latency_ns: f64,
    pub tail_samples: f64,
    pub quantile_sigmas: f64,
    pub poisson_sigmas: f64,
    pub floor_rate_per_s: f64,
    pub floor_depth: f64,
}

/// `schedlab diff`'s result.
#[derive(Clone, Debug, PartialEq, Serialize, TS)]
pub struct TraceDiff {
    pub rule: DiffRule,
    pub a: DiffSide,
    pub b: DiffSide,
    /// Rows by the larger CPU share of the two, then comm.
    pub tasks: Vec<TaskDiff>,
    pub cpus: Vec<CpuDiff>,
    /// Flagged figures in all rows.
    pub flagged: u32,
}

/// How to compare.
#[derive(Clone, Debug, PartialEq)]
pub struct DiffOptions {
    pub noise_pct: f64,
    /// `(comm in A, comm in B)` pairs.
    pub matches: Vec<(String, String)>,
    pub window: MetricsWindow,
}

impl Default for DiffOptions {
    fn default() -> Self {
        DiffOptions { noise_pct: DEFAULT_NOISE_PCT, matches: Vec::new(), window: MetricsWindow::all() }
    }
}

/// One trace, imported.
pub struct DiffInput<'a> {
    pub store: &'a TraceStore,
    pub timeline: &'a TraceTimeline,
}

/// A comm's tasks summed.
#[derive(Default)]
struct Group {
    tasks: u32,
    cpu_ns: u64,
    wakeups: u64,
    switches: u64,
    involuntary: u64,
    migrations: u64,
    latencies: Vec<u64>,
}

fn groups(m: &WindowMetrics) -> BTreeMap<String, Group> {
    let mut out: BTreeMap<String, Group> = BTreeMap::new();
    for t in &m.tasks {
        let g = out.entry(t.comm.clone()).or_default();
        g.tasks += 1;
        g.cpu_ns += t.cpu_ns;
        g.wakeups += t.wakeup_latency.count;
        g.switches += t.switches;
        g.involuntary += t.involuntary;
        g.migrations += t.migrations;
        g.latencies.extend_from_slice(&t.latencies_ns);
    }
    for g in out.values_mut() {
        g.latencies.sort_unstable();
    }
    out
}

/// A side's CPUs with a known runqueue depth, by number (the first row of a number).
fn known_cpus(m: &WindowMetrics) -> BTreeMap<u32, &CpuMetrics> {
    let mut by = BTreeMap::new();
    for x in m.cpus.iter().filter(|x| x.known_ns > 0) {
        by.entry(x.cpu).or_insert(x);
    }
    by
}

/// Compares `a` and `b`. Errors name a `--match` comm missing from its trace.
pub fn diff(a: DiffInput, b: DiffInput, opt: &DiffOptions) -> Result<TraceDiff, String> {
    let ma = window_metrics(a.store, a.timeline, &opt.window);
    let mb = window_metrics(b.store, b.timeline, &opt.window);
    let (ga, gb) = (groups(&ma), groups(&mb));
    let mut renamed: BTreeMap<&str, &str> = BTreeMap::new();
    for (old, new) in &opt.matches {
        if !ga.contains_key(old) {
            return Err(format!("--match {old}={new}: A has no task named {old:?}"));
        }
        if !gb.contains_key(new) {
            return Err(format!("--match {old}={new}: B has no task named {new:?}"));
        }
        renamed.insert(old, new);
    }
    let c = Compare { noise: opt.noise_pct, wa: ma.window_ns, wb: mb.window_ns };
    let empty = Group::default();
    let mut tasks = Vec::new();
    let mut taken: BTreeSet<&str> = BTreeSet::new();
    for (comm, g) in &ga {
        let target = renamed.get(comm.as_str()).copied().unwrap_or(comm);
        // A comm of B named by a match belongs to that match only.
        let claimed = !renamed.contains_key(comm.as_str()) && renamed.values().any(|&v| v == comm);
        let other = if claimed { None } else { gb.get(target) };
        if other.is_some() {
            taken.insert(target);
        }
        let comm_b = (target != comm).then(|| target.to_string());
        tasks.push(c.task(comm.clone(), comm_b, Some(g), other, &empty));
    }
    for (comm, g) in &gb {
        if !taken.contains(comm.as_str()) {
            tasks.push(c.task(comm.clone(), None, None, Some(g), &empty));
        }
    }
    let key = |t: &TaskDiff| (t.cpu_ns_a as f64 / c.wa.max(1) as f64).max(t.cpu_ns_b as f64 / c.wb.max(1) as f64);
    tasks.sort_by(|x, y| key(y).total_cmp(&key(x)).then_with(|| x.comm.cmp(&y.comm)));
    let mut cpus = Vec::new();
    // Each side's CPUs with a known depth, by number: a trace can name tens of thousands of CPUs
    // (a fuzzed systrace file did), and a search of each side per CPU took seconds.
    let (ka, kb) = (known_cpus(&ma), known_cpus(&mb));
    let ids: BTreeSet<u32> = ka.keys().chain(kb.keys()).copied().collect();
    for cpu in ids {
        cpus.push(c.cpu(cpu, ka.get(&cpu).copied(), kb.get(&cpu).copied()));
    }
    let flagged = tasks.iter().map(|t| t.flagged).sum::<u32>() + cpus.iter().map(|t| t.flagged).sum::<u32>();
    let side = |m: &WindowMetrics| DiffSide {
        t0: m.t0,
        t1: m.t1,
        window_ns: m.window_ns,
        tasks: m.tasks.len() as u32,
        migrations_from: m.migrations_from,
    };
    Ok(TraceDiff {
        rule: DiffRule {
            noise_pct: opt.noise_pct,
            floor_pct_points: FLOOR_PCT_POINTS,
            floor_latency_ns: FLOOR_LATENCY_NS,
            tail_samples: TAIL_SAMPLES,
            quantile_sigmas: QUANTILE_SIGMAS,
            poisson_sigmas: POISSON_SIGMAS,
            floor_rate_per_s: FLOOR_RATE_PER_S,
            floor_depth: FLOOR_DEPTH,
        },
        a: side(&ma),
        b: side(&mb),
        tasks,
        cpus,
        flagged,
    })
}

impl TraceDiff {
    /// The table for humans (`schedlab diff`): the rule, then a block per comm and per CPU, a
    /// `*` on each flagged figure.
    pub fn text(&self) -> String {
        text::render(self)
    }
}
