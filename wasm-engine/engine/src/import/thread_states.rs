//! [`ThreadStates`]: each task's state over the whole trace, as Perfetto's thread-state tracks
//! show it, kept for the replay view's tracks. The states come from one derivation, the walk of
//! `metrics` (its module docs say how: Running in the timeline's run spans; between runs what the
//! switch-out left, `R` Runnable, `R+` Runnable (Preempted), a blocked state until the task's
//! first wake record and Runnable from there to its next run; Unknown after a lost switch-out;
//! nothing after `X`/`Z` or before the first evidence); this module names the states, keeps
//! every task's segments and totals, and answers window queries.
//!
//! Window queries merge segments shorter than a bucket, like the CPU lanes' spans: the state
//! that lasted longest in the merged stretch names it, so a long trace gives about one segment
//! per bucket per track.

use super::buckets::merged_run;
use super::metrics::all_task_segments;
use super::record::PrevState;
use super::store::TraceStore;
use super::timeline::{TraceTimeline, LOST};
use serde::Serialize;
use ts_rs::TS;

/// A thread state as the tracks draw it (its column code is the discriminant).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, TS)]
#[serde(rename_all = "snake_case")]
#[repr(u8)]
pub enum ThreadState {
    Running = 0,
    /// `R`, or woken and waiting for a CPU.
    Runnable = 1,
    /// `R+`: preempted, still on the runqueue.
    Preempted = 2,
    /// `S`.
    Sleeping = 3,
    /// `D` (also `S|D`).
    Uninterruptible = 4,
    /// `I`: an idle kernel thread's sleep.
    Idle = 5,
    /// `T`, `t`, `X`, `Z`, `P`.
    Stopped = 6,
    /// Not known from the trace: a lost switch-out, or an undecoded `prev_state`.
    Unknown = 7,
}

impl ThreadState {
    pub const ALL: [ThreadState; 8] = [
        ThreadState::Running,
        ThreadState::Runnable,
        ThreadState::Preempted,
        ThreadState::Sleeping,
        ThreadState::Uninterruptible,
        ThreadState::Idle,
        ThreadState::Stopped,
        ThreadState::Unknown,
    ];

    /// The column code.
    pub fn code(self) -> u32 {
        self as u32
    }

    /// A stable snake_case name.
    pub fn key(self) -> &'static str {
        match self {
            ThreadState::Running => "running",
            ThreadState::Runnable => "runnable",
            ThreadState::Preempted => "preempted",
            ThreadState::Sleeping => "sleeping",
            ThreadState::Uninterruptible => "uninterruptible",
            ThreadState::Idle => "idle",
            ThreadState::Stopped => "stopped",
            ThreadState::Unknown => "unknown",
        }
    }

    /// As Perfetto's thread-state track names it.
    pub fn name(self) -> &'static str {
        match self {
            ThreadState::Running => "Running",
            ThreadState::Runnable => "Runnable",
            ThreadState::Preempted => "Runnable (Preempted)",
            ThreadState::Sleeping => "Sleeping",
            ThreadState::Uninterruptible => "Uninterruptible Sleep",
            ThreadState::Idle => "Idle",
            ThreadState::Stopped => "Stopped",
            ThreadState::Unknown => "Unknown",
        }
    }

    /// The state a run span's end code leaves the task in (`OPEN` is not asked).
    pub fn after_switch_out(code: u32) -> ThreadState {
        if code == LOST {
            return ThreadState::Unknown;
        }
        match PrevState::from_code(code) {
            PrevState::Runnable => ThreadState::Runnable,
            PrevState::Preempted => ThreadState::Preempted,
            PrevState::Raw(_) => ThreadState::Unknown,
            PrevState::Blocked(bits) => {
                use super::record::state_bits as b;
                if bits & b::D != 0 {
                    ThreadState::Uninterruptible
                } else if bits & b::S != 0 {
                    ThreadState::Sleeping
                } else if bits & b::I != 0 {
                    ThreadState::Idle
                } else if bits & (b::T | b::LOWER_T | b::X | b::Z | b::P) != 0 {
                    ThreadState::Stopped
                } else {
                    ThreadState::Unknown
                }
            }
        }
    }
}

/// Every task's state segments, as columns: task `t`'s are `first[t]..first[t + 1]`, in time
/// order, back to back where the trace tells (gaps only before the first evidence).
#[derive(Clone, Debug, Default)]
pub struct ThreadStates {
    pub first: Vec<u32>,
    pub start: Vec<u64>,
    pub end: Vec<u64>,
    pub state: Vec<ThreadState>,
    /// The CPU of a Running segment; [`u32::MAX`] for the others.
    pub cpu: Vec<u32>,
    /// Per task, its time in each state over the whole trace (indexed by the state's code).
    pub totals: Vec<[u64; 8]>,
}

/// Segments in a window, with the row of the requested task each belongs to.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StateCols {
    pub row: Vec<u32>,
    pub start: Vec<u64>,
    pub end: Vec<u64>,
    pub state: Vec<u32>,
    pub cpu: Vec<u32>,
    /// Segments merged into this one (1: a single segment).
    pub count: Vec<u32>,
}

impl StateCols {
    pub fn len(&self) -> usize {
        self.row.len()
    }
    pub fn is_empty(&self) -> bool {
        self.row.is_empty()
    }
    fn push(&mut self, row: u32, start: u64, end: u64, state: ThreadState, cpu: u32, count: u32) {
        self.row.push(row);
        self.start.push(start);
        self.end.push(end);
        self.state.push(state.code());
        self.cpu.push(cpu);
        self.count.push(count);
    }
}

impl ThreadStates {
    /// Every task's segments and totals (the module docs say how).
    pub fn build(store: &TraceStore, tl: &TraceTimeline) -> ThreadStates {
        let all = all_task_segments(store, tl);
        let mut out = ThreadStates { first: Vec::with_capacity(all.len() + 1), ..Default::default() };
        for segs in all {
            out.first.push(out.start.len() as u32);
            let mut totals = [0u64; 8];
            for g in segs {
                totals[g.state as usize] += g.end - g.start;
                out.start.push(g.start);
                out.end.push(g.end);
                out.state.push(g.state);
                out.cpu.push(g.cpu.unwrap_or(u32::MAX));
            }
            out.totals.push(totals);
        }
        out.first.push(out.start.len() as u32);
        out
    }

    /// Number of tasks.
    pub fn tasks(&self) -> usize {
        self.totals.len()
    }

    /// The segments of `tasks` (row `r` is `tasks[r]`) overlapping `[t0, t1)`, consecutive
    /// segments shorter than `bucket` merged (the longest names the merged one).
    pub fn window(&self, tasks: &[u32], t0: u64, t1: u64, bucket: u64) -> StateCols {
        let mut out = StateCols::default();
        let bucket = bucket.max(1);
        for (row, &t) in tasks.iter().enumerate() {
            if t as usize >= self.tasks() {
                continue;
            }
            let (a, b) = (self.first[t as usize] as usize, self.first[t as usize + 1] as usize);
            let mut i = a + self.end[a..b].partition_point(|&e| e <= t0);
            while i < b && self.start[i] < t1 {
                let (j, e) = merged_run(i, b, bucket, |k| self.start[k], |k| self.end[k]);
                // The longest state names the merged segment (the first of equals).
                let best = (i..j).max_by_key(|&k| (self.end[k] - self.start[k], std::cmp::Reverse(k))).unwrap_or(i);
                out.push(row as u32, self.start[i], e, self.state[best], self.cpu[best], (j - i) as u32);
                i = j;
            }
        }
        out
    }

    /// Task `t`'s time in each state within `[t0, t1)` (indexed by the state's code).
    pub fn time_in(&self, t: usize, t0: u64, t1: u64) -> [u64; 8] {
        let mut acc = [0u64; 8];
        if t >= self.tasks() {
            return acc;
        }
        let (a, b) = (self.first[t] as usize, self.first[t + 1] as usize);
        let mut i = a + self.end[a..b].partition_point(|&e| e <= t0);
        while i < b && self.start[i] < t1 {
            let (s, e) = (self.start[i].max(t0), self.end[i].min(t1));
            acc[self.state[i] as usize] += e.saturating_sub(s);
            i += 1;
        }
        acc
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::import_text;

    fn line(comm_pid: &str, cpu: u32, ts: &str, ev: &str) -> String {
        format!("{comm_pid:>16} [{cpu:03}] d..2. {ts}: {ev}\n")
    }

    fn switch(prev: (&str, i32), st: &str, next: (&str, i32)) -> String {
        format!(
            "sched_switch: prev_comm={} prev_pid={} prev_prio=120 prev_state={st} ==> next_comm={} next_pid={} next_prio=120",
            prev.0, prev.1, next.0, next.1
        )
    }

    fn wake(comm: &str, pid: i32, cpu: u32) -> String {
        format!("sched_waking: comm={comm} pid={pid} prio=120 target_cpu={cpu:03}")
    }

    /// a runs, sleeps (S), is woken, waits, runs, is preempted (R+) by b, runs again till the end.
    fn trace() -> String {
        let mut s = String::from("# tracer: nop\n");
        s += &line("<idle>-0", 0, "100.000000", &switch(("swapper/0", 0), "R", ("a", 10)));
        s += &line("a-10", 0, "100.000010", &switch(("a", 10), "S", ("swapper/0", 0)));
        s += &line("<idle>-0", 1, "100.000030", &wake("a", 10, 0));
        s += &line("<idle>-0", 0, "100.000035", &switch(("swapper/0", 0), "R", ("a", 10)));
        s += &line("a-10", 0, "100.000050", &switch(("a", 10), "R+", ("b", 11)));
        s += &line("b-11", 0, "100.000060", &switch(("b", 11), "D", ("a", 10)));
        s += &line("a-10", 0, "100.000100", "sched_stat_runtime: comm=a pid=10 runtime=1 [ns]");
        s
    }

    fn states() -> (TraceStore, TraceTimeline, ThreadStates) {
        let (store, _) = import_text(trace().as_bytes());
        let tl = TraceTimeline::build(&store);
        let ts = ThreadStates::build(&store, &tl);
        (store, tl, ts)
    }

    fn task(store: &TraceStore, pid: i32) -> usize {
        store.tasks.iter().position(|t| t.pid == pid).unwrap()
    }

    #[test]
    fn sleep_wakeup_preemption_and_the_end() {
        let (store, tl, ts) = states();
        let a = task(&store, 10);
        let segs: Vec<_> = (ts.first[a] as usize..ts.first[a + 1] as usize)
            .map(|i| (ts.start[i] - tl.t0, ts.end[i] - tl.t0, ts.state[i]))
            .collect();
        use ThreadState::*;
        assert_eq!(
            segs,
            vec![
                (0, 10_000, Running),
                (10_000, 30_000, Sleeping),
                (30_000, 35_000, Runnable),
                (35_000, 50_000, Running),
                (50_000, 60_000, Preempted),
                (60_000, 100_000, Running),
            ]
        );
        assert_eq!(ts.totals[a][Running as usize], 10_000 + 15_000 + 40_000);
        let b = task(&store, 11);
        // b ran 10 µs, then D to the end of the trace (no wakeup).
        let bs: Vec<_> =
            (ts.first[b] as usize..ts.first[b + 1] as usize).map(|i| (ts.end[i] - ts.start[i], ts.state[i])).collect();
        assert_eq!(bs, vec![(10_000, Running), (40_000, Uninterruptible)]);
        assert_eq!(ts.time_in(a, tl.t0 + 20_000, tl.t0 + 40_000)[Sleeping as usize], 10_000);
        assert_eq!(ts.time_in(a, tl.t0 + 20_000, tl.t0 + 40_000)[Runnable as usize], 5_000);
        assert_eq!(ts.time_in(a, tl.t0 + 20_000, tl.t0 + 40_000)[Running as usize], 5_000);
    }

    #[test]
    fn windows_clip_and_merge() {
        let (store, tl, ts) = states();
        let a = task(&store, 10) as u32;
        let b = task(&store, 11) as u32;
        let w = ts.window(&[b, a], tl.t0 + 40_000, tl.t0 + 55_000, 1);
        // Row 0 = b: Running 50..60 µs; row 1 = a: Running 35..50, then Preempted 50..60.
        assert_eq!(w.row, vec![0, 1, 1]);
        use ThreadState::*;
        assert_eq!(w.state, vec![Running.code(), Running.code(), Preempted.code()]);
        assert_eq!(w.cpu, vec![0, 0, u32::MAX]);
        // A 45 µs bucket merges a's segments starting within 45 µs of the first (Running 0..10,
        // Sleeping 10..30, Runnable 30..35, Running 35..50) into one named by the longest of them.
        let m = ts.window(&[a], tl.t0, tl.t1 + 1, 45_000);
        assert_eq!(m.count[0], 4);
        assert_eq!((m.start[0] - tl.t0, m.end[0] - tl.t0), (0, 50_000));
        assert_eq!(m.state[0], ThreadState::Sleeping.code());
        assert!(ts.window(&[u32::MAX], tl.t0, tl.t1, 1).is_empty());
    }
}
