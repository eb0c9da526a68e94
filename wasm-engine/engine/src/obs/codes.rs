//! The codes stored in the log's columns: event kinds, switch, pick and yield_to reasons,
//! buddy sources, entity flag bits and counter kinds. They cross to the UI as numbers in typed
//! arrays; `codes()` lists each with its stable name so the UI's constants are generated from
//! here (`schedlab-wasm`'s contract), never copied by hand.

use serde::Serialize;
use ts_rs::TS;

/// Marker for "no task" (idle) in task columns.
pub const NO_TASK: u32 = u32::MAX;

/// Kinds of rows in the `events` table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u8)]
pub enum EventKind {
    /// Context switch: `task` = next (or NO_TASK for idle), `arg` = prev, `val` = SwitchReason.
    Switch = 0,
    /// A sleeping task became runnable (`try_to_wake_up`): `arg` = the CPU the wakeup ran on
    /// (the waker's; NO_TASK for a timer or a kick), `val` = the waker's wake flags (`WF_SYNC`
    /// from a pipe write or a child's exit; 0 otherwise).
    Wakeup = 1,
    /// A new task was woken for the first time (`wake_up_new_task`): `arg` = the forking
    /// parent's CPU (NO_TASK for a scenario task's start).
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
    /// `task` blocked (sleep); `val` = sleep length in ns (a block until woken, in a pipe
    /// read, a fork's wait or a PV-lock halt: `u64::MAX − now`, wrapped).
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
    /// `set_task_cpu()` moved `task` to another CPU (`sched_migrate_task`): `cpu` = the
    /// destination, `val` = the CPU it left. Logged just before the Wakeup that placed it
    /// there; a new task's first placement is not a migration (`__set_task_cpu()`).
    Migrate = 24,
    /// `select_task_rq()` placed a waking or new task (`smp = "fair"`): `cpu` = the CPU
    /// chosen, `arg` = its previous CPU, `val` = `path | affine << 8 | target << 16 |
    /// nr_idle_scan << 32` (`sched::select::Placement`; nr_idle_scan 0xffffffff: not read).
    SelectRq = 25,
    /// A load-balance pass that found an imbalance (`sched_balance_rq()`, `smp = "fair"`):
    /// `cpu` = the balancing (destination) CPU, `task` = NO_TASK, `arg` = the imbalance
    /// left after detaching (load, util or task count by the migration type), `val` =
    /// `level | idle_type << 8 | busiest_group_type << 16 | migration_type << 24 |
    /// outcome << 32 | tasks_moved << 40 | last_rejection << 48 | src_cpu << 56`
    /// (idle type 0 not idle, 1 idle, 2 newly idle; group type `sched::balance::GroupType`;
    /// migration type 0 load, 1 util, 2 task, 3 misfit; outcome `BalanceOutcome`; rejection
    /// 0 none, 1 running, 2 cache hot, 3 too big for the imbalance, 4 ineligible on the
    /// destination, 5 delayed, 6 pinned, 7 LB_MIN; src_cpu 0xff: none found). Balanced
    /// passes leave no row.
    Balance = 26,
}

impl EventKind {
    /// All kinds, in code order.
    pub const ALL: [EventKind; 27] = [
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
        EventKind::Migrate,
        EventKind::SelectRq,
        EventKind::Balance,
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
            EventKind::Migrate => "migrate",
            EventKind::SelectRq => "select_rq",
            EventKind::Balance => "balance",
        }
    }

    /// From the stored byte.
    pub fn from_u8(v: u8) -> Option<EventKind> {
        EventKind::ALL.get(v as usize).copied()
    }

    /// Whether the timeline draws it as a marker (`obs::query::markers`): switches, wakeups,
    /// yields, sleeps, exits, placements, migrations, throttling and the KVM events. Enqueues, dequeues,
    /// picks, ticks and rescheds are bookkeeping the lanes already show.
    pub fn is_marker(self) -> bool {
        !matches!(
            self,
            EventKind::Enqueue
                | EventKind::Dequeue
                | EventKind::Pick
                | EventKind::Tick
                | EventKind::Resched
                | EventKind::DelayedDequeue
                | EventKind::Balance
        )
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
    /// All reasons, in code order.
    pub const ALL: [YieldToReason; 8] = [
        YieldToReason::Direct,
        YieldToReason::PreemptedInKernel,
        YieldToReason::NotPreempted,
        YieldToReason::PendingInterrupt,
        YieldToReason::IpiReceiver,
        YieldToReason::Relaxed,
        YieldToReason::PvSchedYield,
        YieldToReason::PvKick,
    ];

    /// The reason packed in a YieldTo event's `val`.
    pub fn of_val(val: i64) -> Option<YieldToReason> {
        YieldToReason::ALL.get((val >> 1) as usize).copied()
    }

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

    /// Stable snake_case key (the UI's constant names).
    pub fn key(self) -> &'static str {
        match self {
            YieldToReason::Direct => "direct",
            YieldToReason::PreemptedInKernel => "preempted_in_kernel",
            YieldToReason::NotPreempted => "not_preempted",
            YieldToReason::PendingInterrupt => "pending_interrupt",
            YieldToReason::IpiReceiver => "ipi_receiver",
            YieldToReason::Relaxed => "relaxed",
            YieldToReason::PvSchedYield => "pv_sched_yield",
            YieldToReason::PvKick => "pv_kick",
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

    /// All reasons, in code order.
    pub const ALL: [SwitchReason; 8] = [
        SwitchReason::Tick,
        SwitchReason::WakeupPreempt,
        SwitchReason::Yield,
        SwitchReason::Sleep,
        SwitchReason::Exit,
        SwitchReason::FromIdle,
        SwitchReason::Preempt,
        SwitchReason::Throttle,
    ];

    /// From the stored value.
    pub fn from_i64(v: i64) -> Option<SwitchReason> {
        usize::try_from(v).ok().and_then(|i| SwitchReason::ALL.get(i)).copied()
    }

    /// Plain words.
    pub fn words(self) -> &'static str {
        match self {
            SwitchReason::Tick => "tick",
            SwitchReason::WakeupPreempt => "wakeup preemption",
            SwitchReason::Yield => "yield",
            SwitchReason::Sleep => "sleep",
            SwitchReason::Exit => "exit",
            SwitchReason::FromIdle => "from idle",
            SwitchReason::Preempt => "preempt (an accounting point)",
            SwitchReason::Throttle => "throttle",
        }
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

/// Why pick_eevdf chose its winner. Crosses to the UI by its stable name (`name()`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, TS)]
#[serde(rename_all = "snake_case")]
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

    /// All reasons, in code order.
    pub const ALL: [PickReason; 6] = [
        PickReason::OnlyEntity,
        PickReason::Buddy,
        PickReason::Protected,
        PickReason::EarliestEligibleDeadline,
        PickReason::CurrEarlierDeadline,
        PickReason::DelayedDequeued,
    ];

    /// From the stored byte.
    pub fn from_u8(v: u8) -> Option<PickReason> {
        PickReason::ALL.get(v as usize).copied()
    }
}

/// Who set a cfs_rq's `next` buddy. Not kernel state: an observation annotation kept beside
/// `cfs_rq->next` so "why this pick" can say where a buddy came from. Crosses to the UI by its
/// stable name (`name()`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default, Serialize, TS)]
#[serde(rename_all = "snake_case")]
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

    /// All sources, in code order.
    pub const ALL: [BuddySource; 5] =
        [BuddySource::None, BuddySource::YieldTo, BuddySource::Wakeup, BuddySource::Sleep, BuddySource::Sustained];

    /// From the stored byte.
    pub fn from_u8(v: u8) -> Option<BuddySource> {
        BuddySource::ALL.get(v as usize).copied()
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

    /// Every bit with its stable name.
    pub const ALL: [(&str, u8); 6] = [
        ("eligible", ELIGIBLE),
        ("on_rq", ON_RQ),
        ("delayed", DELAYED),
        ("curr", CURR),
        ("protected", PROTECTED),
        ("next_buddy", BUDDY),
    ];
}

/// Why a task changed CPU: a Migrate row's `arg`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u8)]
pub enum MigrateClass {
    /// At a wakeup (`select_task_rq()` in `try_to_wake_up()`).
    Wake = 0,
    /// Periodic load balancing (`sched_balance_rq()` from the SCHED softirq).
    Periodic = 1,
    /// Newidle balancing (`sched_balance_newidle()`), a CPU about to go idle pulls.
    Newidle = 2,
    /// The nohz idle balancer, on behalf of an idle CPU.
    Nohz = 3,
    /// Active balancing: the stopper moves a running task.
    Active = 4,
    /// The task's allowed CPUs changed.
    Affinity = 5,
    /// Exec balancing (`sched_exec()`): the stopper moves a task at its exec.
    Exec = 6,
}

impl MigrateClass {
    /// All classes, in code order.
    pub const ALL: [MigrateClass; 7] = [
        MigrateClass::Wake,
        MigrateClass::Periodic,
        MigrateClass::Newidle,
        MigrateClass::Nohz,
        MigrateClass::Active,
        MigrateClass::Affinity,
        MigrateClass::Exec,
    ];

    /// Stable name.
    pub fn name(self) -> &'static str {
        match self {
            MigrateClass::Wake => "wake",
            MigrateClass::Periodic => "periodic",
            MigrateClass::Newidle => "newidle",
            MigrateClass::Nohz => "nohz",
            MigrateClass::Active => "active",
            MigrateClass::Affinity => "affinity",
            MigrateClass::Exec => "exec",
        }
    }
}

/// How a load-balance pass ended: bits 32-39 of a Balance row's `val`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u8)]
pub enum BalanceOutcome {
    /// Tasks were moved (bits 40-47 say how many).
    Moved = 0,
    /// An imbalance, but no CPU of the busiest group to pull from.
    NoBusiestRq = 1,
    /// Every task of the busiest CPU was pinned away from the destination.
    AllPinned = 2,
    /// Nothing could be detached (bits 48-55: the last rejection).
    Failed = 3,
    /// Nothing detached, and the stopper was queued to push a task (active balance).
    ActiveBalance = 4,
    /// Active balance wanted, but the busiest CPU's running task may not run here.
    OnePinned = 5,
}

impl BalanceOutcome {
    /// All outcomes, in code order.
    pub const ALL: [BalanceOutcome; 6] = [
        BalanceOutcome::Moved,
        BalanceOutcome::NoBusiestRq,
        BalanceOutcome::AllPinned,
        BalanceOutcome::Failed,
        BalanceOutcome::ActiveBalance,
        BalanceOutcome::OnePinned,
    ];

    /// Stable name.
    pub fn name(self) -> &'static str {
        match self {
            BalanceOutcome::Moved => "moved",
            BalanceOutcome::NoBusiestRq => "no_busiest_rq",
            BalanceOutcome::AllPinned => "all_pinned",
            BalanceOutcome::Failed => "failed",
            BalanceOutcome::ActiveBalance => "active_balance",
            BalanceOutcome::OnePinned => "one_pinned",
        }
    }
}

/// What a counter row measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum CounterKind {
    /// A cfs_rq's `runtime_remaining` (key = cfs_rq id; ns, may be negative).
    RuntimeRemaining = 0,
    /// A task group's global bandwidth pool `runtime` (key = task group id; ns).
    PoolRuntime = 1,
    /// A CPU's `cpu_load()`: its root cfs_rq's PELT `load_avg` (key = CPU). Logged (like the
    /// next two) only while PELT is tracked for placement and balancing (`smp = "fair"` with a
    /// task that may move), after each event that changed it.
    CpuLoad = 2,
    /// A CPU's `cpu_util_cfs()`: its root cfs_rq's PELT `util_avg`, capped at the CPU's
    /// capacity (key = CPU; 1024 = the CPU's whole capacity).
    CpuUtil = 3,
    /// A CPU's `rq->nr_running` (key = CPU).
    CpuNrRunning = 4,
}

/// One table of codes as the UI's generated constants show it: a stable snake_case name per
/// value, in value order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeTable {
    /// The TypeScript constant mapping each (camelCase) name to its code; also the prefix of
    /// the `…Words` constant.
    pub name: &'static str,
    /// A TypeScript constant listing the snake_case names by code (codes 0..n only).
    pub names: Option<&'static str>,
    /// What the codes are, and which column holds them.
    pub doc: &'static str,
    /// (stable name, value).
    pub entries: Vec<(&'static str, u32)>,
    /// Plain words for each entry, in the same order (empty: the names are enough).
    pub words: Vec<&'static str>,
}

/// The event kinds drawn as markers (`EventKind::is_marker`), by code.
pub fn marker_kinds() -> Vec<u32> {
    EventKind::ALL.iter().filter(|k| k.is_marker()).map(|&k| k as u32).collect()
}

/// Every code table that crosses to the UI in a typed-array column.
pub fn code_tables() -> Vec<CodeTable> {
    vec![
        CodeTable {
            name: "EventKind",
            names: Some("EVENT_KIND_NAMES"),
            doc: "Event kinds (`MarkerCols.kind`).",
            entries: EventKind::ALL.iter().map(|k| (k.name(), *k as u32)).collect(),
            words: vec![],
        },
        CodeTable {
            name: "MigrateClass",
            names: Some("MIGRATE_CLASS_NAMES"),
            doc: "Why a task changed CPU (a migrate row's `arg`).",
            entries: MigrateClass::ALL.iter().map(|c| (c.name(), *c as u32)).collect(),
            words: vec![],
        },
        CodeTable {
            name: "BalanceOutcome",
            names: None,
            doc: "How a load-balance pass ended (bits 32-39 of a balance row's `val`).",
            entries: BalanceOutcome::ALL.iter().map(|c| (c.name(), *c as u32)).collect(),
            words: vec![],
        },
        CodeTable {
            name: "SwitchReason",
            names: None,
            doc: "Why a CPU switched away from its task (`MarkerCols.val` of a switch marker).",
            entries: SwitchReason::ALL.iter().map(|r| (r.name(), *r as u32)).collect(),
            words: SwitchReason::ALL.iter().map(|r| r.words()).collect(),
        },
        CodeTable {
            name: "YieldToReason",
            names: None,
            doc: "Why a yield_to() target was chosen: a yield_to marker's `val` is `yielded | reason << 1`.",
            entries: YieldToReason::ALL.iter().map(|r| (r.key(), *r as u32)).collect(),
            words: YieldToReason::ALL.iter().map(|r| r.name()).collect(),
        },
        CodeTable {
            name: "PickReasonCode",
            names: Some("PICK_REASONS"),
            doc: "Why pick_eevdf chose its winner (the picks table; `Pick.reason` carries the name).",
            entries: PickReason::ALL.iter().map(|r| (r.name(), *r as u32)).collect(),
            words: vec![],
        },
        CodeTable {
            name: "BuddySourceCode",
            names: Some("BUDDY_SOURCES"),
            doc: "Who set a cfs_rq's next buddy (`Pick.buddy_src` carries the name).",
            entries: BuddySource::ALL.iter().map(|b| (b.name(), *b as u32)).collect(),
            words: BuddySource::ALL.iter().map(|b| b.words()).collect(),
        },
        CodeTable {
            name: "Flag",
            names: None,
            doc: "Entity flag bits (`SampleCols.flags`).",
            entries: flag::ALL.iter().map(|&(n, b)| (n, b as u32)).collect(),
            words: vec![],
        },
        CodeTable {
            name: "CounterKind",
            names: None,
            doc: "Counters (`CounterCols.kind`): CFS bandwidth (a cfs_rq's runtime_remaining keyed by cfs_rq id, a group's pool keyed by task group id) and, under `smp = \"fair\"` with movable tasks, each CPU's PELT load_avg, util_avg and nr_running keyed by CPU.",
            entries: vec![
                ("runtime_remaining", CounterKind::RuntimeRemaining as u32),
                ("pool_runtime", CounterKind::PoolRuntime as u32),
                ("cpu_load", CounterKind::CpuLoad as u32),
                ("cpu_util", CounterKind::CpuUtil as u32),
                ("cpu_nr_running", CounterKind::CpuNrRunning as u32),
            ],
            words: vec![],
        },
    ]
}
