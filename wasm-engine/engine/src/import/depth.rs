//! [`RunqueueDepth`]: each CPU's runqueue depth (`nr_running`: the running task and the
//! runnable ones waiting, idle not counted) over time, as the trace shows it, and per CPU the
//! time it was idle while another CPU had more than one runnable task.
//!
//! Records are taken in file order (switches, wakeups and migrations merged by their lines):
//! * `sched_wakeup` / `sched_wakeup_new` of a task not counted anywhere: +1 on its `target_cpu`
//!   (the record's CPU when the target is missing); a counted task woken onto another CPU moves
//!   there. `sched_waking` changes nothing (the task is not enqueued yet).
//! * `sched_switch`: a `prev` not counted yet is counted on the switch's CPU (it was running
//!   there), then leaves if its `prev_state` is a sleeping one (`S`, `D`, …, dead; −1); a `next`
//!   not counted on that CPU is counted there (a task runnable since before the trace, or whose
//!   wakeup or migration is missing).
//! * Every record names the task current on its CPU. One naming another task than the last
//!   switched in means that task's switch-out is missing (lost events, a filter: the span ends
//!   there with the state `LOST` in [`super::timeline`]): it is taken off, as most such tasks ran
//!   briefly and slept, and the record's task is counted there.
//! * `sched_migrate_task` of a counted task: −1 on its CPU, +1 on `dest_cpu`. A task not counted
//!   (the placement of a sleeping task at its wakeup) changes nothing.
//!
//! What the trace cannot show: tasks that were runnable but waiting when the trace began are
//! counted only from their first appearance, so early depths can be too low; a CPU counts as idle
//! (depth 0), and as overloaded (depth ≥ 2) for the others' idle-while-overloaded time, only from
//! its first `sched_switch`, before which its state is unknown (a CPU the trace has no switch of,
//! e.g. one left out by `tracing_cpumask`, only collects the wakeups aimed at it). The depth is
//! never negative: only a counted task is ever taken off.

use super::buckets::merged_run;
use super::record::{PrevState, WakeKind};
use super::store::TraceStore;
use serde::Serialize;
use ts_rs::TS;

const NONE: u32 = u32::MAX;

/// One CPU's runqueue figures over the trace.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, TS)]
pub struct CpuRunqueue {
    pub cpu: u32,
    /// Largest depth seen (the running task included).
    pub max_depth: u32,
    /// Time-weighted mean depth from the CPU's first `sched_switch` to the end, ×1000.
    pub mean_depth_milli: u64,
    /// Time at depth 0 from the CPU's first `sched_switch` to the end of the trace (ns).
    pub idle_ns: u64,
    /// Of that, the time another CPU had more than one runnable task (ns).
    pub idle_while_overloaded_ns: u64,
}

/// Depth change points per CPU (CSR: CPU `c`'s are `first[c]..first[c + 1]`, in time order; each
/// holds from its time to the next one's, the last to `t1`) and the per-CPU figures.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunqueueDepth {
    pub t0: u64,
    pub t1: u64,
    /// Per CPU, its first `sched_switch` (from when its depth is known), or `None`.
    pub known_from: Vec<Option<u64>>,
    pub first: Vec<u32>,
    pub ts: Vec<u64>,
    pub depth: Vec<u32>,
    pub cpus: Vec<CpuRunqueue>,
}

/// Depth segments in a window (absolute times): `[start, end)` at `depth`; `count > 1` marks
/// merged segments shorter than the bucket, whose `depth` is the largest among them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DepthCols {
    pub cpu: Vec<u32>,
    pub start: Vec<u64>,
    pub end: Vec<u64>,
    pub depth: Vec<u32>,
    pub count: Vec<u32>,
}

/// The running sweep.
struct Sweep {
    now: u64,
    depth: Vec<u32>,
    /// Whether the CPU had its first `sched_switch` (its idleness is known).
    known: Vec<bool>,
    /// Known CPUs with depth ≥ 2, and the integral of the time at least one had.
    overloaded: u32,
    over_int: u64,
    /// Idle since (time, `over_int` then), per CPU.
    idle_since: Vec<Option<(u64, u64)>>,
    /// Since when the depth integral of a known CPU runs, and the integral (depth × ns).
    known_since: Vec<u64>,
    depth_int: Vec<u128>,
    last_change: Vec<u64>,
    points: Vec<Vec<(u64, u32)>>,
    stats: Vec<CpuRunqueue>,
    /// CPU whose runqueue counts the task, or NONE.
    on: Vec<u32>,
}

impl Sweep {
    fn advance(&mut self, ts: u64) {
        if ts > self.now {
            if self.overloaded > 0 {
                self.over_int += ts - self.now;
            }
            self.now = ts;
        }
    }

    fn set(&mut self, c: usize, new: u32) {
        let old = self.depth[c];
        if old == new {
            return;
        }
        let now = self.now;
        if self.known[c] {
            self.depth_int[c] += u128::from(old) * u128::from(now - self.last_change[c]);
            if old == 0 {
                self.end_idle(c);
            }
            if new == 0 {
                self.idle_since[c] = Some((now, self.over_int));
            }
        }
        self.last_change[c] = now;
        if self.known[c] && old >= 2 && new < 2 {
            self.overloaded -= 1;
        } else if self.known[c] && old < 2 && new >= 2 {
            self.overloaded += 1;
        }
        self.depth[c] = new;
        let s = &mut self.stats[c];
        s.max_depth = s.max_depth.max(new);
        let p = &mut self.points[c];
        match p.last_mut() {
            Some(last) if last.0 == now => last.1 = new,
            _ => p.push((now, new)),
        }
    }

    fn end_idle(&mut self, c: usize) {
        if let Some((since, over)) = self.idle_since[c].take() {
            self.stats[c].idle_ns += self.now - since;
            self.stats[c].idle_while_overloaded_ns += self.over_int - over;
        }
    }

    fn add(&mut self, task: usize, c: usize) {
        self.on[task] = c as u32;
        self.set(c, self.depth[c] + 1);
    }

    fn remove(&mut self, task: usize) {
        let c = self.on[task];
        if c != NONE {
            self.on[task] = NONE;
            self.set(c as usize, self.depth[c as usize] - 1);
        }
    }

    /// Counts `task` on `c`, moving it from another CPU if it is counted there.
    fn put(&mut self, task: usize, c: usize) {
        if self.on[task] != c as u32 {
            self.remove(task);
            self.add(task, c);
        }
    }

    fn learn(&mut self, c: usize) {
        if !self.known[c] {
            self.known[c] = true;
            self.known_since[c] = self.now;
            self.last_change[c] = self.now;
            if self.depth[c] == 0 {
                self.idle_since[c] = Some((self.now, self.over_int));
            }
            if self.depth[c] >= 2 {
                self.overloaded += 1;
            }
        }
    }
}

/// Whether a switch-out in `s` takes the task off the runqueue.
fn sleeps(s: PrevState) -> bool {
    match s {
        PrevState::Runnable | PrevState::Preempted => false,
        PrevState::Blocked(_) => true,
        PrevState::Raw(n) => n != 0,
    }
}

impl RunqueueDepth {
    /// The depths of `store`'s CPUs.
    pub fn build(store: &TraceStore) -> RunqueueDepth {
        let ncpus = store.cpus.len();
        let t0 = store.first_ts.unwrap_or(0);
        let t1 = store.last_ts.max(t0);
        let mut s = Sweep {
            now: t0,
            depth: vec![0; ncpus],
            known: vec![false; ncpus],
            overloaded: 0,
            over_int: 0,
            idle_since: vec![None; ncpus],
            known_since: vec![t1; ncpus],
            depth_int: vec![0; ncpus],
            last_change: vec![t0; ncpus],
            points: vec![Vec::new(); ncpus],
            stats: (0..ncpus as u32).map(|cpu| CpuRunqueue { cpu, ..Default::default() }).collect(),
            on: vec![NONE; store.tasks.len()],
        };
        let idle = |t: u32| store.tasks[t as usize].pid == 0;
        let valid = |c: i32| c >= 0 && (c as usize) < ncpus;
        let (sw, wk, mg, ot) = (&store.switches, &store.wakeups, &store.migrations, &store.others);
        // The task each CPU's records name as current (NONE before its first record).
        let mut cur = vec![NONE; ncpus];
        // A record on `c` naming `task` as current: when another task was current there, its
        // switch-out is missing (lost events, a filter) and it is taken off (most such tasks
        // ran briefly and slept); the record's task is running there.
        let seen = |s: &mut Sweep, cur: &mut Vec<u32>, c: usize, task: u32| {
            if cur[c] != task {
                let old = cur[c];
                if old != NONE && !idle(old) && s.on[old as usize] == c as u32 {
                    s.remove(old as usize);
                }
                cur[c] = task;
                if !idle(task) {
                    s.put(task as usize, c);
                }
            }
        };
        let lines = [&sw.line, &wk.line, &mg.line, &ot.line];
        let mut next = [0usize; 4];
        while let Some(k) = (0..4).filter(|&k| next[k] < lines[k].len()).min_by_key(|&k| lines[k][next[k]]) {
            let i = next[k];
            next[k] += 1;
            match k {
                0 => {
                    s.advance(sw.ts[i]);
                    let c = sw.cpu[i] as usize;
                    let (prev, nxt) = (sw.prev[i], sw.next[i]);
                    seen(&mut s, &mut cur, c, prev);
                    if !idle(prev) && sleeps(sw.prev_state[i]) {
                        s.remove(prev as usize);
                    }
                    cur[c] = nxt;
                    if !idle(nxt) {
                        s.put(nxt as usize, c);
                    }
                    s.learn(c);
                }
                1 => {
                    s.advance(wk.ts[i]);
                    seen(&mut s, &mut cur, wk.cpu[i] as usize, wk.waker[i]);
                    let t = wk.wakee[i];
                    if wk.kind[i] != WakeKind::Waking && !idle(t) {
                        let c = if valid(wk.target_cpu[i]) { wk.target_cpu[i] as usize } else { wk.cpu[i] as usize };
                        s.put(t as usize, c);
                    }
                }
                2 => {
                    s.advance(mg.ts[i]);
                    seen(&mut s, &mut cur, mg.cpu[i] as usize, mg.current[i]);
                    let t = mg.task[i] as usize;
                    if s.on[t] != NONE && valid(mg.dest_cpu[i]) && !idle(mg.task[i]) {
                        s.put(t, mg.dest_cpu[i] as usize);
                    }
                }
                _ => {
                    s.advance(ot.ts[i]);
                    seen(&mut s, &mut cur, ot.cpu[i] as usize, ot.task[i]);
                }
            }
        }
        s.advance(t1);
        for c in 0..ncpus {
            if s.known[c] {
                s.end_idle(c);
                s.depth_int[c] += u128::from(s.depth[c]) * u128::from(s.now - s.last_change[c]);
                let span = s.now - s.known_since[c];
                if span > 0 {
                    s.stats[c].mean_depth_milli = (s.depth_int[c] * 1000 / u128::from(span)) as u64;
                }
            }
        }
        let known_from = (0..ncpus).map(|c| s.known[c].then_some(s.known_since[c])).collect();
        let mut out = RunqueueDepth { t0, t1, known_from, first: vec![0], cpus: s.stats, ..Default::default() };
        for p in s.points {
            for (t, d) in p {
                out.ts.push(t);
                out.depth.push(d);
            }
            out.first.push(out.ts.len() as u32);
        }
        out
    }

    /// CPU `cpu`'s depth at `t` (absolute; 0 before its first change).
    pub fn at(&self, cpu: usize, t: u64) -> u32 {
        let (a, b) = (self.first[cpu] as usize, self.first[cpu + 1] as usize);
        let i = self.ts[a..b].partition_point(|&x| x <= t);
        if i == 0 {
            0
        } else {
            self.depth[a + i - 1]
        }
    }

    /// Segments of every CPU overlapping `[t0, t1)`; consecutive segments shorter than `bucket`
    /// are merged into one with the largest depth among them.
    pub fn window(&self, t0: u64, t1: u64, bucket: u64) -> DepthCols {
        let mut out = DepthCols::default();
        let bucket = bucket.max(1);
        for c in 0..self.cpus.len() {
            let (a, b) = (self.first[c] as usize, self.first[c + 1] as usize);
            let seg_end = |i: usize| if i + 1 < b { self.ts[i + 1] } else { self.t1 };
            // The segment holding t0, or the first after it.
            let mut i = a + self.ts[a..b].partition_point(|&x| x <= t0).saturating_sub(1);
            while i < b && self.ts[i] < t1 {
                let (s, mut e) = (self.ts[i], seg_end(i));
                if e <= t0 && i + 1 < b {
                    i += 1;
                    continue;
                }
                let j;
                (j, e) = merged_run(i, b, bucket, |k| self.ts[k], seg_end);
                let d = self.depth[i..j].iter().copied().max().unwrap_or(0);
                out.cpu.push(c as u32);
                out.start.push(s);
                out.end.push(e);
                out.depth.push(d);
                out.count.push((j - i) as u32);
                i = j;
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::import_text;

    const HEAD: &str = "# tracer: nop\n";

    fn line(comm_pid: &str, cpu: u32, ts: &str, ev: &str) -> String {
        format!("{comm_pid:>16} [{cpu:03}] d..2. {ts}: {ev}\n")
    }

    fn switch(prev: (&str, i32), st: &str, next: (&str, i32)) -> String {
        format!(
            "sched_switch: prev_comm={} prev_pid={} prev_prio=120 prev_state={st} ==> next_comm={} next_pid={} next_prio=120",
            prev.0, prev.1, next.0, next.1
        )
    }

    fn wakeup(ev: &str, comm: &str, pid: i32, target: u32) -> String {
        format!("{ev}: comm={comm} pid={pid} prio=120 target_cpu={target:03}")
    }

    fn migrate(comm: &str, pid: i32, orig: u32, dest: u32) -> String {
        format!("sched_migrate_task: comm={comm} pid={pid} prio=120 orig_cpu={orig} dest_cpu={dest}")
    }

    /// Two CPUs; a, b, c on CPU 0, one moved to CPU 1 by the balancer.
    fn trace() -> String {
        let mut s = HEAD.to_string();
        // t=1.000000: CPU 0 switches idle → a (a counted: 1). CPU 1 idle (known from 1.000050).
        s += &line("<idle>-0", 0, "1.000000", &switch(("swapper/0", 0), "R", ("a", 10)));
        s += &line("<idle>-0", 1, "1.000050", &switch(("swapper/1", 0), "R", ("swapper/1", 0)));
        // 1.000100: a wakes b onto CPU 0 (2), a forks c onto CPU 0 (3); sched_waking changes nothing.
        s += &line("a-10", 0, "1.000100", &wakeup("sched_waking", "b", 11, 0));
        s += &line("a-10", 0, "1.000100", &wakeup("sched_wakeup", "b", 11, 0));
        s += &line("a-10", 0, "1.000200", &wakeup("sched_wakeup_new", "c", 12, 0));
        // 1.000300: a preempted by b (R+: still 3).
        s += &line("a-10", 0, "1.000300", &switch(("a", 10), "R+", ("b", 11)));
        // 1.000400: the balancer moves c to CPU 1 (CPU 0: 2, CPU 1: 1); CPU 1 runs c.
        s += &line("<idle>-0", 1, "1.000400", &migrate("c", 12, 0, 1));
        s += &line("<idle>-0", 1, "1.000400", &switch(("swapper/1", 0), "R", ("c", 12)));
        // 1.000600: b sleeps (CPU 0: 1), a runs.
        s += &line("b-11", 0, "1.000600", &switch(("b", 11), "S", ("a", 10)));
        // 1.000700: a wakeup of a task already counted changes nothing.
        s += &line("c-12", 1, "1.000700", &wakeup("sched_wakeup", "a", 10, 0));
        // 1.000800: c exits on CPU 1 (dead: 0), 1.001000: a sleeps (CPU 0: 0).
        s += &line("c-12", 1, "1.000800", &switch(("c", 12), "X", ("swapper/1", 0)));
        s += &line("a-10", 0, "1.001000", &switch(("a", 10), "D", ("swapper/0", 0)));
        s += &line("<idle>-0", 1, "1.001200", "sched_stat_runtime: comm=x pid=99 runtime=1 [ns]");
        s
    }

    #[test]
    fn depth_from_wakeups_switches_and_migrations() {
        let (store, _) = import_text(trace().as_bytes());
        let d = RunqueueDepth::build(&store);
        let pts = |c: usize| -> Vec<(u64, u32)> {
            (d.first[c] as usize..d.first[c + 1] as usize).map(|i| (d.ts[i] - 1_000_000_000, d.depth[i])).collect()
        };
        assert_eq!(pts(0), vec![(0, 1), (100_000, 2), (200_000, 3), (400_000, 2), (600_000, 1), (1_000_000, 0)]);
        assert_eq!(pts(1), vec![(400_000, 1), (800_000, 0)]);
        assert_eq!(d.at(0, 1_000_250_000), 3);
        assert_eq!(d.at(1, 1_000_000_000), 0);
        // CPU 1 known from 50 µs: idle 50..400 and 800..1200 µs; CPU 0 had ≥ 2 from 100 to
        // 600 µs: overlapping CPU 1's idleness 100..400 µs.
        let c1 = &d.cpus[1];
        assert_eq!((c1.max_depth, c1.idle_ns, c1.idle_while_overloaded_ns), (1, 750_000, 300_000));
        // Mean over 50..1200 µs: 1 × 400 µs / 1150 µs.
        assert_eq!(c1.mean_depth_milli, 347);
        // CPU 0: idle 1000..1200 µs, while no CPU was overloaded.
        let c0 = &d.cpus[0];
        assert_eq!((c0.max_depth, c0.idle_ns, c0.idle_while_overloaded_ns), (3, 200_000, 0));
        // (1×100 + 2×100 + 3×200 + 2×200 + 1×400) / 1200 µs.
        assert_eq!(c0.mean_depth_milli, 1416);
    }

    #[test]
    fn a_missing_switch_out_takes_the_task_off() {
        let mut s = HEAD.to_string();
        s += &line("<idle>-0", 0, "1.000000", &switch(("swapper/0", 0), "R", ("a", 10)));
        // a's switch-out is missing: a record names c as current on CPU 0.
        s += &line("c-12", 0, "1.000100", "sched_stat_runtime: comm=c pid=12 runtime=1 [ns]");
        s += &line("c-12", 0, "1.000200", &switch(("c", 12), "S", ("swapper/0", 0)));
        let (store, _) = import_text(s.as_bytes());
        let d = RunqueueDepth::build(&store);
        let pts: Vec<_> = (0..d.ts.len()).map(|i| (d.ts[i] - 1_000_000_000, d.depth[i])).collect();
        assert_eq!(pts, vec![(0, 1), (100_000, 1), (200_000, 0)]);
        assert_eq!(d.cpus[0].max_depth, 1);
    }

    #[test]
    fn window_segments_and_merging() {
        let (store, _) = import_text(trace().as_bytes());
        let d = RunqueueDepth::build(&store);
        let o = 1_000_000_000;
        // A window from 250 µs to 700 µs at 1 ns buckets: CPU 0 from the segment holding 250.
        let w = d.window(o + 250_000, o + 700_000, 1);
        let got: Vec<_> =
            (0..w.cpu.len()).map(|i| (w.cpu[i], w.start[i] - o, w.end[i] - o, w.depth[i], w.count[i])).collect();
        assert_eq!(
            got,
            vec![
                (0, 200_000, 400_000, 3, 1),
                (0, 400_000, 600_000, 2, 1),
                (0, 600_000, 1_000_000, 1, 1),
                (1, 400_000, 800_000, 1, 1),
            ]
        );
        // At a 250 µs bucket CPU 0's first three segments (100, 100 and 200 µs) merge, keeping
        // the largest depth; the 200 µs one after them starts a new bucket.
        let w = d.window(o, o + 2_000_000, 250_000);
        let got: Vec<_> = (0..w.cpu.len())
            .filter(|&i| w.cpu[i] == 0)
            .map(|i| (w.start[i] - o, w.end[i] - o, w.depth[i], w.count[i]))
            .collect();
        assert_eq!(
            got,
            vec![
                (0, 400_000, 3, 3),
                (400_000, 600_000, 2, 1),
                (600_000, 1_000_000, 1, 1),
                (1_000_000, 1_200_000, 0, 1)
            ]
        );
    }
}
