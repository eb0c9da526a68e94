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
    /// Each queue's first timestamp (None when empty), side by side: the release scans these
    /// rather than every queue's front.
    heads: Vec<Option<u64>>,
    /// The released records' views, and the pool of field lists.
    pub render: Render,
    held: usize,
    released: u64,
    last_ts: u64,
    /// Records released with a timestamp below one released before them.
    pub inversions: u64,
}

impl Merge {
    pub fn push(&mut self, cpu: u32, rec: Held, tasks: &mut Tasks, sink: &mut (impl TraceSink + ?Sized)) {
        let c = cpu as usize;
        if self.queues.len() <= c {
            self.queues.resize_with(c + 1, VecDeque::new);
            self.heads.resize(c + 1, None);
        }
        let q = &mut self.queues[c];
        if q.back().is_none_or(|b| b.ts <= rec.ts) {
            q.push_back(rec);
        } else {
            let at = q.partition_point(|r| r.ts <= rec.ts);
            q.insert(at, rec);
        }
        self.heads[c] = q.front().map(|r| r.ts);
        self.held += 1;
        if self.held > WINDOW {
            self.release_one(tasks, sink);
        }
    }

    fn release_one(&mut self, tasks: &mut Tasks, sink: &mut (impl TraceSink + ?Sized)) {
        let mut best: Option<(u64, usize)> = None;
        for (c, h) in self.heads.iter().enumerate() {
            if let Some(ts) = *h {
                if best.is_none_or(|(t, _)| ts < t) {
                    best = Some((ts, c));
                }
            }
        }
        let Some((_, c)) = best else { return };
        let q = &mut self.queues[c];
        let Some(mut rec) = q.pop_front() else { return };
        self.heads[c] = q.front().map(|r| r.ts);
        prefetch_ahead(q);
        self.held -= 1;
        if self.released > 0 && rec.ts < self.last_ts {
            self.inversions += 1;
        }
        self.last_ts = self.last_ts.max(rec.ts);
        self.released += 1;
        let comm = tasks.release(c as u32, &mut rec);
        self.render.emit(rec, c as u32, comm, self.released, &tasks.names, sink);
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

/// How far ahead in a queue [`prefetch_ahead`] asks for a record.
#[cfg(target_arch = "x86_64")]
const AHEAD: usize = 4;

/// Asks the cache for what the next releases of queue `q` will read: the record `AHEAD`
/// places on, the field list of the record after next, the field text of the next. A record
/// comes back to the front a whole window after it was pushed, long out of cache, and the
/// queues are read in turns, not as one stream the hardware would prefetch. A hint only
/// (`prefetcht0` on x86-64, nothing elsewhere): nothing read depends on it.
#[inline]
fn prefetch_ahead(q: &VecDeque<Held>) {
    #[cfg(target_arch = "x86_64")]
    {
        use super::held::{Body, FieldList};
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: `prefetcht0` (SSE, part of the x86-64 baseline) only hints the cache; it
        // reads no memory the program sees and faults on no address.
        let hint = |p: *const u8| unsafe { _mm_prefetch::<_MM_HINT_T0>(p.cast()) };
        if let Some(r) = q.get(AHEAD) {
            hint((r as *const Held).cast());
        }
        if let Some(Held { body: Body::Other { fields, .. }, .. }) = q.get(1) {
            hint((&**fields as *const FieldList).cast());
        }
        if let Some(Held { body: Body::Other { fields, .. }, .. }) = q.front() {
            hint(fields.text.as_ptr());
            hint(fields.spans.as_ptr().cast());
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = q;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::perfetto::held::{Body, EMPTY};
    use crate::import::TraceStore;

    fn rec(ts: u64) -> Held {
        Held { ts, pid: 1, flags: None, body: Body::Other { event: EMPTY, fields: Default::default() } }
    }

    #[test]
    fn bundles_of_two_cpus_come_out_in_time_order() {
        let mut m = Merge::default();
        let mut t = Tasks::default();
        let mut s = TraceStore::new();
        for ts in [10, 20, 30] {
            m.push(0, rec(ts), &mut t, &mut s);
        }
        for ts in [5, 15, 25, 35] {
            m.push(1, rec(ts), &mut t, &mut s);
        }
        m.push(0, rec(1), &mut t, &mut s);
        assert_eq!(s.records, 0, "held until the window fills");
        m.finish(&mut t, &mut s);
        assert_eq!(s.records, 8);
        assert_eq!(m.inversions, 0);
        assert_eq!(s.others.ts, vec![1, 5, 10, 15, 20, 25, 30, 35]);
        assert_eq!(s.others.line, (1..=8).collect::<Vec<u64>>());
    }
}
