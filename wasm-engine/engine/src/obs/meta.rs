//! What the UI is told about a loaded scenario: its host, knobs, tasks, cgroups and task groups
//! as the engine built them (`SimHandle.load`'s `meta`). Part of the engine ⇄ UI contract.

use crate::scenario::schema::PolicySpec;
use crate::sched::fair::{LagClamp, YieldFlavour};
use crate::sched::group::GROUP_NODE;
use crate::sched::wakeup::WakeupPreempt;
use crate::sim::Simulation;
use serde::Serialize;
use std::collections::BTreeMap;
use ts_rs::TS;

/// A cgroup of the scenario file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct CgroupMeta {
    pub path: String,
    /// Task group id of the parent (0 = root).
    pub parent: u32,
    /// cpu.shares (unscaled).
    pub shares: u64,
    pub quota_ns: Option<u64>,
    pub period_ns: u64,
}

/// A task group as the engine built it (the root, tg 0, first).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct GroupMeta {
    pub tg: u32,
    pub path: String,
    /// Its id in samples and picks: GROUP_NODE | tg.
    pub node: u32,
    pub parent: Option<u32>,
    /// Its cfs_rq id on each CPU (counter keys).
    pub cfs_rq: Vec<u32>,
    pub quota_ns: Option<u64>,
    pub period_ns: Option<u64>,
}

/// A task of the scenario.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct TaskMeta {
    pub name: String,
    pub nice: i32,
    pub policy: PolicySpec,
    pub affinity: Vec<u32>,
    pub slice_ns: Option<u64>,
    /// Task group id: 0 = root, cgroup i = i + 1.
    pub tg: u32,
    /// Index into `ScenarioMeta.vms` when the task is a vCPU thread (vCPU index = its rank
    /// among the VM's tasks in file order).
    pub vm: Option<u32>,
    /// The task whose `fork` step creates this one, again at each execution (absent: a task
    /// of the scenario file, created at its `start`).
    #[ts(optional)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent: Option<u32>,
}

/// One CPU's place in the host topology.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
pub struct CpuTopology {
    pub socket: u32,
    pub core: u32,
    pub thread: u32,
}

/// A loaded scenario.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct ScenarioMeta {
    pub name: String,
    pub description: Option<String>,
    pub seed: u64,
    pub duration_ns: u64,
    pub cpus: u32,
    pub hz: u32,
    pub base_slice_ns: u64,
    pub tick_ns: u64,
    #[serde(rename = "yield")]
    #[ts(rename = "yield")]
    pub yield_flavour: YieldFlavour,
    pub lag_clamp: LagClamp,
    /// Which check_preempt_wakeup_fair() ran.
    pub wakeup_preempt: WakeupPreempt,
    /// kernel/sched/features.h bits as run.
    pub features: BTreeMap<String, bool>,
    pub cgroups: Vec<CgroupMeta>,
    /// Every task group, the root (tg 0) first.
    pub groups: Vec<GroupMeta>,
    pub tasks: Vec<TaskMeta>,
    /// VM names, in order of first appearance (`vm = "…"` on tasks).
    pub vms: Vec<String>,
    /// Host topology per CPU, when the scenario declares one (absent for a flat host).
    #[ts(optional)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub topology: Option<Vec<CpuTopology>>,
    /// Whether the log holds each CPU's PELT load, util and nr_running counters
    /// (`CounterKind::CpuLoad` …: `smp = "fair"` with a task that may move).
    pub cpu_counters: bool,
}

impl ScenarioMeta {
    /// The meta of a freshly built simulation. `description` is the scenario file's;
    /// `topology_declared` says whether it named a topology (a flat host has none to show).
    pub fn of(sim: &Simulation, description: Option<String>, topology_declared: bool) -> ScenarioMeta {
        let cfg = &sim.cfg;
        ScenarioMeta {
            name: cfg.name.clone(),
            description,
            seed: cfg.seed,
            duration_ns: cfg.duration_ns,
            cpus: cfg.host.ncpus,
            hz: cfg.host.hz,
            base_slice_ns: cfg.params.base_slice,
            tick_ns: cfg.params.tick_nsec,
            yield_flavour: cfg.params.yield_flavour,
            lag_clamp: cfg.params.lag_clamp,
            wakeup_preempt: cfg.params.wakeup_preempt,
            features: cfg.features.list().into_iter().map(|(n, on)| (n.to_string(), on)).collect(),
            cgroups: cfg
                .cgroups
                .iter()
                .map(|g| CgroupMeta {
                    path: g.path.clone(),
                    parent: g.parent,
                    shares: g.shares >> 10,
                    quota_ns: g.quota_ns,
                    period_ns: g.period_ns,
                })
                .collect(),
            groups: sim
                .fair
                .tgs
                .iter()
                .map(|g| GroupMeta {
                    tg: g.id,
                    path: g.path.clone(),
                    node: GROUP_NODE | g.id,
                    parent: g.parent,
                    cfs_rq: g.cfs_rq.clone(),
                    quota_ns: g.bw.as_ref().map(|b| b.quota),
                    period_ns: g.bw.as_ref().map(|b| b.period),
                })
                .collect(),
            tasks: cfg
                .tasks
                .iter()
                .map(|t| TaskMeta {
                    name: t.name.clone(),
                    nice: t.nice,
                    policy: t.policy,
                    affinity: t.affinity.clone(),
                    slice_ns: t.slice_ns,
                    tg: t.tg,
                    vm: t.vm,
                    parent: t.parent,
                })
                .collect(),
            vms: cfg.vms.clone(),
            topology: topology_declared.then(|| {
                cfg.host
                    .topology
                    .iter()
                    .map(|t| CpuTopology { socket: t.socket, core: t.core, thread: t.thread })
                    .collect()
            }),
            cpu_counters: sim.fair.cpu_counters.is_some(),
        }
    }
}
