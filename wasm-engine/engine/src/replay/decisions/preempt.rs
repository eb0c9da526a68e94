//! Wakeup preemption scored against the kernel's: at each wakeup the trace recorded on the
//! wakee's own CPU while a fair task ran there, whether the model's `check_preempt_wakeup_fair()`
//! set need-resched, against the record's need-resched flag. The `sched_wakeup` tracepoint
//! fires in `ttwu_do_activate()` after `wakeup_preempt()`, so on the wakee's CPU its flags show
//! the decision (a wakeup written from another CPU carries that CPU's flags: not scored).
//!
//! The pick agreement cannot see these decisions: along the real schedule every switch is the
//! kernel's, and a wakeup that did not preempt makes no switch to score.

use super::Replayer;
use crate::sched::entity::{vdiff, EntityId};
use serde::Serialize;

/// Wakeup preemption agreement over a trace.
#[derive(Debug, Clone, Default, Serialize, ts_rs::TS)]
pub struct PreemptReport {
    /// Wakeups scored, and those where the model decided as the kernel did.
    pub scored: u64,
    pub agreed: u64,
    pub agreement_pct: f64,
    /// Of the scored: the kernel preempted (need-resched in the record); the model preempted
    /// where the kernel did not; the kernel preempted where the model did not.
    pub kernel_preempted: u64,
    pub model_only: u64,
    pub kernel_only: u64,
    /// Not scored: written on another CPU than the wakee's, without latency flags, onto an
    /// idle CPU, or with a reschedule already pending in the model.
    pub unscored: u64,
    /// The first disagreements, in time order.
    pub first_disagreements: Vec<PreemptDisagreement>,
}

/// A wakeup where the model and the kernel decided differently.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct PreemptDisagreement {
    /// ns since the trace's first record.
    pub at_ns: u64,
    pub cpu: u32,
    /// The wakee and the task running when it woke.
    pub wakee: String,
    pub curr: String,
    /// Whether each preempted.
    pub kernel: bool,
    pub model: bool,
    /// The model's state after the decision, at the level where the two meet
    /// (`find_matching_se()`: the entities themselves, or their group entities): the wakee's
    /// and curr's lag and deadline − V, and curr's slice protection left (vprot − vruntime;
    /// ≤ 0: none).
    pub wakee_lag: i64,
    pub wakee_deadline: i64,
    pub curr_lag: i64,
    pub curr_deadline: i64,
    pub curr_protected: i64,
}

/// What a wakeup's record and the model's state were before the model applied it.
#[derive(Debug, Clone, Copy)]
pub(super) struct Before {
    /// The record's need-resched flag (None: no latency flags).
    pub resched: Option<bool>,
    /// The record was written on the wakee's CPU.
    pub local: bool,
    /// The model's running task there, and whether a reschedule was already pending.
    pub curr: Option<EntityId>,
    pub pending: bool,
}

const LISTED: usize = 40;

impl Replayer<'_> {
    /// Scores one wakeup applied on `cpu` (`woke`: the model enqueued it).
    pub(super) fn score_preempt(&mut self, t: u64, cpu: u32, wakee: EntityId, before: Before, woke: bool) {
        let p = &mut self.report.preemptions;
        let (Some(kernel), true, Some(curr), false, true) =
            (before.resched, before.local, before.curr, before.pending, woke)
        else {
            p.unscored += 1;
            return;
        };
        let model = self.f.rqs[cpu as usize].need_resched.is_some();
        p.scored += 1;
        p.kernel_preempted += kernel as u64;
        p.model_only += (model && !kernel) as u64;
        p.kernel_only += (kernel && !model) as u64;
        p.agreed += (model == kernel) as u64;
        p.agreement_pct = 100.0 * p.agreed as f64 / p.scored as f64;
        if model != kernel && p.first_disagreements.len() < LISTED {
            let name = |se: EntityId| self.shadow.scenario.tasks[self.f.task_of(se) as usize].name.clone();
            let (cse, pse) = self.f.find_matching_se(curr, wakee);
            let ((wakee_lag, wakee_deadline), (curr_lag, curr_deadline)) = (self.position(pse), self.position(cse));
            let c = &self.f.ents[cse as usize];
            let curr_protected = vdiff(c.vprot, c.vruntime);
            let d = PreemptDisagreement {
                at_ns: t,
                cpu,
                wakee: name(wakee),
                curr: name(curr),
                kernel,
                model,
                wakee_lag,
                wakee_deadline,
                curr_lag,
                curr_deadline,
                curr_protected,
            };
            self.report.preemptions.first_disagreements.push(d);
        }
    }
}
