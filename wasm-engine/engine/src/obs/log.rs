//! The observation log: every state change of a run, in columns.
//!
//! Three tables, each a set of parallel vectors (struct of arrays) so the bindings can hand
//! them to JavaScript as typed arrays without one call per event:
//! * `events`: one row per scheduler event (switch, wakeup, enqueue, dequeue, place, pick,
//!   yield, tick, resched, sleep, exit, delayed dequeue, migrate, throttling, the KVM events);
//! * `samples`: one row per entity state change (vruntime, deadline, vlag, vprot and the
//!   queue's V at that instant);
//! * `picks`: one row per pick decision, with its candidate set in `cands`.
//!
//! Rows are appended in simulation order, so time columns are sorted and a time window is a
//! pair of binary searches.

pub use super::codes::*;

/// The `events` table.
#[derive(Debug, Clone, Default)]
pub struct EventCols {
    /// Time in ns.
    pub t: Vec<u64>,
    /// EventKind as u8.
    pub kind: Vec<u8>,
    /// CPU.
    pub cpu: Vec<u16>,
    /// Task id or NO_TASK.
    pub task: Vec<u32>,
    /// Second task id, pick index or NO_TASK.
    pub arg: Vec<u32>,
    /// Kind-specific value.
    pub val: Vec<i64>,
}

/// The `samples` table.
#[derive(Debug, Clone, Default)]
pub struct SampleCols {
    /// Time in ns.
    pub t: Vec<u64>,
    /// Task id.
    pub task: Vec<u32>,
    /// CPU of the queue.
    pub cpu: Vec<u16>,
    /// vruntime.
    pub vruntime: Vec<u64>,
    /// deadline.
    pub deadline: Vec<u64>,
    /// vlag as last saved.
    pub vlag: Vec<i64>,
    /// vprot.
    pub vprot: Vec<u64>,
    /// V (avg_vruntime) of the entity's queue.
    pub avg_vruntime: Vec<u64>,
    /// flag bits.
    pub flags: Vec<u8>,
}

/// The `picks` table.
#[derive(Debug, Clone, Default)]
pub struct PickCols {
    /// Time in ns.
    pub t: Vec<u64>,
    /// CPU.
    pub cpu: Vec<u16>,
    /// Winner task id (or NO_TASK when the winner was a delayed entity that got dequeued).
    pub task: Vec<u32>,
    /// PickReason as u8.
    pub reason: Vec<u8>,
    /// V of the queue at the pick.
    pub avg_vruntime: Vec<u64>,
    /// First row in `cands`.
    pub cand_start: Vec<u32>,
    /// Number of rows in `cands`.
    pub cand_len: Vec<u32>,
    /// `BuddySource` of the queue's `next` buddy at the pick (0: none). Not in the digest:
    /// it annotates, it does not decide.
    pub buddy_src: Vec<u8>,
}

/// The candidates of each pick: every queued entity at that level.
#[derive(Debug, Clone, Default)]
pub struct CandCols {
    /// Task id.
    pub task: Vec<u32>,
    /// vruntime.
    pub vruntime: Vec<u64>,
    /// deadline.
    pub deadline: Vec<u64>,
    /// vprot (meaningful for curr).
    pub vprot: Vec<u64>,
    /// flag bits.
    pub flags: Vec<u8>,
}

/// The `counters` table: values over time (CFS bandwidth runtime).
#[derive(Debug, Clone, Default)]
pub struct CounterCols {
    /// Time in ns.
    pub t: Vec<u64>,
    /// CounterKind as u8.
    pub kind: Vec<u8>,
    /// cfs_rq or task group id.
    pub key: Vec<u32>,
    /// Value.
    pub value: Vec<i64>,
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
}

impl EventLog {
    /// An empty log that records everything.
    pub fn new() -> Self {
        EventLog { detailed: true, ..Default::default() }
    }

    /// Appends one event row.
    #[inline]
    pub fn event(&mut self, t: u64, kind: EventKind, cpu: u32, task: u32, arg: u32, val: i64) {
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
        let e = &self.events;
        for i in 0..e.t.len() {
            h.u64(e.t[i]);
            h.u8(e.kind[i]);
            h.u64(e.cpu[i] as u64);
            h.u64(e.task[i] as u64);
            h.u64(e.arg[i] as u64);
            h.u64(e.val[i] as u64);
        }
        let s = &self.samples;
        for i in 0..s.t.len() {
            h.u64(s.t[i]);
            h.u64(s.task[i] as u64);
            h.u64(s.vruntime[i]);
            h.u64(s.deadline[i]);
            h.u64(s.vlag[i] as u64);
            h.u64(s.vprot[i]);
            h.u64(s.avg_vruntime[i]);
            h.u8(s.flags[i]);
        }
        let c = &self.counters;
        for i in 0..c.t.len() {
            h.u64(c.t[i]);
            h.u8(c.kind[i]);
            h.u64(c.key[i] as u64);
            h.u64(c.value[i] as u64);
        }
        let p = &self.picks;
        for i in 0..p.t.len() {
            h.u64(p.t[i]);
            h.u64(p.task[i] as u64);
            h.u8(p.reason[i]);
            h.u64(p.cand_len[i] as u64);
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
