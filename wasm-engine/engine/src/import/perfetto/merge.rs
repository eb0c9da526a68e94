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
//! What depends on order is resolved at release, in time order (`bundle::Tasks::release`): the
//! task a compact `sched_switch` switches out, a compact waking's waker, each record's comm.
//! Each released record gets its `line`: its 1-based position in the merged stream.

use super::bundle::Tasks;
use crate::import::record::{TraceRecord, TraceSink};
use std::collections::VecDeque;

/// Records held at most before the earliest is released.
pub const WINDOW: usize = 1 << 17;

/// One queue per CPU, each kept in time order (a record earlier than its queue's last is
/// inserted in place, after those of equal time; the common case appends).
#[derive(Debug, Default)]
pub struct Merge {
    queues: Vec<VecDeque<TraceRecord>>,
    held: usize,
    released: u64,
    last_ts: u64,
    /// Records released with a timestamp below one released before them.
    pub inversions: u64,
}

impl Merge {
    pub fn push(&mut self, rec: TraceRecord, tasks: &mut Tasks, sink: &mut (impl TraceSink + ?Sized)) {
        let c = rec.cpu as usize;
        if self.queues.len() <= c {
            self.queues.resize_with(c + 1, VecDeque::new);
        }
        let q = &mut self.queues[c];
        if q.back().is_none_or(|b| b.ts_ns <= rec.ts_ns) {
            q.push_back(rec);
        } else {
            let at = q.partition_point(|r| r.ts_ns <= rec.ts_ns);
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
                if best.is_none_or(|(t, _)| r.ts_ns < t) {
                    best = Some((r.ts_ns, c));
                }
            }
        }
        let Some((_, c)) = best else { return };
        let Some(mut rec) = self.queues[c].pop_front() else { return };
        self.held -= 1;
        if self.released > 0 && rec.ts_ns < self.last_ts {
            self.inversions += 1;
        }
        self.last_ts = self.last_ts.max(rec.ts_ns);
        self.released += 1;
        rec.line = self.released;
        tasks.release(&mut rec);
        sink.record(rec);
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
    use crate::import::record::SchedPayload;
    use crate::import::TraceStore;

    fn rec(cpu: u32, ts: u64) -> TraceRecord {
        TraceRecord {
            ts_ns: ts,
            cpu,
            pid: 1,
            comm: "a".into(),
            event: "x".into(),
            line: 0,
            flags: None,
            payload: SchedPayload::Other { fields: vec![], text: None },
        }
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
