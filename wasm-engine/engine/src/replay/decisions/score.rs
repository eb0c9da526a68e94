//! Scoring: at each pick the trace shows, the model's own pick (`pick_next_task_fair()` with
//! everything that precedes the choice) against the kernel's, then the model follows the
//! kernel; where they differ, the two entities' positions where their chains meet.

use super::{Disagreement, Replayer};
use crate::sched::entity::{vdiff, EntityId};

/// How many disagreements the report keeps (the first ones).
const KEEP_DISAGREEMENTS: usize = 20000;

impl Replayer<'_> {
    /// Scores one pick on `cpu` where the kernel chose `kernel`, then follows the kernel.
    pub(super) fn pick(&mut self, cpu: u32, kernel: Option<EntityId>) {
        let model = self.f.pick_and_force(cpu, kernel);
        if let Some(k) = kernel {
            self.owe_throttle_work(k);
        }
        self.score_after_seed(cpu, model == kernel);
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
    pub(super) fn position(&self, se: EntityId) -> (i64, i64) {
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
