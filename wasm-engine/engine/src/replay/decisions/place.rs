//! Placement agreement: at every real wakeup that placed a task (`try_to_wake_up()` of a
//! task off its runqueue, and `wake_up_new_task()`), the model, in the state the trace has
//! put it in, is asked which CPU its `select_task_rq_fair()` would choose (Linux 6.18 with
//! this machine's vendor block, `sched/select.rs`), and the answer is scored against the
//! `target_cpu` of the kernel's `sched_wakeup`. The model then follows the kernel's choice.
//!
//! What the model is told of each wakeup is what the trace shows: the CPU the wakeup ran on
//! (the record's CPU), the task's previous CPU (before the `sched_migrate_task` that a
//! wakeup's `set_task_cpu()` writes ahead of its `sched_wakeup`), and `WF_SYNC` as inferred
//! (`observe::SYNC_WAKE_WINDOW_NS`: the trace does not record it). A task the model has on
//! one allowed CPU is not scored (`select_task_rq()` does not ask the class).
//!
//! `sched_exec()`'s moves are scored as placements too: the trace shows the ones that moved
//! the task, as a `sched_migrate_task` written by the CPU's stopper (`migration/N`) that the
//! task woke from its own context (`observe`); the model is asked `select_task_rq_fair()`
//! with `WF_EXEC` from the task's CPU (named shortcut: at the stopper's record, when the task
//! is queued there, not at the call, when it ran).
//!
//! Balance migrations (a `sched_migrate_task` of a task on its runqueue: periodic, newidle,
//! nohz or active balancing) are scored too: on a copy of the model in the state of that
//! moment, the destination CPU balances as the record's context says the kernel did
//! (`MigrateHow`: an idle CPU's `CPU_IDLE` pass; `sched_balance_newidle()` after the blocking
//! task's dequeue; otherwise newidle if the model's CPU has nothing to run, else
//! `sched_balance_domains()` as a busy CPU), and the answer is whether it pulls a task from
//! the same source CPU, and whether it is the same task. The records of one pass
//! ([`PASS_NS`]) are scored against one answer. A wakeup's move of a task the model still
//! holds queued is not a balance (`follow.rs`: `MigrateHow::Wakeup`). Named shortcut: the pass is
//! asked for at the moment of the real migration (every domain's interval taken as due),
//! because the trace shows neither the tick nor `next_balance`; an active balance (the
//! stopper's push after failed passes) is asked as a plain pass.

use super::{MigrateHow, Replayer};
use crate::obs::log::EventKind;
use crate::obs::why_cpu;
use crate::sched::entity::EntityId;
use crate::sched::fair::DEQUEUE_SLEEP;
use crate::sched::select::PlacePath;
use crate::sched::wakeup::{WF_EXEC, WF_FORK, WF_SYNC, WF_TTWU};
use serde::Serialize;

/// A wakeup placed on another CPU than the kernel's.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct PlacementDisagreement {
    /// ns since the trace's first record.
    pub at_ns: u64,
    pub task: String,
    /// The task's previous CPU, and the CPU the wakeup ran on.
    pub prev_cpu: u32,
    pub waker_cpu: u32,
    pub sync: bool,
    pub new_task: bool,
    /// `sched_exec()`'s placement (`WF_EXEC`), not a wakeup.
    pub exec: bool,
    pub kernel_cpu: u32,
    pub model_cpu: u32,
    /// The model's rule (`select.rs` `PlacePath` name), `wake_affine()`'s part and the target
    /// `select_idle_sibling()` started from.
    pub rule: String,
    pub affine: String,
    pub target: u32,
}

/// A balance migration the model's balancer, asked at that moment, did not make.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct BalanceDisagreement {
    /// ns since the trace's first record.
    pub at_ns: u64,
    /// The task the kernel moved, from `src_cpu` to `dst_cpu`.
    pub task: String,
    pub src_cpu: u32,
    pub dst_cpu: u32,
    /// What the model's passes on `dst_cpu` did instead, in words (`obs::why_cpu`): the task
    /// it pulled, or its last pass that found an imbalance, or that every pass found none.
    pub model: String,
}

/// Placement agreement over a trace.
#[derive(Debug, Clone, Default, Serialize, ts_rs::TS)]
pub struct PlacementReport {
    /// Wakeups scored, and those placed where the kernel placed them.
    pub scored: u64,
    pub agreed: u64,
    pub agreement_pct: f64,
    /// Of the scored: wakeups of new tasks (`WF_FORK`) and inferred synchronous ones.
    pub new_tasks: u64,
    pub sync: u64,
    /// Of the scored: `sched_exec()`'s moves (`WF_EXEC`; only those that moved the task show).
    pub exec: u64,
    /// Scored wakeups per model rule: (rule, scored, agreed), by rule name.
    pub by_rule: Vec<(String, u64, u64)>,
    /// Not scored: the task may run on one CPU only in the model.
    pub pinned: u64,
    /// Not scored: the first wakeup the trace shows of a task that existed before it (its
    /// previous CPU is not in the trace).
    pub first_seen: u64,
    /// Migrations of queued tasks the trace shows (balancing), and of those, the ones where
    /// the model's balancer on the destination, asked at that moment, pulls from the same
    /// source CPU, and pulls the same task.
    pub balance_migrations: u64,
    pub balance_same_source: u64,
    pub balance_same_task: u64,
    /// Not balance migrations: a wakeup's move (`MigrateHow::Wakeup`) of a task the model still
    /// held queued, mostly a dequeue the model delayed and the kernel did not; dequeued there,
    /// its wakeup scored as a placement.
    pub wakeup_of_queued: u64,
    /// The first disagreements, in time order.
    pub first_disagreements: Vec<PlacementDisagreement>,
    /// The first balance migrations the model did not make from the same source, in time
    /// order.
    pub balance_disagreements: Vec<BalanceDisagreement>,
}

/// Balance passes asked of the destination at a balance migration: the passes that failed
/// before it are not in the trace. Our machine's MC domain has `cache_nice_tries` 1, so after
/// two failed passes `can_migrate_task()` takes a cache-hot task; four passes leave room for
/// that (named shortcut, not fitted: 1 pass scores 5 of the five captures' 27 balance
/// migrations, 4 passes 18).
const BALANCE_PASSES: usize = 4;

/// What placed the task: a wakeup (`try_to_wake_up()`), a fork (`wake_up_new_task()`) or an
/// exec (`sched_exec()`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Placing {
    Wakeup { sync: bool },
    Fork,
    Exec,
}

/// How many disagreements the report lists.
const LISTED: usize = 12;

impl Replayer<'_> {
    /// Scores the model's `select_task_rq_fair()` for the placement of `se` that the kernel
    /// made on `kernel_cpu`, run on `from`.
    pub(super) fn score_placement(&mut self, t: u64, se: EntityId, kernel_cpu: u32, from: u32, how: Placing) {
        let Some(smp) = self.f.smp.as_deref() else { return };
        if smp.tasks[se as usize].nr_cpus_allowed <= 1 {
            self.report.placements.pinned += 1;
            return;
        }
        let (new, exec, sync) = (how == Placing::Fork, how == Placing::Exec, how == Placing::Wakeup { sync: true });
        let prev_cpu = match how {
            Placing::Fork | Placing::Exec => from,
            Placing::Wakeup { .. } => self.prev_cpu[se as usize].take().unwrap_or_else(|| self.cpu_of(se)),
        };
        let flags = match how {
            Placing::Fork => WF_FORK,
            Placing::Exec => WF_EXEC,
            Placing::Wakeup { sync } => WF_TTWU | if sync { WF_SYNC } else { 0 },
        };
        let waker = self.f.rqs[from as usize].curr.filter(|&w| w != se);
        let pl = self.f.select_task_rq_fair(se, prev_cpu, flags, from, waker);
        let p = &mut self.report.placements;
        p.scored += 1;
        p.new_tasks += new as u64;
        p.exec += exec as u64;
        p.sync += sync as u64;
        let agreed = pl.cpu == kernel_cpu;
        p.agreed += agreed as u64;
        let rule = pl.path.name();
        match p.by_rule.iter_mut().find(|r| r.0 == rule) {
            Some(r) => {
                r.1 += 1;
                r.2 += agreed as u64;
            }
            None => p.by_rule.push((rule.to_string(), 1, agreed as u64)),
        }
        let p = &mut self.report.placements;
        if !agreed && p.first_disagreements.len() < LISTED {
            let name = self.shadow.scenario.tasks[se as usize].name.clone();
            self.report.placements.first_disagreements.push(PlacementDisagreement {
                at_ns: t,
                task: name,
                prev_cpu,
                waker_cpu: from,
                sync,
                new_task: new,
                exec,
                kernel_cpu,
                model_cpu: pl.cpu,
                rule: rule.to_string(),
                affine: affine_name(pl.affine).to_string(),
                target: pl.target,
            });
        }
        debug_assert!(pl.path != PlacePath::Pinned);
    }
}

/// Balance migrations written this close one after the other on one CPU, onto one
/// destination, with no other event of the CPUs involved between, are one pass's
/// `detach_tasks()` (1 µs apart in `linux-6.18-smp/cgroup-shares-smp` and
/// `linux-6.18-smp-cpuavg/nice-imbalance-smp`).
pub const PASS_NS: u64 = 20_000;

/// The model's answer to the balance pass a run of real migrations came from.
#[derive(Debug, Clone)]
pub(super) struct BalancePass {
    /// The last record of the pass so far.
    at: u64,
    by: u32,
    dst: u32,
    /// (task, source CPU, destination CPU) of each task the model's passes moved.
    pulled: Vec<(u32, u32, u32)>,
    /// The kernel's records of the pass so far, by source CPU.
    recorded: Vec<u32>,
    /// What the model did instead, when it pulled nothing to the destination.
    instead: String,
}

impl BalancePass {
    /// Whether an event on `cpus` may fall inside this pass (one on other CPUs may: their
    /// work goes on while `detach_tasks()` runs).
    pub(super) fn unrelated(&self, cpus: &[u32]) -> bool {
        let involved = |c: u32| {
            c == self.by || c == self.dst || self.recorded.contains(&c) || self.pulled.iter().any(|p| p.1 == c)
        };
        !cpus.is_empty() && !cpus.iter().any(|&c| involved(c))
    }
}

impl Replayer<'_> {
    /// Scores a balance migration of the queued `se` from `src` to `dst`, written on CPU `by`
    /// (see the module docs). A migration that continues the pass of the one before it
    /// ([`PASS_NS`]) is scored against the same answer of the model.
    pub(super) fn score_balance(&mut self, t: u64, se: EntityId, src: u32, dst: u32, by: u32, how: MigrateHow) {
        let p = &mut self.report.placements;
        p.balance_migrations += 1;
        if !self.f.lb_enabled() {
            return;
        }
        let same_pass = self.balance_pass.as_ref().is_some_and(|b| b.by == by && b.dst == dst && t - b.at <= PASS_NS);
        if !same_pass {
            let (pulled, instead) = self.ask_balance(dst, how);
            self.balance_pass = Some(BalancePass { at: t, by, dst, pulled, recorded: Vec::new(), instead });
        }
        let pass = self.balance_pass.as_mut().expect("asked above");
        // The k-th record from `src` in this pass agrees if the model moved more than k tasks
        // from there.
        let before = pass.recorded.iter().filter(|&&c| c == src).count();
        let moved = pass.pulled.iter().filter(|&&(_, from, to)| to == dst && from == src).count();
        let from_src = moved > before;
        let same_task = pass.pulled.iter().any(|&(t, _, to)| t == se && to == dst);
        pass.recorded.push(src);
        pass.at = t;
        let pass = self.balance_pass.as_ref().expect("asked above");
        let p = &mut self.report.placements;
        p.balance_same_source += from_src as u64;
        p.balance_same_task += same_task as u64;
        if !from_src && p.balance_disagreements.len() < LISTED {
            let names = &self.shadow.scenario.tasks;
            let name = |t: u32| names.get(t as usize).map_or_else(|| format!("task {t}"), |x| x.name.clone());
            let model = match pass.pulled.iter().find(|&&(_, _, to)| to == dst) {
                Some(&(t, from, _)) => format!("pulled {} from CPU {from}", name(t)),
                None => pass.instead.clone(),
            };
            let task = name(self.f.task_of(se));
            self.report.placements.balance_disagreements.push(BalanceDisagreement {
                at_ns: t,
                task,
                src_cpu: src,
                dst_cpu: dst,
                model,
            });
        }
    }

    /// Asks a copy of the model, in the state of this moment, to balance `dst` as the record's
    /// context says the kernel did (`how`): an idle CPU's pass (`CPU_IDLE`); newidle, after the
    /// running task's blocking dequeue and a pick that finds nothing; or, for any other
    /// context, `sched_balance_newidle()` if the model's CPU has nothing to run and then busy
    /// passes. Returns what the copy moved, and in words what it did if nothing came to `dst`.
    fn ask_balance(&mut self, dst: u32, how: MigrateHow) -> (Vec<(u32, u32, u32)>, String) {
        // A copy without the log (nothing of the copy's is kept but what it moved).
        let log = std::mem::take(&mut self.f.log);
        let mut f = self.f.clone();
        self.f.log = log;
        let d = dst as usize;
        if how == MigrateHow::Newidle {
            if let Some(prev) = f.rqs[d].curr {
                f.dequeue_task(prev, DEQUEUE_SLEEP);
                f.pick_next_task(dst);
            }
        }
        let idle = f.rqs[d].curr.is_none() && f.rqs[d].nr_running == 0;
        let smp = f.smp.as_deref_mut().expect("balancing is enabled");
        smp.lb.moved.clear();
        if idle && how != MigrateHow::Idle {
            f.sched_balance_newidle(dst);
        }
        let moved = |f: &crate::sched::fair::Fair| f.smp.as_deref().map_or(0, |s| s.lb.moved.len());
        // The passes that failed before this one are not in the trace (`nr_balance_failed`,
        // which lets `can_migrate_task()` take a cache-hot task and an active balance push a
        // running one): a few passes in a row stand for them.
        for _ in 0..BALANCE_PASSES {
            if moved(&f) > 0 {
                break;
            }
            for l in &mut f.smp.as_deref_mut().expect("balancing is enabled").lb.last_balance[d] {
                *l = 0;
            }
            // The tick of an idle CPU decided CPU_IDLE (`rq->idle_balance`), even if a
            // wakeup has queued a task there since.
            let kind = if idle || how == MigrateHow::Idle {
                crate::sched::balance::CpuIdle::Idle
            } else {
                crate::sched::balance::CpuIdle::NotIdle
            };
            f.sched_balance_domains(dst, kind);
        }
        let pulled: Vec<(u32, u32, u32)> = f
            .smp
            .as_deref()
            .map_or(&[][..], |s| &s.lb.moved[..])
            .iter()
            // The source: where the task is in the model (the copy has moved it).
            .map(|&(t, to)| (t, self.cpu_of(t as EntityId), to))
            .collect();
        let instead = match why_cpu::last_row(&f.log, EventKind::Balance, dst, usize::MAX) {
            Some(i) => why_cpu::balance_words(&f.log, i),
            None => format!("{BALANCE_PASSES} passes on CPU {dst} found every domain balanced"),
        };
        (pulled, instead)
    }
}

fn affine_name(a: crate::sched::select::AffinePath) -> &'static str {
    use crate::sched::select::AffinePath::*;
    match a {
        None => "none",
        Idle => "wake_affine_idle",
        Weight => "wake_affine_weight",
        Prev => "prev",
    }
}
