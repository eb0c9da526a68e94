//! The observation log: every state change of a run, in columns.
//!
//! Tables, each a set of parallel columns (struct of arrays, [`Column`]: chunked, so a row
//! never moves once written) from which the bindings copy a window into typed arrays without
//! one call per event:
//! * `events`: one row per scheduler event (switch, wakeup, enqueue, dequeue, place, pick,
//!   yield, tick, resched, sleep, exit, delayed dequeue, migrate, throttling, the KVM events);
//! * `samples`: one row per entity state change (vruntime, deadline, vlag, vprot and the
//!   queue's V at that instant);
//! * `picks`: one row per pick decision, with its candidate set in `cands`.
//! * `counters`: values over time (CFS bandwidth runtime).
//!
//! Rows are appended in simulation order, so time columns are sorted and a time window is a
//! pair of binary searches.

pub use super::codes::*;
pub use super::column::Column;

/// The `events` table.
#[derive(Debug, Clone, Default)]
pub struct EventCols {
    /// Time in ns.
    pub t: Column<u64>,
    /// EventKind as u8.
    pub kind: Column<u8>,
    /// CPU.
    pub cpu: Column<u16>,
    /// Task id or NO_TASK.
    pub task: Column<u32>,
    /// Second task id, pick index or NO_TASK.
    pub arg: Column<u32>,
    /// Kind-specific value.
    pub val: Column<i64>,
}

/// One row of the `events` table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventRow {
    /// Time in ns.
    pub t: u64,
    /// EventKind as u8.
    pub kind: u8,
    /// CPU.
    pub cpu: u16,
    /// Task id or NO_TASK.
    pub task: u32,
    /// Second task id, pick index or NO_TASK.
    pub arg: u32,
    /// Kind-specific value.
    pub val: i64,
}

impl EventCols {
    /// Every row in order: a whole-table scan, segment by segment, without per-row indexing.
    pub fn rows(&self) -> EventRows<'_> {
        EventRows { cols: self, seg: 0, i: 0, cur: Default::default() }
    }
}

/// The iterator of [`EventCols::rows`].
pub struct EventRows<'a> {
    cols: &'a EventCols,
    /// The next segment to load.
    seg: usize,
    /// The next row within `cur`.
    i: usize,
    #[allow(clippy::type_complexity)]
    cur: (&'a [u64], &'a [u8], &'a [u16], &'a [u32], &'a [u32], &'a [i64]),
}

impl Iterator for EventRows<'_> {
    type Item = EventRow;
    #[inline(always)]
    fn next(&mut self) -> Option<EventRow> {
        while self.i == self.cur.0.len() {
            let c = self.cols;
            let k = self.seg;
            self.cur = (
                c.t.segment(k)?,
                c.kind.segment(k)?,
                c.cpu.segment(k)?,
                c.task.segment(k)?,
                c.arg.segment(k)?,
                c.val.segment(k)?,
            );
            self.seg += 1;
            self.i = 0;
        }
        let (i, (t, kind, cpu, task, arg, val)) = (self.i, self.cur);
        self.i += 1;
        Some(EventRow { t: t[i], kind: kind[i], cpu: cpu[i], task: task[i], arg: arg[i], val: val[i] })
    }
}

/// The `samples` table.
#[derive(Debug, Clone, Default)]
pub struct SampleCols {
    /// Time in ns.
    pub t: Column<u64>,
    /// Task id.
    pub task: Column<u32>,
    /// CPU of the queue.
    pub cpu: Column<u16>,
    /// vruntime.
    pub vruntime: Column<u64>,
    /// deadline.
    pub deadline: Column<u64>,
    /// vlag as last saved.
    pub vlag: Column<i64>,
    /// vprot.
    pub vprot: Column<u64>,
    /// V (avg_vruntime) of the entity's queue.
    pub avg_vruntime: Column<u64>,
    /// flag bits.
    pub flags: Column<u8>,
}

/// The `picks` table.
#[derive(Debug, Clone, Default)]
pub struct PickCols {
    /// Time in ns.
    pub t: Column<u64>,
    /// CPU.
    pub cpu: Column<u16>,
    /// Winner task id (or NO_TASK when the winner was a delayed entity that got dequeued).
    pub task: Column<u32>,
    /// PickReason as u8.
    pub reason: Column<u8>,
    /// V of the queue at the pick.
    pub avg_vruntime: Column<u64>,
    /// First row in `cands`.
    pub cand_start: Column<u32>,
    /// Number of rows in `cands`.
    pub cand_len: Column<u32>,
    /// `BuddySource` of the queue's `next` buddy at the pick (0: none). Not in the digest:
    /// it annotates, it does not decide.
    pub buddy_src: Column<u8>,
}

/// The candidates of each pick: every queued entity at that level.
#[derive(Debug, Clone, Default)]
pub struct CandCols {
    /// Task id.
    pub task: Column<u32>,
    /// vruntime.
    pub vruntime: Column<u64>,
    /// deadline.
    pub deadline: Column<u64>,
    /// vprot (meaningful for curr).
    pub vprot: Column<u64>,
    /// flag bits.
    pub flags: Column<u8>,
}

/// The `counters` table: values over time (CFS bandwidth runtime).
#[derive(Debug, Clone, Default)]
pub struct CounterCols {
    /// Time in ns.
    pub t: Column<u64>,
    /// CounterKind as u8.
    pub kind: Column<u8>,
    /// cfs_rq or task group id.
    pub key: Column<u32>,
    /// Value.
    pub value: Column<i64>,
}

/// The whole log of one run.
#[derive(Debug, Clone, Default)]
pub struct EventLog {
    /// Scheduler events.
    pub events: EventCols,
    /// Entity samples.
    pub samples: SampleCols,
    /// Pick decisions.
    pub picks: PickCols,
    /// Pick candidates.
    pub cands: CandCols,
    /// Counters (CFS bandwidth runtime).
    pub counters: CounterCols,
    /// When false, nothing but events is recorded (benchmarks of the bare engine).
    pub detailed: bool,
    /// The latest time stamped on a row: every table stays in time order (`stamp`).
    floor: u64,
}

impl EventLog {
    /// An empty log that records everything.
    pub fn new() -> Self {
        EventLog { detailed: true, ..Default::default() }
    }

    /// The time to stamp on a row written at `t`: `t`, or the latest time already stamped if
    /// later. Rows come in time order but for the scheduler's work at a switch whose
    /// runqueue clock reads earlier than the switch (`sim::switch_clock`): those are stamped
    /// at the time the simulation has reached, so that the window queries' binary searches
    /// hold.
    #[inline]
    pub fn stamp(&mut self, t: u64) -> u64 {
        self.floor = self.floor.max(t);
        self.floor
    }

    /// Appends one event row.
    #[inline]
    pub fn event(&mut self, t: u64, kind: EventKind, cpu: u32, task: u32, arg: u32, val: i64) {
        let t = self.stamp(t);
        let e = &mut self.events;
        e.t.push(t);
        e.kind.push(kind as u8);
        e.cpu.push(cpu as u16);
        e.task.push(task);
        e.arg.push(arg);
        e.val.push(val);
    }

    /// Number of event rows.
    pub fn len(&self) -> usize {
        self.events.t.len()
    }

    /// Whether no event was recorded.
    pub fn is_empty(&self) -> bool {
        self.events.t.is_empty()
    }

    /// Row range `[lo, hi)` of events with `t0 <= t < t1`.
    pub fn event_window(&self, t0: u64, t1: u64) -> (usize, usize) {
        let t = &self.events.t;
        (t.partition_point(|&x| x < t0), t.partition_point(|&x| x < t1))
    }

    /// Row range `[lo, hi)` of samples with `t0 <= t < t1`.
    pub fn sample_window(&self, t0: u64, t1: u64) -> (usize, usize) {
        let t = &self.samples.t;
        (t.partition_point(|&x| x < t0), t.partition_point(|&x| x < t1))
    }

    /// FNV-1a-style 64-bit digest over every column of every table, in row order: the run's
    /// identity.
    pub fn digest(&self) -> u64 {
        let mut h = Fnv::new();
        for r in self.events.rows() {
            h.u64(r.t);
            h.u8(r.kind);
            h.u64(r.cpu as u64);
            h.u64(r.task as u64);
            h.u64(r.arg as u64);
            h.u64(r.val as u64);
        }
        // The other tables segment by segment (the columns of a table line up), row by row.
        let s = &self.samples;
        for (((((((t, task), vruntime), deadline), vlag), vprot), avg), flags) in
            s.t.segments()
                .zip(s.task.segments())
                .zip(s.vruntime.segments())
                .zip(s.deadline.segments())
                .zip(s.vlag.segments())
                .zip(s.vprot.segments())
                .zip(s.avg_vruntime.segments())
                .zip(s.flags.segments())
        {
            for i in 0..t.len() {
                h.u64(t[i]);
                h.u64(task[i] as u64);
                h.u64(vruntime[i]);
                h.u64(deadline[i]);
                h.u64(vlag[i] as u64);
                h.u64(vprot[i]);
                h.u64(avg[i]);
                h.u8(flags[i]);
            }
        }
        let c = &self.counters;
        for (((t, kind), key), value) in
            c.t.segments().zip(c.kind.segments()).zip(c.key.segments()).zip(c.value.segments())
        {
            for i in 0..t.len() {
                h.u64(t[i]);
                h.u8(kind[i]);
                h.u64(key[i] as u64);
                h.u64(value[i] as u64);
            }
        }
        let p = &self.picks;
        for (((t, task), reason), cand_len) in
            p.t.segments().zip(p.task.segments()).zip(p.reason.segments()).zip(p.cand_len.segments())
        {
            for i in 0..t.len() {
                h.u64(t[i]);
                h.u64(task[i] as u64);
                h.u8(reason[i]);
                h.u64(cand_len[i] as u64);
            }
        }
        h.finish()
    }
}

/// FNV-1a, 64-bit.
#[derive(Debug, Clone, Copy)]
pub struct Fnv(u64);

impl Fnv {
    /// The FNV offset basis.
    pub fn new() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
    /// Mixes one byte.
    #[inline]
    pub fn u8(&mut self, b: u8) {
        self.0 ^= b as u64;
        self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
    }
    /// Mixes one 64-bit word (FNV-1a step on a whole word: the digest is FNV-1a over
    /// 64-bit words, not bytes, for speed; it is still order- and value-sensitive).
    #[inline]
    pub fn u64(&mut self, v: u64) {
        self.0 ^= v;
        self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        self.0 ^= self.0 >> 29;
    }
    /// The hash.
    pub fn finish(&self) -> u64 {
        self.0
    }
}

impl Default for Fnv {
    fn default() -> Self {
        Fnv::new()
    }
}
