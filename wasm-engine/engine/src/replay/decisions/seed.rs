//! Seeding the replay from the kernel's own EEVDF state (`schedlab replay --eevdf DUMP`).
//!
//! A trace shows who ran when, not where each entity stood in virtual time, and the replay
//! starts every queue from zero lag (the module doc's named shortcut). Where the first
//! milliseconds are unobservable — a task moved into its cgroup before its first record, group
//! weights still climbing from PELT — the model's group entities can start a fixed distance
//! apart from the kernel's, and two hogs that never sleep keep that distance forever: every
//! later cycle of the pair then disagrees at the same point of the cycle. A bpftrace dump taken
//! with the trace (`tools/capture/schedlab-eevdf.bt`, the captures' `eevdf-state.txt`) records
//! each `k_*` task's `sched_entity`, and its group entities', at every switch-out. This module
//! uses it once per cfs_rq: at the first switch where every entity queued on a cfs_rq (at least
//! two) has a record that is still current, the model's entities there are moved to the
//! kernel's lags and relative deadlines. From then on the model runs along the real schedule
//! as before; the picks after the seed test the mechanisms with the start-up state taken out.
//!
//! A record (the `S` line of the task switching out, or a `G` line of one of its ancestors,
//! nearest first) belongs to the `sched_switch` of that pid out of that CPU within
//! `align::TOLERANCE_NS` once the dump is on the trace's clock (`import::align`). It stays
//! current while the model's entity keeps the vruntime and deadline it had when the record was
//! taken (an entity that ran, was re-placed, re-weighed or yielded since has moved), and the kernel's
//! `nr_queued` of that cfs_rq in the record must equal the model's, and its weight the model's
//! within [`WEIGHT_TOLERANCE_PER_MILLE`]. The kernel's lag of an
//! entity is V − vruntime with V the weighted mean of the recorded entities' vruntimes under
//! the recorded weights (the cfs_rq's whole population, since all are recorded); the model's
//! entity is put at the model's V minus that lag, with the kernel's deadline − vruntime.
//! The running entity's slice protection moves with its vruntime. One event the trace cannot
//! time is seeded again: an unthrottle (the replay places it where the trace first shows it,
//! the kernel's period timer ran earlier while the CPU's other entities ran on), after which
//! the CPU's queues are seeded anew at their next fully recorded switch.
//!
//! Group entity weights are taken from the dump at every `G` record, from the start, not only
//! at a seed: a group's weight is `calc_group_shares()` of PELT loads summed over every CPU,
//! including load the trace cannot show (what the session's other tasks left on the other CPU
//! before the trace, bpftrace itself), and it changes at every tick. Each change re-weighs the
//! running group entity, and `place_entity()` then moves it by more than the weight alone
//! (`reweight_entity_of_the_running_entity_pushes_it_away_from_v`), so the weights decide which
//! group is eligible at the next pick. The recorded `gw` is what `calc_group_shares()` returns
//! for that group cfs_rq until the next record ([`CfsRq::recorded_shares`]), and only where
//! the task's `S` record is at the model task's depth (a group is matched by depth). Named
//! shortcuts: the kernel changed the weight at a tick before the switch-out that recorded it,
//! and the model takes it at that switch-out; the kernel's `update_cfs_group()` also
//! recomputes it at each enqueue and dequeue on that queue, where the model keeps the
//! recorded weight. The kernel's change there is small while the queue's own load dominates
//! the group's; the model's own shares would jump to the group's full weight, since it does
//! not know the other CPUs' load (recomputing at those points cost two-sleepers-and-hog
//! 85 of its CPU 1 picks). Nothing here is fitted: the dump is the kernel's state, read,
//! and the picks scored after the seed are still the model's.
//!
//! [`CfsRq::recorded_shares`]: crate::sched::cfs_rq::CfsRq::recorded_shares

use super::{ObsEvent, Replayer};
use crate::import::align::{align_index, shifted, Alignment, SwitchIndex, TOLERANCE_NS};
use crate::import::record::{EevdfEntity, EevdfSample};
use crate::replay::observe::Observed;
use crate::sched::entity::{vdiff, CfsRqId, EntityId};
use serde::Serialize;
use std::collections::VecDeque;

/// How far a recorded weight may lie from the model's for its entity to be seeded (per mille).
/// Group entity weights come from PELT (`calc_group_shares()`), which the trace cannot show:
/// the captures' groups start at 0.56–0.71 of their shares for the first ~50 ms (the load the
/// tasks left on the other CPU is still in `tg->load_avg`), and the autogroup of a session
/// with tasks on both CPUs sits ~0.4 % under its 1024. Lags seeded under different weights
/// would diverge again at once, so a queue waits for weights that agree within this.
const WEIGHT_TOLERANCE_PER_MILLE: u64 = 10;

/// A cfs_rq moved to the kernel's state.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct SeededQueue {
    /// ns since the trace's first record.
    pub at_ns: u64,
    pub cpu: u32,
    /// Cgroup depth of the queue (0: the CPU's root cfs_rq).
    pub depth: u32,
    /// The entities moved (task names; a group entity as `group:<cgroup path>`), and how far
    /// each one's vruntime moved (virtual ns).
    pub entities: Vec<String>,
    pub moved_ns: Vec<i64>,
}

/// What the seed did, and the picks scored after it.
#[derive(Debug, Clone, Default, Serialize, ts_rs::TS)]
pub struct SeedReport {
    /// The dump put on the trace's clock.
    pub alignment: Option<Alignment>,
    /// Records attached to a switch-out of the trace.
    pub records: u64,
    pub queues: Vec<SeededQueue>,
    /// Times the queues of a CPU were released for seeding again after an unthrottle.
    pub unthrottle_reseeds: u64,
    /// Group entity records whose weight (`gw`) the model took, and of those, the ones that
    /// changed the model's weight (`reweight_entity()` there).
    pub group_weights: u64,
    pub group_reweights: u64,
    /// Picks scored on a CPU after its first seeded queue, and those that agreed (all CPUs).
    pub scored_after: u64,
    pub agreed_after: u64,
    pub agreement_after_pct: f64,
}

/// A kernel record of one model entity.
#[derive(Clone, Copy)]
struct Known {
    v: u64,
    d: u64,
    w: u64,
    /// The model's vruntime and deadline when the record was attached.
    model_v: u64,
    model_d: u64,
}

pub(super) struct Seeder {
    /// The dump on the trace clock (absolute ns), in time order.
    samples: Vec<EevdfSample>,
    next: usize,
    /// Samples read but not yet attached (within the tolerance of a later switch).
    pending: VecDeque<EevdfSample>,
    known: Vec<Option<Known>>,
    seeded: Vec<bool>,
    /// Per CPU: a queue of it has been seeded.
    pub(super) cpu_seeded: Vec<bool>,
    pub(super) report: SeedReport,
}

impl Seeder {
    /// A seeder for `obs`'s dump, or None without one. An alignment that is not accepted is
    /// reported and seeds nothing.
    pub(super) fn new(obs: &Observed, entities: usize, queues: usize, cpus: usize) -> Option<Seeder> {
        if obs.eevdf.is_empty() {
            return None;
        }
        let mut outs = SwitchIndex::new();
        for e in &obs.events {
            if let ObsEvent::Switch { cpu, prev, .. } = e.ev {
                outs.entry((cpu, obs.tasks[prev as usize].pid)).or_default().push(e.ts);
            }
        }
        for v in outs.values_mut() {
            v.sort_unstable();
        }
        let a = align_index(&outs, (obs.t0.unwrap_or(0), obs.t1), &obs.eevdf);
        let mut samples = if a.accepted { shifted(&obs.eevdf, a.offset_ns) } else { Vec::new() };
        samples.sort_by_key(|s| (s.ts_ns, s.line));
        Some(Seeder {
            samples,
            next: 0,
            pending: VecDeque::new(),
            known: vec![None; entities],
            seeded: vec![false; queues],
            cpu_seeded: vec![false; cpus],
            report: SeedReport { alignment: Some(a), ..Default::default() },
        })
    }

    /// The records of the switch-out of `pid` from `cpu` at `ts`: the samples read up to
    /// `ts` + the tolerance wait in `pending` for their own switch; older ones are dropped.
    fn take_for(&mut self, ts: u64, cpu: u32, pid: i32) -> Vec<EevdfSample> {
        while self.next < self.samples.len() && self.samples[self.next].ts_ns <= ts.saturating_add(TOLERANCE_NS) {
            self.pending.push_back(self.samples[self.next].clone());
            self.next += 1;
        }
        while self.pending.front().is_some_and(|s| s.ts_ns.saturating_add(TOLERANCE_NS) < ts) {
            self.pending.pop_front();
        }
        let mut this = Vec::new();
        self.pending.retain(|x| {
            let mine = x.cpu == cpu && x.pid == pid;
            if mine {
                this.push(x.clone());
            }
            !mine
        });
        this
    }
}

impl Replayer<'_> {
    /// At the `sched_switch` of `prev` out of `cpu` at `ts` (trace clock; its switch-out
    /// already applied, the pick not yet made): attaches the dump's records of this switch-out,
    /// then seeds every queue of `cpu` whose population is fully recorded.
    pub(super) fn seed_at_switch(&mut self, ts: u64, cpu: u32, prev: u32) {
        let Some(mut s) = self.seed.take() else { return };
        let pid = self.obs.tasks[prev as usize].pid;
        let this = s.take_for(ts, cpu, pid);
        let mut nr_ok = true;
        if let Some(pse) = self.se(prev).filter(|&se| self.cpu_of(se) == cpu) {
            // Group weights only where the task sits at the kernel's depth: a group is matched
            // by its depth, and a layout with another hierarchy would take another group's.
            let same_depth = this.iter().any(|x| {
                matches!(x.entity, EevdfEntity::Task { .. })
                    && x.entity.se().depth == self.f.ents[pse as usize].depth as i32
            });
            for x in &this {
                let st = x.entity.se();
                let Some(ent) = self.ancestor_at(pse, st.depth) else { continue };
                // The model's hierarchy must be the kernel's: an S line names the task at its
                // depth, a G line a group entity (a layout that leaves out an autogroup puts the
                // task where the kernel has its group).
                let group = matches!(x.entity, EevdfEntity::Group { .. });
                if group != self.f.ents[ent as usize].task.is_none() {
                    continue;
                }
                let q = self.f.ents[ent as usize].cfs_rq;
                let gq = self.f.ents[ent as usize].my_q;
                if let Some(gq) = gq.filter(|&gq| group && same_depth && self.f.qs[gq as usize].load_weight > 0) {
                    // The kernel's `calc_group_shares()` at its last update, held until the
                    // next record (see the module doc).
                    self.f.qs[gq as usize].recorded_shares = Some(st.weight);
                    s.report.group_weights += 1;
                    if self.f.ents[ent as usize].load.weight != st.weight {
                        s.report.group_reweights += 1;
                        self.f.update_cfs_group(ent);
                    }
                }
                nr_ok &= self.f.qs[q as usize].nr_queued == x.entity.cfs_rq().nr_queued;
                s.known[ent as usize] = Some(Known {
                    v: st.vruntime,
                    d: st.deadline,
                    w: st.weight,
                    model_v: self.f.ents[ent as usize].vruntime,
                    model_d: self.f.ents[ent as usize].deadline,
                });
                s.report.records += 1;
            }
        }
        if nr_ok && !this.is_empty() {
            let qs: Vec<CfsRqId> =
                self.f.qs.iter().filter(|q| q.cpu == cpu && !s.seeded[q.id as usize]).map(|q| q.id).collect();
            for q in qs {
                if let Some(ents) = self.recorded_population(&s, q) {
                    let moved = self.seed_queue(&s, q, &ents);
                    s.seeded[q as usize] = true;
                    s.cpu_seeded[cpu as usize] = true;
                    let depth = ents.first().map_or(0, |&e| self.f.ents[e as usize].depth);
                    let names = ents.iter().map(|&e| self.entity_name(e)).collect();
                    s.report.queues.push(SeededQueue {
                        at_ns: ts.saturating_sub(self.t0),
                        cpu,
                        depth,
                        entities: names,
                        moved_ns: moved,
                    });
                }
            }
        }
        self.seed = Some(s);
    }

    /// An unthrottle the replay placed where the trace first shows it (`bandwidth`): the
    /// kernel's ran at the period timer, up to a tick or more earlier, while the CPU's other
    /// entities ran, so the queues of `cpu` are seeded again at their next fully recorded switch.
    pub(super) fn reseed_after_unthrottle(&mut self, cpu: u32) {
        let Some(s) = self.seed.as_mut() else { return };
        if !s.cpu_seeded[cpu as usize] {
            return;
        }
        for q in self.f.qs.iter().filter(|q| q.cpu == cpu) {
            s.seeded[q.id as usize] = false;
        }
        s.report.unthrottle_reseeds += 1;
    }

    /// Counts a scored pick on `cpu` after its first seed.
    pub(super) fn score_after_seed(&mut self, cpu: u32, agreed: bool) {
        if let Some(s) = self.seed.as_mut().filter(|s| s.cpu_seeded[cpu as usize]) {
            s.report.scored_after += 1;
            s.report.agreed_after += u64::from(agreed);
        }
    }

    /// `se` or its ancestor at cgroup `depth`.
    fn ancestor_at(&self, se: EntityId, depth: i32) -> Option<EntityId> {
        let mut cur = Some(se);
        while let Some(c) = cur {
            let d = self.f.ents[c as usize].depth as i32;
            if d == depth {
                return Some(c);
            }
            if d < depth {
                return None;
            }
            cur = self.f.ents[c as usize].parent;
        }
        None
    }

    /// The entities queued on `q` (curr included), when at least two and each has a current
    /// record.
    fn recorded_population(&self, s: &Seeder, q: CfsRqId) -> Option<Vec<EntityId>> {
        let cq = &self.f.qs[q as usize];
        let mut ents: Vec<EntityId> = cq.timeline.clone();
        ents.extend(cq.curr_on_rq(&self.f.ents));
        if ents.len() < 2 || ents.len() != cq.nr_queued as usize {
            return None;
        }
        let current = |e: &EntityId| {
            let se = &self.f.ents[*e as usize];
            s.known[*e as usize].is_some_and(|k| {
                let w = se.load.weight;
                (k.model_v, k.model_d) == (se.vruntime, se.deadline)
                    && k.w.abs_diff(w) * 1000 <= w * WEIGHT_TOLERANCE_PER_MILLE
            })
        };
        ents.iter().all(current).then_some(ents)
    }

    /// Moves `ents` (the whole population of `q`) to the kernel's lags and relative deadlines
    /// around the model's V; returns each one's vruntime change.
    fn seed_queue(&mut self, s: &Seeder, q: CfsRqId, ents: &[EntityId]) -> Vec<i64> {
        let known: Vec<Known> = ents.iter().map(|&e| s.known[e as usize].expect("recorded")).collect();
        // The kernel's V over the population, relative to the first entity (no overflow).
        let base = known[0].v;
        let (num, den) = known.iter().fold((0i128, 0i128), |(n, d), k| {
            (n + i128::from(vdiff(k.v, base)) * i128::from(k.w), d + i128::from(k.w))
        });
        let v_kernel = base.wrapping_add((num / den.max(1)) as i64 as u64);
        let v_model = self.f.qs[q as usize].peek_avg_vruntime(&self.f.ents);
        let curr = self.f.qs[q as usize].curr;
        let mut moved = Vec::with_capacity(ents.len());
        for (&e, k) in ents.iter().zip(&known) {
            let lag = vdiff(v_kernel, k.v);
            let new_v = v_model.wrapping_sub(lag as u64);
            let in_tree = curr != Some(e);
            if in_tree {
                self.f.qs[q as usize].dequeue_timeline(&self.f.ents, e);
            }
            let se = &mut self.f.ents[e as usize];
            let delta = vdiff(new_v, se.vruntime);
            se.vruntime = new_v;
            se.deadline = new_v.wrapping_add(vdiff(k.d, k.v) as u64);
            if !in_tree {
                se.vprot = se.vprot.wrapping_add(delta as u64);
            }
            moved.push(delta);
            if in_tree {
                self.f.qs[q as usize].enqueue_timeline(&self.f.ents, e);
            }
        }
        moved
    }

    fn entity_name(&self, e: EntityId) -> String {
        match self.f.ents[e as usize].task {
            Some(t) => self.shadow.scenario.tasks[t as usize].name.clone(),
            None => {
                let tg = self.f.qs[self.f.ents[e as usize].my_q.expect("group entity") as usize].tg;
                format!("group:{}", self.f.tgs[tg as usize].path)
            }
        }
    }
}
