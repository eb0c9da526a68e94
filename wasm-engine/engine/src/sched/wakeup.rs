//! Wakeup preemption: `check_preempt_wakeup_fair()` and `find_matching_se()`
//! (kernel/sched/fair.c).
//!
//! Two shapes of `check_preempt_wakeup_fair()` are modeled, chosen by the scenario's
//! `[kernel] wakeup_preempt`:
//!
//! * [`WakeupPreempt::Machine`] (default): the function as decoded from the live text of
//!   our 6.18.44-fc machine (`docs/kernel-6.18.44-findings.md` §6). It has the preempt-action
//!   form of Mel Gorman's NEXT_BUDDY rework (merged for 6.19): a fork wakeup, or a wakee whose
//!   entity is still delayed, never preempts unless PREEMPT_SHORT applies; every wakeup that
//!   does not preempt tightens the running entity's protection (RUN_TO_PARITY); NEXT_BUDDY
//!   means `set_preempt_buddy()` (an earlier-deadline buddy is kept; WF_SYNC may force a
//!   reschedule once the waker has run `sysctl_sched_migration_cost`); the pick honours an
//!   eligible next buddy (PICK_BUDDY lives in `pick_eevdf()` there); and a delayed winner of
//!   that pick, task or group entity, is dequeued for good and the pick retried. Unlike 6.19
//!   it has no "waker no longer eligible" reschedule.
//! * [`WakeupPreempt::Stable618`]: 6.18.y stable's function (read in 6.18.26, fair.c
//!   l.8802): NEXT_BUDDY sets the wakee as buddy on every non-fork wakeup, the pick is the
//!   plain `__pick_eevdf()` for fork wakeups too, protection is tightened only for a
//!   shorter-slice wakee, and a delayed winner simply does not preempt.
//!
//! The real captures follow the machine's shape: of 290 children forked by a spinning task
//! on its own busy CPU, none preempted it; each ran at the next tick (the findings, "Wakeup
//! preemption of a fork").

use super::entity::{vbefore, CfsRqId, EntityId};
use super::fair::{Fair, DEQUEUE_DELAYED, DEQUEUE_SLEEP};
use crate::obs::log::{BuddySource, SwitchReason};

/// `WF_EXEC`: exec balancing (`sched_exec()`).
pub const WF_EXEC: u32 = 0x02;
/// `WF_FORK`: the wakeup of a new task (`wake_up_new_task()`).
pub const WF_FORK: u32 = 0x04;
/// `WF_TTWU`: a wakeup by `try_to_wake_up()`.
pub const WF_TTWU: u32 = 0x08;
/// `WF_SYNC`: the waker says it is about to sleep (`__wake_up_sync_key()`: a pipe write,
/// a child's exit waking its waiting parent; `sim/pipe.rs`, `sim/fork.rs`).
pub const WF_SYNC: u32 = 0x10;
/// `WF_RQ_SELECTED`: `select_task_rq()` chose the CPU (the task may run on more than one).
pub const WF_RQ_SELECTED: u32 = 0x80;

/// `sysctl_sched_migration_cost` (500 µs, read on the machine, findings §3): how long a
/// WF_SYNC waker must have run before its wakee may force a reschedule (NEXT_BUDDY).
pub const SYSCTL_SCHED_MIGRATION_COST_NS: u64 = 500_000;

/// Which `check_preempt_wakeup_fair()` runs. Named as in the scenario file's `wakeup_preempt`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, ts_rs::TS)]
pub enum WakeupPreempt {
    /// The function decoded from our 6.18.44-fc machine: the preempt-action shape with the
    /// delayed-winner dequeue (default; the captures follow it).
    #[serde(rename = "machine")]
    Machine,
    /// 6.18.y stable's function (6.18.26 fair.c l.8802).
    #[serde(rename = "6.18")]
    Stable618,
}

/// The machine's `enum preempt_wakeup_action`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PreemptAction {
    /// No preemption.
    None,
    /// A shorter-slice wakee: pick without curr's protection, cancel it if the wakee wins.
    Short,
    /// Let the pick decide, protection honoured.
    Pick,
    /// Reschedule without a pick (NEXT_BUDDY's WF_SYNC rule).
    Resched,
}

impl Fair {
    /// Models `find_matching_se()`: walk both entities up to siblings on a common cfs_rq.
    pub fn find_matching_se(&self, mut se: EntityId, mut pse: EntityId) -> (EntityId, EntityId) {
        let depth = |e: EntityId| self.ents[e as usize].depth;
        while depth(se) > depth(pse) {
            se = self.ents[se as usize].parent.expect("deeper entity has a parent");
        }
        while depth(pse) > depth(se) {
            pse = self.ents[pse as usize].parent.expect("deeper entity has a parent");
        }
        while self.ents[se as usize].cfs_rq != self.ents[pse as usize].cfs_rq {
            se = self.ents[se as usize].parent.expect("entities meet at the root cfs_rq");
            pse = self.ents[pse as usize].parent.expect("entities meet at the root cfs_rq");
        }
        (se, pse)
    }

    /// Models `wakeup_preempt()` → `check_preempt_wakeup_fair()` for task entity `pse` just
    /// enqueued on `cpu`, in the shape the scenario chose (`params.wakeup_preempt`).
    /// `wake_flags` holds `WF_*` bits; `wakee_normal` is false for SCHED_BATCH and
    /// SCHED_IDLE wakees (they never preempt).
    pub fn check_preempt_wakeup_fair(&mut self, cpu: u32, pse: EntityId, wake_flags: u32, wakee_normal: bool) {
        let Some(curr) = self.rqs[cpu as usize].curr else {
            // The idle class is preempted by any fair wakeup.
            self.resched(cpu, SwitchReason::FromIdle);
            return;
        };
        if curr == pse {
            return;
        }
        match self.params.wakeup_preempt {
            WakeupPreempt::Machine => self.check_preempt_wakeup_machine(cpu, curr, pse, wake_flags, wakee_normal),
            WakeupPreempt::Stable618 => self.check_preempt_wakeup_6_18(cpu, curr, pse, wake_flags, wakee_normal),
        }
    }

    /// What both shapes do first: nothing while a reschedule is pending; the entities of curr
    /// and the wakee that share a cfs_rq (`find_matching_se()`); a non-idle entity preempts an
    /// idle one at once, without leaving it slice protection; idle against non-idle, or a wakee
    /// that is not SCHED_NORMAL, does not preempt; then `update_curr()` on that cfs_rq. Returns
    /// the two entities and their cfs_rq when the deadline comparison decides.
    fn wakeup_preempt_common(
        &mut self,
        cpu: u32,
        curr: EntityId,
        pse: EntityId,
        normal: bool,
    ) -> Option<(EntityId, EntityId, CfsRqId)> {
        if self.rqs[cpu as usize].need_resched.is_some() || !self.feat.wakeup_preemption {
            return None;
        }
        let (se, pse) = self.find_matching_se(curr, pse);
        let (cse_idle, pse_idle) = (self.ents[se as usize].idle, self.ents[pse as usize].idle);
        if cse_idle && !pse_idle {
            self.cancel_protect_slice(se);
            self.resched(cpu, SwitchReason::WakeupPreempt);
            return None;
        }
        if cse_idle != pse_idle || !normal {
            return None;
        }
        let q = self.ents[se as usize].cfs_rq;
        self.update_curr(q);
        Some((se, pse, q))
    }

    /// The machine's shape (6.18.44-fc, decoded from its live text; the 6.19 preempt-action
    /// form without 6.19's "waker no longer eligible" reschedule).
    fn check_preempt_wakeup_machine(&mut self, cpu: u32, curr: EntityId, pse: EntityId, wake_flags: u32, normal: bool) {
        let Some((se, pse, q)) = self.wakeup_preempt_common(cpu, curr, pse, normal) else { return };
        let action = if self.feat.preempt_short && self.ents[pse as usize].slice < self.ents[se as usize].slice {
            PreemptAction::Short
        } else {
            // A new task shares little with its parent (exec follows fork), and a delayed
            // entity is not eligible: neither preempts. The fork waits for the tick.
            if wake_flags & WF_FORK != 0 || self.ents[pse as usize].sched_delayed {
                return;
            }
            let mut action = PreemptAction::Pick;
            if self.feat.next_buddy && self.set_preempt_buddy(q, pse) && wake_flags & WF_SYNC != 0 {
                action = self.preempt_sync(wake_flags, pse, se);
            }
            action
        };
        match action {
            PreemptAction::None => return,
            PreemptAction::Resched => {
                self.resched(cpu, SwitchReason::WakeupPreempt);
                return;
            }
            PreemptAction::Short | PreemptAction::Pick => {}
        }
        let protect = action != PreemptAction::Short;
        // A delayed winner, task or group entity, is dequeued for good and the pick retried.
        let best = loop {
            let best = self.pick_eevdf_buddy(q, protect);
            match best {
                Some(b) if self.ents[b as usize].sched_delayed => {
                    self.dequeue_entities(b, DEQUEUE_SLEEP | DEQUEUE_DELAYED);
                    if self.qs[q as usize].nr_queued == 0 {
                        break best;
                    }
                }
                _ => break best,
            }
        };
        if best == Some(pse) {
            if action == PreemptAction::Short {
                self.cancel_protect_slice(se);
            }
            self.resched(cpu, SwitchReason::WakeupPreempt);
        } else if self.feat.run_to_parity {
            // Every wakeup that does not preempt shortens curr's protection to the queue's
            // smallest slice.
            self.update_protect_slice(q, se);
        }
    }

    /// 6.18.y stable's shape (6.18.26 fair.c l.8802).
    fn check_preempt_wakeup_6_18(&mut self, cpu: u32, curr: EntityId, pse: EntityId, wake_flags: u32, normal: bool) {
        if self.feat.next_buddy && wake_flags & WF_FORK == 0 && !self.ents[pse as usize].sched_delayed {
            self.set_next_buddy(pse, BuddySource::Wakeup);
        }
        let Some((se, pse, q)) = self.wakeup_preempt_common(cpu, curr, pse, normal) else { return };
        let short = self.feat.preempt_short && self.ents[pse as usize].slice < self.ents[se as usize].slice;
        // The plain __pick_eevdf(): no buddy, and a delayed winner just is not the wakee.
        if self.pick_eevdf(q, !short).0 == Some(pse) {
            if short {
                self.cancel_protect_slice(se);
            }
            self.resched(cpu, SwitchReason::WakeupPreempt);
            return;
        }
        if self.feat.run_to_parity && short {
            self.update_protect_slice(q, se);
        }
    }

    /// The machine's `pick_eevdf(cfs_rq, protect)`: `__pick_eevdf()` with the PICK_BUDDY
    /// test moved in front (after the single-entity shortcut), as in 6.19.
    fn pick_eevdf_buddy(&self, q: CfsRqId, protect: bool) -> Option<EntityId> {
        let cq = &self.qs[q as usize];
        if cq.nr_queued != 1 && self.feat.pick_buddy {
            if let Some(n) = cq.next.filter(|&n| cq.entity_eligible(&self.ents, n)) {
                return Some(n);
            }
        }
        self.pick_eevdf(q, protect).0
    }

    /// Models `set_preempt_buddy()` (6.19 NEXT_BUDDY): keep a buddy whose deadline is
    /// earlier than the wakee's, else make the wakee the buddy. True when the wakee is it.
    fn set_preempt_buddy(&mut self, q: CfsRqId, pse: EntityId) -> bool {
        if let Some(n) = self.qs[q as usize].next {
            if vbefore(self.ents[n as usize].deadline, self.ents[pse as usize].deadline) {
                return false;
            }
        }
        self.set_next_buddy(pse, BuddySource::Wakeup);
        true
    }

    /// Models `preempt_sync()` (6.19 NEXT_BUDDY, WF_SYNC): the wakee forces a reschedule
    /// when its deadline is earlier than the waker's and the waker's `exec_start` lies at
    /// least `sysctl_sched_migration_cost` back (a quarter of it when the wakee's CPU was
    /// selected); otherwise nothing happens, not even a pick. As on the machine (and in
    /// 6.19), `exec_start` is read after `update_curr()` has just set it to now, so the
    /// reschedule needs a zero threshold: a sync wakeup with NEXT_BUDDY does not preempt.
    fn preempt_sync(&self, wake_flags: u32, pse: EntityId, se: EntityId) -> PreemptAction {
        let delta = self.now.saturating_sub(self.ents[se as usize].exec_start);
        let mut threshold = SYSCTL_SCHED_MIGRATION_COST_NS;
        if wake_flags & WF_RQ_SELECTED != 0 {
            threshold >>= 2;
        }
        if vbefore(self.ents[pse as usize].deadline, self.ents[se as usize].deadline) && delta >= threshold {
            PreemptAction::Resched
        } else {
            PreemptAction::None
        }
    }
}
