//! Per-decision agreement: the fair class replayed along the real schedule ("teacher
//! forcing"), asking at every pick the trace shows what the model would have picked.
//!
//! The shadow re-simulation (`compare`) runs the model free, so one early difference shifts
//! every later run and time-weighted agreement says little about the pick rule itself. Here
//! the model's runqueues follow the trace instead: a wakeup enqueues the task (with
//! `place_entity()` and its saved lag), a switch-out in a sleeping state dequeues it (possibly
//! delayed), a yield calls `yield_task_fair()`, a migration moves it; and at every
//! `sched_switch` the model makes its own pick (`pick_next_task_fair()` with everything that
//! precedes the choice) and is then switched to the task the kernel really ran. A pick is
//! scored when the kernel's choice was a task the model has queued on that CPU (or idle); the
//! rest are counted apart, with the reason.
//!
//! The model's state follows the kernel's where the trace shows how (issue 16: compared with
//! the bpftrace dumps, the lags then agree to the nanosecond for seconds at a time):
//! * Accounting is the kernel's: every `sched_stat_runtime` is one `update_curr()` of the
//!   running task, and what it charged is the CPU's task clock (`rq_clock_task()`, which leaves
//!   out interrupt time: 0.1–0.3 % of a hog's runtime here, which the trace's clock would
//!   charge, one task more than another). The model's `update_curr()` runs at each record, so a
//!   deadline is renewed at the tick that crossed it; `__schedule()` and `try_to_wake_up()`
//!   read the clock once, so a switch (and a wakeup right after the record of its own
//!   `update_curr()`) is at the reading of the last record. Without such records the clock is
//!   the trace's.
//! * A task whose nice value changes after fork (`nice -n 7 prog` forks at nice 0, then calls
//!   `setpriority()`) starts at its first weight and is re-weighed by `set_user_nice()` when
//!   its records first show the new `prio`.
//! * A task of an autogroup (a layout's `/autogroup-…` cgroup) that exits is moved to the root
//!   group before its last switch (`sched_autogroup_exit_task()`).
//! * `try_to_wake_up()` of a delayed task requeues it (`requeue_delayed_entity()`: V read with
//!   curr not updated) before `wakeup_preempt()`'s `update_curr()`, whose record comes first
//!   in the trace: that wakeup is applied before the record when both were written in the same
//!   kernel section (hard/soft irq and preempt depth: `d.h3.` then `dNh3.`; not the tick's
//!   `d.h1.` before an hrtimer's wakeup in the same interrupt).
//! * A delayed task migrated (`move_queued_task()`) keeps its relative deadline.
//! * A `__schedule()` that picks the running task again shows no `sched_switch`, only its
//!   `update_curr()` with need-resched set and no switch-out after it: the model picks there
//!   too (a delayed entity it chooses is dequeued), unscored.
//! * A task revealed running by its own records after the trace lost its switch-in is made
//!   current where its first record says its accounting began (not scored).
//! * CFS bandwidth (6.18's task-based throttle) is replayed with the model's own runtime,
//!   charged as above: a task the kernel picks through a hierarchy the model has throttled
//!   (its `pick_task_fair()` walked `check_cfs_rq_runtime()` at every level; a re-pick too) owes
//!   the throttle task_work, and a preempted switch-out (`R+`) within `THROTTLE_WORK_MAX_RUN_NS`
//!   of that pick (its first return to user space) moves it to its cfs_rq's limbo list
//!   (`throttle_cfs_rq_work()`). A task that ran longer reached user space unthrottled: the
//!   kernel's hierarchy was not throttled yet (the model's quota ran out first), and the model
//!   leaves it queued. A throttled task cannot be woken; migrated, it leaves its limbo list
//!   (`dequeue_throttled_task()`). The unthrottle leaves no sched record (no wakeup:
//!   `tg_unthrottle_up()` enqueues directly and does not reschedule, so the CPU's current task
//!   runs on to its next tick while the group gains lag). It happens at the group's period
//!   timer, whose expiry the capture tool records (`hrtimer_expire_entry` of
//!   `sched_cfs_period_timer`, `ObsEvent::BandwidthTimer`): there the period timer runs
//!   (`do_sched_cfs_period_timer()`: refill, `distribute_cfs_runtime()`). A trace without it
//!   has the unthrottle replayed where it first shows it: when the kernel switches to a task
//!   the model holds in limbo, the period timer of each throttled group above it runs, lowest
//!   level first, just before that pick, which is then scored. Where the trace shows a throttle
//!   the model does not make (a task under a quota switched out runnable right after its pick,
//!   that runs again only after a period timer expiry: the kernel's pool and local slice before
//!   the trace differ from the model's), the model takes the kernel's state there, an empty pool
//!   and no local runtime, and throttles it (`bandwidth::resync_throttle`, counted).
//! * A task moved into a layout cgroup where the trace shows it (`cgroup_attach_task`, which the
//!   capture tool records; `ObsEvent::CgroupMove`) is moved there by `sched_move_task()`, and
//!   before that is in its parent's group (`sched_cgroup_fork()`; the root when the fork is not
//!   in the trace), where the shadow scenario starts it (`shadow.rs`).
//!
//! Named shortcuts: tasks the trace shows runnable at its start (first seen being switched in,
//! or running before their CPU's first switch) are queued then with zero lag (their earlier
//! history is not in the trace); without the period timer's expiries in the trace, the timer
//! runs only where the trace shows an unthrottle, so the unthrottle is placed up to a tick late
//! (1.7 ms in bandwidth-30-of-100, by its EEVDF dump; 3.1 ms a period in the
//! `bandwidth-own-cgroup` captures, by their timer records) and a period that ends with the
//! group unthrottled refills nothing; with them, only a layout with one group under a quota
//! replays them (`bandwidth::period_timer`: the records name the hrtimer, not its group);
//! without `cgroup_attach_task` records a task is in its layout cgroup from its first record
//! (a task the capture moved into its cgroup later is charged to the cgroup from the start);
//! group entity weights are the model's instantaneous shares, not PELT averages
//! (`sched/group.rs`), unless `group_shares = pelt` (`sched/group_pelt.rs`; each `sched_stat_runtime` record then also
//! stands for a tick's `update_load_avg()`, see `update_curr_chain`).
//!
//! The replay is split by concern: `clock` (the task clock and the kernel sections of the
//! records), `follow` (the trace's events applied to the model), `bandwidth` (the throttle
//! replay), `score` (the model's pick against the kernel's), `place` (wakeup placement and
//! balance migrations against the kernel's), `preempt` (wakeup preemption against the kernel's).

mod bandwidth;
mod clock;
mod cpu_avg;
mod follow;
mod passes;
mod place;
mod preempt;
mod score;
mod seed;
#[cfg(test)]
mod tests;

pub use clock::{section, tick_section, UNKNOWN_SECTION};
pub use cpu_avg::CpuAvgReport;
pub use passes::{BalancePassReport, PassDisagreement, PassOutcome, PassOutcomeCount};
pub use place::{PlacementDisagreement, PlacementReport};
pub use preempt::{PreemptDisagreement, PreemptReport};
pub use seed::{SeedReport, SeededQueue};

use super::observe::Observed;
use super::shadow::Shadow;
use crate::sched::entity::EntityId;
use crate::sched::fair::Fair;
use crate::sched::weight::LoadWeight;
use crate::sim::{config::SimConfig, Simulation};
use clock::TaskClock;
use serde::Serialize;

/// How a task left the CPU in a `sched_switch`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SwitchOut {
    /// `R+`, or `R` with need-resched set: still runnable.
    Preempted,
    /// `R` by `sched_yield()`.
    Yield,
    /// A blocked state (`S`, `D`, …).
    Sleep,
    /// `Z`/`X`.
    Exit,
}

impl ObsEvent {
    /// The CPUs the event is about (none for an event of a task alone).
    pub fn cpus(&self) -> Vec<u32> {
        match *self {
            ObsEvent::Wake { cpu, from, .. } => vec![cpu, from],
            ObsEvent::Switch { cpu, .. }
            | ObsEvent::Yield { cpu, .. }
            | ObsEvent::Vanished { cpu, .. }
            | ObsEvent::Runtime { cpu, .. }
            | ObsEvent::Repick { cpu, .. }
            | ObsEvent::BandwidthTimer { cpu, .. } => vec![cpu],
            ObsEvent::Migrate { to, by, .. } => vec![to, by],
            ObsEvent::Nice { .. } | ObsEvent::Exiting { .. } | ObsEvent::CgroupMove { .. } => Vec::new(),
        }
    }
}

/// What a `sched_migrate_task` record's context says of the code that wrote it (`observe`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MigrateHow {
    /// `sched_exec()`'s move by the source CPU's stopper, which the task woke from its own
    /// context (`migration_cpu_stop()`): a placement, not a balance.
    Exec,
    /// Written by the idle task: a balance of an idle CPU (`CPU_IDLE`: the idle tick's
    /// `SCHED_SOFTIRQ`, or a nohz idle balance run for it).
    Idle,
    /// Written on the destination by the task that then switches out blocked (within
    /// `observe::NEWIDLE_SWITCH_NS`): `sched_balance_newidle()` in that task's `__schedule()`.
    Newidle,
    /// `try_to_wake_up()`'s `set_task_cpu()`: the task's `sched_wakeup` follows from the same
    /// context (`observe::WAKEUP_MIGRATION_NS`); the kernel had it off its runqueue.
    Wakeup,
    /// Anything else: a busy CPU's periodic balance (in the interrupted task's context), an
    /// active balance's stopper, or a wakeup's `set_task_cpu()` whose wakeup record is not
    /// right after it.
    Other,
}

/// A scheduling event of the trace (task = index into `Observed::tasks`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ObsEvent {
    /// `sched_wakeup`/`sched_wakeup_new` onto `cpu`, recorded in kernel section `ctx` on CPU
    /// `from` (where `try_to_wake_up()` ran); `waker`: the task whose context raised it
    /// (None: an interrupt, the idle task, or a trace without latency flags); `sync`: inferred
    /// synchronous (`observe::SYNC_WAKE_WINDOW_NS`).
    /// `resched`: the record's need-resched flag (None: no latency flags).
    Wake { task: u32, cpu: u32, new: bool, ctx: u8, from: u32, waker: Option<u32>, sync: bool, resched: Option<bool> },
    /// `sched_switch` on `cpu`.
    Switch { cpu: u32, prev: u32, next: u32, out: SwitchOut },
    /// `sched_migrate_task` to `to`, written on CPU `by`; `how`: what its context says of the
    /// code that moved the task (`observe`).
    Migrate { task: u32, to: u32, by: u32, how: MigrateHow },
    /// A `sched_yield()` that did not switch (its `sched_stat_runtime` record).
    Yield { task: u32, cpu: u32 },
    /// The trace lost the task's switch-out on `cpu` (`Observed::missing_switches`).
    Vanished { task: u32, cpu: u32 },
    /// The task's priority changed to `prio` (`set_user_nice()`; its records print the new
    /// `prio` from here on).
    Nice { task: u32, prio: i32 },
    /// `sched_stat_runtime`: an `update_curr()` of the task running on `cpu` charged it `ns`,
    /// recorded in kernel section `ctx`.
    Runtime { task: u32, cpu: u32, ns: u64, ctx: u8 },
    /// The running task, exiting (`sched_process_exit`), leaves its autogroup
    /// (`sched_autogroup_exit_task()`; at its next `sched_stat_runtime`, or its switch-out).
    Exiting { task: u32 },
    /// `__schedule()` on `cpu` picked the running task again (no `sched_switch`).
    Repick { task: u32, cpu: u32 },
    /// A CFS bandwidth period timer expired on `cpu` (`hrtimer_expire_entry` of
    /// `sched_cfs_period_timer`, which the capture tool records); `timer` names the hrtimer
    /// (one per task group), as the trace prints its address.
    BandwidthTimer { cpu: u32, timer: u64 },
    /// The task was moved into the cgroup `Observed::cgroup_paths[path]`
    /// (`cgroup_attach_task`, which the capture tool records; `sched_move_task()`).
    CgroupMove { task: u32, path: u32 },
}

/// An event at a time (ns, trace clock).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timed {
    pub ts: u64,
    pub ev: ObsEvent,
}

/// A pick where the model and the kernel differ.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct Disagreement {
    /// ns since the trace's first record.
    pub at_ns: u64,
    pub cpu: u32,
    pub kernel: String,
    pub model: String,
    /// The cgroup depth of the cfs_rq where the two picks went apart (0: the CPU's root).
    pub level: u32,
    /// The two entities (or their group entities) at that cfs_rq: lag (V − vruntime, virtual ns;
    /// eligible when ≥ 0) and deadline − V.
    pub kernel_lag: i64,
    pub kernel_deadline: i64,
    pub model_lag: Option<i64>,
    pub model_deadline: Option<i64>,
}

/// Counts of one CPU.
#[derive(Debug, Clone, Default, Serialize, ts_rs::TS)]
pub struct CpuDecisions {
    pub cpu: u32,
    /// Scored picks, and those where the model picked as the kernel did.
    pub scored: u64,
    pub agreed: u64,
}

/// The per-decision replay's result.
#[derive(Debug, Clone, Default, Serialize, ts_rs::TS)]
pub struct DecisionReport {
    /// Picks scored (the kernel's choice was queued in the model, or idle), all CPUs.
    pub scored: u64,
    pub agreed: u64,
    pub agreement_pct: f64,
    /// Of the scored: picks at a yield that did not switch, and picks of idle.
    pub quiet_yields: u64,
    pub idle_picks: u64,
    /// Not scored: the kernel ran a task the model did not have queued there (its wakeup or
    /// migration is not in the trace, e.g. before the trace began).
    pub not_queued: u64,
    /// Not scored: a real-time or left-out task ran.
    pub other_class: u64,
    /// Switch-outs of a task the model had queued but not running (its switch-in is not in
    /// the trace): made current before its switch-out is applied.
    pub resynced: u64,
    /// CFS bandwidth, replayed: tasks moved to limbo at their return to user space, and
    /// cfs_rqs unthrottled (at the period timer, or where the trace first shows it: the module doc).
    pub throttled: u64,
    pub unthrottles: u64,
    /// Expiries of the bandwidth period timer the trace shows and the replay ran there
    /// (`bandwidth::period_timer`); 0 when the capture did not record them.
    pub period_timers: u64,
    /// Throttles the trace shows where the model still had runtime (its quota state before the
    /// trace differs): the model took the kernel's (`bandwidth::resync_throttle`).
    pub throttle_resyncs: u64,
    /// Tasks moved between the layout's cgroups where the trace shows it
    /// (`cgroup_attach_task`; `follow::cgroup_move`).
    pub cgroup_moves: u64,
    pub per_cpu: Vec<CpuDecisions>,
    /// The first disagreements, in time order.
    pub first_disagreements: Vec<Disagreement>,
    /// Wakeup placements scored against the kernel's (`place`).
    pub placements: PlacementReport,
    /// Wakeup preemption decisions scored against the kernel's (`preempt`).
    pub preemptions: PreemptReport,
    /// With an EEVDF dump read with the trace: the queues seeded from the kernel's state and
    /// the picks scored after (`seed`).
    pub seed: Option<SeedReport>,
    /// With a dump of each CPU's PELT averages read with the trace: what it gave the model's
    /// root cfs_rqs (`cpu_avg`).
    pub cpu_avg: Option<CpuAvgReport>,
    /// With a dump of the balance passes read with the trace: each recorded pass asked of the
    /// model (`passes`).
    pub balance_passes: Option<BalancePassReport>,
}

struct Replayer<'a> {
    obs: &'a Observed,
    shadow: &'a Shadow,
    f: Fair,
    /// Task group of each model task.
    tg: Vec<u32>,
    /// Enqueued at least once.
    seen: Vec<bool>,
    /// Picked by the kernel through a hierarchy the model has throttled: owes the throttle
    /// task_work at its return to user space. With the clock at that pick.
    owes_throttle_work: Vec<Option<u64>>,
    /// Per CPU.
    clock: Vec<TaskClock>,
    /// The clock for the next wakeup (one applied before the `sched_stat_runtime` it follows).
    wake_clock: Option<u64>,
    /// A sleeping task's CPU before the `sched_migrate_task` its wakeup wrote ahead of its
    /// `sched_wakeup` (the previous CPU `select_task_rq()` was given).
    prev_cpu: Vec<Option<u32>>,
    t0: u64,
    /// The kernel's recorded state, when a dump came with the trace.
    seed: Option<seed::Seeder>,
    /// The kernel's per-CPU averages, when a dump came with the trace.
    cpu_avg: Option<cpu_avg::CpuAvgSeeder>,
    /// The kernel's balance passes, when a dump came with the trace.
    passes: Option<passes::PassAsker>,
    /// Per event: a switch-out the trace shows to be the throttle task_work's
    /// (`bandwidth::kernel_throttles`), and the index of the event being applied.
    kernel_throttled: Vec<bool>,
    event_at: usize,
    /// The model's answer to the balance pass of the last migration, while the events that
    /// follow it may belong to the same pass (`place::PASS_NS`).
    balance_pass: Option<place::BalancePass>,
    report: DecisionReport,
}

/// Replays `obs` through the fair class configured as `cfg` (the shadow scenario's, with any
/// variant applied) and scores the model's picks against the kernel's.
pub fn decisions(obs: &Observed, shadow: &Shadow, cfg: SimConfig) -> DecisionReport {
    replay(obs, shadow, cfg).report
}

/// The replay, with the model's state at its end.
fn replay<'a>(obs: &'a Observed, shadow: &'a Shadow, cfg: SimConfig) -> Replayer<'a> {
    // A task from before the trace starts with the averages the shadow gave it
    // (`shadow::existing_averages`, set by `sim::task_entity`), not a new task's full load.
    let sim = Simulation::new(cfg);
    let tg = sim.tasks.iter().map(|t| t.cfg.tg).collect::<Vec<_>>();
    let ncpus = sim.fair.rqs.len() as u32;
    let seed = seed::Seeder::new(obs, sim.fair.ents.len(), sim.fair.qs.len(), ncpus as usize);
    let mut r = Replayer {
        obs,
        shadow,
        seen: vec![false; tg.len()],
        owes_throttle_work: vec![None; tg.len()],
        clock: vec![TaskClock::default(); ncpus as usize],
        wake_clock: None,
        prev_cpu: vec![None; tg.len()],
        tg,
        f: sim.fair,
        t0: obs.t0.unwrap_or(0),
        seed,
        cpu_avg: cpu_avg::CpuAvgSeeder::new(obs),
        passes: passes::PassAsker::new(obs),
        kernel_throttled: Vec::new(),
        event_at: 0,
        balance_pass: None,
        report: DecisionReport {
            per_cpu: (0..ncpus).map(|cpu| CpuDecisions { cpu, ..Default::default() }).collect(),
            ..Default::default()
        },
    };
    // A task whose nice value changed starts at the weight of its first priority (the
    // scenario has its last).
    for (i, t) in obs.tasks.iter().enumerate() {
        let Some(se) = r.se(i as u32) else { continue };
        if let Some(p) = t.first_prio.filter(|&p| p != t.prio && (100..=139).contains(&p)) {
            if !r.f.ents[se as usize].idle {
                r.f.ents[se as usize].load = LoadWeight::for_nice(p - 120);
            }
        }
    }
    let events = &obs.events;
    r.kernel_throttled = r.kernel_throttles(events);
    r.start(events);
    // The kernel's averages replace what the model built at the start.
    r.seed_cpu_avg(r.t0);
    let mut moved = vec![false; events.len()];
    for (i, e) in events.iter().enumerate() {
        if moved[i] {
            continue;
        }
        r.ask_passes(e.ts);
        r.seed_cpu_avg(e.ts);
        // ttwu_runnable() requeues a delayed task before wakeup_preempt()'s update_curr():
        // that sched_stat_runtime comes first in the trace.
        if let Some(j) = r.requeue_before(events, i) {
            moved[j] = true;
            if let ObsEvent::Runtime { task, cpu, ns, .. } = e.ev {
                r.wake_clock = Some(r.runtime_clock(e.ts.saturating_sub(r.t0), task, cpu, ns));
            }
            r.event_at = j;
            r.apply(events[j]);
        }
        r.event_at = i;
        r.apply(*e);
    }
    let rep = &mut r.report;
    rep.unthrottles = r.f.bw_stats.unthrottles;
    rep.agreement_pct = if rep.scored == 0 { 0.0 } else { 100.0 * rep.agreed as f64 / rep.scored as f64 };
    let p = &mut rep.placements;
    p.agreement_pct = if p.scored == 0 { 0.0 } else { 100.0 * p.agreed as f64 / p.scored as f64 };
    p.by_rule.sort();
    if let Some(s) = r.seed.as_ref() {
        let mut s = s.report.clone();
        s.agreement_after_pct =
            if s.scored_after == 0 { 0.0 } else { 100.0 * s.agreed_after as f64 / s.scored_after as f64 };
        r.report.seed = Some(s);
    }
    r.report.cpu_avg = r.cpu_avg.as_ref().map(|s| s.report.clone());
    r.ask_passes(u64::MAX);
    r.report.balance_passes = r.passes.as_ref().map(|a| {
        let mut a = a.report.clone();
        a.agreement_pct = if a.scored == 0 { 0.0 } else { 100.0 * a.agreed as f64 / a.scored as f64 };
        a.outcomes.sort_by_key(|o| (o.kernel, o.model));
        a
    });
    r
}

impl Replayer<'_> {
    /// Applies one event of the trace, then drops what the model asked of a simulation: there
    /// is no event queue here (the schedule is the trace's), so no reschedule is acted on, no
    /// timer is armed (the period timer runs where the trace shows its expiry or an unthrottle, see the
    /// module doc), and unthrottled tasks need no simulation state.
    fn apply(&mut self, e: Timed) {
        if !matches!(e.ev, ObsEvent::Migrate { .. })
            && !self.balance_pass.as_ref().is_some_and(|p| p.unrelated(&e.ev.cpus()))
        {
            self.balance_pass = None;
        }
        self.event(e.ts.saturating_sub(self.t0), e.ev);
        self.f.resched_pending.clear();
        self.f.bw_timers.clear();
        self.f.unthrottled_tasks.clear();
    }

    fn se(&self, task: u32) -> Option<EntityId> {
        self.shadow.task_of.get(task as usize).copied().flatten()
    }

    fn cpu_of(&self, se: EntityId) -> u32 {
        self.f.qs[self.f.ents[se as usize].cfs_rq as usize].cpu
    }

    fn running_somewhere(&self, se: EntityId) -> bool {
        self.f.rqs.iter().any(|rq| rq.curr == Some(se))
    }

    /// Points a sleeping entity's chain at `cpu`'s queues (`set_task_cpu()`).
    fn move_to(&mut self, se: EntityId, cpu: u32) {
        self.f.set_task_rq(se, self.tg[se as usize], cpu);
    }
}
