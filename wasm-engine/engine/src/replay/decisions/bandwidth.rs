//! CFS bandwidth replayed along the trace (6.18's task-based throttle), with the model's own
//! runtime accounting: who owes the throttle task_work, the throttle at the return to user
//! space, the limbo lists, and the unthrottle at the period timer's expiry when the trace
//! records it, else where the trace first shows it (the module doc of `decisions`).

use super::{ObsEvent, Replayer, SwitchOut, Timed};
use crate::sched::entity::{CfsRqId, EntityId};

/// The longest run after which a switch-out can still be the throttle task_work's: it runs at
/// the first return to user space (`RETURN_TO_USER_NS`, 27 µs, on the capture), far below a
/// tick.
pub(super) const THROTTLE_WORK_MAX_RUN_NS: u64 = 1_000_000;

impl Replayer<'_> {
    /// Whether `se` waits on its cfs_rq's limbo list (throttled out by the task-based throttle).
    pub(super) fn in_limbo(&self, se: EntityId) -> bool {
        self.f.qs[self.f.ents[se as usize].cfs_rq as usize].limbo.contains(&se)
    }

    /// Takes `se` off its limbo list, if it is on one (it left the throttled hierarchy some
    /// other way).
    pub(super) fn leave_limbo(&mut self, se: EntityId) {
        let q = self.f.ents[se as usize].cfs_rq;
        self.f.qs[q as usize].limbo.retain(|&x| x != se);
    }

    /// The kernel switched to `se`, which the model holds in limbo: the unthrottle happened.
    /// Runs the period timer of each throttled group above it (refill, then
    /// `distribute_cfs_runtime()`), lowest first.
    /// With a dump, the CPU's queues are seeded again from the kernel's state (the unthrottle's
    /// time is not in the trace: `seed`).
    pub(super) fn unthrottle_for(&mut self, se: EntityId) {
        let mut q = Some(self.f.ents[se as usize].cfs_rq);
        let mut ran = false;
        while let Some(cq) = q {
            if self.f.qs[cq as usize].throttled {
                let tg = self.f.qs[cq as usize].tg;
                self.f.bw_period_timer(tg);
                ran = true;
            }
            q = self.f.qs[cq as usize].tg_se.map(|ge| self.f.ents[ge as usize].cfs_rq);
        }
        if ran {
            let cpu = self.cpu_of(se);
            self.reseed_after_unthrottle(cpu);
        }
    }

    /// The kernel's period timer of a group expired on `cpu` at `t`, where the trace shows it
    /// (`sched_cfs_period_timer()` → `do_sched_cfs_period_timer()`: refill, then
    /// `distribute_cfs_runtime()`, whose unthrottles enqueue the limbo lists without a
    /// reschedule: the CPU's current task runs on to its next tick).
    ///
    /// Named shortcut: the trace names the hrtimer by its (hashed) address, not its group, so
    /// the expiry is replayed only when the layout has a single group with a quota; with more,
    /// the unthrottle stays where the trace first shows it (`unthrottle_for`).
    pub(super) fn period_timer(&mut self, t: u64, cpu: u32, _timer: u64) {
        let mut with_quota = (0..self.f.tgs.len()).filter(|&tg| self.f.tgs[tg].bw.is_some());
        let (Some(tg), None) = (with_quota.next(), with_quota.next()) else { return };
        self.clock_at(cpu, t);
        let before = self.f.bw_stats.unthrottles;
        self.f.bw_period_timer(tg as u32);
        self.report.period_timers += 1;
        if self.f.bw_stats.unthrottles != before {
            for c in 0..self.f.rqs.len() as u32 {
                self.reseed_after_unthrottle(c);
            }
        }
    }

    /// Switch-outs (by event index) the trace shows to be the throttle task_work's: a task of a
    /// group under a quota, switched out runnable at most `THROTTLE_WORK_MAX_RUN_NS` after it
    /// was switched in, that runs again only after a period timer expiry the trace shows. Only
    /// a trace with those expiries gives them.
    pub(super) fn kernel_throttles(&self, events: &[Timed]) -> Vec<bool> {
        let mut out = vec![false; events.len()];
        if !events.iter().any(|e| matches!(e.ev, ObsEvent::BandwidthTimer { .. })) {
            return out;
        }
        let n = self.obs.tasks.len();
        let (mut switched_in, mut pending) = (vec![None::<u64>; n], vec![None::<usize>; n]);
        let mut timer_since = vec![false; n];
        // Each task's group as the replay will have it at each event (its moves applied).
        let mut tg: Vec<Option<u32>> = (0..n as u32).map(|t| self.se(t).map(|se| self.tg[se as usize])).collect();
        for (i, e) in events.iter().enumerate() {
            match e.ev {
                ObsEvent::BandwidthTimer { .. } => timer_since.iter_mut().for_each(|x| *x = true),
                ObsEvent::CgroupMove { task, path } => {
                    if let (Some(t), Some(to)) =
                        (tg.get_mut(task as usize).and_then(|t| t.as_mut()), self.layout_group(path))
                    {
                        *t = to;
                    }
                }
                ObsEvent::Switch { prev, next, out: how, .. } => {
                    let short = switched_in[prev as usize].is_some_and(|at| e.ts - at <= THROTTLE_WORK_MAX_RUN_NS);
                    let runnable = matches!(how, SwitchOut::Preempted | SwitchOut::Yield);
                    if short && runnable && tg[prev as usize].is_some_and(|g| self.under_quota(g)) {
                        pending[prev as usize] = Some(i);
                        timer_since[prev as usize] = false;
                    }
                    switched_in[prev as usize] = None;
                    if let Some(j) = pending[next as usize].take() {
                        out[j] = timer_since[next as usize];
                    }
                    switched_in[next as usize] = Some(e.ts);
                }
                _ => {}
            }
        }
        out
    }

    /// The cfs_rqs `se` and its group entities are queued on, from the root down.
    fn cfs_rqs_above(&self, se: EntityId) -> Vec<CfsRqId> {
        let mut chain = Vec::new();
        let mut cur = Some(se);
        while let Some(s) = cur {
            chain.push(self.f.ents[s as usize].cfs_rq);
            cur = self.f.ents[s as usize].parent;
        }
        chain.reverse();
        chain
    }

    /// Whether task group `tg` or one above it has a quota.
    fn under_quota(&self, tg: u32) -> bool {
        let mut g = Some(tg);
        while let Some(t) = g {
            if self.f.tgs[t as usize].bw.is_some() {
                return true;
            }
            g = self.f.tgs[t as usize].parent;
        }
        false
    }

    /// The kernel throttled `se`'s hierarchy where the model had runtime left (its state at
    /// the trace's start, a local slice or a pool the trace cannot show, differs): the model
    /// takes the kernel's, an empty pool and no local runtime at each level under a quota, and
    /// throttles as the kernel did.
    pub(super) fn resync_throttle(&mut self, se: EntityId) {
        for cq in self.cfs_rqs_above(se) {
            let tg = self.f.qs[cq as usize].tg;
            if let Some(b) = self.f.tgs[tg as usize].bw.as_mut() {
                b.runtime = 0;
                let c = &mut self.f.qs[cq as usize];
                c.runtime_remaining = c.runtime_remaining.min(0);
            }
            self.f.check_cfs_rq_runtime(cq);
        }
        self.report.throttle_resyncs += 1;
        self.throttle_out(se);
    }

    /// The kernel's pick of `se` walked its hierarchy checking each level's runtime
    /// (`pick_task_fair()` → `check_cfs_rq_runtime()`, from the root down); a task picked
    /// through a throttled queue owes the throttle task_work (`task_throttle_setup_work()`).
    pub(super) fn owe_throttle_work(&mut self, se: EntityId) {
        for q in self.cfs_rqs_above(se) {
            self.f.check_cfs_rq_runtime(q);
        }
        if self.f.throttled_hierarchy(se) {
            self.owes_throttle_work[se as usize] = Some(self.f.now);
        }
    }

    /// Whether the switch-out of `se` now is the throttle task_work's (and `se` owes it no
    /// more). The work runs at the first return to user space, which the capture shows
    /// 17–32 µs after the pick. A task that ran longer reached user space unthrottled: the
    /// kernel's hierarchy was not throttled when it was picked (the model's quota ran out
    /// first), and the model does not throttle it out.
    pub(super) fn throttle_work_due(&mut self, se: EntityId) -> bool {
        std::mem::take(&mut self.owes_throttle_work[se as usize])
            .is_some_and(|since| self.f.now.saturating_sub(since) <= THROTTLE_WORK_MAX_RUN_NS)
    }

    /// `throttle_cfs_rq_work()` at the return to user space: `se` leaves for its cfs_rq's limbo
    /// list (nothing happens if the hierarchy was unthrottled in the meantime).
    pub(super) fn throttle_out(&mut self, se: EntityId) {
        if self.f.throttle_task(se) {
            self.report.throttled += 1;
        }
    }
}
