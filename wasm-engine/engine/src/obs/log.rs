//! The observation log: every state change of a run, in columns.
//!
//! Three tables, each a set of parallel vectors (struct of arrays) so the bindings can hand
//! them to JavaScript as typed arrays without one call per event:
//! * `events`: one row per scheduler event (switch, wakeup, enqueue, dequeue, place, pick,
//!   yield, tick, resched, sleep, exit, delayed dequeue);
//! * `samples`: one row per entity state change (vruntime, deadline, vlag, vprot and the
//!   queue's V at that instant);
//! * `picks`: one row per pick decision, with its candidate set in `cands`.
//!
//! Rows are appended in simulation order, so time columns are sorted and a time window is a
//! pair of binary searches.

/// Marker for "no task" (idle) in task columns.
pub const NO_TASK: u32 = u32::MAX;

/// Kinds of rows in the `events` table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u8)]
pub enum EventKind {
    /// Context switch: `task` = next (or NO_TASK for idle), `arg` = prev, `val` = SwitchReason.
    Switch = 0,
    /// A sleeping task became runnable (`try_to_wake_up`).
    Wakeup = 1,
    /// A new task was woken for the first time (`wake_up_new_task`).
    WakeupNew = 2,
    /// `enqueue_entity` of a task entity; `val` = 1 if a delayed entity was requeued.
    Enqueue = 3,
    /// `dequeue_entity` of a task entity; `val` = 1 if DELAY_DEQUEUE kept it queued.
    Dequeue = 4,
    /// `place_entity`: `val` = the lag applied (V − vruntime after placement).
    Place = 5,
    /// A pick decision; `arg` = index into the picks table.
    Pick = 6,
    /// `sched_yield()` called by `task`; `val` = 1 if it went on to schedule() (0: returned
    /// early under yield throttling).
    Yield = 7,
    /// Scheduler tick on `cpu` (`task` = running task).
    Tick = 8,
    /// `resched_curr()` on `cpu`; `val` = SwitchReason it would cause.
    Resched = 9,
    /// `task` blocked (sleep); `val` = sleep length in ns.
    Sleep = 10,
    /// `task` exited.
    Exit = 11,
    /// A delayed entity was finally dequeued (picked while delayed, DEQUEUE_DELAYED).
    DelayedDequeue = 12,
    /// A cfs_rq was throttled (CFS bandwidth); `task` = GROUP_NODE | task group.
    Throttle = 13,
    /// A cfs_rq was unthrottled; `task` = GROUP_NODE | task group.
    Unthrottle = 14,
    /// Task-based throttle: `task` moved to its cfs_rq's limbo list.
    TaskThrottled = 15,
    /// `task` called yield_to(`arg`); `val` = 1 if it yielded, 0 if it returned early.
    YieldTo = 16,
    /// A vCPU took guest spinlock `arg`.
    GuestLock = 17,
    /// A vCPU released guest spinlock `arg`.
    GuestUnlock = 18,
    /// A pause-loop exit of a vCPU spinning on guest lock `arg`.
    PleExit = 19,
    /// A vCPU sent an IPI to vCPU task `arg` (and waits for it).
    IpiSend = 20,
    /// A vCPU handled (EOI'd) the IPI from vCPU task `arg`.
    IpiHandled = 21,
    /// A vCPU starts spin-waiting in the guest (on lock `arg`, or `IPI_KEY | receiver`).
    GuestSpin = 22,
    /// Its spin-wait is over (lock taken, or every IPI handled).
    GuestSpinEnd = 23,
}

impl EventKind {
    /// All kinds, in code order.
    pub const ALL: [EventKind; 24] = [
        EventKind::Switch,
        EventKind::Wakeup,
        EventKind::WakeupNew,
        EventKind::Enqueue,
        EventKind::Dequeue,
        EventKind::Place,
        EventKind::Pick,
        EventKind::Yield,
        EventKind::Tick,
        EventKind::Resched,
        EventKind::Sleep,
        EventKind::Exit,
        EventKind::DelayedDequeue,
        EventKind::Throttle,
        EventKind::Unthrottle,
        EventKind::TaskThrottled,
        EventKind::YieldTo,
        EventKind::GuestLock,
        EventKind::GuestUnlock,
        EventKind::PleExit,
        EventKind::IpiSend,
        EventKind::IpiHandled,
        EventKind::GuestSpin,
        EventKind::GuestSpinEnd,
    ];

    /// Stable lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            EventKind::Switch => "switch",
            EventKind::Wakeup => "wakeup",
            EventKind::WakeupNew => "wakeup_new",
            EventKind::Enqueue => "enqueue",
            EventKind::Dequeue => "dequeue",
            EventKind::Place => "place",
            EventKind::Pick => "pick",
            EventKind::Yield => "yield",
            EventKind::Tick => "tick",
            EventKind::Resched => "resched",
            EventKind::Sleep => "sleep",
            EventKind::Exit => "exit",
            EventKind::DelayedDequeue => "delayed_dequeue",
            EventKind::Throttle => "throttle",
            EventKind::Unthrottle => "unthrottle",
            EventKind::TaskThrottled => "task_throttled",
            EventKind::YieldTo => "yield_to",
            EventKind::GuestLock => "guest_lock",
            EventKind::GuestUnlock => "guest_unlock",
            EventKind::PleExit => "ple_exit",
            EventKind::IpiSend => "ipi_send",
            EventKind::IpiHandled => "ipi_handled",
            EventKind::GuestSpin => "guest_spin",
            EventKind::GuestSpinEnd => "guest_spin_end",
        }
    }

    /// From the stored byte.
    pub fn from_u8(v: u8) -> Option<EventKind> {
        EventKind::ALL.get(v as usize).copied()
    }
}

/// Why a yield_to() target was chosen. A YieldTo event's `val` is `yielded | reason << 1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u8)]
pub enum YieldToReason {
    /// Named by the caller (a yield_to or ping-pong step, s390's diag 0x9c).
    Direct = 0,
    /// kvm_vcpu_on_spin(): preempted while in guest kernel mode.
    PreemptedInKernel = 1,
    /// kvm_vcpu_on_spin(): runnable and not preempted (it has not run since it woke).
    NotPreempted = 2,
    /// kvm_vcpu_on_spin(): a posted interrupt is pending for it (APICv).
    PendingInterrupt = 3,
    /// IPI-aware filter: the spinning vCPU's last IPI went to it.
    IpiReceiver = 4,
    /// IPI-aware relaxed round: preempted, in any mode.
    Relaxed = 5,
    /// The guest's PV sched_yield hypercall after an IPI to it.
    PvSchedYield = 6,
    /// KVM_HC_KICK_CPU of a PV qspinlock unlock: `kvm_sched_yield()` to the kicked head.
    PvKick = 7,
}

impl YieldToReason {
    /// The event `val` of a yield_to() with this reason.
    pub fn val(self, yielded: bool) -> i64 {
        yielded as i64 | (self as i64) << 1
    }

    /// Stable name.
    pub fn name(self) -> &'static str {
        match self {
            YieldToReason::Direct => "direct",
            YieldToReason::PreemptedInKernel => "preempted in kernel",
            YieldToReason::NotPreempted => "not preempted",
            YieldToReason::PendingInterrupt => "pending interrupt",
            YieldToReason::IpiReceiver => "IPI receiver",
            YieldToReason::Relaxed => "relaxed: preempted",
            YieldToReason::PvSchedYield => "PV sched_yield",
            YieldToReason::PvKick => "PV kick",
        }
    }
}

/// Why the CPU switched away from the previous task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u8)]
pub enum SwitchReason {
    /// Slice used up or protection over, noticed at the tick (update_curr → resched).
    Tick = 0,
    /// A waking task preempted it (check_preempt_wakeup_fair).
    WakeupPreempt = 1,
    /// It called sched_yield().
    Yield = 2,
    /// It blocked.
    Sleep = 3,
    /// It exited.
    Exit = 4,
    /// The CPU was idle and work arrived.
    FromIdle = 5,
    /// A resched raised by another accounting point (enqueue/dequeue update_curr).
    Preempt = 6,
    /// Its hierarchy was throttled by CFS bandwidth control.
    Throttle = 7,
}

impl SwitchReason {
    /// Stable lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            SwitchReason::Tick => "tick",
            SwitchReason::WakeupPreempt => "wakeup_preempt",
            SwitchReason::Yield => "yield",
            SwitchReason::Sleep => "sleep",
            SwitchReason::Exit => "exit",
            SwitchReason::FromIdle => "from_idle",
            SwitchReason::Preempt => "preempt",
            SwitchReason::Throttle => "throttle",
        }
    }

    /// From the stored value.
    pub fn from_i64(v: i64) -> Option<SwitchReason> {
        use SwitchReason::*;
        [Tick, WakeupPreempt, Yield, Sleep, Exit, FromIdle, Preempt, Throttle].get(v as usize).copied()
    }

    /// Whether the previous task was still runnable after this switch.
    pub fn prev_runnable(self) -> bool {
        matches!(
            self,
            SwitchReason::Tick
                | SwitchReason::WakeupPreempt
                | SwitchReason::Yield
                | SwitchReason::Preempt
                | SwitchReason::Throttle
        )
    }
}

/// Why pick_eevdf chose its winner.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u8)]
pub enum PickReason {
    /// Only one entity queued (`nr_queued == 1`).
    OnlyEntity = 0,
    /// The eligible next buddy (PICK_BUDDY).
    Buddy = 1,
    /// curr is eligible and still protected (RUN_TO_PARITY, vruntime < vprot).
    Protected = 2,
    /// Earliest virtual deadline among the eligible entities.
    EarliestEligibleDeadline = 3,
    /// curr is eligible and its deadline is earlier than the best tree entity.
    CurrEarlierDeadline = 4,
    /// The winner was a delayed entity: it was dequeued and the pick restarted.
    DelayedDequeued = 5,
}

impl PickReason {
    /// Stable lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            PickReason::OnlyEntity => "only_entity",
            PickReason::Buddy => "buddy",
            PickReason::Protected => "protected",
            PickReason::EarliestEligibleDeadline => "earliest_eligible_deadline",
            PickReason::CurrEarlierDeadline => "curr_earlier_deadline",
            PickReason::DelayedDequeued => "delayed_dequeued",
        }
    }

    /// From the stored byte.
    pub fn from_u8(v: u8) -> Option<PickReason> {
        use PickReason::*;
        [OnlyEntity, Buddy, Protected, EarliestEligibleDeadline, CurrEarlierDeadline, DelayedDequeued]
            .get(v as usize)
            .copied()
    }
}

/// Who set a cfs_rq's `next` buddy. Not kernel state: an observation annotation kept beside
/// `cfs_rq->next` so "why this pick" can say where a buddy came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
#[repr(u8)]
pub enum BuddySource {
    /// No buddy set.
    #[default]
    None = 0,
    /// `yield_to_task_fair()` nominated the target (directed yield).
    YieldTo = 1,
    /// A wakeup with NEXT_BUDDY set the wakee (`check_preempt_wakeup_fair`).
    Wakeup = 2,
    /// A task went to sleep and its group stayed queued: `dequeue_entities()` biases the
    /// next pick back to that group.
    Sleep = 3,
    /// The sustained LAST_BUDDY-like proposal re-nominated the yield_to target.
    Sustained = 4,
}

impl BuddySource {
    /// Stable lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            BuddySource::None => "none",
            BuddySource::YieldTo => "yield_to",
            BuddySource::Wakeup => "wakeup",
            BuddySource::Sleep => "sleep",
            BuddySource::Sustained => "sustained",
        }
    }

    /// Plain words: who set it ("set by …").
    pub fn words(self) -> &'static str {
        match self {
            BuddySource::None => "nobody",
            BuddySource::YieldTo => "a yield_to() towards it",
            BuddySource::Wakeup => "its wakeup with NEXT_BUDDY on",
            BuddySource::Sleep => {
                "dequeue_entities() when a task of this group went to sleep while others stayed queued in it"
            }
            BuddySource::Sustained => "the sustained yield_to buddy of the LAST_BUDDY-like proposal",
        }
    }

    /// From the stored byte.
    pub fn from_u8(v: u8) -> Option<BuddySource> {
        use BuddySource::*;
        [None, YieldTo, Wakeup, Sleep, Sustained].get(v as usize).copied()
    }
}

/// Flags in `samples.flags` and `cands.flags`.
pub mod flag {
    /// The entity was eligible (lag ≥ 0).
    pub const ELIGIBLE: u8 = 1;
    /// The entity was queued.
    pub const ON_RQ: u8 = 2;
    /// The entity was delayed (DELAY_DEQUEUE).
    pub const DELAYED: u8 = 4;
    /// The entity was its queue's curr.
    pub const CURR: u8 = 8;
    /// The entity was protected (vruntime < vprot) — meaningful for curr.
    pub const PROTECTED: u8 = 16;
    /// The entity was the queue's next buddy.
    pub const BUDDY: u8 = 32;
}

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

/// What a counter row measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum CounterKind {
    /// A cfs_rq's `runtime_remaining` (key = cfs_rq id; ns, may be negative).
    RuntimeRemaining = 0,
    /// A task group's global bandwidth pool `runtime` (key = task group id; ns).
    PoolRuntime = 1,
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
