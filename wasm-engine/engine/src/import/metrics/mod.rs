//! Per-task and per-CPU figures of an imported trace over a window `[t0, t1)` of the trace clock
//! and an optional set of CPUs: what the replay view's area selection shows and what
//! `schedlab diff` compares. Computed from a [`TraceStore`] and its [`TraceTimeline`].
//!
//! Per task (`task.rs`): CPU time; switch-ins; involuntary switches (switched out still runnable,
//! `prev_state` `R` or `R+`), of which preempted (`R+`); migrations; wakeup latency (a wake record
//! to the wakee's next switch-in) with its percentiles; and the time in each thread state, the
//! states Perfetto draws:
//! * Running: the timeline's run spans (so a missing switch-out ends a run where the timeline
//!   ends it);
//! * Runnable (`R`): after a switch-out in `R` (a yield, a return to user with need-resched under
//!   `PREEMPT_NONE`), and from a wakeup to the switch-in that follows it;
//! * Runnable-preempted (`R+`): after a switch-out in `R+` (preempted in the kernel);
//! * Sleeping (`S`), Uninterruptible (`D`, any state with the `D` bit): after such a switch-out,
//!   until the task's first wake record;
//! * other: after a switch-out in another state (`T`, `t`, `P`, `I` (an idle kernel thread)),
//!   until the first wake record (segments name it Stopped or Idle);
//! * unknown: after a run whose switch-out is missing from the trace (`LOST`) or whose
//!   `prev_state` is a number the importer could not decode, until its next wake record or run.
//!
//! A run the trace shows inside another run of the same task on another CPU (around a lost
//! record) counts as CPU time too, so such a task's states can add up to more than the window
//! by that overlap; the state after both is the one the later-ending run left.
//!
//! A task's time counts from its first evidence: a run (the one current when the trace began
//! starts at the trace's start), or a wake record before its first run (it was asleep; the time
//! before is not counted). After a switch-out in a dead state (`X`, `Z`) nothing more counts.
//! State times are clipped to the window.
//!
//! Wakeup latency: a task asleep (its last switch-out in a sleeping state, or not yet seen) is
//! woken by its first wake record after that switch-out (`sched_waking` when the trace has it,
//! else `sched_wakeup` or `sched_wakeup_new`); the latency runs from that record to its next run.
//! Later wake records of the same episode, and wake records of a task that is running or
//! runnable, are not wakeups. A wakeup belongs to the window its wake record is in (its run may
//! start after `t1`); one whose task never runs again in the trace has no latency. Percentiles
//! are nearest-rank (`p`-th: the `⌈p·n/100⌉`-th smallest).
//!
//! With a CPU selection: a task's running time, switches and involuntary switches count on the
//! selected CPUs only, a wakeup counts when the task ran on a selected CPU after it, a migration
//! when it left or reached one; the other states are the task's own (they are on no CPU).
//!
//! Migrations: the trace's `sched_migrate_task` records (`orig_cpu` ≠ `dest_cpu`) when it has
//! any; without that event, a task's runs on two CPUs one after the other
//! ([`MigrationSource`]).
//!
//! Per CPU (`cpu.rs`): busy time (the runs on it), `sched_switch` records, and from
//! [`super::depth::RunqueueDepth`]: the time at each runqueue depth, the mean and largest depth,
//! the idle time (depth 0) and the part of it while another CPU had more than one runnable task,
//! all over the part of the window where the CPU's depth is known (from its first
//! `sched_switch`). Over the whole trace these equal [`super::depth::CpuRunqueue`]'s.
//!
//! [`WindowMetrics::csv`] renders both tables as CSV (`csv.rs`); [`thread_states`] gives one
//! task's states as segments (the same walk), for a thread-state track.

mod cpu;
mod csv;
mod task;

pub(crate) use task::all_task_segments;

use super::store::TraceStore;
pub use super::thread_states::ThreadState;
use super::timeline::TraceTimeline;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// Where the figures are taken: a time window and, optionally, some CPUs.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct MetricsWindow {
    /// Start (inclusive), ns of the trace clock; `None`: the trace's first record.
    pub t0: Option<u64>,
    /// End (exclusive), ns of the trace clock; `None`: the trace's last record.
    pub t1: Option<u64>,
    /// CPU numbers; `None`: every CPU.
    pub cpus: Option<Vec<u32>>,
}

impl MetricsWindow {
    /// The whole trace, every CPU.
    pub fn all() -> Self {
        Self::default()
    }
}

/// A distribution of wakeup latencies (ns); the figures are `None` without a sample.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, TS)]
pub struct LatencyStats {
    pub count: u64,
    pub p50_ns: Option<u64>,
    pub p90_ns: Option<u64>,
    pub p99_ns: Option<u64>,
    pub max_ns: Option<u64>,
    pub mean_ns: Option<u64>,
}

impl LatencyStats {
    /// The figures of `sorted` (ascending).
    pub fn of_sorted(sorted: &[u64]) -> Self {
        let n = sorted.len() as u64;
        if n == 0 {
            return Self::default();
        }
        let sum: u128 = sorted.iter().map(|&v| u128::from(v)).sum();
        LatencyStats {
            count: n,
            p50_ns: Some(percentile(sorted, 50)),
            p90_ns: Some(percentile(sorted, 90)),
            p99_ns: Some(percentile(sorted, 99)),
            max_ns: sorted.last().copied(),
            mean_ns: Some((sum / u128::from(n)) as u64),
        }
    }
}

/// Nearest-rank percentile of a non-empty ascending slice: the `⌈p·n/100⌉`-th smallest.
pub fn percentile(sorted: &[u64], p: u64) -> u64 {
    let n = sorted.len() as u64;
    let rank = (p * n).div_ceil(100).max(1);
    sorted[(rank - 1) as usize]
}

/// Time in each thread state (ns, clipped to the window); see the module docs.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, TS)]
pub struct StateTimes {
    pub running_ns: u64,
    /// `R`: runnable after a wakeup or a switch-out in `R`.
    pub runnable_ns: u64,
    /// `R+`: runnable after being preempted.
    pub preempted_ns: u64,
    /// `S`.
    pub sleeping_ns: u64,
    /// `D` (any state with the `D` bit).
    pub uninterruptible_ns: u64,
    /// `T`, `t`, `P`, `I`.
    pub other_ns: u64,
    /// After a run whose switch-out is missing or not decoded, until the next evidence.
    pub unknown_ns: u64,
}

/// A stretch of one thread state (trace clock, ns); `cpu` for a run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, TS)]
pub struct StateSegment {
    pub start: u64,
    pub end: u64,
    pub state: ThreadState,
    pub cpu: Option<u32>,
}

/// One task's figures in the window.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, TS)]
pub struct TaskMetrics {
    /// Index into the store's tasks (the replay view's task id).
    pub task: u32,
    pub pid: i32,
    pub generation: u32,
    /// The last comm it had (`<...>` when no record named it).
    pub comm: String,
    /// CPU time (on the selected CPUs).
    pub cpu_ns: u64,
    /// Switch-ins.
    pub switches: u64,
    /// Switch-outs while still runnable (`R` or `R+`) ...
    pub involuntary: u64,
    /// ... of which preempted (`R+`).
    pub preempted: u64,
    pub migrations: u64,
    pub wakeup_latency: LatencyStats,
    pub states: StateTimes,
    /// The latency samples, ascending (for merging distributions; not serialised).
    #[serde(skip)]
    #[ts(skip)]
    pub latencies_ns: Vec<u64>,
}

/// One CPU's figures in the window.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, TS)]
pub struct CpuMetrics {
    pub cpu: u32,
    /// Time a task ran on it.
    pub busy_ns: u64,
    /// `sched_switch` records on it.
    pub switches: u64,
    /// The part of the window where its runqueue depth is known (from its first `sched_switch`).
    pub known_ns: u64,
    /// Time at depth `d` (index `d`, the running task counted) within `known_ns`.
    pub depth_ns: Vec<u64>,
    /// Largest depth held for a non-zero time.
    pub max_depth: u32,
    /// Time-weighted mean depth over `known_ns`, ×1000.
    pub mean_depth_milli: u64,
    /// Time at depth 0.
    pub idle_ns: u64,
    /// Of that, the time another CPU (its depth known) had more than one runnable task.
    pub idle_while_overloaded_ns: u64,
}

/// How migrations were counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum MigrationSource {
    /// `sched_migrate_task` records.
    SchedMigrateTask,
    /// The trace has none: consecutive runs of a task on different CPUs.
    RunCpuChanges,
}

/// The figures of a window: a row per task seen in it, a row per selected CPU.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, TS)]
pub struct WindowMetrics {
    /// The window (trace clock, ns), clamped to the trace.
    pub t0: u64,
    pub t1: u64,
    pub window_ns: u64,
    /// The CPUs the figures are for (`None`: all).
    pub cpus_selected: Option<Vec<u32>>,
    pub migrations_from: MigrationSource,
    /// Tasks with any figure in the window, by store index.
    pub tasks: Vec<TaskMetrics>,
    /// Selected CPUs, by number.
    pub cpus: Vec<CpuMetrics>,
}

/// The resolved window: bounds and the CPU mask.
pub(crate) struct Scope {
    pub t0: u64,
    pub t1: u64,
    sel: Option<Vec<bool>>,
}

impl Scope {
    pub fn cpu(&self, c: u32) -> bool {
        self.sel.as_ref().is_none_or(|s| s.get(c as usize).copied().unwrap_or(false))
    }
    /// `[a, b)` clipped to the window, as a length.
    pub fn clip(&self, a: u64, b: u64) -> u64 {
        b.min(self.t1).saturating_sub(a.max(self.t0))
    }
    pub fn holds(&self, t: u64) -> bool {
        t >= self.t0 && t < self.t1
    }
}

/// The figures of `store` over `w` (`tl` built from the same store).
pub fn window_metrics(store: &TraceStore, tl: &TraceTimeline, w: &MetricsWindow) -> WindowMetrics {
    let t0 = w.t0.unwrap_or(tl.t0).clamp(tl.t0, tl.t1);
    let t1 = w.t1.unwrap_or(tl.t1).clamp(t0, tl.t1);
    let sel = w.cpus.as_ref().map(|cs| {
        let mut m = vec![false; tl.ncpus as usize];
        for &c in cs {
            if let Some(x) = m.get_mut(c as usize) {
                *x = true;
            }
        }
        m
    });
    let scope = Scope { t0, t1, sel };
    let migrations_from =
        if store.migrations.ts.is_empty() { MigrationSource::RunCpuChanges } else { MigrationSource::SchedMigrateTask };
    let tasks = task::task_metrics(store, tl, &scope, migrations_from);
    let cpus = cpu::cpu_metrics(store, tl, &scope);
    let cpus_selected = w.cpus.as_ref().map(|cs| {
        let mut v: Vec<u32> = cs.iter().copied().filter(|&c| c < tl.ncpus).collect();
        v.sort_unstable();
        v.dedup();
        v
    });
    WindowMetrics { t0, t1, window_ns: t1 - t0, cpus_selected, migrations_from, tasks, cpus }
}

/// Task `task`'s (an index into the store's tasks) thread states over the window, as the
/// segments its [`StateTimes`] sum (the window's CPU selection is not applied: a task's states are
/// its own), in time order. For a per-task thread-state track.
pub fn thread_states(store: &TraceStore, tl: &TraceTimeline, task: u32, w: &MetricsWindow) -> Vec<StateSegment> {
    let t0 = w.t0.unwrap_or(tl.t0).clamp(tl.t0, tl.t1);
    let t1 = w.t1.unwrap_or(tl.t1).clamp(t0, tl.t1);
    task::task_segments(store, tl, &Scope { t0, t1, sel: None }, task)
}

impl WindowMetrics {
    /// Both tables as CSV (RFC 4180): the task table, an empty line, the CPU table.
    pub fn csv(&self) -> String {
        csv::render(self)
    }
}
