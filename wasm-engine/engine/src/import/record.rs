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

/// The report bits of `prev_state` (kernel 6.x `TASK_REPORT`, as `TP_printk` names them).
pub mod state_bits {
    pub const S: u16 = 0x01;
    pub const D: u16 = 0x02;
    pub const T: u16 = 0x04;
    pub const LOWER_T: u16 = 0x08;
    pub const X: u16 = 0x10;
    pub const Z: u16 = 0x20;
    pub const P: u16 = 0x40;
    pub const I: u16 = 0x80;
    /// Letters outside both tables (older kernels' `K`, `W`, `N`...) set this bit.
    pub const UNKNOWN: u16 = 0x8000;
}

impl PrevState {
    /// The kernel `TP_printk` rendering (`R`, `R+`, `S`, `S|D`...); `Raw` prints its number.
    pub fn kernel_text(self) -> String {
        use state_bits as b;
        match self {
            PrevState::Runnable => "R".to_string(),
            PrevState::Preempted => "R+".to_string(),
            PrevState::Raw(n) => n.to_string(),
            PrevState::Blocked(bits) => {
                let names = [
                    (b::S, 'S'),
                    (b::D, 'D'),
                    (b::T, 'T'),
                    (b::LOWER_T, 't'),
                    (b::X, 'X'),
                    (b::Z, 'Z'),
                    (b::P, 'P'),
                    (b::I, 'I'),
                    (b::UNKNOWN, '?'),
                ];
                let mut s = String::new();
                for (bit, c) in names {
                    if bits & bit != 0 {
                        if !s.is_empty() {
                            s.push('|');
                        }
                        s.push(c);
                    }
                }
                s
            }
        }
    }

    /// A `u32` for typed-array columns: `R` 0, `R+` 0x100 (6.x `TASK_REPORT_MAX`), blocked states
    /// their report bits (0x01..=0x80, [`state_bits::UNKNOWN`] 0x8000), and a raw number `n` as
    /// `0x8000_0000 | (n & 0x7fff_ffff)` (lossy for numbers above 2^31; the exact value stays in
    /// the record).
    pub fn code(self) -> u32 {
        match self {
            PrevState::Runnable => 0,
            PrevState::Preempted => 0x100,
            PrevState::Blocked(bits) => u32::from(bits),
            PrevState::Raw(n) => 0x8000_0000 | (n as u32 & 0x7fff_ffff),
        }
    }

    /// Inverse of [`PrevState::code`] (raw numbers come back masked to 31 bits).
    pub fn from_code(code: u32) -> PrevState {
        match code {
            0 => PrevState::Runnable,
            0x100 => PrevState::Preempted,
            c if c & 0x8000_0000 != 0 => PrevState::Raw(i64::from(c & 0x7fff_ffff)),
            c => PrevState::Blocked(c as u16),
        }
    }

    /// True for `R` and `R+` (the task stayed on the runqueue).
    pub fn is_runnable(self) -> bool {
        matches!(self, PrevState::Runnable | PrevState::Preempted)
    }
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
        /// Keys the kernel's `TP_printk` does not print (vendor kernels, e.g. MediaTek's
        /// `extra_prev_state=`), in file order.
        extra: Vec<(String, String)>,
    },
    /// `sched_waking`, `sched_wakeup` and `sched_wakeup_new` (see [`WakeKind`]).
    Wakeup {
        kind: WakeKind,
        comm: String,
        pid: i32,
        prio: i32,
        target_cpu: i32,
        success: Option<i32>,
        /// Vendor keys after the standard ones, in file order (Android's `state=W|m`).
        extra: Vec<(String, String)>,
    },
    MigrateTask {
        comm: String,
        pid: i32,
        prio: i32,
        orig_cpu: i32,
        dest_cpu: i32,
        /// Vendor keys (Perfetto's protobuf has `running=` and `load=`), in file order.
        extra: Vec<(String, String)>,
    },
    /// Anything else: the event's fields in file order (`[ns]`-style unit suffixes kept in the
    /// value); `text` is the payload as printed when the format has no `name=value` form.
    Other { fields: Vec<(String, String)>, text: Option<String> },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WakeKind {
    Waking,
    Wakeup,
    WakeupNew,
}

/// The largest CPU number the importers accept. The kernel's `NR_CPUS` is at most 8192 on every
/// architecture; a larger number in a trace is damage, not a CPU, and per-CPU tables (the store's
/// counters, the replay's lanes) are indexed by it.
pub const MAX_CPU: u32 = 65_535;

/// One tracepoint hit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceRecord {
    /// Timestamp in ns as the trace clock printed it (6 decimals are µs, scaled by 1000).
    pub ts_ns: u64,
    /// At most [`MAX_CPU`].
    pub cpu: u32,
    /// The current task's pid (`common_pid`) and comm (`<...>` when unknown).
    pub pid: i32,
    pub comm: String,
    /// Event name without the system (`sched_switch`, not `sched:sched_switch`).
    pub event: String,
    /// Source position (1-based line for text; record index for `.dat`).
    pub line: u64,
    /// The context flags (`trace_flags`: [`trace_flags::IRQS_OFF`], `NEED_RESCHED`, `HARDIRQ`,
    /// `SOFTIRQ`), from the latency-flag column or `.dat`'s `common_flags`; None when the
    /// format does not print them (`trace-cmd report` without `-l`, `perf script`).
    pub flags: Option<u8>,
    pub payload: SchedPayload,
}

/// The kernel's `trace_flag_type` bits (kernel/trace/trace.h) that the replay reads.
pub mod trace_flags {
    pub const IRQS_OFF: u8 = 0x01;
    pub const NEED_RESCHED: u8 = 0x04;
    pub const HARDIRQ: u8 = 0x08;
    pub const SOFTIRQ: u8 = 0x10;
    /// The preempt count's low bits (0–7; 7 for anything above) sit in the top three bits.
    pub const PREEMPT_SHIFT: u32 = 5;

    /// The preempt depth kept in `flags` (the digit of `d.h3.`).
    pub fn preempt_depth(flags: u8) -> u8 {
        flags >> PREEMPT_SHIFT
    }

    /// `flags` with the preempt depth `count` (the preempt count's low nibble) set.
    pub fn with_preempt_depth(flags: u8, count: u8) -> u8 {
        (flags & ((1 << PREEMPT_SHIFT) - 1)) | ((count & 0xf).min(7) << PREEMPT_SHIFT)
    }

    /// Decodes the printed latency flags (`d..2.`, `dNh1.`; 4 or 5 characters): irqs-off,
    /// need-resched (any letter: `N`, `n`, `p`, `L`, `b`, `B`), hard/soft irq (`h`, `H`, `s`,
    /// `z`), the preempt depth (a hex digit, `.` for 0). None for an empty column.
    pub fn from_text(flags: &str) -> Option<u8> {
        let b = flags.as_bytes();
        if b.len() < 3 {
            return None;
        }
        let mut f = 0;
        if b[0] == b'd' || b[0] == b'D' {
            f |= IRQS_OFF;
        }
        if b[1] != b'.' {
            f |= NEED_RESCHED;
        }
        match b[2] {
            b'h' | b'H' | b'z' | b'Z' => f |= HARDIRQ,
            b's' => f |= SOFTIRQ,
            _ => {}
        }
        let depth = b.get(3).and_then(|&c| (c as char).to_digit(16)).unwrap_or(0);
        Some(with_preempt_depth(f, depth as u8))
    }
}

/// Why an input line was not turned into a record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    pub line: u64,
    pub column: u32,
    pub reason: String,
}

/// One line of a bpftrace EEVDF-state dump, taken at `tracepoint:sched:sched_switch`: the real
/// EEVDF state of the task leaving the CPU (`S`) and of its ancestor group entities (`G`). Two
/// dialects: the project's `tools/capture/schedlab-eevdf.bt` (header `# schedlab-eevdf version=1`,
/// every field below) and the older `tools/kernel-capture/eevdf-state.bt` of the `traces/linux-6.18` captures
/// (fewer fields: the `Option`s are `None`, [`Curr::Unknown`]). Not a tracepoint record, so it has
/// its own sink method ([`TraceSink::eevdf`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EevdfSample {
    /// bpftrace `nsecs` (`ktime_get_ns()`: CLOCK_MONOTONIC; the trace shares it only with
    /// `trace_clock` `mono`, see `clock.rs`).
    pub ts_ns: u64,
    pub cpu: u32,
    pub pid: i32,
    pub line: u64,
    pub entity: EevdfEntity,
}

/// The two line kinds of a dump.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EevdfEntity {
    /// `S`: the task's `sched_entity` and its `cfs_rq`.
    Task {
        comm: String,
        /// `args->prev_state` of the sched_switch (`__trace_sched_switch_state()`, numeric).
        prev_state: i64,
        sum_exec_runtime: u64,
        se: EntityState,
        cfs_rq: CfsRqState,
    },
    /// `G`: an ancestor group entity (`se->parent`, nearest first; the older dump has only the
    /// parent) and the cfs_rq it is queued on.
    Group { se: EntityState, cfs_rq: CfsRqState },
}

impl EevdfEntity {
    pub fn se(&self) -> &EntityState {
        match self {
            EevdfEntity::Task { se, .. } | EevdfEntity::Group { se, .. } => se,
        }
    }
    pub fn cfs_rq(&self) -> &CfsRqState {
        match self {
            EevdfEntity::Task { cfs_rq, .. } | EevdfEntity::Group { cfs_rq, .. } => cfs_rq,
        }
    }
}

/// A `struct sched_entity` as the dump reads it (Linux 6.18.44 field names).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntityState {
    pub vruntime: u64,
    pub deadline: u64,
    /// The `vlag`/`vprot` union (`lagprot=`); see [`EntityState::vlag`]. None where the dump
    /// does not print it (the older dump's `G` lines).
    pub vlag_or_vprot: Option<i64>,
    pub slice: u64,
    /// `load.weight`, full scale (nice 0 is 1048576 on 64-bit).
    pub weight: u64,
    pub depth: i32,
    pub on_rq: Option<bool>,
    pub sched_delayed: Option<bool>,
    pub custom_slice: Option<bool>,
}

impl EntityState {
    /// `se->vlag` when the union holds it: the entity is off its runqueue (`on_rq` 0), so
    /// `update_entity_lag()` wrote it at dequeue. While queued the union holds `vprot` once the
    /// entity has been picked (`set_protect_slice()`), so None; None also when `on_rq` is not in
    /// the dump.
    pub fn vlag(&self) -> Option<i64> {
        match self.on_rq {
            Some(false) => self.vlag_or_vprot,
            _ => None,
        }
    }
}

/// `cfs_rq->curr` as the dump gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Curr {
    /// The dump does not print it (the older dump).
    Unknown,
    /// No `curr`, or `curr` is not on the runqueue.
    None,
    /// `curr`'s vruntime and full-scale `load.weight`.
    Some { vruntime: u64, weight: u64 },
}

/// A `struct cfs_rq` as the dump reads it: the bookkeeping behind V (`avg_vruntime()`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CfsRqState {
    pub zero_vruntime: u64,
    /// `sum_w_vruntime`: Σ (v − zero_vruntime)·w over the queued entities but `curr`, with
    /// 1024-scale weights (the older dump prints it under the label `q_sumw`).
    pub sum_w_vruntime: Option<i64>,
    /// `sum_weight`: Σ w (1024 scale) over the same entities (older label `q_wsum`).
    pub sum_weight: Option<u64>,
    pub nr_queued: u32,
    /// `load.weight` (full scale, `curr` included).
    pub load_weight: Option<u64>,
    pub curr: Curr,
}

impl CfsRqState {
    /// The 1024-scale weight and key of `curr`, (0, 0) without one; None when unknown.
    fn curr_part(&self) -> Option<(i128, i128)> {
        match self.curr {
            Curr::Unknown => None,
            Curr::None => Some((0, 0)),
            Curr::Some { vruntime, weight } => Some((
                i128::from(crate::sched::weight::scale_load_down(weight)),
                i128::from(vruntime.wrapping_sub(self.zero_vruntime) as i64),
            )),
        }
    }

    /// V as `avg_vruntime()` computes it on 6.18.44 (the weighted mean of the queued entities'
    /// vruntimes, `curr` included, floored; `zero_vruntime` when the queue is empty), without the
    /// function's side effect of moving `zero_vruntime`. None when the dump lacks a field.
    pub fn avg_vruntime(&self) -> Option<u64> {
        let (wc, kc) = self.curr_part()?;
        let runtime = i128::from(self.sum_w_vruntime?) + kc * wc;
        let weight = i128::from(self.sum_weight?) + wc;
        if weight == 0 {
            return Some(self.zero_vruntime);
        }
        Some(self.zero_vruntime.wrapping_add(runtime.div_euclid(weight) as u64))
    }

    /// `vruntime_eligible()`: an entity at `vruntime` has non-negative lag against this queue's
    /// V (compared exactly, without the division). None when the dump lacks a field.
    pub fn eligible(&self, vruntime: u64) -> Option<bool> {
        let (wc, kc) = self.curr_part()?;
        let avg = i128::from(self.sum_w_vruntime?) + kc * wc;
        let load = i128::from(self.sum_weight?) + wc;
        let key = i128::from(vruntime.wrapping_sub(self.zero_vruntime) as i64);
        Some(avg >= key * load)
    }
}

/// Where importers put what they read.
pub trait TraceSink {
    fn record(&mut self, rec: TraceRecord);
    /// The same with borrowed strings (`view.rs`): importers that keep their names interned
    /// give records this way. Default: an owned copy to [`TraceSink::record`].
    fn record_view(&mut self, rec: &super::view::RecordView<'_>) {
        self.record(rec.to_record());
    }
    /// `CPU:%d [LOST %lu EVENTS]` (tracefs), `CPU:%d [%lld EVENTS DROPPED]` (`trace-cmd report`;
    /// count 0 when it printed `[EVENTS DROPPED]` without a number) or a lost-events page header
    /// (`.dat`).
    fn lost(&mut self, cpu: u32, count: u64, line: u64);
    fn skipped(&mut self, s: Skipped);
    /// A bpftrace EEVDF-state line. Sinks that only want tracepoints ignore it.
    fn eevdf(&mut self, _s: EevdfSample) {}
    /// File-level facts: `cpus` (the `cpus=N` header of `trace-cmd report`, or `#P:N` of tracefs),
    /// `cpu_empty` (`CPU 3 is empty`), `tracer`, `switch_form` (`kernel`, `plugin`, `raw`: the first
    /// sched_switch rendering seen), `trace_clock` (a `.dat`'s clock option, or the `# trace_clock:`
    /// line of `schedlab-capture.sh`), and `eevdf_version`, `eevdf_clock`, `eevdf_trace_clock`,
    /// `eevdf_cpu_mask`, `eevdf_comm_prefix` (a `schedlab-eevdf.bt` dump's header). Default: ignored.
    fn meta(&mut self, _key: &str, _value: &str, _line: u64) {}
    /// The thread group (process) of `pid` at `ts`: the `(TGID)` column of tracefs text with the
    /// `record-tgid` option, `perf script`'s `pid/tid`. Default: ignored.
    fn tgid(&mut self, _pid: i32, _tgid: i32, _ts: u64) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latency_flags_keep_the_preempt_depth() {
        let f = trace_flags::from_text("dNh3.").unwrap();
        assert_eq!(f & 0x1f, trace_flags::IRQS_OFF | trace_flags::NEED_RESCHED | trace_flags::HARDIRQ);
        assert_eq!(trace_flags::preempt_depth(f), 3);
        assert_eq!(trace_flags::preempt_depth(trace_flags::from_text("d..2").unwrap()), 2);
        assert_eq!(trace_flags::preempt_depth(trace_flags::from_text("d.s.").unwrap()), 0);
        // The low nibble of the preempt count, 7 for anything above.
        assert_eq!(trace_flags::preempt_depth(trace_flags::from_text("d..b.").unwrap()), 7);
    }

    #[test]
    fn state_codes_round_trip() {
        for s in [
            PrevState::Runnable,
            PrevState::Preempted,
            PrevState::Blocked(state_bits::S | state_bits::D),
            PrevState::Blocked(state_bits::UNKNOWN),
            PrevState::Raw(4096),
            PrevState::Raw(64),
        ] {
            assert_eq!(PrevState::from_code(s.code()), s, "{s:?}");
        }
        assert_eq!(PrevState::Blocked(state_bits::S | state_bits::D).kernel_text(), "S|D");
        assert_eq!(PrevState::Preempted.kernel_text(), "R+");
    }
}
