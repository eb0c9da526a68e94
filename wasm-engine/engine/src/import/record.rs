//! The one record every importer produces, and the sink it goes to.
//!
//! A record is a tracepoint hit: when, where, which task was current, which event, and the
//! event's payload as typed sched fields when the event is one of the scheduler tracepoints the
//! replay needs, or as ordered `name=value` pairs otherwise (unknown events and vendor fields are
//! kept, never dropped). The text and binary importers of the same capture must produce equal
//! records, so the `.dat` decoder renders numeric fields the way `TP_printk` would.

/// `prev_state` of a `sched_switch`, decoded (kernel 6.x `__trace_sched_switch_state()` bits
/// rendered by `TP_printk` as letters; older kernels and `-R` raw forms give numbers, which the
/// importer decodes with the format file when it has one and otherwise keeps as `Raw`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrevState {
    /// `R`: switched out while still runnable, not a preemption (e.g. `sched_yield()`).
    Runnable,
    /// `R+`: preempted.
    Preempted,
    /// `S`, `D`, `T`, `t`, `X`, `Z`, `P`, `I` and combinations: the report bitmask
    /// (0x01 S, 0x02 D, 0x04 T, 0x08 t, 0x10 X, 0x20 Z, 0x40 P, 0x80 I).
    Blocked(u16),
    /// A number the importer could not map (kept as written).
    Raw(i64),
}

/// The scheduler tracepoints the replay understands, with their fields typed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SchedPayload {
    Switch {
        prev_comm: String,
        prev_pid: i32,
        prev_prio: i32,
        prev_state: PrevState,
        next_comm: String,
        next_pid: i32,
        next_prio: i32,
    },
    /// `sched_waking`, `sched_wakeup` and `sched_wakeup_new` (see [`WakeKind`]).
    Wakeup {
        kind: WakeKind,
        comm: String,
        pid: i32,
        prio: i32,
        target_cpu: i32,
        success: Option<i32>,
    },
    MigrateTask {
        comm: String,
        pid: i32,
        prio: i32,
        orig_cpu: i32,
        dest_cpu: i32,
    },
    /// Anything else: the event's fields in file order (`[ns]`-style unit suffixes kept in the
    /// value); `text` is the payload as printed when the format has no `name=value` form.
    Other {
        fields: Vec<(String, String)>,
        text: Option<String>,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WakeKind {
    Waking,
    Wakeup,
    WakeupNew,
}

/// One tracepoint hit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceRecord {
    /// Timestamp in ns as the trace clock printed it (6 decimals are µs, scaled by 1000).
    pub ts_ns: u64,
    pub cpu: u32,
    /// The current task's pid (`common_pid`) and comm (`<...>` when unknown).
    pub pid: i32,
    pub comm: String,
    /// Event name without the system (`sched_switch`, not `sched:sched_switch`).
    pub event: String,
    /// Source position (1-based line for text; record index for `.dat`).
    pub line: u64,
    pub payload: SchedPayload,
}

/// Why an input line was not turned into a record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    pub line: u64,
    pub column: u32,
    pub reason: String,
}

/// Where importers put what they read.
pub trait TraceSink {
    fn record(&mut self, rec: TraceRecord);
    /// `CPU:%d [LOST %lu EVENTS]` (text) or a lost-events page header (`.dat`).
    fn lost(&mut self, cpu: u32, count: u64, line: u64);
    fn skipped(&mut self, s: Skipped);
}
