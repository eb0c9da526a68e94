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
//! The running task is charged where the kernel charged it: at each of its `sched_stat_runtime`
//! records (every `update_curr()` of a task emits one: the tick, a wakeup on its CPU, a yield,
//! the switch), `update_curr()` runs at every level of its chain, so V, deadlines and
//! bandwidth runtime move when the kernel's did. Named shortcut: tasks already on the runqueue
//! when the trace starts are placed with zero lag when first seen, and a task is in its
//! layout cgroup from its first record (a task the capture moved into its cgroup later, as
//! `sched_move_task()` does, is charged to the cgroup from the start).
//!
//! CFS bandwidth (the task-based throttle of 6.18) is replayed with the model's own runtime
//! accounting: a task the kernel runs through a hierarchy the model has throttled owes the
//! throttle task_work, and a preempted switch-out (`R+`) within `THROTTLE_WORK_MAX_RUN_NS` of
//! its switch-in (its first return to user space) moves it to its cfs_rq's limbo list
//! (`throttle_cfs_rq_work()`); a task that ran longer reached user space unthrottled, so the
//! kernel's hierarchy was not throttled yet and the model leaves it queued. The unthrottle
//! leaves no record in a trace (no wakeup: `tg_unthrottle_up()` enqueues directly; and its
//! `update_curr()` emits `sched_stat_runtime` only if the running task sits on the same queue
//! as the group entity), so it is replayed where the trace first shows it: when the kernel
//! switches to a task the model holds in limbo, the group's period timer refills the pool and
//! distributes it (`do_sched_cfs_period_timer()`) just before that pick, which is then scored.
//! Named shortcut: the period timer runs only then. The kernel's runs at a random phase
//! (`init_cfs_bandwidth()`), which the trace does not show: the unthrottle is placed up to a
//! tick late (1.7 ms in bandwidth-30-of-100, by its EEVDF dump), and a period that ends with
//! the group unthrottled refills nothing.

use super::observe::Observed;
use super::shadow::Shadow;
use crate::sched::entity::{vdiff, EntityId};
use crate::sched::fair::ENQUEUE_WAKEUP;
use crate::sched::fair::{Fair, DEQUEUE_DELAYED, DEQUEUE_SLEEP, DEQUEUE_SPECIAL, ENQUEUE_INITIAL, ENQUEUE_MIGRATED};
use crate::sched::wakeup::{WF_FORK, WF_TTWU};
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
    /// `sched_wakeup`/`sched_wakeup_new` onto `cpu`.
    Wake { task: u32, cpu: u32, new: bool },
    /// `sched_switch` on `cpu`.
    Switch { cpu: u32, prev: u32, next: u32, out: SwitchOut },
    /// `sched_migrate_task` to `to`.
    Migrate { task: u32, to: u32 },
    /// A `sched_yield()` that did not switch (its `sched_stat_runtime` record).
    Yield { task: u32, cpu: u32 },
    /// The trace lost the task's switch-out on `cpu` (`Observed::missing_switches`).
    Vanished { task: u32, cpu: u32 },
    /// `update_curr()` charged the task running on `cpu` (its `sched_stat_runtime` record: a
    /// tick, a wakeup on its CPU, a yield, a switch).
    Account { task: u32, cpu: u32 },
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
    /// cfs_rqs unthrottled (where the trace first shows it, see the module doc).
    pub throttled: u64,
    pub unthrottles: u64,
    pub per_cpu: Vec<CpuDecisions>,
    /// The first disagreements, in time order.
    pub first_disagreements: Vec<Disagreement>,
}

const KEEP_DISAGREEMENTS: usize = 20;

/// The longest run after which a switch-out can still be the throttle task_work's: it runs at the
/// first return to user space (`RETURN_TO_USER_NS`, 27 µs, on the capture), far below a tick.
const THROTTLE_WORK_MAX_RUN_NS: u64 = 1_000_000;

struct Replayer<'a> {
    obs: &'a Observed,
    shadow: &'a Shadow,
    f: Fair,
    /// Task group of each model task.
    tg: Vec<u32>,
    /// Enqueued at least once.
    seen: Vec<bool>,
    /// Picked by the kernel through a hierarchy the model has throttled: owes the throttle
    /// task_work at its return to user space. With the time it was switched in.
    throttle_work: Vec<Option<u64>>,
    t0: u64,
    report: DecisionReport,
}

/// Replays `obs` through the fair class configured as `cfg` (the shadow scenario's, with any
/// variant applied) and scores the model's picks against the kernel's.
pub fn decisions(obs: &Observed, shadow: &Shadow, cfg: SimConfig) -> DecisionReport {
    let sim = Simulation::new(cfg);
    let tg = sim.tasks.iter().map(|t| t.cfg.tg).collect::<Vec<_>>();
    let ncpus = sim.fair.rqs.len() as u32;
    let mut r = Replayer {
        obs,
        shadow,
        seen: vec![false; tg.len()],
        throttle_work: vec![None; tg.len()],
        tg,
        f: sim.fair,
        t0: obs.t0.unwrap_or(0),
        report: DecisionReport {
            per_cpu: (0..ncpus).map(|cpu| CpuDecisions { cpu, ..Default::default() }).collect(),
            ..Default::default()
        },
    };
    for e in &obs.events {
        r.f.now = r.f.now.max(e.ts.saturating_sub(r.t0));
        r.event(e.ev);
        r.f.resched_pending.clear();
        // No event queue here: timers are not armed (the period timer runs on evidence, see
        // the module doc), and unthrottled tasks need no simulation state.
        r.f.bw_timers.clear();
        r.f.unthrottled_tasks.clear();
    }
    let rep = &mut r.report;
    rep.unthrottles = r.f.bw_stats.unthrottles;
    rep.agreement_pct = if rep.scored == 0 { 0.0 } else { 100.0 * rep.agreed as f64 / rep.scored as f64 };
    r.report
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

    /// Whether `se` waits on its cfs_rq's limbo list (throttled out by the task-based throttle).
    fn in_limbo(&self, se: EntityId) -> bool {
        self.f.qs[self.f.ents[se as usize].cfs_rq as usize].limbo.contains(&se)
    }

    /// Takes `se` off its limbo list (it left the throttled hierarchy some other way).
    fn leave_limbo(&mut self, se: EntityId) {
        let q = self.f.ents[se as usize].cfs_rq;
        self.f.qs[q as usize].limbo.retain(|&x| x != se);
    }

    /// The kernel switched to `se`, which the model holds in limbo: the unthrottle happened.
    /// Runs the period timer of each throttled group above it (refill, then
    /// `distribute_cfs_runtime()`), lowest first.
    fn unthrottle_for(&mut self, se: EntityId) {
        let mut q = Some(self.f.ents[se as usize].cfs_rq);
        while let Some(cq) = q {
            if self.f.qs[cq as usize].throttled {
                let tg = self.f.qs[cq as usize].tg;
                self.f.bw_period_timer(tg);
            }
            q = self.f.qs[cq as usize].tg_se.map(|ge| self.f.ents[ge as usize].cfs_rq);
        }
    }

    /// Enqueues `se` on `cpu` as `try_to_wake_up()` would (a delayed entity is requeued where
    /// it is). Returns false when it was already queued and runnable.
    fn wake(&mut self, se: EntityId, cpu: u32, new: bool) -> bool {
        let e = &self.f.ents[se as usize];
        if e.on_rq && !e.sched_delayed {
            return false;
        }
        if self.in_limbo(se) {
            // A throttled task is TASK_RUNNING: it cannot be woken, only unthrottled.
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

    fn event(&mut self, ev: ObsEvent) {
        match ev {
            ObsEvent::Wake { task, cpu, new } => {
                if let Some(se) = self.se(task).filter(|&se| !self.running_somewhere(se)) {
                    self.wake(se, cpu, new);
                }
            }
            ObsEvent::Migrate { task, to } => {
                let Some(se) = self.se(task) else { return };
                if self.running_somewhere(se) || self.cpu_of(se) == to {
                    return;
                }
                if self.in_limbo(se) {
                    // dequeue_throttled_task(); re-enqueued when the kernel next runs it.
                    self.leave_limbo(se);
                }
                let e = &self.f.ents[se as usize];
                if e.sched_delayed {
                    self.f.dequeue_task(se, DEQUEUE_SLEEP | DEQUEUE_DELAYED);
                } else if e.on_rq {
                    self.f.dequeue_task(se, DEQUEUE_SPECIAL);
                    self.move_to(se, to);
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
                self.f.yield_task(cpu);
                self.report.quiet_yields += 1;
                self.pick(cpu, Some(se));
            }
            ObsEvent::Vanished { task, cpu } => {
                if let Some(se) = self.se(task).filter(|&se| self.f.rqs[cpu as usize].curr == Some(se)) {
                    self.f.dequeue_task(se, DEQUEUE_SLEEP);
                    self.f.force_next(cpu, None);
                }
            }
            ObsEvent::Switch { cpu, prev, next, out } => self.switch(cpu, prev, next, out),
            ObsEvent::Account { task, cpu } => {
                let Some(se) = self.se(task) else { return };
                if self.f.rqs[cpu as usize].curr != Some(se) {
                    return;
                }
                // update_curr() at every level of the running chain, as entity_tick() does.
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
            // The throttle task_work runs at the first return to user space, which the
            // capture shows 17-32 us after the switch-in. A task that ran longer reached user
            // space unthrottled: the kernel's hierarchy was not throttled when it was picked
            // (the model's quota ran out first), and the model does not throttle it out.
            let owed = std::mem::take(&mut self.throttle_work[pse as usize])
                .is_some_and(|since| self.f.now.saturating_sub(since) <= THROTTLE_WORK_MAX_RUN_NS);
            match out {
                // The throttle task_work at the return to user space (it does nothing if the
                // hierarchy was unthrottled in the meantime).
                SwitchOut::Preempted if owed => {
                    if self.f.throttle_task(pse) {
                        self.report.throttled += 1;
                    }
                }
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
                if self.in_limbo(nse) && self.cpu_of(nse) == cpu {
                    self.unthrottle_for(nse);
                }
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
                if self.in_limbo(nse) {
                    self.leave_limbo(nse);
                }
                self.wake(nse, cpu, false);
                self.f.force_next(cpu, Some(nse));
                self.owe_throttle_work(nse);
            }
        }
    }

    /// The kernel's pick of `se` walked its hierarchy checking each level's runtime
    /// (`pick_task_fair()` → `check_cfs_rq_runtime()`); a task picked through a throttled
    /// queue owes the throttle task_work.
    fn owe_throttle_work(&mut self, se: EntityId) {
        let mut chain = Vec::new();
        let mut cur = Some(se);
        while let Some(s) = cur {
            chain.push(self.f.ents[s as usize].cfs_rq);
            cur = self.f.ents[s as usize].parent;
        }
        for q in chain.into_iter().rev() {
            self.f.check_cfs_rq_runtime(q);
        }
        if self.f.throttled_hierarchy(se) {
            self.throttle_work[se as usize] = Some(self.f.now);
        }
    }

    /// Scores one pick on `cpu` where the kernel chose `kernel`, then follows the kernel.
    fn pick(&mut self, cpu: u32, kernel: Option<EntityId>) {
        let model = self.f.pick_and_force(cpu, kernel);
        if let Some(k) = kernel {
            self.owe_throttle_work(k);
        }
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
