//! The SMP state of the fair class (Linux 6.18): the sched domains of the host, what each
//! task carries for wakeup placement (`p->cpus_ptr`, `wakee_flips`, `last_wakee`,
//! `recent_used_cpu`), the LLC's shared state (`sched_domain_shared`) and the per-cfs_rq
//! hierarchical load cache of `task_h_load()`.
//!
//! Present only under `smp = "fair"` (the default): wakeup placement (`select.rs`) and load balancing read
//! it. Under `smp = "static"` (the engine's earlier rule, a named shortcut) `Fair::smp` is
//! None and nothing here runs.
//!
//! Named shortcuts of the SMP model, beyond those of each function:
//! * `jiffies` is `now / TICK_NSEC` (`INITIAL_JIFFIES` is left out: only wrap-around tests
//!   would see it).
//! * No util_est (UTIL_EST is on on our machine): `cpu_util()` reads `util_avg` alone.
//! * `capacity_of()` is the CPU's full capacity (1024 on our VM; no RT, DL or irq pressure
//!   is modelled).
//! * `vcpu_is_preempted()` is false: the host's own vCPUs are not modelled.

use super::entity::{CfsRqId, EntityId};
use super::fair::Fair;
use super::topology::{CpuMask, Topology};

/// Where unpinned tasks run (`smp` knob).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SmpMode {
    /// Linux 6.18's wakeup placement and load balancing (the default).
    #[default]
    Fair,
    /// The engine's earlier rule: no balancing (a named shortcut).
    Static,
}

/// What a task carries for placement (`struct task_struct` fields).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaskSmp {
    /// `p->cpus_ptr`.
    pub allowed: CpuMask,
    /// `p->nr_cpus_allowed`.
    pub nr_cpus_allowed: u32,
    /// `p->wakee_flips`: how often this task switched whom it wakes, halved every second.
    pub wakee_flips: u32,
    /// `p->wakee_flip_decay_ts` (jiffies).
    pub wakee_flip_decay_ts: u64,
    /// `p->last_wakee` (a task id).
    pub last_wakee: Option<u32>,
    /// `p->recent_used_cpu`.
    pub recent_used_cpu: u32,
}

impl TaskSmp {
    /// A task allowed on `allowed`, last on `cpu`.
    pub fn new(allowed: CpuMask, cpu: u32) -> TaskSmp {
        TaskSmp {
            allowed,
            nr_cpus_allowed: allowed.weight(),
            wakee_flips: 0,
            wakee_flip_decay_ts: 0,
            last_wakee: None,
            recent_used_cpu: cpu,
        }
    }
}

/// `struct sched_domain_shared` of one LLC.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LlcShared {
    /// `nr_idle_scan`: how many CPUs `select_idle_cpu()` may scan (SIS_UTIL). Zero at boot
    /// (the structure is allocated zeroed) until the first periodic balance of the LLC
    /// domain sets it (`update_idle_cpu_scan()`).
    pub nr_idle_scan: u32,
    /// `nr_busy_cpus`: CPUs of the LLC not in the nohz idle state (`sd_init()` sets the
    /// LLC's weight).
    pub nr_busy_cpus: u32,
}

/// The SMP state (`Fair::smp`).
#[derive(Debug, Clone)]
pub struct Smp {
    /// The sched domains of every CPU.
    pub topo: Topology,
    /// Per task (index = task id).
    pub tasks: Vec<TaskSmp>,
    /// Per CPU, the idle task's wakee record (`current` of an idle CPU is its idle task, and
    /// a wakeup from an interrupt there records the wakee on it).
    pub idle: Vec<TaskSmp>,
    /// Per LLC (`sd_llc_id`), its shared state.
    pub llc_shared: Vec<LlcShared>,
    /// Per cfs_rq: `h_load` and `last_h_load_update` (jiffies), for `task_h_load()`.
    pub h_load: Vec<(u64, Option<u64>)>,
    /// The SCHED_IDLE tasks (for `sched_idle_cpu()`; policies do not change at run time).
    pub idle_policy_tasks: Vec<u32>,
    /// The load balancer's state (`sched/balance`).
    pub lb: super::balance::Balance,
}

impl Smp {
    /// The SMP state of a host with this topology, for tasks allowed on `allowed` and
    /// starting on `cpu`.
    pub fn new(topo: Topology, tasks: impl IntoIterator<Item = (CpuMask, u32)>) -> Smp {
        let ncpus = topo.cpus.len();
        let nllc = topo.cpus.iter().map(|c| c.sd_llc_id + 1).max().unwrap_or(0);
        let tasks: Vec<TaskSmp> = tasks.into_iter().map(|(m, c)| TaskSmp::new(m, c)).collect();
        let mut llc_shared = vec![LlcShared::default(); nllc];
        for c in &topo.cpus {
            llc_shared[c.sd_llc_id].nr_busy_cpus = c.sd_llc_size;
        }
        let levels: Vec<usize> = topo.cpus.iter().map(|c| c.domains.len()).collect();
        let mut lb =
            super::balance::Balance::new(ncpus, &levels, tasks.len(), 0, super::wakeup::SYSCTL_SCHED_MIGRATION_COST_NS);
        lb.enabled = tasks.iter().any(|t| t.nr_cpus_allowed > 1);
        Smp {
            lb,
            tasks,
            idle: (0..ncpus).map(|c| TaskSmp::new(CpuMask::of(c), c as u32)).collect(),
            llc_shared,
            h_load: Vec::new(),
            idle_policy_tasks: Vec::new(),
            topo,
        }
    }

    /// `cpus_share_cache()`.
    pub fn cpus_share_cache(&self, a: u32, b: u32) -> bool {
        a == b || self.topo.cpus[a as usize].sd_llc_id == self.topo.cpus[b as usize].sd_llc_id
    }
}

/// The per-CPU counters' state (`Fair::record_cpu_counters()`).
#[derive(Debug, Clone, Default)]
pub struct CpuCounters {
    /// Per CPU.
    pub cpus: Vec<CpuCounterState>,
    /// CPUs touched since the last record, each once.
    pub dirty: Vec<u32>,
}

/// One CPU's last logged counters.
#[derive(Debug, Clone, Copy)]
pub struct CpuCounterState {
    /// load_avg, util_avg (capped) and nr_running as last logged (-1: never).
    pub last: [i64; 3],
    /// The CPU's capacity (`capacity_of()`, constant): `cpu_util_cfs()`'s cap.
    pub capacity: i64,
    /// In `dirty`.
    pub dirty: bool,
}

impl CpuCounters {
    /// Every CPU touched, nothing logged yet.
    pub fn new(capacities: impl Iterator<Item = u64>) -> CpuCounters {
        let cpus: Vec<CpuCounterState> =
            capacities.map(|c| CpuCounterState { last: [-1; 3], capacity: c as i64, dirty: true }).collect();
        let dirty = (0..cpus.len() as u32).collect();
        CpuCounters { cpus, dirty }
    }
}

impl Fair {
    /// The SMP state; only called on paths that run under `smp = "fair"`.
    #[inline]
    pub fn smp(&self) -> &Smp {
        self.smp.as_deref().expect("smp = fair")
    }

    /// `jiffies`: the ticks so far, counted from the first at `host.tick_phase` (0 before it).
    #[inline]
    pub fn jiffies(&self) -> u64 {
        let tick = self.params.tick_nsec;
        ((self.now + tick).saturating_sub(self.params.tick_phase) / tick).saturating_sub(1)
    }

    /// `idle_cpu()`: nothing runs and nothing is queued (no wakeup is ever pending: the
    /// engine does not model TTWU_QUEUE's IPI delay).
    pub fn idle_cpu(&self, cpu: u32) -> bool {
        let rq = &self.rqs[cpu as usize];
        rq.curr.is_none() && rq.nr_running == 0
    }

    /// `available_idle_cpu()`: `idle_cpu()` and the vCPU not preempted (never, here).
    pub fn available_idle_cpu(&self, cpu: u32) -> bool {
        self.idle_cpu(cpu)
    }

    /// `sched_idle_cpu()`: every queued task is SCHED_IDLE.
    pub fn sched_idle_cpu(&self, cpu: u32) -> bool {
        let rq = &self.rqs[cpu as usize];
        rq.nr_running > 0 && self.h_nr_idle(cpu) == rq.nr_running
    }

    /// `rq->cfs.h_nr_idle`: SCHED_IDLE tasks queued on `cpu`.
    fn h_nr_idle(&self, cpu: u32) -> u32 {
        let Some(smp) = self.smp.as_deref() else { return 0 };
        smp.idle_policy_tasks
            .iter()
            .filter(|&&t| {
                let e = &self.ents[t as usize];
                e.idle && e.on_rq && self.qs[e.cfs_rq as usize].cpu == cpu
            })
            .count() as u32
    }

    /// `cpu_load()`: the root cfs_rq's PELT `load_avg`.
    pub fn cpu_load(&self, cpu: u32) -> u64 {
        self.qs[self.rqs[cpu as usize].cfs as usize].avg.load_avg
    }

    /// Notes that `cpu`'s root cfs_rq PELT averages or its `nr_running` may have changed
    /// (called where they change: `update_load_avg()`, `reweight_load_avg()`,
    /// `update_blocked_averages()`, the enqueue/dequeue and throttle paths), so that
    /// `record_cpu_counters()` reads only those CPUs.
    #[inline]
    pub fn touch_cpu_counters(&mut self, cpu: u32) {
        if let Some(cc) = self.cpu_counters.as_mut() {
            let c = &mut cc.cpus[cpu as usize];
            if !c.dirty {
                c.dirty = true;
                cc.dirty.push(cpu);
            }
        }
    }

    /// Logs each touched CPU's `cpu_load()`, `cpu_util_cfs()` and `nr_running` as counter
    /// rows (`CounterKind::CpuLoad`, `CpuUtil`, `CpuNrRunning`, keyed by CPU) when they
    /// changed since they were last logged; run after every event. No-op unless
    /// `cpu_counters` is on.
    pub fn record_cpu_counters(&mut self) {
        let Some(mut cc) = self.cpu_counters.take() else { return };
        use crate::obs::log::CounterKind;
        const KINDS: [CounterKind; 3] = [CounterKind::CpuLoad, CounterKind::CpuUtil, CounterKind::CpuNrRunning];
        cc.dirty.sort_unstable();
        for &cpu in &cc.dirty {
            let c = &mut cc.cpus[cpu as usize];
            c.dirty = false;
            let rq = &self.rqs[cpu as usize];
            let avg = &self.qs[rq.cfs as usize].avg;
            let now = [avg.load_avg as i64, (avg.util_avg as i64).min(c.capacity), rq.nr_running as i64];
            for (k, &kind) in KINDS.iter().enumerate() {
                if now[k] != c.last[k] {
                    self.counter(kind, cpu, now[k]);
                    c.last[k] = now[k];
                }
            }
        }
        cc.dirty.clear();
        self.cpu_counters = Some(cc);
    }

    /// `cpu_runnable()`: the root cfs_rq's PELT `runnable_avg`.
    pub fn cpu_runnable(&self, cpu: u32) -> u64 {
        self.qs[self.rqs[cpu as usize].cfs as usize].avg.runnable_avg
    }

    /// `capacity_of()`: the CPU's capacity for CFS tasks (see the module's shortcuts).
    pub fn capacity_of(&self, cpu: u32) -> u64 {
        self.smp().topo.cpus[cpu as usize].cpu_capacity
    }

    /// `cpu_util_cfs()`: the root cfs_rq's `util_avg`, capped at the CPU's capacity (no
    /// util_est: module shortcuts).
    pub fn cpu_util_cfs(&self, cpu: u32) -> u64 {
        let util = self.qs[self.rqs[cpu as usize].cfs as usize].avg.util_avg;
        util.min(self.capacity_of(cpu))
    }

    /// `cfs_h_nr_delayed()`: delayed entities queued on `cpu` (`h_nr_queued - h_nr_runnable`
    /// of the root cfs_rq).
    pub fn cfs_h_nr_delayed(&self, cpu: u32) -> u32 {
        let q = &self.qs[self.rqs[cpu as usize].cfs as usize];
        q.h_nr_queued - q.h_nr_runnable
    }

    /// `update_cfs_rq_h_load()`: each level's share of the CPU's load, walked down from the
    /// root, cached per jiffy.
    fn update_cfs_rq_h_load(&mut self, q: CfsRqId) {
        let now = self.jiffies();
        let nq = self.qs.len();
        let smp = self.smp.as_deref_mut().expect("smp = fair");
        if smp.h_load.len() < nq {
            smp.h_load.resize(nq, (0, None));
        }
        if smp.h_load[q as usize].1 == Some(now) {
            return;
        }
        // The chain of group entities from `q` up to the first cached level (or the root).
        let mut chain: Vec<EntityId> = Vec::new();
        let mut se = self.qs[q as usize].tg_se;
        while let Some(s) = se {
            chain.push(s);
            if self.smp().h_load[self.ents[s as usize].cfs_rq as usize].1 == Some(now) {
                break;
            }
            se = self.ents[s as usize].parent;
        }
        let top = match chain.last() {
            Some(&s) => self.ents[s as usize].cfs_rq,
            None => q,
        };
        if se.is_none() {
            let load = self.qs[top as usize].avg.load_avg;
            self.smp.as_deref_mut().expect("smp").h_load[top as usize] = (load, Some(now));
        }
        for &s in chain.iter().rev() {
            let parent_q = self.ents[s as usize].cfs_rq;
            let my_q = self.ents[s as usize].my_q.expect("group entity");
            let smp_h = self.smp().h_load[parent_q as usize].0;
            let load = smp_h * self.ents[s as usize].avg.load_avg / (self.qs[parent_q as usize].avg.load_avg + 1);
            self.smp.as_deref_mut().expect("smp").h_load[my_q as usize] = (load, Some(now));
        }
    }

    /// `task_h_load()`: a task's share of its CPU's load through the hierarchy.
    pub fn task_h_load(&mut self, se: EntityId) -> u64 {
        let q = self.ents[se as usize].cfs_rq;
        self.update_cfs_rq_h_load(q);
        let h = self.smp().h_load[q as usize].0;
        self.ents[se as usize].avg.load_avg * h / (self.qs[q as usize].avg.load_avg + 1)
    }
}
