//! [`ThreadStates`]: each task's state over the whole trace, as Perfetto's thread-state tracks
//! show it, built once from a [`TraceTimeline`]'s run spans and the [`TraceStore`]'s wakeups.
//!
//! * **Running** while one of its run spans is on a CPU.
//! * Between two runs, what the `sched_switch` that ended the first one says:
//!   * `R` → **Runnable** (still on the runqueue: `sched_yield()`, need-resched at return to
//!     user), `R+` → **Runnable (preempted)**, for the whole gap;
//!   * a blocked state (`S` **Sleeping**, `D` **Uninterruptible**, `I` **Idle** kernel thread,
//!     `T`/`t`/`X`/`Z`/`P` **Stopped**) until the first wakeup record of the task in the gap
//!     (`sched_waking`, `sched_wakeup` or `sched_wakeup_new`, whichever comes first), then
//!     **Runnable** until it runs. With no wakeup in the gap (not traced, lost) the blocked
//!     state lasts the whole gap;
//!   * a switch-out the trace lost (the span ended because a record named another current
//!     task) or a `prev_state` number the importer could not decode → **Unknown** until a
//!     wakeup, then Runnable.
//! * Before its first run: Runnable from the last wakeup before it, nothing (not drawn) before
//!   that; a task woken and never run is Runnable from its first wakeup to the trace's end.
//! * After its last run: the end state as above until the trace's end; nothing when it was
//!   still running (an open span).
//!
//! Window queries merge segments shorter than a bucket, like the CPU lanes' spans: the state
//! that lasted longest in the merged stretch names it, so a long trace gives about one segment
//! per bucket per track.

use super::record::PrevState;
use super::store::TraceStore;
use super::timeline::{TraceTimeline, LOST, OPEN};

/// A thread state as the tracks draw it (its column code is the discriminant).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
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

    /// The state a run span's end code leaves the task in ([`OPEN`] is not asked).
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

    /// True while the task waits for a wakeup (the states a wakeup ends).
    fn blocked(self) -> bool {
        !matches!(self, ThreadState::Running | ThreadState::Runnable | ThreadState::Preempted)
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

/// One task's segments as they are made.
struct Builder<'a> {
    out: &'a mut ThreadStates,
    totals: [u64; 8],
}

impl Builder<'_> {
    fn seg(&mut self, start: u64, end: u64, state: ThreadState, cpu: u32) {
        if end <= start {
            return;
        }
        self.totals[state as usize] += end - start;
        self.out.start.push(start);
        self.out.end.push(end);
        self.out.state.push(state);
        self.out.cpu.push(cpu);
    }

    /// The stretch `[from, to)` after a switch-out into `state`: blocked states end at the first
    /// wakeup in `(from, to]` (then Runnable).
    fn gap(&mut self, from: u64, to: u64, state: ThreadState, wakes: &[u64]) {
        if !state.blocked() {
            return self.seg(from, to, state, u32::MAX);
        }
        let i = wakes.partition_point(|&w| w <= from);
        match wakes.get(i) {
            Some(&w) if w <= to => {
                self.seg(from, w, state, u32::MAX);
                self.seg(w, to, ThreadState::Runnable, u32::MAX);
            }
            _ => self.seg(from, to, state, u32::MAX),
        }
    }
}

impl ThreadStates {
    /// Builds every task's segments (the module docs say how).
    pub fn build(store: &TraceStore, tl: &TraceTimeline) -> ThreadStates {
        let n = store.tasks.len();
        let mut spans: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (i, &t) in tl.task.iter().enumerate() {
            spans[t as usize].push(i as u32);
        }
        let mut wakes: Vec<Vec<u64>> = vec![Vec::new(); n];
        for (&t, &ts) in store.wakeups.wakee.iter().zip(&store.wakeups.ts) {
            wakes[t as usize].push(ts);
        }
        let mut out = ThreadStates { first: Vec::with_capacity(n + 1), ..Default::default() };
        for t in 0..n {
            out.first.push(out.start.len() as u32);
            let own = &mut spans[t];
            own.sort_by_key(|&i| (tl.start[i as usize], i));
            let w = &mut wakes[t];
            w.sort_unstable();
            let mut b = Builder { out: &mut out, totals: [0; 8] };
            Self::task(&mut b, tl, own, w);
            let totals = b.totals;
            out.totals.push(totals);
        }
        out.first.push(out.start.len() as u32);
        out
    }

    fn task(b: &mut Builder, tl: &TraceTimeline, spans: &[u32], wakes: &[u64]) {
        let Some(&first) = spans.first() else {
            // Woken, never seen running.
            if let Some(&w) = wakes.first() {
                b.seg(w, tl.t1, ThreadState::Runnable, u32::MAX);
            }
            return;
        };
        let s0 = tl.start[first as usize];
        let before = wakes.partition_point(|&w| w <= s0);
        if before > 0 {
            b.seg(wakes[before - 1], s0, ThreadState::Runnable, u32::MAX);
        }
        let mut at = s0;
        let mut pending: Option<ThreadState> = None;
        for &i in spans {
            let i = i as usize;
            // Spans of one task do not overlap unless the trace lost records; clamp.
            let (s, e) = (tl.start[i].max(at), tl.end[i].max(at));
            if let Some(state) = pending.take() {
                b.gap(at, s, state, wakes);
            }
            b.seg(s, e, ThreadState::Running, tl_cpu(tl, i));
            at = e;
            pending = (tl.state[i] != OPEN).then(|| ThreadState::after_switch_out(tl.state[i]));
        }
        if let Some(state) = pending {
            b.gap(at, tl.t1, state, wakes);
        }
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
                let (s, mut e) = (self.start[i], self.end[i]);
                if e - s >= bucket {
                    out.push(row as u32, s, e, self.state[i], self.cpu[i], 1);
                    i += 1;
                    continue;
                }
                let mut best = (self.state[i], self.cpu[i], e - s);
                let mut j = i + 1;
                while j < b && self.start[j] - s < bucket && self.end[j] - self.start[j] < bucket {
                    let d = self.end[j] - self.start[j];
                    if d > best.2 {
                        best = (self.state[j], self.cpu[j], d);
                    }
                    e = self.end[j];
                    j += 1;
                }
                out.push(row as u32, s, e, best.0, best.1, (j - i) as u32);
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

/// The CPU of timeline span `i`.
fn tl_cpu(tl: &TraceTimeline, i: usize) -> u32 {
    // `cpu_first` is sorted: the CPU is the last one whose first span is at or before `i`.
    (tl.cpu_first.partition_point(|&f| f as usize <= i) - 1) as u32
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
