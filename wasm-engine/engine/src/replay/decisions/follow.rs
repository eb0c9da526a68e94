//! Following the trace: each of its events applied to the model's runqueues as the kernel
//! applied it (a wakeup enqueues with `place_entity()`, a sleeping switch-out dequeues, possibly
//! delayed, a yield calls `yield_task_fair()`, a migration moves the task), and at every switch
//! the model's own pick (`score`) before it follows the kernel's.

use super::place::Placing;
use super::preempt::Before;
use super::{MigrateHow, ObsEvent, Replayer, SwitchOut, Timed};
use crate::sched::change::is_autogroup;
use crate::sched::entity::{vdiff, EntityId};
use crate::sched::fair::{
    DEQUEUE_DELAYED, DEQUEUE_SLEEP, DEQUEUE_SPECIAL, ENQUEUE_INITIAL, ENQUEUE_MIGRATED, ENQUEUE_WAKEUP,
};
use crate::sched::wakeup::{WF_FORK, WF_TTWU};

impl Replayer<'_> {
    /// Enqueues `se` on `cpu` as `try_to_wake_up()` would (a delayed entity is requeued where
    /// it is). Returns false when it was already queued and runnable, or throttled (a task on
    /// a limbo list is `TASK_RUNNING`: it cannot be woken, only unthrottled).
    /// A new task (`new`) gets `post_init_entity_util_avg()` read from the cfs_rq it is forked
    /// into: its parent's group on `cpu` (`parent`, the task whose context wrote the
    /// `sched_wakeup_new`), as `cgroup_post_fork()` leaves a child in its parent's cgroup; a task
    /// the layout puts in another cgroup gets there later (`echo $$ > tasks`, `setsid()`): where
    /// the trace shows it (`cgroup_move`), or else the replay keeps it in its layout cgroup from
    /// the start.
    fn wake(&mut self, se: EntityId, cpu: u32, new: bool, parent: Option<EntityId>) -> bool {
        let e = &self.f.ents[se as usize];
        if (e.on_rq && !e.sched_delayed) || self.in_limbo(se) {
            return false;
        }
        if !e.on_rq {
            self.move_to(se, cpu);
        }
        if new {
            // wake_up_new_task(): the new task's utilization, once its CPU is chosen, from the
            // cfs_rq of the group it is forked into.
            let forked_into = match parent.map(|p| self.tg[p as usize]) {
                Some(ptg) if ptg != self.tg[se as usize] => self.f.tgs[ptg as usize].cfs_rq[cpu as usize],
                _ => self.f.ents[se as usize].cfs_rq,
            };
            self.f.post_init_entity_util_avg_on(se, forked_into);
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
    pub(super) fn start(&mut self, events: &[Timed]) {
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
                ObsEvent::BandwidthTimer { .. } | ObsEvent::CgroupMove { .. } => {}
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

    /// The group of the layout at `path`, if the layout has one (a move into another
    /// hierarchy's cgroup, or one the layout does not name, changes nothing here).
    pub(super) fn layout_group(&self, path: u32) -> Option<u32> {
        let path = self.obs.cgroup_paths.get(path as usize)?;
        (1..self.f.tgs.len()).find(|&tg| self.f.tgs[tg].path == *path).map(|tg| tg as u32)
    }

    /// `sched_move_task()` where the trace shows the move (`cgroup_attach_task`).
    fn cgroup_move(&mut self, t: u64, task: u32, path: u32) {
        let (Some(se), Some(tg)) = (self.se(task), self.layout_group(path)) else { return };
        if self.tg[se as usize] == tg || self.in_limbo(se) {
            return;
        }
        self.clock_at(self.cpu_of(se), t);
        self.f.sched_move_task(se, tg);
        self.tg[se as usize] = tg;
        self.report.cgroup_moves += 1;
    }

    /// Applies one event at `t` (ns since the trace's first record).
    pub(super) fn event(&mut self, t: u64, ev: ObsEvent) {
        match ev {
            ObsEvent::Wake { task, cpu, new, ctx, from, sync, resched, waker } => {
                if let Some(se) = self.se(task).filter(|&se| !self.running_somewhere(se)) {
                    // A delayed task is requeued where it is.
                    let e = &self.f.ents[se as usize];
                    let placed = !e.on_rq && !self.in_limbo(se);
                    let at = if e.on_rq { self.cpu_of(se) } else { cpu };
                    self.wakeup_clock(t, at, se, ctx);
                    if placed && (new || self.seen[se as usize]) {
                        let how = if new { Placing::Fork } else { Placing::Wakeup { sync } };
                        self.score_placement(t, se, cpu, from, how);
                    } else if placed {
                        // Its previous CPU is before the trace.
                        self.report.placements.first_seen += 1;
                    }
                    self.prev_cpu[se as usize] = None;
                    let rq = &self.f.rqs[at as usize];
                    let before =
                        Before { resched, local: from == at, curr: rq.curr, pending: rq.need_resched.is_some() };
                    let woke = self.wake(se, cpu, new, waker.and_then(|w| self.se(w)));
                    self.score_preempt(t, at, se, before, woke);
                }
            }
            ObsEvent::Migrate { task, to, by, how } => self.migrate(t, task, to, by, how),
            ObsEvent::BandwidthTimer { cpu, timer } => self.period_timer(t, cpu, timer),
            ObsEvent::CgroupMove { task, path } => self.cgroup_move(t, task, path),
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
                    self.vanished(cpu, t);
                    self.f.dequeue_task(se, DEQUEUE_SLEEP);
                    self.f.force_next(cpu, None);
                }
            }
            ObsEvent::Switch { cpu, prev, next, out } => {
                let now = self.switch_clock(cpu, t);
                self.switch(t, cpu, prev, next, out);
                self.switched_in(cpu, t, now, next);
            }
            ObsEvent::Nice { task, prio } => {
                if let Some(se) = self.se(task).filter(|&se| !self.f.ents[se as usize].idle) {
                    self.clock_at(self.cpu_of(se), t);
                    self.f.set_user_nice(se, prio - 120);
                }
            }
            ObsEvent::Repick { task, cpu } => {
                // Not scored (no sched_switch shows it), but the pick's side effects are the
                // model's: a delayed entity it would pick is dequeued, and a pick through a
                // hierarchy the model has throttled owes the throttle task_work.
                if let Some(se) = self.se(task).filter(|&se| self.f.rqs[cpu as usize].curr == Some(se)) {
                    self.clock_at(cpu, t);
                    self.f.pick_and_force(cpu, Some(se));
                    self.owe_throttle_work(se);
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
                let now = self.runtime_read(t, task, cpu, ns, ctx);
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
                self.update_curr_chain(se, super::clock::tick_section(ctx));
            }
        }
    }

    /// `sched_migrate_task` of `task` to `to` at `t`.
    fn migrate(&mut self, t: u64, task: u32, to: u32, by: u32, how: MigrateHow) {
        let Some(se) = self.se(task) else { return };
        if self.running_somewhere(se) || self.cpu_of(se) == to {
            return;
        }
        if how == MigrateHow::Wakeup && self.f.ents[se as usize].on_rq {
            // The kernel had it off its runqueue (a wakeup's move); the model still holds it,
            // mostly a delayed dequeue the kernel did not delay. It is dequeued here, not
            // scored as a balance, and its wakeup is scored as a placement from this CPU.
            let src = self.cpu_of(se);
            self.clock_at(src, t);
            let flags =
                if self.f.ents[se as usize].sched_delayed { DEQUEUE_SLEEP | DEQUEUE_DELAYED } else { DEQUEUE_SLEEP };
            self.f.dequeue_task(se, flags);
            self.prev_cpu[se as usize].get_or_insert(src);
            self.report.placements.wakeup_of_queued += 1;
        } else if self.f.ents[se as usize].on_rq {
            // A delayed task is queued too: the balancer takes one only when it migrates load
            // (`can_migrate_task()`), and `sched_exec()` never sees one (it runs).
            let src = self.cpu_of(se);
            self.clock_at(src, t);
            self.clock_at(to, t);
            if how == MigrateHow::Exec && !self.f.ents[se as usize].sched_delayed {
                self.score_placement(t, se, to, src, Placing::Exec);
            } else {
                self.score_balance(t, se, src, to, by, how);
            }
        } else {
            let cpu = self.cpu_of(se);
            self.prev_cpu[se as usize].get_or_insert(cpu);
        }
        self.clock_at(self.cpu_of(se), t);
        if self.in_limbo(se) {
            // dequeue_throttled_task(); re-enqueued when the kernel next runs it.
            self.leave_limbo(se);
        }
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

    fn switch(&mut self, t: u64, cpu: u32, prev: u32, next: u32, out: SwitchOut) {
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
            let owed = self.throttle_work_due(pse);
            let kernel_throttled = self.kernel_throttled.get(self.event_at).copied().unwrap_or(false);
            match out {
                // The throttle task_work at the return to user space (it does nothing if the
                // hierarchy was unthrottled in the meantime).
                SwitchOut::Preempted if owed => self.throttle_out(pse),
                SwitchOut::Preempted | SwitchOut::Yield if kernel_throttled && !self.in_limbo(pse) => {
                    self.resync_throttle(pse)
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
        self.seed_at_switch(t + self.t0, cpu, prev);
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
                self.leave_limbo(nse);
                self.wake(nse, cpu, false, None);
                self.f.force_next(cpu, Some(nse));
                self.owe_throttle_work(nse);
            }
        }
    }
}
