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
//!
//! Named shortcuts: tasks the trace shows runnable at its start (first seen being switched in,
//! or running before their CPU's first switch) are queued then with zero lag (their earlier
//! history is not in the trace); bandwidth throttling is not replayed (a throttled task's
//! switch-out reads as a preemption, so the model may pick it while the kernel cannot); group
//! entity weights are the model's instantaneous shares, not PELT averages (`sched/group.rs`).

use super::observe::Observed;
use super::shadow::Shadow;
use crate::import::record::trace_flags;
use crate::sched::change::is_autogroup;
use crate::sched::entity::{vdiff, EntityId};
use crate::sched::fair::ENQUEUE_WAKEUP;
use crate::sched::fair::{Fair, DEQUEUE_DELAYED, DEQUEUE_SLEEP, DEQUEUE_SPECIAL, ENQUEUE_INITIAL, ENQUEUE_MIGRATED};
use crate::sched::wakeup::{WF_FORK, WF_TTWU};
use crate::sched::weight::LoadWeight;
use crate::sim::{config::SimConfig, Simulation};
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

/// A scheduling event of the trace (task = index into `Observed::tasks`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ObsEvent {
    /// `sched_wakeup`/`sched_wakeup_new` onto `cpu`, recorded in kernel section `ctx`.
    Wake { task: u32, cpu: u32, new: bool, ctx: u8 },
    /// `sched_switch` on `cpu`.
    Switch { cpu: u32, prev: u32, next: u32, out: SwitchOut },
    /// `sched_migrate_task` to `to`.
    Migrate { task: u32, to: u32 },
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
}

/// The kernel section a record was written in (`ObsEvent::Wake`, `Runtime`): its hard/soft
/// irq flags and preempt depth. Two records of one CPU in the same section, microseconds
/// apart, come from one critical section (one `try_to_wake_up()`).
pub fn section(flags: Option<u8>) -> u8 {
    let keep = trace_flags::HARDIRQ | trace_flags::SOFTIRQ | !((1u8 << trace_flags::PREEMPT_SHIFT) - 1);
    flags.map_or(UNKNOWN_SECTION, |f| f & keep)
}

/// `section()` of a record without latency flags.
pub const UNKNOWN_SECTION: u8 = 0x02;

/// Whether two records were written in the same kernel section (or cannot be told apart).
fn same_section(a: u8, b: u8) -> bool {
    a == b || a == UNKNOWN_SECTION || b == UNKNOWN_SECTION
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
    pub per_cpu: Vec<CpuDecisions>,
    /// The first disagreements, in time order.
    pub first_disagreements: Vec<Disagreement>,
}

const KEEP_DISAGREEMENTS: usize = 20;

/// One CPU's task clock (`rq_clock_task()`: what `update_curr()` charges from, interrupt time
/// left out) as its `sched_stat_runtime` records show it. Without such records it is the
/// trace's clock.
#[derive(Debug, Clone, Copy, Default)]
struct TaskClock {
    /// The clock read `clk` at `wall` (both ns since the trace's first record) and runs with
    /// the trace's clock from there.
    wall: u64,
    clk: u64,
    /// The clock at the running task's last accounting point: its switch-in, or its last
    /// `sched_stat_runtime` (None before the CPU's first switch).
    task: Option<u64>,
    /// That task (an index into `Observed::tasks`).
    who: Option<u32>,
    /// The running task has had a `sched_stat_runtime` since it was switched in.
    charged: bool,
    /// The CPU's last event was that `sched_stat_runtime` (at `wall`, reading `clk`), written
    /// in kernel section `section`.
    after_runtime: bool,
    section: u8,
}

impl TaskClock {
    fn at(&self, t: u64) -> u64 {
        self.clk + t.saturating_sub(self.wall)
    }
}

struct Replayer<'a> {
    obs: &'a Observed,
    shadow: &'a Shadow,
    f: Fair,
    /// Task group of each model task.
    tg: Vec<u32>,
    /// Enqueued at least once.
    seen: Vec<bool>,
    /// Per CPU.
    clock: Vec<TaskClock>,
    /// The clock for the next wakeup (one applied before the `sched_stat_runtime` it follows).
    wake_clock: Option<u64>,
    t0: u64,
    report: DecisionReport,
}

/// Replays `obs` through the fair class configured as `cfg` (the shadow scenario's, with any
/// variant applied) and scores the model's picks against the kernel's.
pub fn decisions(obs: &Observed, shadow: &Shadow, cfg: SimConfig) -> DecisionReport {
    replay(obs, shadow, cfg).report
}

/// The replay, with the model's state at its end.
fn replay<'a>(obs: &'a Observed, shadow: &'a Shadow, cfg: SimConfig) -> Replayer<'a> {
    let sim = Simulation::new(cfg);
    let tg = sim.tasks.iter().map(|t| t.cfg.tg).collect::<Vec<_>>();
    let ncpus = sim.fair.rqs.len() as u32;
    let mut r = Replayer {
        obs,
        shadow,
        seen: vec![false; tg.len()],
        clock: vec![TaskClock::default(); ncpus as usize],
        wake_clock: None,
        tg,
        f: sim.fair,
        t0: obs.t0.unwrap_or(0),
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
    r.start(events);
    let mut moved = vec![false; events.len()];
    for (i, e) in events.iter().enumerate() {
        if moved[i] {
            continue;
        }
        // ttwu_runnable() requeues a delayed task before wakeup_preempt()'s update_curr():
        // that sched_stat_runtime comes first in the trace.
        if let Some(j) = r.requeue_before(events, i) {
            moved[j] = true;
            if let ObsEvent::Runtime { task, cpu, ns, .. } = e.ev {
                r.wake_clock = Some(r.runtime_clock(e.ts.saturating_sub(r.t0), task, cpu, ns));
            }
            r.event(events[j].ts.saturating_sub(r.t0), events[j].ev);
            r.f.resched_pending.clear();
        }
        r.event(e.ts.saturating_sub(r.t0), e.ev);
        r.f.resched_pending.clear();
    }
    let rep = &mut r.report;
    rep.agreement_pct = if rep.scored == 0 { 0.0 } else { 100.0 * rep.agreed as f64 / rep.scored as f64 };
    r
}

impl Replayer<'_> {
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

    /// Enqueues `se` on `cpu` as `try_to_wake_up()` would (a delayed entity is requeued where
    /// it is). Returns false when it was already queued and runnable.
    fn wake(&mut self, se: EntityId, cpu: u32, new: bool) -> bool {
        let e = &self.f.ents[se as usize];
        if e.on_rq && !e.sched_delayed {
            return false;
        }
        if !e.on_rq {
            self.move_to(se, cpu);
        }
        let flags = if new || !self.seen[se as usize] { ENQUEUE_INITIAL } else { ENQUEUE_WAKEUP };
        self.seen[se as usize] = true;
        self.f.enqueue_task(se, flags);
        let cpu = self.cpu_of(se);
        if self.f.rqs[cpu as usize].curr.is_some() {
            let flags = if new { WF_FORK } else { WF_TTWU };
            self.f.check_preempt_wakeup_fair(cpu, se, flags, true);
        }
        true
    }

    /// Queues, at the trace's start, the tasks it shows runnable then: those whose first event
    /// is a switch-in, and those running before the first switch of their CPU (that CPU's first
    /// prev, or a `sched_stat_runtime`), which run. Their state before the trace is unknown:
    /// they are placed with zero lag.
    fn start(&mut self, events: &[Timed]) {
        let n = self.obs.tasks.len();
        let mut decided = vec![false; n];
        let mut first: Vec<Option<(u32, bool)>> = vec![None; n];
        let mut switched = vec![false; self.f.rqs.len()];
        let mut settle = |task: u32, at: Option<(u32, bool)>, decided: &mut Vec<bool>| {
            if !std::mem::replace(&mut decided[task as usize], true) {
                first[task as usize] = at;
            }
        };
        for e in events {
            match e.ev {
                ObsEvent::Switch { cpu, prev, next, .. } => {
                    let running = (!switched[cpu as usize]).then_some((cpu, true));
                    settle(prev, running, &mut decided);
                    settle(next, Some((cpu, false)), &mut decided);
                    switched[cpu as usize] = true;
                }
                ObsEvent::Runtime { task, cpu, .. } => {
                    settle(task, (!switched[cpu as usize]).then_some((cpu, true)), &mut decided)
                }
                ObsEvent::Wake { task, .. }
                | ObsEvent::Migrate { task, .. }
                | ObsEvent::Yield { task, .. }
                | ObsEvent::Vanished { task, .. }
                | ObsEvent::Nice { task, .. }
                | ObsEvent::Exiting { task }
                | ObsEvent::Repick { task, .. } => settle(task, None, &mut decided),
            }
        }
        self.f.now = 0;
        let mut running = Vec::new();
        for (task, at) in first.iter().enumerate() {
            let (Some((cpu, run)), Some(se)) = (*at, self.se(task as u32)) else { continue };
            if self.obs.tasks[task].pid == 0 {
                continue;
            }
            self.move_to(se, cpu);
            self.seen[se as usize] = true;
            self.f.enqueue_task(se, 0);
            if run {
                running.push((cpu, se));
            }
        }
        for (cpu, se) in running {
            if self.f.rqs[cpu as usize].curr.is_none() {
                self.f.force_next(cpu, Some(se));
            }
        }
    }

    /// When `events[i]` is the `sched_stat_runtime` of `wakeup_preempt()` after a delayed task
    /// was requeued on its CPU (`ttwu_runnable()`: `requeue_delayed_entity()` reads V without
    /// an `update_curr()`, then `wakeup_preempt()` calls one, then `sched_wakeup` is
    /// recorded), the index of that wakeup: it is applied first. The wakeup is the next event
    /// on that CPU, within 20 µs.
    fn requeue_before(&self, events: &[Timed], i: usize) -> Option<usize> {
        let ObsEvent::Runtime { cpu, ctx, .. } = events[i].ev else { return None };
        for (j, e) in events.iter().enumerate().skip(i + 1) {
            if e.ts > events[i].ts + 20_000 {
                return None;
            }
            match e.ev {
                ObsEvent::Wake { task, cpu: c, ctx: w, .. } if c == cpu => {
                    let se = self.se(task)?;
                    let d = &self.f.ents[se as usize];
                    return (d.sched_delayed && self.cpu_of(se) == cpu && same_section(ctx, w)).then_some(j);
                }
                ObsEvent::Wake { .. } | ObsEvent::Migrate { .. } | ObsEvent::Nice { .. } => {}
                ObsEvent::Runtime { cpu: c, .. } | ObsEvent::Switch { cpu: c, .. } if c != cpu => {}
                _ => return None,
            }
        }
        None
    }

    /// The clock of `cpu` at `t` becomes the model's.
    fn clock_at(&mut self, cpu: u32, t: u64) {
        let c = &mut self.clock[cpu as usize];
        c.after_runtime = false;
        self.f.now = c.at(t);
    }

    /// The clock of `cpu` at a `sched_stat_runtime` of `task` charging `ns` at `t`: the
    /// running task's last accounting point plus what it was charged.
    fn runtime_clock(&self, t: u64, task: u32, cpu: u32, ns: u64) -> u64 {
        let c = self.clock[cpu as usize];
        match c.task {
            Some(k) if c.who == Some(task) => k + ns,
            _ => c.at(t),
        }
    }

    /// Applies one event at `t` (ns since the trace's first record).
    fn event(&mut self, t: u64, ev: ObsEvent) {
        match ev {
            ObsEvent::Wake { task, cpu, new, ctx } => {
                if let Some(se) = self.se(task).filter(|&se| !self.running_somewhere(se)) {
                    // A delayed task is requeued where it is.
                    let e = &self.f.ents[se as usize];
                    let at = if e.on_rq { self.cpu_of(se) } else { cpu };
                    // try_to_wake_up() reads the clock once: a sched_stat_runtime of the task
                    // running on that queue just before is this wakeup's own update_curr().
                    let c = self.clock[at as usize];
                    let tg = self.tg[se as usize];
                    let same_queue = self.f.rqs[at as usize]
                        .curr
                        .is_some_and(|k| self.f.ents[k as usize].cfs_rq == self.f.tgs[tg as usize].cfs_rq[at as usize]);
                    self.f.now = match self.wake_clock.take() {
                        Some(now) => now,
                        None if c.after_runtime
                            && same_section(c.section, ctx)
                            && same_queue
                            && t <= c.wall + 20_000 =>
                        {
                            c.clk
                        }
                        None => c.at(t),
                    };
                    self.clock[at as usize].after_runtime = false;
                    self.wake(se, cpu, new);
                }
            }
            ObsEvent::Migrate { task, to } => {
                let Some(se) = self.se(task) else { return };
                if self.running_somewhere(se) || self.cpu_of(se) == to {
                    return;
                }
                self.clock_at(self.cpu_of(se), t);
                let e = &self.f.ents[se as usize];
                if e.sched_delayed {
                    // move_queued_task() moves a delayed task as it is: dequeued without
                    // DEQUEUE_SLEEP (PLACE_REL_DEADLINE keeps its deadline relative) and queued,
                    // still delayed, on the new CPU, where its wakeup requeues it
                    // (requeue_delayed_entity(): DELAY_ZERO drops a positive lag and places it
                    // afresh). Here its delayed dequeue is finished and the wakeup places it.
                    let rel = vdiff(e.deadline, e.vruntime);
                    self.f.dequeue_task(se, DEQUEUE_SLEEP | DEQUEUE_DELAYED);
                    let e = &mut self.f.ents[se as usize];
                    if e.vlag <= 0 {
                        e.deadline = rel as u64;
                        e.rel_deadline = true;
                    }
                } else if e.on_rq {
                    self.f.dequeue_task(se, DEQUEUE_SPECIAL);
                    self.move_to(se, to);
                    self.clock_at(to, t);
                    self.f.enqueue_task(se, ENQUEUE_MIGRATED);
                    return;
                }
                self.move_to(se, to);
            }
            ObsEvent::Yield { task, cpu } => {
                let Some(se) = self.se(task) else { return };
                if self.f.rqs[cpu as usize].curr != Some(se) {
                    return;
                }
                self.clock_at(cpu, t);
                self.f.yield_task(cpu);
                self.report.quiet_yields += 1;
                self.pick(cpu, Some(se));
            }
            ObsEvent::Vanished { task, cpu } => {
                if let Some(se) = self.se(task).filter(|&se| self.f.rqs[cpu as usize].curr == Some(se)) {
                    self.clock_at(cpu, t);
                    let c = &mut self.clock[cpu as usize];
                    *c = TaskClock { wall: t, clk: self.f.now, ..Default::default() };
                    self.f.dequeue_task(se, DEQUEUE_SLEEP);
                    self.f.force_next(cpu, None);
                }
            }
            ObsEvent::Switch { cpu, prev, next, out } => {
                // __schedule() reads the clock once: prev's last update_curr() (its last
                // sched_stat_runtime, when it had one since it was switched in) and next's
                // exec_start share that reading.
                let c = self.clock[cpu as usize];
                let now = match (c.charged, c.task) {
                    (true, Some(k)) => k,
                    _ => c.at(t),
                };
                self.f.now = now;
                self.switch(cpu, prev, next, out);
                self.clock[cpu as usize] = TaskClock {
                    wall: t,
                    clk: now,
                    task: Some(now),
                    who: Some(next),
                    charged: false,
                    after_runtime: false,
                    section: UNKNOWN_SECTION,
                };
            }
            ObsEvent::Nice { task, prio } => {
                if let Some(se) = self.se(task).filter(|&se| !self.f.ents[se as usize].idle) {
                    self.clock_at(self.cpu_of(se), t);
                    self.f.set_user_nice(se, prio - 120);
                }
            }
            ObsEvent::Repick { task, cpu } => {
                // Not scored (no sched_switch shows it), but the pick's side effects are the
                // model's: a delayed entity it would pick is dequeued.
                if let Some(se) = self.se(task).filter(|&se| self.f.rqs[cpu as usize].curr == Some(se)) {
                    self.clock_at(cpu, t);
                    self.f.pick_and_force(cpu, Some(se));
                }
            }
            ObsEvent::Exiting { task } => {
                let Some(se) = self.se(task) else { return };
                let tg = self.tg[se as usize];
                if tg != 0 && is_autogroup(&self.f.tgs[tg as usize].path) && self.running_somewhere(se) {
                    self.clock_at(self.cpu_of(se), t);
                    self.f.sched_move_task(se, 0);
                    self.tg[se as usize] = 0;
                }
            }
            ObsEvent::Runtime { task, cpu, ns, ctx } => {
                // The kernel's clock at this update_curr(): the running task's last accounting
                // point plus what it was charged.
                let now = self.runtime_clock(t, task, cpu, ns);
                self.clock[cpu as usize] = TaskClock {
                    wall: t,
                    clk: now,
                    task: Some(now),
                    who: Some(task),
                    charged: true,
                    after_runtime: true,
                    section: ctx,
                };
                let Some(se) = self.se(task) else { return };
                if self.f.rqs[cpu as usize].curr != Some(se) {
                    // Its switch-in is not in the trace (the CPU's previous task vanished): it
                    // has run since its accounting began.
                    let e = &self.f.ents[se as usize];
                    let queued_here = e.on_rq && !e.sched_delayed && self.cpu_of(se) == cpu;
                    if self.f.rqs[cpu as usize].curr.is_some() || !queued_here || self.running_somewhere(se) {
                        return;
                    }
                    self.f.now = now.saturating_sub(ns);
                    self.f.force_next(cpu, Some(se));
                    self.report.resynced += 1;
                }
                self.f.now = now;
                let mut cur = Some(se);
                while let Some(s) = cur {
                    let q = self.f.ents[s as usize].cfs_rq;
                    self.f.update_curr(q);
                    cur = self.f.ents[s as usize].parent;
                }
            }
        }
    }

    fn switch(&mut self, cpu: u32, prev: u32, next: u32, out: SwitchOut) {
        // A prev the model does not have running here (it was running when the trace began,
        // or its switch-in was lost) is made current first if it is queued here.
        if let Some(pse) = self.se(prev) {
            let e = &self.f.ents[pse as usize];
            if self.f.rqs[cpu as usize].curr != Some(pse) && e.on_rq && self.cpu_of(pse) == cpu {
                if e.sched_delayed {
                    self.f.enqueue_task(pse, ENQUEUE_WAKEUP);
                }
                self.f.force_next(cpu, Some(pse));
                self.report.resynced += 1;
            }
        }
        if let Some(pse) = self.se(prev).filter(|&se| self.f.rqs[cpu as usize].curr == Some(se)) {
            match out {
                SwitchOut::Preempted => {}
                SwitchOut::Yield => {
                    self.f.yield_task(cpu);
                }
                SwitchOut::Sleep => {
                    self.f.dequeue_task(pse, DEQUEUE_SLEEP);
                }
                SwitchOut::Exit => {
                    self.f.dequeue_task(pse, DEQUEUE_SPECIAL);
                }
            }
        }
        let idle = self.obs.tasks[next as usize].pid == 0;
        match self.se(next) {
            None if idle => {
                self.report.idle_picks += 1;
                self.pick(cpu, None);
            }
            None => {
                self.report.other_class += 1;
                self.f.force_next(cpu, None);
            }
            Some(nse) => {
                let queued_here = self.f.ents[nse as usize].on_rq
                    && !self.f.ents[nse as usize].sched_delayed
                    && self.cpu_of(nse) == cpu
                    && !self.f.rqs.iter().any(|rq| rq.cpu != cpu && rq.curr == Some(nse));
                if queued_here {
                    self.pick(cpu, Some(nse));
                    return;
                }
                // Not scored: bring the model in line with the trace first.
                self.report.not_queued += 1;
                for c in 0..self.f.rqs.len() as u32 {
                    if c != cpu && self.f.rqs[c as usize].curr == Some(nse) {
                        self.f.force_next(c, None);
                    }
                }
                let e = &self.f.ents[nse as usize];
                if e.on_rq && (self.cpu_of(nse) != cpu || e.sched_delayed) {
                    let flags = if e.sched_delayed { DEQUEUE_SLEEP | DEQUEUE_DELAYED } else { DEQUEUE_SPECIAL };
                    self.f.dequeue_task(nse, flags);
                }
                self.wake(nse, cpu, false);
                self.f.force_next(cpu, Some(nse));
            }
        }
    }

    /// Scores one pick on `cpu` where the kernel chose `kernel`, then follows the kernel.
    fn pick(&mut self, cpu: u32, kernel: Option<EntityId>) {
        let model = self.f.pick_and_force(cpu, kernel);
        let c = &mut self.report.per_cpu[cpu as usize];
        c.scored += 1;
        self.report.scored += 1;
        if model == kernel {
            c.agreed += 1;
            self.report.agreed += 1;
            return;
        }
        if self.report.first_disagreements.len() < KEEP_DISAGREEMENTS {
            let d = self.describe(cpu, kernel, model);
            self.report.first_disagreements.push(d);
        }
    }

    fn name(&self, se: Option<EntityId>) -> String {
        match se {
            None => "<idle>".into(),
            Some(se) => self.shadow.scenario.tasks[se as usize].name.clone(),
        }
    }

    /// Lag and deadline − V of `se` at its own cfs_rq.
    fn position(&self, se: EntityId) -> (i64, i64) {
        let e = &self.f.ents[se as usize];
        let v = self.f.qs[e.cfs_rq as usize].peek_avg_vruntime(&self.f.ents);
        (vdiff(v, e.vruntime), vdiff(e.deadline, v))
    }

    fn describe(&self, cpu: u32, kernel: Option<EntityId>, model: Option<EntityId>) -> Disagreement {
        // Compared where the two chains meet: the level at which the picks went apart.
        let (k, m) = match (kernel, model) {
            (Some(k), Some(m)) => {
                let (k, m) = self.f.find_matching_se(k, m);
                (Some(k), Some(m))
            }
            other => other,
        };
        let level = k.or(m).map_or(0, |e| self.f.ents[e as usize].depth);
        let (kl, kd) = k.map_or((0, 0), |k| self.position(k));
        let m = m.map(|m| self.position(m));
        Disagreement {
            at_ns: self.f.now,
            cpu,
            kernel: self.name(kernel),
            model: self.name(model),
            level,
            kernel_lag: kl,
            kernel_deadline: kd,
            model_lag: m.map(|x| x.0),
            model_deadline: m.map(|x| x.1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::record::{state_bits, trace_flags, PrevState, SchedPayload, TraceRecord, TraceSink, WakeKind};
    use crate::replay::shadow::{shadow_scenario, Layout};

    /// A task of a synthetic trace: (comm, pid, prio).
    type T = (&'static str, i32, i32);
    const IDLE: T = ("swapper/1", 0, 120);

    /// A trace written record by record; `flags` are the latency flags as printed.
    #[derive(Default)]
    struct Trace(Vec<TraceRecord>);

    impl Trace {
        fn rec(&mut self, ts: u64, cpu: u32, current: T, event: &str, flags: &str, payload: SchedPayload) -> &mut Self {
            self.0.push(TraceRecord {
                ts_ns: ts,
                cpu,
                pid: current.1,
                comm: current.0.into(),
                event: event.into(),
                line: 0,
                flags: trace_flags::from_text(flags),
                payload,
            });
            self
        }

        fn switch(&mut self, ts: u64, cpu: u32, prev: T, state: PrevState, next: T) -> &mut Self {
            let payload = SchedPayload::Switch {
                prev_comm: prev.0.into(),
                prev_pid: prev.1,
                prev_prio: prev.2,
                prev_state: state,
                next_comm: next.0.into(),
                next_pid: next.1,
                next_prio: next.2,
                extra: Vec::new(),
            };
            self.rec(ts, cpu, prev, "sched_switch", "d..2.", payload)
        }

        fn wakeup(&mut self, ts: u64, cpu: u32, current: T, who: T, target: i32, kind: WakeKind) -> &mut Self {
            let payload = SchedPayload::Wakeup {
                kind,
                comm: who.0.into(),
                pid: who.1,
                prio: who.2,
                target_cpu: target,
                success: None,
                extra: Vec::new(),
            };
            let event = if kind == WakeKind::WakeupNew { "sched_wakeup_new" } else { "sched_wakeup" };
            self.rec(ts, cpu, current, event, "dNh3.", payload)
        }

        /// `sched_stat_runtime` of the current task (`flags`: `d.h1.` at a tick, `d..2.` quiet).
        fn stat(&mut self, ts: u64, cpu: u32, current: T, ns: u64, flags: &str) -> &mut Self {
            let fields = vec![
                ("comm".into(), current.0.into()),
                ("pid".into(), current.1.to_string()),
                ("runtime".into(), format!("{ns} [ns]")),
            ];
            self.rec(ts, cpu, current, "sched_stat_runtime", flags, SchedPayload::Other { fields, text: None })
        }

        fn other(&mut self, ts: u64, cpu: u32, current: T, event: &str, payload: SchedPayload) -> &mut Self {
            self.rec(ts, cpu, current, event, ".....", payload)
        }

        fn observe(&self) -> Observed {
            let mut obs = Observed::default();
            for r in &self.0 {
                obs.record(r.clone());
            }
            obs.finish();
            obs
        }
    }

    fn shadow(obs: &Observed, layout: &str) -> (Shadow, SimConfig) {
        let layout = Layout::parse("layout", layout).unwrap();
        let shadow = shadow_scenario(obs, &layout, "t").unwrap();
        let cfg = SimConfig::from_scenario(&shadow.scenario).unwrap();
        (shadow, cfg)
    }

    /// The model's entity of the observed task named `comm`.
    fn entity(r: &Replayer, comm: &str) -> EntityId {
        let i = r.obs.tasks.iter().position(|t| t.comm == comm).unwrap();
        r.se(i as u32).unwrap()
    }

    /// Each `sched_stat_runtime` is one `update_curr()`: the task is charged what the kernel
    /// charged (here 3.9 ms of a 4 ms run: interrupt time is left out of rq_clock_task), and the
    /// switch that follows reads the same clock.
    #[test]
    fn update_curr_charges_what_sched_stat_runtime_says() {
        let (a, b) = (("a", 10, 120), ("b", 11, 120));
        let mut t = Trace::default();
        t.switch(1_000, 1, IDLE, PrevState::Runnable, a)
            .stat(4_001_000, 1, a, 3_900_000, "d.h1.")
            .stat(4_001_010, 1, a, 10, "dN.2.")
            .switch(4_001_020, 1, a, PrevState::Runnable, b)
            .stat(5_001_010, 1, b, 1_000_000, "d..2.")
            .switch(5_001_020, 1, b, PrevState::Blocked(state_bits::S), IDLE);
        let obs = t.observe();
        let (shadow, cfg) = shadow(&obs, "");
        let r = replay(&obs, &shadow, cfg);
        assert_eq!(r.f.ents[entity(&r, "a") as usize].sum_exec_runtime, 3_900_010);
        assert_eq!(r.f.ents[entity(&r, "b") as usize].sum_exec_runtime, 1_000_000);
    }

    /// `set_user_nice()`: `nice -n 7` forks at nice 0 and calls setpriority() after 0.7 ms: the
    /// task ran those at weight 1024 and keeps its lag (−0.35 ms beside one nice-0 task) in real
    /// terms, ×1024/215 in virtual time at nice 7.
    #[test]
    fn set_user_nice_reweighs_a_task_reniced_after_fork() {
        let (a, b) = (("a", 10, 120), ("b", 11, 120));
        let a7 = ("a", 10, 127);
        let mut t = Trace::default();
        t.switch(1_000, 1, IDLE, PrevState::Runnable, b)
            .wakeup(2_000, 1, b, a, 1, WakeKind::WakeupNew)
            .switch(2_010, 1, b, PrevState::Preempted, a)
            .stat(702_010, 1, a, 700_000, "d..2.")
            .switch(702_020, 1, a7, PrevState::Preempted, b);
        let obs = t.observe();
        let (shadow, cfg) = shadow(&obs, "");
        let r = replay(&obs, &shadow, cfg);
        let se = entity(&r, "a");
        let e = &r.f.ents[se as usize];
        assert_eq!(e.load, LoadWeight::for_nice(7));
        let lag = vdiff(r.f.qs[e.cfs_rq as usize].peek_avg_vruntime(&r.f.ents), e.vruntime);
        let expect = -350_000 * 1024 / 215;
        assert!((lag - expect).abs() < 1_000, "lag {lag}, expected {expect}");
    }

    /// `sched_autogroup_exit_task()`: a task of an autogroup that exits finishes on the root
    /// cfs_rq (moved at its first update_curr() after sched_process_exit).
    #[test]
    fn sched_autogroup_exit_task_moves_an_exiting_task_to_the_root_group() {
        let (a, b) = (("a", 10, 120), ("b", 11, 120));
        let exit = SchedPayload::Other {
            fields: vec![("comm".into(), "a".into()), ("pid".into(), "10".into()), ("prio".into(), "120".into())],
            text: None,
        };
        let mut t = Trace::default();
        t.switch(1_000, 1, IDLE, PrevState::Runnable, a)
            .other(501_000, 1, a, "sched_process_exit", exit)
            .stat(601_000, 1, a, 600_000, "d..2.")
            .switch(601_010, 1, a, PrevState::Blocked(state_bits::Z), b)
            .stat(701_010, 1, b, 100_000, "d.h1.");
        let obs = t.observe();
        let layout = "[[cgroups]]\npath = \"/autogroup-1\"\n[tasks]\na = \"/autogroup-1\"\nb = \"/autogroup-1\"\n";
        let (shadow, cfg) = shadow(&obs, layout);
        let r = replay(&obs, &shadow, cfg);
        let se = entity(&r, "a");
        assert_eq!(r.tg[se as usize], 0);
        assert_eq!(r.f.ents[se as usize].cfs_rq, r.f.rqs[1].cfs);
        assert_eq!(r.f.ents[entity(&r, "b") as usize].depth, 1, "b stays in the autogroup");
    }

    /// `requeue_delayed_entity()`: a delayed task woken while another runs is requeued with V
    /// read before `wakeup_preempt()`'s update_curr(), whose sched_stat_runtime comes first in
    /// the trace. b slept 0.5 ms behind V (delayed); a has run 1.2 ms since, but was last
    /// charged at its switch-in: b is still ineligible, so it keeps its vruntime (DELAY_ZERO
    /// would re-place it at V).
    #[test]
    fn requeue_delayed_entity_reads_v_before_wakeup_preempt_updates_curr() {
        let (a, b) = (("a", 10, 120), ("b", 11, 120));
        let mut t = Trace::default();
        t.switch(1_000, 1, IDLE, PrevState::Runnable, b)
            .stat(1_001_000, 1, b, 1_000_000, "d..2.")
            .switch(1_001_010, 1, b, PrevState::Blocked(state_bits::S), a)
            .stat(2_201_010, 1, a, 1_200_000, "d.h3.")
            .wakeup(2_201_012, 1, a, b, 1, WakeKind::Wakeup);
        let obs = t.observe();
        let (shadow, cfg) = shadow(&obs, "");
        let r = replay(&obs, &shadow, cfg);
        let (ea, eb) = (&r.f.ents[entity(&r, "a") as usize], &r.f.ents[entity(&r, "b") as usize]);
        assert!(eb.on_rq && !eb.sched_delayed);
        assert_eq!(vdiff(eb.vruntime, ea.vruntime), -200_000);
    }

    /// The same with the `sched_stat_runtime` of the tick (`d.h1.`) just before the wakeup of
    /// the hrtimer that fired in the same interrupt (`dNh3.`): the tick set need-resched, so
    /// `wakeup_preempt()` returned before its update_curr(), and the requeue read V after the
    /// tick's. b's lag is positive then: DELAY_ZERO places it at V (alone with a: a's vruntime).
    #[test]
    fn requeue_delayed_entity_after_the_ticks_update_curr() {
        let (a, b) = (("a", 10, 120), ("b", 11, 120));
        let mut t = Trace::default();
        t.switch(1_000, 1, IDLE, PrevState::Runnable, b)
            .stat(1_001_000, 1, b, 1_000_000, "d..2.")
            .switch(1_001_010, 1, b, PrevState::Blocked(state_bits::S), a)
            .stat(2_201_010, 1, a, 1_200_000, "d.h1.")
            .wakeup(2_201_012, 1, a, b, 1, WakeKind::Wakeup);
        let obs = t.observe();
        let (shadow, cfg) = shadow(&obs, "");
        let r = replay(&obs, &shadow, cfg);
        let (ea, eb) = (&r.f.ents[entity(&r, "a") as usize], &r.f.ents[entity(&r, "b") as usize]);
        // (a has run the 2 ns of the trace's clock between the two records since.)
        assert!(vdiff(eb.vruntime, ea.vruntime).abs() <= 2, "{}", vdiff(eb.vruntime, ea.vruntime));
    }

    /// `try_to_wake_up()` reads the clock once: the wakee is placed at V as of the update_curr()
    /// whose sched_stat_runtime the trace shows just before its sched_wakeup, not 3 µs later. a
    /// renewed its deadline there, so b (at V, alone with a) is exactly one slice before it.
    #[test]
    fn try_to_wake_up_places_at_the_clock_of_its_own_update_curr() {
        let (a, b) = (("a", 10, 120), ("b", 11, 120));
        let mut t = Trace::default();
        t.switch(1_000, 1, IDLE, PrevState::Runnable, a)
            .stat(4_001_000, 1, a, 4_000_000, "d.h3.")
            .wakeup(4_004_000, 1, a, b, 1, WakeKind::WakeupNew)
            .switch(4_004_010, 1, a, PrevState::Preempted, b)
            .stat(4_104_010, 1, b, 100_000, "d..2.")
            .switch(4_104_020, 1, b, PrevState::Blocked(state_bits::S), IDLE);
        let obs = t.observe();
        let (shadow, cfg) = shadow(&obs, "");
        let r = replay(&obs, &shadow, cfg);
        let (ea, eb) = (&r.f.ents[entity(&r, "a") as usize], &r.f.ents[entity(&r, "b") as usize]);
        let placed = eb.vruntime.wrapping_sub(100_000);
        assert_eq!(vdiff(ea.deadline, placed), 1_400_000);
    }

    /// `move_queued_task()` moves a delayed task as it is: dequeued without DEQUEUE_SLEEP, so
    /// PLACE_REL_DEADLINE keeps its deadline relative (0.4 ms left of its slice), and its
    /// wakeup on the new CPU (lag still negative) does not place it afresh.
    #[test]
    fn move_queued_task_keeps_a_delayed_tasks_relative_deadline() {
        let (a, x) = (("a", 10, 120), ("x", 11, 120));
        let migrate = SchedPayload::MigrateTask {
            comm: "a".into(),
            pid: 10,
            prio: 120,
            orig_cpu: 0,
            dest_cpu: 1,
            extra: Vec::new(),
        };
        let mut t = Trace::default();
        t.switch(1_000, 0, ("swapper/0", 0, 120), PrevState::Runnable, a)
            .stat(1_001_000, 0, a, 1_000_000, "d..2.")
            .switch(1_001_010, 0, a, PrevState::Blocked(state_bits::D), x)
            .other(1_001_020, 0, x, "sched_migrate_task", migrate)
            .wakeup(1_001_030, 0, x, a, 1, WakeKind::Wakeup)
            .switch(1_001_040, 1, IDLE, PrevState::Runnable, a)
            .stat(1_101_040, 1, a, 100_000, "d..2.")
            .switch(1_101_050, 1, a, PrevState::Blocked(state_bits::S), IDLE)
            .stat(2_001_030, 0, x, 1_000_000, "d.h1.");
        let obs = t.observe();
        let (shadow, cfg) = shadow(&obs, "");
        let r = replay(&obs, &shadow, cfg);
        let e = &r.f.ents[entity(&r, "a") as usize];
        assert_eq!(r.f.qs[e.cfs_rq as usize].cpu, 1);
        // 0.4 ms left when it went to sleep on CPU 0, 0.1 ms of it run on CPU 1.
        assert_eq!(vdiff(e.deadline, e.vruntime), 300_000);
    }

    /// `__schedule()` that picks the running task again leaves no `sched_switch`, only its
    /// `update_curr()` with need-resched set (`dN.2.`) and no switch-out after it: the pick
    /// still happened, and a delayed entity it chose was dequeued (`pick_next_entity()`). b
    /// went to sleep 0.5 ms behind V; after a's 4 ms it is eligible with the earlier deadline.
    #[test]
    fn pick_next_entity_dequeues_a_delayed_entity_at_a_pick_without_a_switch() {
        let (a, b) = (("a", 10, 120), ("b", 11, 120));
        let mut t = Trace::default();
        t.switch(1_000, 1, IDLE, PrevState::Runnable, b)
            .stat(1_001_000, 1, b, 1_000_000, "d..2.")
            .switch(1_001_010, 1, b, PrevState::Blocked(state_bits::S), a)
            .stat(5_001_010, 1, a, 4_000_000, "d.h1.")
            .stat(5_001_020, 1, a, 10, "dN.2.")
            .stat(9_001_020, 1, a, 4_000_000, "d.h1.");
        let obs = t.observe();
        let (shadow, cfg) = shadow(&obs, "");
        let r = replay(&obs, &shadow, cfg);
        let eb = &r.f.ents[entity(&r, "b") as usize];
        assert!(!eb.on_rq && !eb.sched_delayed, "b dequeued at the re-pick");
        assert_eq!(eb.vlag, 0, "DELAY_ZERO");
    }

    /// A task the trace first shows being switched in was runnable from its start: it is queued
    /// then (with zero lag) and has waited since, 4 ms behind a, which ran.
    #[test]
    fn tasks_runnable_at_the_trace_start_wait_from_it() {
        let (a, b) = (("a", 10, 120), ("b", 11, 120));
        let mut t = Trace::default();
        t.stat(1_000, 1, a, 500_000, "d.h1.")
            .stat(4_001_000, 1, a, 4_000_000, "d.h1.")
            .stat(4_001_010, 1, a, 10, "dN.2.")
            .switch(4_001_020, 1, a, PrevState::Runnable, b)
            .stat(5_001_020, 1, b, 1_000_000, "d..2.")
            .switch(5_001_030, 1, b, PrevState::Blocked(state_bits::S), a)
            .stat(6_001_030, 1, a, 1_000_000, "d.h1.");
        let obs = t.observe();
        let (shadow, cfg) = shadow(&obs, "");
        let r = replay(&obs, &shadow, cfg);
        let (ea, eb) = (&r.f.ents[entity(&r, "a") as usize], &r.f.ents[entity(&r, "b") as usize]);
        // a: 4 ms before its first switch (its sched_stat_runtime records come before the
        // trace names it, so the trace's clock) and 1 ms after; b: 1 ms.
        assert_eq!(vdiff(eb.vruntime, ea.vruntime), -4_000_020);
        assert_eq!(r.report.not_queued, 0);
    }
}
