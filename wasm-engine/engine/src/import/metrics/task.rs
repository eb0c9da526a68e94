//! The per-task figures: each task's runs (the timeline's spans) and wake records walked in time
//! order, the gaps between runs given the state the run ended in (module docs of `mod.rs`).

use super::{LatencyStats, MigrationSource, Scope, StateSegment, StateTimes, TaskMetrics};
use crate::import::record::{state_bits, PrevState};
use crate::import::store::TraceStore;
use crate::import::thread_states::ThreadState;
use crate::import::timeline::{TraceTimeline, LOST, NONE, OPEN};

/// The state of a task between two of its runs, as its last switch-out left it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Gap {
    Runnable,
    Preempted,
    Sleeping,
    Uninterruptible,
    /// `T`, `t`, `P`, `I`: counted as "other", drawn as the state it is
    /// ([`ThreadState::after_switch_out`]: Stopped or Idle).
    Other(ThreadState),
    /// The switch-out is missing (`LOST`), or its `prev_state` is a number not decoded.
    Unknown,
    /// `X` or `Z`: gone.
    Dead,
    /// Before the task's first run: not counted until a wake record.
    Unseen,
}

impl Gap {
    fn of(code: u32) -> Gap {
        if code == LOST {
            return Gap::Unknown;
        }
        match PrevState::from_code(code) {
            PrevState::Runnable => Gap::Runnable,
            PrevState::Preempted => Gap::Preempted,
            PrevState::Raw(_) => Gap::Unknown,
            PrevState::Blocked(b) if b & (state_bits::X | state_bits::Z) != 0 => Gap::Dead,
            PrevState::Blocked(b) if b & state_bits::D != 0 => Gap::Uninterruptible,
            PrevState::Blocked(state_bits::S) => Gap::Sleeping,
            _ => Gap::Other(ThreadState::after_switch_out(code)),
        }
    }

    /// Whether a wake record ends this gap (the task was not runnable).
    fn wakes(self) -> bool {
        !matches!(self, Gap::Runnable | Gap::Preempted)
    }
}

/// `ids` (indices into columns) grouped by `key`, each group ordered by `ts` (CSR: group `k` is
/// `items[first[k]..first[k + 1]]`).
fn group(n: usize, ids: impl Iterator<Item = (u32, u32)> + Clone, ts: impl Fn(u32) -> u64) -> (Vec<u32>, Vec<u32>) {
    let mut first = vec![0u32; n + 1];
    for (k, _) in ids.clone() {
        first[k as usize + 1] += 1;
    }
    for k in 0..n {
        first[k + 1] += first[k];
    }
    let mut fill = first.clone();
    let mut items = vec![0u32; first[n] as usize];
    for (k, i) in ids {
        items[fill[k as usize] as usize] = i;
        fill[k as usize] += 1;
    }
    for k in 0..n {
        items[first[k] as usize..first[k + 1] as usize].sort_by_key(|&i| (ts(i), i));
    }
    (first, items)
}

/// One task's sums while it is walked.
#[derive(Default)]
struct Acc {
    states: StateTimes,
    cpu_ns: u64,
    switches: u64,
    involuntary: u64,
    preempted: u64,
    migrations: u64,
    latencies: Vec<u64>,
    seen: bool,
    /// The states as segments, clipped to the window, when asked for.
    segments: Option<Vec<StateSegment>>,
}

impl Acc {
    fn add(&mut self, s: &Scope, g: Gap, a: u64, b: u64) {
        let d = s.clip(a, b);
        if d == 0 || matches!(g, Gap::Dead | Gap::Unseen) {
            return;
        }
        self.seen = true;
        let state = match g {
            Gap::Runnable => ThreadState::Runnable,
            Gap::Preempted => ThreadState::Preempted,
            Gap::Sleeping => ThreadState::Sleeping,
            Gap::Uninterruptible => ThreadState::Uninterruptible,
            Gap::Other(state) => state,
            _ => ThreadState::Unknown,
        };
        self.segment(s, a, b, state, None);
        let st = &mut self.states;
        match g {
            Gap::Runnable => st.runnable_ns += d,
            Gap::Preempted => st.preempted_ns += d,
            Gap::Sleeping => st.sleeping_ns += d,
            Gap::Uninterruptible => st.uninterruptible_ns += d,
            Gap::Other(_) => st.other_ns += d,
            Gap::Unknown => st.unknown_ns += d,
            Gap::Dead | Gap::Unseen => {}
        }
    }

    fn segment(&mut self, s: &Scope, a: u64, b: u64, state: ThreadState, cpu: Option<u32>) {
        if let Some(v) = self.segments.as_mut() {
            let (start, end) = (a.max(s.t0), b.min(s.t1));
            if start < end {
                v.push(StateSegment { start, end, state, cpu });
            }
        }
    }
}

pub(super) fn task_metrics(
    store: &TraceStore,
    tl: &TraceTimeline,
    s: &Scope,
    migrations_from: MigrationSource,
) -> Vec<TaskMetrics> {
    let ntasks = store.tasks.len();
    let (span_first, spans) =
        group(ntasks, (0..tl.len() as u32).map(|i| (tl.task[i as usize], i)), |i| tl.start[i as usize]);
    let w = &store.wakeups;
    let (wake_first, wakes) =
        group(ntasks, (0..w.ts.len() as u32).map(|i| (w.wakee[i as usize], i)), |i| w.ts[i as usize]);
    let mut accs: Vec<Acc> = (0..ntasks).map(|_| Acc::default()).collect();
    for (t, acc) in accs.iter_mut().enumerate() {
        let mine = &spans[span_first[t] as usize..span_first[t + 1] as usize];
        let woken = &wakes[wake_first[t] as usize..wake_first[t + 1] as usize];
        if !mine.is_empty() || !woken.is_empty() {
            walk(tl, s, mine, woken.iter().map(|&i| w.ts[i as usize]), acc);
        }
    }
    count_migrations(store, tl, s, migrations_from, &spans, &span_first, &mut accs);
    let mut out = Vec::new();
    for (t, mut a) in accs.into_iter().enumerate() {
        let task = &store.tasks[t];
        if task.pid == 0 || !(a.seen || a.switches > 0 || a.migrations > 0 || !a.latencies.is_empty()) {
            continue;
        }
        a.latencies.sort_unstable();
        let comm = task.comms.last().map_or("<...>", |&c| store.comms.get(c)).to_string();
        out.push(TaskMetrics {
            task: t as u32,
            pid: task.pid,
            generation: task.generation,
            comm,
            cpu_ns: a.cpu_ns,
            switches: a.switches,
            involuntary: a.involuntary,
            preempted: a.preempted,
            migrations: a.migrations,
            wakeup_latency: LatencyStats::of_sorted(&a.latencies),
            states: a.states,
            latencies_ns: a.latencies,
        });
    }
    out
}

/// Every task's states over the whole trace as segments (indexed like the store's tasks; time
/// order): what `thread_states::ThreadStates` keeps for the thread-state tracks.
pub(crate) fn all_task_segments(store: &TraceStore, tl: &TraceTimeline) -> Vec<Vec<StateSegment>> {
    let ntasks = store.tasks.len();
    let s = Scope { t0: tl.t0, t1: tl.t1, sel: None };
    let (span_first, spans) =
        group(ntasks, (0..tl.len() as u32).map(|i| (tl.task[i as usize], i)), |i| tl.start[i as usize]);
    let w = &store.wakeups;
    let (wake_first, wakes) =
        group(ntasks, (0..w.ts.len() as u32).map(|i| (w.wakee[i as usize], i)), |i| w.ts[i as usize]);
    (0..ntasks)
        .map(|t| {
            let mine = &spans[span_first[t] as usize..span_first[t + 1] as usize];
            let woken = &wakes[wake_first[t] as usize..wake_first[t + 1] as usize];
            let mut acc = Acc { segments: Some(Vec::new()), ..Acc::default() };
            if store.tasks[t].pid != 0 && (!mine.is_empty() || !woken.is_empty()) {
                walk(tl, &s, mine, woken.iter().map(|&i| w.ts[i as usize]), &mut acc);
            }
            let mut v = acc.segments.unwrap_or_default();
            v.sort_by_key(|x| (x.start, x.end));
            v
        })
        .collect()
}

/// Task `task`'s states as segments in the window (time order; see `thread_states`).
pub(super) fn task_segments(store: &TraceStore, tl: &TraceTimeline, s: &Scope, task: u32) -> Vec<StateSegment> {
    let mut spans: Vec<u32> = (0..tl.len() as u32).filter(|&i| tl.task[i as usize] == task).collect();
    spans.sort_by_key(|&i| (tl.start[i as usize], i));
    let w = &store.wakeups;
    let mut wakes: Vec<u64> = (0..w.ts.len()).filter(|&i| w.wakee[i] == task).map(|i| w.ts[i]).collect();
    wakes.sort_unstable();
    let mut acc = Acc { segments: Some(Vec::new()), ..Acc::default() };
    if store.tasks.get(task as usize).is_some_and(|t| t.pid != 0) {
        walk(tl, s, &spans, wakes.into_iter(), &mut acc);
    }
    let mut v = acc.segments.unwrap_or_default();
    v.sort_by_key(|x| (x.start, x.end));
    v
}

/// One task: its runs `spans` (time order) and the times of its wake records (time order).
fn walk(tl: &TraceTimeline, s: &Scope, spans: &[u32], mut wakes: impl Iterator<Item = u64>, acc: &mut Acc) {
    let mut wake = wakes.next();
    // The gap before the next run: its state and since when.
    let (mut gap, mut since) = (Gap::Unseen, 0u64);
    for i in spans.iter().map(|&i| i as usize) {
        let (start, end, cpu) = (tl.start[i], tl.end[i], tl.cpu_of(i));
        gap_until(s, gap, since, start, Some(cpu), &mut wake, &mut wakes, acc);
        // The run; wake records during it are not wakeups.
        if s.cpu(cpu) {
            let d = s.clip(start, end);
            acc.cpu_ns += d;
            acc.states.running_ns += d;
            acc.segment(s, start, end, ThreadState::Running, Some(cpu));
            if d > 0 {
                acc.seen = true;
            }
            if tl.switch_in[i] != NONE && s.holds(start) {
                acc.switches += 1;
            }
            let st = tl.state[i];
            if tl.switch_out[i] != NONE && s.holds(end) && st != OPEN {
                match PrevState::from_code(st) {
                    PrevState::Runnable => acc.involuntary += 1,
                    PrevState::Preempted => {
                        acc.involuntary += 1;
                        acc.preempted += 1;
                    }
                    _ => {}
                }
            }
        } else if s.clip(start, end) > 0 {
            acc.seen = true;
        }
        while wake.is_some_and(|t| t < end) {
            wake = wakes.next();
        }
        // A run inside an earlier one (the trace shows the task on two CPUs at once, around a
        // lost record) does not end the earlier one. A run still open at the trace's end leaves
        // nothing after it.
        if end >= since || gap == Gap::Unseen {
            let g = if tl.state[i] == OPEN { Gap::Dead } else { Gap::of(tl.state[i]) };
            (gap, since) = (g, end);
        }
    }
    gap_until(s, gap, since, tl.t1, None, &mut wake, &mut wakes, acc);
}

/// The gap `[since, until)` in state `gap`, ended by the run on `cpu` (`None`: by the trace's
/// end). A wake record in it of a task not runnable starts a wakeup.
#[allow(clippy::too_many_arguments)]
fn gap_until(
    s: &Scope,
    gap: Gap,
    since: u64,
    until: u64,
    cpu: Option<u32>,
    wake: &mut Option<u64>,
    wakes: &mut impl Iterator<Item = u64>,
    acc: &mut Acc,
) {
    if gap != Gap::Unseen {
        while wake.is_some_and(|t| t < since) {
            *wake = wakes.next();
        }
    }
    let woken = match *wake {
        Some(t) if gap.wakes() && t <= until => Some(t),
        _ => None,
    };
    match woken {
        Some(t) => {
            acc.add(s, gap, since, t);
            acc.add(s, Gap::Runnable, t, until);
            if let Some(c) = cpu {
                if s.holds(t) && s.cpu(c) {
                    acc.latencies.push(until - t);
                }
            }
        }
        None => acc.add(s, gap, since, until),
    }
    while wake.is_some_and(|t| t <= until) {
        *wake = wakes.next();
    }
}

/// Migrations: `sched_migrate_task` records, or consecutive runs on two CPUs.
fn count_migrations(
    store: &TraceStore,
    tl: &TraceTimeline,
    s: &Scope,
    from: MigrationSource,
    spans: &[u32],
    span_first: &[u32],
    accs: &mut [Acc],
) {
    let sel = |c: i32| c >= 0 && s.cpu(c as u32);
    match from {
        MigrationSource::SchedMigrateTask => {
            let m = &store.migrations;
            for i in 0..m.ts.len() {
                let (o, d) = (m.orig_cpu[i], m.dest_cpu[i]);
                if o != d && s.holds(m.ts[i]) && (sel(o) || sel(d)) && store.tasks[m.task[i] as usize].pid != 0 {
                    accs[m.task[i] as usize].migrations += 1;
                }
            }
        }
        MigrationSource::RunCpuChanges => {
            for (t, acc) in accs.iter_mut().enumerate() {
                let mine = &spans[span_first[t] as usize..span_first[t + 1] as usize];
                for p in mine.windows(2) {
                    let (a, b) = (p[0] as usize, p[1] as usize);
                    let (ca, cb) = (tl.cpu_of(a), tl.cpu_of(b));
                    if ca != cb && s.holds(tl.start[b]) && (s.cpu(ca) || s.cpu(cb)) {
                        acc.migrations += 1;
                    }
                }
            }
        }
    }
}
