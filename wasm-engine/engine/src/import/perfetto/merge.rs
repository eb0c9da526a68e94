//! Records of all CPUs and packet sequences put back in time order.
//!
//! Perfetto writes ftrace per CPU (each `FtraceEventBundle` holds one CPU's events for a stretch
//! of time), and the tracing service writes the chunks of its writers' sequences in any order,
//! so a file interleaves CPUs and even one CPU's stretches out of time order (the Galaxy S20
//! trace: two sequences, 608 of its 1,224 bundles start before an earlier bundle of their CPU
//! ends). trace_processor sorts everything; the store, the timeline and the runqueue-depth
//! sweep read records in arrival order. So records wait in per-CPU queues kept in time order
//! (ties in file order) and are released smallest timestamp first (ties: lower CPU) once more
//! than [`WINDOW`] wait, and all at
//! [`Merge::finish`]: a sorting window of that many records (traces up to that size come out
//! wholly sorted; a record that arrives after a later one was released is counted in
//! [`Merge::inversions`]).
//!
//! What depends on order is resolved at release, in time order (`tasks::Tasks::release`): the
//! task a compact `sched_switch` switches out, a compact waking's waker, each record's comm.
//! Each released record gets its `line`: its 1-based position in the merged stream. The queues
//! hold records with their strings interned (`held.rs`), given to the sink as views.

use super::held::{Held, Render};
use super::tasks::Tasks;
use crate::import::record::TraceSink;
use std::collections::VecDeque;

/// Records held at most before the earliest is released.
pub const WINDOW: usize = 1 << 17;

/// One queue per CPU, each kept in time order (a record earlier than its queue's last is
/// inserted in place, after those of equal time; the common case appends).
#[derive(Debug, Default)]
pub struct Merge {
    queues: Vec<VecDeque<Held>>,
    /// The released records' views, and the pool of field lists.
    pub render: Render,
    held: usize,
    released: u64,
    last_ts: u64,
    /// Records released with a timestamp below one released before them.
    pub inversions: u64,
}

impl Merge {
    pub fn push(&mut self, rec: Held, tasks: &mut Tasks, sink: &mut (impl TraceSink + ?Sized)) {
        let c = rec.cpu as usize;
        if self.queues.len() <= c {
            self.queues.resize_with(c + 1, VecDeque::new);
        }
        let q = &mut self.queues[c];
        if q.back().is_none_or(|b| b.ts <= rec.ts) {
            q.push_back(rec);
        } else {
            let at = q.partition_point(|r| r.ts <= rec.ts);
            q.insert(at, rec);
        }
        self.held += 1;
        if self.held > WINDOW {
            self.release_one(tasks, sink);
        }
    }

    fn release_one(&mut self, tasks: &mut Tasks, sink: &mut (impl TraceSink + ?Sized)) {
        let mut best: Option<(u64, usize)> = None;
        for (c, q) in self.queues.iter().enumerate() {
            if let Some(r) = q.front() {
                if best.is_none_or(|(t, _)| r.ts < t) {
                    best = Some((r.ts, c));
                }
            }
        }
        let Some((_, c)) = best else { return };
        let Some(mut rec) = self.queues[c].pop_front() else { return };
        self.held -= 1;
        if self.released > 0 && rec.ts < self.last_ts {
            self.inversions += 1;
        }
        self.last_ts = self.last_ts.max(rec.ts);
        self.released += 1;
        let comm = tasks.release(&mut rec);
        self.render.emit(rec, comm, self.released, &tasks.names, sink);
    }

    /// Releases everything held.
    pub fn finish(&mut self, tasks: &mut Tasks, sink: &mut (impl TraceSink + ?Sized)) {
        while self.held > 0 {
            self.release_one(tasks, sink);
        }
    }

    pub fn released(&self) -> u64 {
        self.released
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::perfetto::held::{Body, EMPTY};
    use crate::import::TraceStore;

    fn rec(cpu: u32, ts: u64) -> Held {
        Held { ts, cpu, pid: 1, flags: None, body: Body::Other { event: EMPTY, fields: Default::default() } }
    }

    #[test]
    fn bundles_of_two_cpus_come_out_in_time_order() {
        let mut m = Merge::default();
        let mut t = Tasks::default();
        let mut s = TraceStore::new();
        for ts in [10, 20, 30] {
            m.push(rec(0, ts), &mut t, &mut s);
        }
        for ts in [5, 15, 25, 35] {
            m.push(rec(1, ts), &mut t, &mut s);
        }
        m.push(rec(0, 1), &mut t, &mut s);
        assert_eq!(s.records, 0, "held until the window fills");
        m.finish(&mut t, &mut s);
        assert_eq!(s.records, 8);
        assert_eq!(m.inversions, 0);
        assert_eq!(s.others.ts, vec![1, 5, 10, 15, 20, 25, 30, 35]);
        assert_eq!(s.others.line, (1..=8).collect::<Vec<u64>>());
    }
}
