//! [`TraceTimeline`]: what the replay view draws of an imported trace, built once from a
//! [`TraceStore`] after the import finished.
//!
//! * Each CPU's run spans, from its `sched_switch` records taken in time order: `next` runs from
//!   one switch to the CPU's next switch, and the span carries the `prev_state` that next switch
//!   gave it (`R`, `R+`, `S`, `D`, …: how the task left the CPU). The task that was on a CPU
//!   before its first switch runs from the start of the trace; the task on it after its last
//!   switch runs to the end of the trace with the state [`OPEN`]. Idle (pid 0) is not a span:
//!   idle time is the gaps.
//! * Records are taken in file order (the order the kernel's iterator merged the CPUs in). Every
//!   record names the task current on its CPU; one that names another task than the span's (or a
//!   switch whose `prev` is another task) means the span's switch-out is missing (lost events,
//!   a filter): the span ends at that record with the state [`LOST`], the record's task is on
//!   the CPU from then on, and it counts as a discontinuity. `replay::observe` reads the
//!   same evidence the same way.
//! * Each wakeup's link to the wakee's next switch-in at or after it (when and on which CPU
//!   the woken task got to run), for the waker → wakee arrows and wakeup latency.
//! * Each CPU's runqueue depth over time (`depth.rs`).
//!
//! Window queries return absolute trace-clock times; spans shorter than a bucket are merged
//! (the task that ran longest in the merged stretch names it), so a query over a long trace
//! returns about one span per bucket per CPU whatever the trace's size.

use super::buckets::merged_run;
use super::depth::RunqueueDepth;
use super::record::WakeKind;
use super::store::TraceStore;

/// State code of a span still running when the trace ended.
pub const OPEN: u32 = u32::MAX;
/// State code of a span whose switch-out is not in the trace: a later record on its CPU named
/// another current task (the span ends there).
pub const LOST: u32 = u32::MAX - 1;
/// "No such index" in the index columns.
pub const NONE: u32 = u32::MAX;

/// The spans and links, as columns. Span `i` of CPU `c` is at `cpu_first[c] + k`.
#[derive(Clone, Debug, Default)]
pub struct TraceTimeline {
    /// First and last timestamp of the trace (ns, trace clock).
    pub t0: u64,
    pub t1: u64,
    /// CPUs (one past the highest CPU number seen).
    pub ncpus: u32,
    /// Spans of CPU `c`: `cpu_first[c]..cpu_first[c + 1]`, in time order.
    pub cpu_first: Vec<u32>,
    /// Task index (into `TraceStore::tasks`).
    pub task: Vec<u32>,
    pub start: Vec<u64>,
    pub end: Vec<u64>,
    /// [`crate::import::PrevState::code`] of the switch that ended it, or [`OPEN`].
    pub state: Vec<u32>,
    /// The switch (index into `TraceStore::switches`) that began and ended it ([`NONE`] at the
    /// trace's edges).
    pub switch_in: Vec<u32>,
    pub switch_out: Vec<u32>,
    /// Per wakeup (index into `TraceStore::wakeups`): the wakee's next switch-in at or after the
    /// wakeup, as (time, CPU); `u64::MAX` and [`NONE`] when it never ran again in the trace.
    pub wake_run_ts: Vec<u64>,
    pub wake_run_cpu: Vec<u32>,
    /// Spans ended by a record naming another current task (a missing switch-out, [`LOST`]).
    pub discontinuities: u64,
    /// Each CPU's runqueue depth over time ([`RunqueueDepth`]).
    pub depth: RunqueueDepth,
}

/// Spans in a window (absolute times). `count > 1` marks merged spans.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SpanCols {
    pub cpu: Vec<u32>,
    pub task: Vec<u32>,
    pub start: Vec<u64>,
    pub end: Vec<u64>,
    pub state: Vec<u32>,
    pub count: Vec<u32>,
    /// Index of the (first) span in the timeline's columns.
    pub index: Vec<u32>,
}

impl SpanCols {
    pub fn len(&self) -> usize {
        self.cpu.len()
    }
    pub fn is_empty(&self) -> bool {
        self.cpu.is_empty()
    }
}

/// Indices of `ts` (sorted, or nearly: out-of-order records are rare and stay near their
/// place) in `[t0, t1)`.
pub fn window_of(ts: &[u64], t0: u64, t1: u64) -> (usize, usize) {
    (ts.partition_point(|&t| t < t0), ts.partition_point(|&t| t < t1))
}

/// Spans as they are made (all CPUs interleaved).
#[derive(Default)]
struct Spans {
    cpu: Vec<u32>,
    task: Vec<u32>,
    start: Vec<u64>,
    end: Vec<u64>,
    state: Vec<u32>,
    switch_in: Vec<u32>,
    switch_out: Vec<u32>,
}

impl Spans {
    #[allow(clippy::too_many_arguments)]
    fn push(
        &mut self,
        idle: &impl Fn(u32) -> bool,
        cpu: usize,
        task: u32,
        start: u64,
        end: u64,
        state: u32,
        sin: u32,
        sout: u32,
    ) {
        if idle(task) {
            return;
        }
        self.cpu.push(cpu as u32);
        self.task.push(task);
        self.start.push(start);
        self.end.push(end);
        self.state.push(state);
        self.switch_in.push(sin);
        self.switch_out.push(sout);
    }
}

/// A record, in the order the file had it: a switch, or another record that says which task
/// was current on its CPU.
#[derive(Clone, Copy)]
enum Ev {
    Switch(usize),
    Current { cpu: u32, ts: u64, task: u32 },
}

/// The store's column sets merged back into file order by their line numbers (each set is in
/// file order already).
struct FileOrder<'a> {
    store: &'a TraceStore,
    next: [usize; 4],
}

impl<'a> FileOrder<'a> {
    fn new(store: &'a TraceStore) -> Self {
        FileOrder { store, next: [0; 4] }
    }
}

impl Iterator for FileOrder<'_> {
    type Item = Ev;
    fn next(&mut self) -> Option<Ev> {
        let s = self.store;
        let lines = [&s.switches.line, &s.wakeups.line, &s.migrations.line, &s.others.line];
        let k = (0..4).filter(|&k| self.next[k] < lines[k].len()).min_by_key(|&k| lines[k][self.next[k]])?;
        let i = self.next[k];
        self.next[k] += 1;
        Some(match k {
            0 => Ev::Switch(i),
            1 => Ev::Current { cpu: s.wakeups.cpu[i], ts: s.wakeups.ts[i], task: s.wakeups.waker[i] },
            2 => Ev::Current { cpu: s.migrations.cpu[i], ts: s.migrations.ts[i], task: s.migrations.current[i] },
            _ => Ev::Current { cpu: s.others.cpu[i], ts: s.others.ts[i], task: s.others.task[i] },
        })
    }
}

impl TraceTimeline {
    /// Builds the spans and wakeup links of `store`.
    pub fn build(store: &TraceStore) -> TraceTimeline {
        let sw = &store.switches;
        let ncpus = store.cpus.len() as u32;
        let t0 = store.first_ts.unwrap_or(0);
        let t1 = store.last_ts.max(t0);
        let mut tl = TraceTimeline { t0, t1, ncpus, ..Default::default() };
        let mut spans = Spans::default();
        let idle = |task: u32| store.tasks[task as usize].pid == 0;
        // Per CPU: the task on it (task, since, the switch that put it there) and the last time
        // seen (a time that goes backwards is held at the last one).
        let mut on: Vec<Option<(u32, u64, u32)>> = vec![None; ncpus as usize];
        let mut last = vec![t0; ncpus as usize];
        for ev in FileOrder::new(store) {
            let (cpu, ts) = match ev {
                Ev::Switch(i) => (sw.cpu[i] as usize, sw.ts[i]),
                Ev::Current { cpu, ts, .. } => (cpu as usize, ts),
            };
            let ts = ts.max(last[cpu]);
            last[cpu] = ts;
            match ev {
                Ev::Switch(i) => {
                    let prev = sw.prev[i];
                    match on[cpu] {
                        Some((task, since, sin)) if task == prev => {
                            spans.push(&idle, cpu, task, since, ts, sw.prev_state[i].code(), sin, i as u32)
                        }
                        Some((task, since, sin)) => {
                            tl.discontinuities += 1;
                            spans.push(&idle, cpu, task, since, ts, LOST, sin, NONE);
                        }
                        None => spans.push(&idle, cpu, prev, t0, ts, sw.prev_state[i].code(), NONE, i as u32),
                    }
                    on[cpu] = Some((sw.next[i], ts, i as u32));
                }
                Ev::Current { task: cur, .. } => match on[cpu] {
                    Some((task, ..)) if task == cur => {}
                    Some((task, since, sin)) => {
                        tl.discontinuities += 1;
                        spans.push(&idle, cpu, task, since, ts, LOST, sin, NONE);
                        on[cpu] = Some((cur, ts, NONE));
                    }
                    None => on[cpu] = Some((cur, t0, NONE)),
                },
            }
        }
        for (cpu, o) in on.iter().enumerate() {
            if let Some((task, since, sin)) = *o {
                spans.push(&idle, cpu, task, since, t1.max(since), OPEN, sin, NONE);
            }
        }
        // CPU by CPU, each in the order made (time order).
        let mut order: Vec<u32> = (0..spans.cpu.len() as u32).collect();
        order.sort_by_key(|&i| spans.cpu[i as usize]);
        let mut first = vec![0u32; ncpus as usize + 1];
        for &c in &spans.cpu {
            first[c as usize + 1] += 1;
        }
        for c in 0..ncpus as usize {
            first[c + 1] += first[c];
        }
        tl.cpu_first = first;
        let pick = |col: &[u32]| order.iter().map(|&i| col[i as usize]).collect::<Vec<u32>>();
        let pick64 = |col: &[u64]| order.iter().map(|&i| col[i as usize]).collect::<Vec<u64>>();
        tl.task = pick(&spans.task);
        tl.state = pick(&spans.state);
        tl.switch_in = pick(&spans.switch_in);
        tl.switch_out = pick(&spans.switch_out);
        tl.start = pick64(&spans.start);
        tl.end = pick64(&spans.end);
        drop(spans);
        tl.link_wakeups(store);
        tl.depth = RunqueueDepth::build(store);
        tl
    }

    /// Each wakeup's wakee's next switch-in.
    fn link_wakeups(&mut self, store: &TraceStore) {
        let sw = &store.switches;
        let ntasks = store.tasks.len();
        // Switch-ins per task, in time order (CSR).
        let mut first = vec![0u32; ntasks + 1];
        for &n in &sw.next {
            first[n as usize + 1] += 1;
        }
        for t in 0..ntasks {
            first[t + 1] += first[t];
        }
        let mut fill = first.clone();
        let mut ins = vec![0u32; sw.next.len()];
        for (i, &n) in sw.next.iter().enumerate() {
            ins[fill[n as usize] as usize] = i as u32;
            fill[n as usize] += 1;
        }
        for t in 0..ntasks {
            ins[first[t] as usize..first[t + 1] as usize].sort_by_key(|&i| sw.ts[i as usize]);
        }
        let w = &store.wakeups;
        self.wake_run_ts = Vec::with_capacity(w.ts.len());
        self.wake_run_cpu = Vec::with_capacity(w.ts.len());
        for k in 0..w.ts.len() {
            let t = w.wakee[k] as usize;
            let mine = &ins[first[t] as usize..first[t + 1] as usize];
            let j = mine.partition_point(|&i| sw.ts[i as usize] < w.ts[k]);
            match mine.get(j) {
                Some(&i) => {
                    self.wake_run_ts.push(sw.ts[i as usize]);
                    self.wake_run_cpu.push(sw.cpu[i as usize]);
                }
                None => {
                    self.wake_run_ts.push(u64::MAX);
                    self.wake_run_cpu.push(NONE);
                }
            }
        }
    }

    /// Number of spans.
    pub fn len(&self) -> usize {
        self.task.len()
    }

    pub fn is_empty(&self) -> bool {
        self.task.is_empty()
    }

    /// Spans of every CPU overlapping `[t0, t1)`, consecutive spans shorter than `bucket`
    /// merged (see the module docs).
    pub fn spans(&self, t0: u64, t1: u64, bucket: u64) -> SpanCols {
        let mut out = SpanCols::default();
        for c in 0..self.ncpus as usize {
            let (a, b) = (self.cpu_first[c] as usize, self.cpu_first[c + 1] as usize);
            let mut i = a + self.end[a..b].partition_point(|&e| e <= t0);
            while i < b && self.start[i] < t1 {
                let (j, e) = merged_run(i, b, bucket, |k| self.start[k], |k| self.end[k]);
                // The task that ran longest names the merged span; the last one's end state ends it.
                let best = (i..j).max_by_key(|&k| (self.end[k] - self.start[k], std::cmp::Reverse(k))).unwrap_or(i);
                out.push(c as u32, self.task[best], self.start[i], e, self.state[j - 1], (j - i) as u32, i as u32);
                i = j;
            }
        }
        out
    }

    /// The CPU of span `i`.
    pub fn cpu_of(&self, i: usize) -> u32 {
        (self.cpu_first.partition_point(|&f| f as usize <= i) - 1) as u32
    }

    /// The span of CPU `cpu` running at `t` (absolute), if any.
    pub fn span_at(&self, cpu: u32, t: u64) -> Option<usize> {
        if cpu >= self.ncpus {
            return None;
        }
        let (a, b) = (self.cpu_first[cpu as usize] as usize, self.cpu_first[cpu as usize + 1] as usize);
        let i = a + self.end[a..b].partition_point(|&e| e <= t);
        (i < b && self.start[i] <= t).then_some(i)
    }
}

impl SpanCols {
    #[allow(clippy::too_many_arguments)]
    fn push(&mut self, cpu: u32, task: u32, start: u64, end: u64, state: u32, count: u32, index: u32) {
        self.cpu.push(cpu);
        self.task.push(task);
        self.start.push(start);
        self.end.push(end);
        self.state.push(state);
        self.count.push(count);
        self.index.push(index);
    }
}

/// Wake kind as a column code: 0 `sched_waking`, 1 `sched_wakeup`, 2 `sched_wakeup_new`.
pub fn wake_code(k: WakeKind) -> u32 {
    match k {
        WakeKind::Waking => 0,
        WakeKind::Wakeup => 1,
        WakeKind::WakeupNew => 2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::import_text;
    use crate::import::record::{state_bits, PrevState};

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

    fn trace() -> String {
        let mut s = HEAD.to_string();
        s += &line("a-10", 0, "1.000000", &switch(("a", 10), "R+", ("b", 11)));
        s += &line("b-11", 0, "1.000100", "sched_wakeup: comm=c pid=12 prio=120 target_cpu=001");
        s += &line("b-11", 0, "1.000200", &switch(("b", 11), "S", ("a", 10)));
        s += &line("<idle>-0", 1, "1.000300", &switch(("swapper/1", 0), "R", ("c", 12)));
        s += &line("a-10", 0, "1.000400", &switch(("a", 10), "D", ("swapper/0", 0)));
        s += &line("c-12", 1, "1.000500", "sched_stat_runtime: comm=c pid=12 runtime=200000 [ns]");
        s
    }

    #[test]
    fn spans_states_and_wakeup_links() {
        let (store, _) = import_text(trace().as_bytes());
        let tl = TraceTimeline::build(&store);
        assert_eq!(tl.ncpus, 2);
        let pid = |t: u32| store.tasks[t as usize].pid;
        // CPU 0: a before its first switch (from the trace start), b, a again; idle is no span.
        let c0: Vec<_> = (tl.cpu_first[0]..tl.cpu_first[1]).map(|i| i as usize).collect();
        let got: Vec<_> = c0.iter().map(|&i| (pid(tl.task[i]), tl.start[i], tl.end[i], tl.state[i])).collect();
        assert_eq!(
            got,
            vec![
                (10, 1_000_000_000, 1_000_000_000, PrevState::Preempted.code()),
                (11, 1_000_000_000, 1_000_200_000, PrevState::Blocked(state_bits::S).code()),
                (10, 1_000_200_000, 1_000_400_000, PrevState::Blocked(state_bits::D).code()),
            ]
        );
        // CPU 1: c from its switch-in to the end of the trace, still running.
        let i = tl.cpu_first[1] as usize;
        assert_eq!((pid(tl.task[i]), tl.start[i], tl.end[i], tl.state[i]), (12, 1_000_300_000, 1_000_500_000, OPEN));
        // The wakeup of c links to its switch-in on CPU 1.
        assert_eq!((tl.wake_run_ts[0], tl.wake_run_cpu[0]), (1_000_300_000, 1));
        assert_eq!(tl.discontinuities, 0);
        assert_eq!(tl.span_at(0, 1_000_100_000), Some(c0[1]));
        assert_eq!(tl.span_at(0, 1_000_450_000), None);
    }

    #[test]
    fn short_spans_merge_into_one_per_bucket() {
        let mut s = HEAD.to_string();
        // 100 alternations of 1 µs on CPU 0.
        for k in 0..100u64 {
            let ts = format!("2.{:06}", k);
            let (p, n) = if k % 2 == 0 { (("x", 20), ("y", 21)) } else { (("y", 21), ("x", 20)) };
            s += &line("x-20", 0, &ts, &switch(p, "R+", n));
        }
        let (store, _) = import_text(s.as_bytes());
        let tl = TraceTimeline::build(&store);
        let all = tl.spans(tl.t0, tl.t1 + 1, 1);
        assert_eq!(all.len(), 100);
        assert!(all.count.iter().all(|&c| c == 1));
        let merged = tl.spans(tl.t0, tl.t1 + 1, 10_000);
        assert!(merged.len() <= 11, "{}", merged.len());
        assert_eq!(merged.count.iter().sum::<u32>(), 100);
        // A window in the middle starts at the span overlapping its start.
        let w = tl.spans(2_000_050_500, 2_000_052_000, 1);
        assert_eq!(w.start, vec![2_000_050_000, 2_000_051_000]);
    }

    #[test]
    fn a_missing_switch_is_a_discontinuity() {
        let mut s = HEAD.to_string();
        s += &line("a-10", 0, "1.000000", &switch(("a", 10), "S", ("b", 11)));
        // b's switch-out is missing: the next switch names c as prev.
        s += &line("c-12", 0, "1.000200", &switch(("c", 12), "S", ("a", 10)));
        let (store, _) = import_text(s.as_bytes());
        let tl = TraceTimeline::build(&store);
        assert_eq!(tl.discontinuities, 1);
        let b = (0..tl.len()).find(|&i| store.tasks[tl.task[i] as usize].pid == 11).unwrap();
        assert_eq!((tl.start[b], tl.end[b], tl.state[b], tl.switch_out[b]), (1_000_000_000, 1_000_200_000, LOST, NONE));
        // Another record naming a new current task ends the span there, before any switch.
        let mut s = HEAD.to_string();
        s += &line("a-10", 0, "1.000000", &switch(("a", 10), "S", ("b", 11)));
        s += &line("<idle>-0", 0, "1.000100", "sched_wakeup: comm=a pid=10 prio=120 target_cpu=000");
        s += &line("<idle>-0", 0, "1.000300", &switch(("swapper/0", 0), "R", ("a", 10)));
        let (store, _) = import_text(s.as_bytes());
        let tl = TraceTimeline::build(&store);
        let b = (0..tl.len()).find(|&i| store.tasks[tl.task[i] as usize].pid == 11).unwrap();
        assert_eq!((tl.end[b], tl.state[b]), (1_000_100_000, LOST));
        assert_eq!(tl.discontinuities, 1);
    }
}
