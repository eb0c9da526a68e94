//! Where tasks run: the simulation's side of wakeup placement (`select_task_rq()` of
//! kernel/sched/core.c) under both `smp` modes, and the construction of the SMP state
//! (`sched/smp.rs`) from the scenario's host.

use super::{Simulation, TaskState};
use crate::obs::codes::MigrateClass;
use crate::obs::log::EventKind;
use crate::obs::log::{SwitchReason, NO_TASK};
use crate::scenario::schema::PolicySpec;
use crate::sched::balance::CpuIdle;
use crate::sched::select::PlacePath;
use crate::sched::smp::{Smp, SmpMode};
use crate::sched::topology::{CpuMask, CpuPlace, Host, Topology, LOCAL_DISTANCE, RECLAIM_DISTANCE};
use crate::sched::wakeup::WF_EXEC;

/// Distance between two NUMA nodes of different sockets (named shortcut: the common SLIT
/// value; no scenario of ours has measured one).
pub const REMOTE_NODE_DISTANCE: u32 = 21;

impl Simulation {
    /// The scheduler's host: every CPU's core, LLC, package and node from the scenario's x86
    /// topology (one LLC, package and NUMA node per socket; every core its own cluster, as
    /// `CONFIG_SCHED_CLUSTER` sees a machine without clusters). A flat host is one socket of
    /// single-thread cores, which for 2 CPUs is our machine (`Topology::this_machine()`).
    pub fn sched_host(&self) -> Host {
        let topo = &self.cfg.host.topology;
        let cores_per_socket = topo.iter().map(|t| t.core + 1).max().unwrap_or(1);
        let sockets = topo.iter().map(|t| t.socket + 1).max().unwrap_or(1);
        let cpus = topo
            .iter()
            .map(|t| {
                let core = t.socket * cores_per_socket + t.core;
                CpuPlace { core, cluster: core, llc: t.socket, package: t.socket, node: t.socket }
            })
            .collect();
        let node_distance = (0..sockets)
            .map(|a| (0..sockets).map(|b| if a == b { LOCAL_DISTANCE } else { REMOTE_NODE_DISTANCE }).collect())
            .collect();
        let this_machine = Host::this_machine();
        let node_reclaim_distance =
            if self.cfg.host.ncpus == 2 { this_machine.node_reclaim_distance } else { RECLAIM_DISTANCE };
        Host { cpus, node_distance, node_reclaim_distance, sched_cluster: true }
    }

    /// Sets up `smp = "fair"`: the sched domains and each task's placement state, and turns
    /// PELT tracking on (placement and balancing read load and utilization averages).
    pub(crate) fn init_smp(&mut self) -> Result<(), String> {
        if self.cfg.smp != SmpMode::Fair {
            return Ok(());
        }
        let topo = Topology::build(&self.sched_host()).map_err(|e| format!("smp = \"fair\": {e:?}"))?;
        let tasks = self.tasks.iter().map(|t| (t.cfg.affinity.iter().map(|&c| c as usize).collect::<CpuMask>(), t.cpu));
        let mut smp = Smp::new(topo, tasks);
        smp.idle_policy_tasks = (0..self.tasks.len() as u32).filter(|&t| self.fair.ents[t as usize].idle).collect();
        smp.lb.seed_rng(self.cfg.seed);
        smp.lb.tick_ahead_per_mille = self.cfg.host.tick_ahead_per_mille;
        smp.lb.timekeeper = self.cfg.host.timekeeper;
        smp.lb.normal = self.tasks.iter().map(|t| t.cfg.policy == PolicySpec::Normal).collect();
        // PELT is read by placement and balancing only for tasks that may move: when every
        // task is pinned nothing reads it (balancing is skipped, placement asks no class), so
        // it is not tracked unless group shares come from it (results are identical, and
        // large pinned scenarios such as seed 002's 384 CPUs do not pay for it).
        let movable = smp.lb.enabled;
        self.fair.smp = Some(Box::new(smp));
        self.fair.pelt_tracking = movable || self.fair.pelt_shares();
        if movable {
            // The UI's per-CPU load, util and nr_running tracks (pinned runs log none, so
            // their logs stay as they were).
            let fair = &self.fair;
            let cc = crate::sched::smp::CpuCounters::new((0..fair.rqs.len() as u32).map(|c| fair.capacity_of(c)));
            self.fair.cpu_counters = Some(Box::new(cc));
        }
        // Processes the scenario starts are forked by a launcher and exec their program
        // (`sched_exec()` at their first run); vCPU threads (clone, no exec) and fork steps'
        // children (they run the parent's code) do not, nor do pinned tasks (nothing to pick).
        for t in &mut self.tasks {
            t.exec_pending = t.cfg.parent.is_none() && t.cfg.vm.is_none() && t.cfg.affinity.len() > 1;
        }
        Ok(())
    }

    /// `select_task_rq()`: the CPU a waking (`prev` = its last CPU) or new (`prev` = None)
    /// task is placed on. `wake_flags` are the kernel's WF_* bits; `waker_cpu` is the CPU the
    /// wakeup runs on (None: a timer, which fires on the CPU the task slept on; for a new
    /// task, the parent's CPU, here the task's first allowed CPU: the scenario does not say
    /// where the launching shell ran).
    pub(crate) fn select_task_rq(
        &mut self,
        task: u32,
        prev: Option<u32>,
        wake_flags: u32,
        waker_cpu: Option<u32>,
    ) -> u32 {
        if self.fair.smp.is_none() {
            return self.select_task_rq_static(task, prev);
        }
        let prev_cpu = prev.unwrap_or(self.tasks[task as usize].cpu);
        let waker_cpu = waker_cpu.unwrap_or(prev_cpu);
        let waker = self.running_task(waker_cpu).filter(|&t| t != task);
        let pl = self.fair.select_task_rq_fair(task, prev_cpu, wake_flags, waker_cpu, waker);
        if pl.path == PlacePath::Pinned {
            // core.c's select_task_rq() does not ask the class: nothing to log, so fully
            // pinned scenarios log exactly what they log under `smp = "static"`.
            return pl.cpu;
        }
        let val = pl.path as i64
            | (pl.affine as i64) << 8
            | (pl.target as i64 & 0xffff) << 16
            | (pl.nr_idle_scan as i64) << 32;
        self.fair.log.event(self.fair.now, EventKind::SelectRq, pl.cpu, task, prev_cpu, val);
        pl.cpu
    }

    /// The engine's earlier placement (`smp = "static"`, a named shortcut): a pinned task goes
    /// to its CPU; otherwise the previous CPU if idle, else the lowest idle allowed CPU, else
    /// the previous CPU if allowed, else the allowed CPU with the fewest queued tasks.
    fn select_task_rq_static(&self, task: u32, prev: Option<u32>) -> u32 {
        let aff = &self.tasks[task as usize].cfg.affinity;
        let idle = |c: u32| self.fair.rqs[c as usize].curr.is_none() && self.fair.rqs[c as usize].nr_running == 0;
        if let Some(p) = prev.filter(|p| aff.contains(p)) {
            if idle(p) {
                return p;
            }
        }
        if let Some(&c) = aff.iter().find(|&&c| idle(c)) {
            return c;
        }
        if let Some(p) = prev.filter(|p| aff.contains(p)) {
            return p;
        }
        *aff.iter().min_by_key(|&&c| (self.fair.rqs[c as usize].nr_running, c)).expect("affinity is non-empty")
    }
}

impl Simulation {
    /// Brings the tasks the balancer moved up to date (`Task.cpu`).
    pub(crate) fn sync_migrations(&mut self) {
        let Some(smp) = self.fair.smp.as_deref_mut() else { return };
        for (task, cpu) in std::mem::take(&mut smp.lb.moved) {
            self.tasks[task as usize].cpu = cpu;
        }
    }

    /// `sched_balance_trigger()` at a busy tick of `cpu`: whether the SCHED softirq is raised
    /// (its `nohz_balancer_kick()` queues the idle load balancer's kick).
    pub(crate) fn sched_balance_trigger(&mut self, cpu: u32) -> bool {
        self.fair.lb_enabled() && self.fair.sched_balance_trigger(cpu)
    }

    /// The SCHED softirq of `cpu` at its tick's exit (`sched_balance_softirq()`).
    pub(crate) fn balance_softirq(&mut self, cpu: u32) {
        let idle = if self.fair.idle_cpu(cpu) { CpuIdle::Idle } else { CpuIdle::NotIdle };
        self.fair.sched_balance_softirq(cpu, idle);
        self.sync_migrations();
    }

    /// After a jiffy's passes: the softirq of the idle load balancer a tick kicked (IPI
    /// latency 0), then the stopper work any of them queued.
    pub(crate) fn balance_kicked(&mut self) {
        if !self.fair.lb_enabled() {
            return;
        }
        let pending = std::mem::take(&mut self.fair.smp.as_deref_mut().expect("smp").lb.ilb_pending);
        for ilb in pending {
            self.fair.run_ilb(ilb);
        }
        self.sync_migrations();
        self.run_stoppers();
    }

    /// `sched_exec()` (core.c) of `task`, running on `cpu` at its exec: exec balancing
    /// (`select_task_rq_fair()` with WF_EXEC, the slow path over the domains with
    /// SD_BALANCE_EXEC) and, if another CPU is chosen, `stop_one_cpu()` with
    /// `migration_cpu_stop()`: the stopper takes `cpu` at once (named shortcut, as for active
    /// balancing), moves the task there (`move_queued_task()`) and `cpu` picks again. Returns
    /// whether the task moved.
    pub(crate) fn sched_exec(&mut self, cpu: u32, task: u32) -> bool {
        if self.fair.smp.is_none() {
            return false;
        }
        let dest = self.select_task_rq(task, Some(cpu), WF_EXEC, Some(cpu));
        if dest == cpu {
            return false;
        }
        self.stopper_takes_cpu(cpu);
        self.fair.move_queued_task(task, dest, MigrateClass::Exec);
        self.sync_migrations();
        self.schedule(cpu, SwitchReason::Preempt);
        true
    }

    /// The stopper takes `cpu` at once (named shortcut): its running task, if any, is switched
    /// out still runnable (a switch to idle with reason `preempt`, its entity put back on the
    /// queue), and the CPU counts as idle until `schedule()` finds a task.
    fn stopper_takes_cpu(&mut self, cpu: u32) {
        if let Some(prev) = self.running_task(cpu) {
            self.charge_segment(prev);
            self.fair.force_next(cpu, None);
            self.fair.log.event(self.fair.now, EventKind::Switch, cpu, NO_TASK, prev, SwitchReason::Preempt as i64);
            self.cpus[cpu as usize].work_gen += 1;
            self.kvm_sched_out(prev, true);
            let t = &mut self.tasks[prev as usize];
            t.stats.switches_out += 1;
            t.stats.switches_out_runnable += 1;
            if t.state == TaskState::Running {
                t.state = TaskState::Runnable;
            }
        }
        self.cpus[cpu as usize].idle_since.get_or_insert(self.fair.now);
    }

    /// The stopper (`active_load_balance_cpu_stop()`), named shortcut: it takes the busiest
    /// CPU at once, preempting its task (a switch to idle with reason `preempt`), pushes one
    /// task to the balancing CPU, and the busiest CPU picks again.
    fn run_stoppers(&mut self) {
        let work = std::mem::take(&mut self.fair.smp.as_deref_mut().expect("smp").lb.stopper);
        for (busiest, target) in work {
            self.stopper_takes_cpu(busiest);
            self.fair.active_load_balance_cpu_stop(busiest, target);
            self.sync_migrations();
            self.schedule(busiest, SwitchReason::Preempt);
        }
    }
}
