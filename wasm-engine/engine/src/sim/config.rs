//! From a validated scenario file to the engine's internal configuration.

use crate::scenario::load::{cgroup_parent, cgroup_period_ns, parse_cpu_max};
use crate::scenario::schema::{
    LagClampMode, PolicySpec, ScenarioFile, ThrottleSpec, TunableScaling, VcpuPackMode, WakeupPreemptMode, YieldMode,
    YieldToSpec,
};
use crate::sched::bandwidth::ThrottleMode;
use crate::sched::fair::{LagClamp, SchedParams, YieldFlavour};
use crate::sched::features::SchedFeatures;
use crate::sched::group::{shares_from_v1, shares_from_v2_weight};
use crate::sched::wakeup::WakeupPreempt;
use crate::sched::yield_to::YieldToFlavour;
use crate::sim::program::{fork_steps, Program};

/// `normalized_sysctl_sched_base_slice` default: 0.7 ms.
pub const NORMALIZED_BASE_SLICE_NS: u64 = 700_000;
/// Default hrtimer slack of SCHED_NORMAL tasks (`timer_slack_ns`, measured 50,000 on 6.18.44).
pub const DEFAULT_TIMER_SLACK_NS: u64 = 50_000;

/// Host configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostConfig {
    /// CPUs.
    pub ncpus: u32,
    /// CONFIG_HZ.
    pub hz: u32,
    /// Timer slack added to every sleep.
    pub timer_slack_ns: u64,
    /// From a preempting wakeup to its switch (`HostSpec::wakeup_switch_latency`).
    pub wakeup_switch_latency_ns: u64,
    /// How long before another switch `__schedule()` reads the clock
    /// (`HostSpec::schedule_clock_lead`).
    pub schedule_clock_lead_ns: u64,
    /// Per CPU: its wakeup-to-switch gap and clock lead (`HostSpec::cpu_switch_gaps`, else the
    /// host's).
    pub cpu_switch_gaps: Vec<(u64, u64)>,
    /// The machine's order of one jiffy's ticks, passes and switches (`HostSpec::tick_order`).
    pub tick_order_machine: bool,
    /// Per mille of the jiffies at which a CPU other than `timekeeper` reads `jiffies` one
    /// behind in `sched_balance_trigger()` (`HostSpec::tick_ahead`).
    pub tick_ahead_per_mille: u64,
    /// The CPU that advances `jiffies` (`HostSpec::timekeeper`).
    pub timekeeper: u32,
    /// A process-wide profiling timer is armed (cputimer contention model).
    pub profiling_timer: bool,
    /// Where each CPU sits (flat host: socket 0, core = CPU, thread 0).
    pub topology: Vec<CpuTopo>,
    /// IPI delivery latency (ns) to an SMT sibling, another core of the socket, another socket.
    pub ipi_latency: [u64; 3],
    /// Root cfs_rq averages at time 0 of the CPUs the scenario lists (`host.cfs_rq_avg`).
    pub cfs_rq_avg: Vec<crate::scenario::schema::CfsRqAvgSpec>,
}

/// One CPU's place in the x86 topology.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CpuTopo {
    pub socket: u32,
    pub core: u32,
    pub thread: u32,
}

/// The CPUs of a sockets × cores × threads machine in the order x86 firmware usually lists
/// them (and Linux numbers them): the first thread of every core, socket by socket, then the
/// second threads, and so on.
pub fn x86_topology(t: crate::scenario::schema::TopologySpec) -> Vec<CpuTopo> {
    let mut out = Vec::new();
    for thread in 0..t.threads_per_core {
        for socket in 0..t.sockets {
            for core in 0..t.cores_per_socket {
                out.push(CpuTopo { socket, core, thread });
            }
        }
    }
    out
}

impl HostConfig {
    /// IPI delivery latency from CPU `from` to CPU `to` (0 on the same CPU).
    pub fn ipi_latency(&self, from: u32, to: u32) -> u64 {
        let (a, b) = (self.topology[from as usize], self.topology[to as usize]);
        if from == to {
            0
        } else if a.socket != b.socket {
            self.ipi_latency[2]
        } else if a.core != b.core {
            self.ipi_latency[1]
        } else {
            self.ipi_latency[0]
        }
    }
}

/// One cgroup (task group) of the cpu controller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CgroupConfig {
    /// Path.
    pub path: String,
    /// Task group id of the parent (0 = root); this group's id is its index + 1.
    pub parent: u32,
    /// `tg->shares`, scaled.
    pub shares: u64,
    /// Bandwidth quota per period (ns), None = unlimited.
    pub quota_ns: Option<u64>,
    /// Bandwidth period (ns).
    pub period_ns: u64,
    /// Burst (ns).
    pub burst_ns: u64,
    /// The period timer's expiries: this far into each period (ns, less than the period).
    pub period_phase_ns: u64,
}

/// One task's configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskConfig {
    /// comm.
    pub name: String,
    /// Nice value.
    pub nice: i32,
    /// Policy.
    pub policy: PolicySpec,
    /// Custom slice (ns).
    pub slice_ns: Option<u64>,
    /// Allowed CPUs, ascending.
    pub affinity: Vec<u32>,
    /// The CPU its creator forked it from (scenario `parent_cpu`).
    pub parent_cpu: Option<u32>,
    /// VM index if this task is a vCPU thread.
    pub vm: Option<u32>,
    /// Task group id (0 = root; cgroup i of the scenario = i + 1).
    pub tg: u32,
    /// Creation time (unused for a fork step's child: its parent's fork creates it), or the
    /// first wakeup of an `existing` task.
    pub start_ns: u64,
    /// A task that existed before the run: where it last ran and the PELT averages it brings
    /// (scenario `existing`; None: a new task, and always for a fork step's child).
    pub existing: Option<crate::scenario::schema::ExistingSpec>,
    /// Kill time.
    pub stop_ns: Option<u64>,
    /// Behaviour.
    pub program: Program,
    /// The task whose fork step creates this one (None: a task of the scenario file).
    pub parent: Option<u32>,
}

/// Everything a simulation needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimConfig {
    /// Scenario name.
    pub name: String,
    /// Seed.
    pub seed: u64,
    /// Simulated duration (ns).
    pub duration_ns: u64,
    /// Host.
    pub host: HostConfig,
    /// Scheduler tunables.
    pub params: SchedParams,
    /// Scheduler features.
    pub features: SchedFeatures,
    /// CFS bandwidth throttle implementation.
    pub throttle: ThrottleMode,
    /// How group entity weights are computed.
    pub group_shares: crate::sched::group_pelt::GroupShares,
    /// Wakeup placement and load balancing (`smp` knob).
    pub smp: crate::sched::smp::SmpMode,
    /// cgroups, parents first (task group id = index + 1).
    pub cgroups: Vec<CgroupConfig>,
    /// VM names (index = VM id).
    pub vms: Vec<String>,
    /// Guest lock names (index = lock id).
    pub locks: Vec<String>,
    /// kvm_vcpu_on_spin() flavour.
    pub on_spin: crate::sim::kvm::OnSpin,
    /// Wanpeng Li's IPI-aware directed yield.
    pub ipi_aware: bool,
    /// Its relaxed second round.
    pub relaxed_boost: bool,
    /// APICv/IPIv on.
    pub apicv: bool,
    /// Guest PV sched_yield.
    pub pv_sched_yield: bool,
    /// Guest PV qspinlocks (`KVM_FEATURE_PV_UNHALT`).
    pub pv_spinlock: bool,
    /// Their spin threshold (ns of spinning before `pv_wait()` halts).
    pub pv_spin_threshold: u64,
    /// VM exit + entry cost (ns).
    pub exit_cost: u64,
    /// Pause-loop-exiting settings per VM (index = VM id).
    pub vm_ple: Vec<crate::sim::kvm::PleConfig>,
    /// Tasks, in file order (task id = index), then the children of every fork step, in the
    /// order of their parents and of `program::fork_steps`.
    pub tasks: Vec<TaskConfig>,
}

/// The name of child `i` of fork step `f` of the task named `parent`: the step's `name`, or
/// the parent's name + "/child", followed by `i`.
pub fn fork_child_name(parent: &str, f: &crate::scenario::schema::ForkSpec, i: u32) -> String {
    match &f.name {
        Some(n) => format!("{n}{i}"),
        None => format!("{parent}/child{i}"),
    }
}

/// The `sysctl_sched_tunable_scaling` factor (`get_update_sysctl_factor()`).
pub fn tunable_factor(scaling: TunableScaling, ncpus: u32) -> u64 {
    let cpus = ncpus.clamp(1, 8) as u64;
    match scaling {
        TunableScaling::None => 1,
        TunableScaling::Linear => cpus,
        TunableScaling::Log => 1 + cpus.ilog2() as u64,
    }
}

impl SimConfig {
    /// Builds the configuration from a scenario that passed `scenario::validate`.
    pub fn from_scenario(s: &ScenarioFile) -> Result<SimConfig, String> {
        let ncpus = s.host.ncpus();
        let max = crate::sched::topology::MAX_CPUS;
        if s.kernel.smp != Some(crate::scenario::schema::SmpSpec::Static) && ncpus as usize > max {
            return Err(format!("kernel.smp = \"fair\" models at most {max} CPUs (NR_CPUS); this host has {ncpus}"));
        }
        let normalized = s.host.base_slice.map(|d| d.ns()).unwrap_or(NORMALIZED_BASE_SLICE_NS);
        let base_slice = normalized * tunable_factor(s.host.tunable_scaling, ncpus);
        let params = SchedParams {
            base_slice,
            normalized_base_slice: normalized,
            tick_nsec: 1_000_000_000 / s.host.hz as u64,
            tick_phase: s.host.tick_phase.map_or(0, |d| d.ns()),
            yield_flavour: match s.kernel.yield_mode.unwrap_or(YieldMode::Forfeit) {
                YieldMode::Forfeit => YieldFlavour::Forfeit,
                YieldMode::DeadlineBump => YieldFlavour::DeadlineBump,
                YieldMode::Hierarchical => YieldFlavour::Hierarchical,
            },
            yield_interval_ns: s.kernel.yield_interval.map(|d| d.ns()).unwrap_or(0),
            debooster_rate_limit: s.kernel.debooster_rate_limit.unwrap_or(true),
            yield_to: match s.kernel.yield_to.unwrap_or(YieldToSpec::Mainline) {
                YieldToSpec::Mainline => YieldToFlavour::Mainline,
                YieldToSpec::DeboosterV1 => YieldToFlavour::DeboosterV1,
                YieldToSpec::DeboosterV2 => YieldToFlavour::DeboosterV2,
                YieldToSpec::LagCredit => YieldToFlavour::LagCredit,
                YieldToSpec::LagTransfer => YieldToFlavour::LagTransfer,
                YieldToSpec::LastBuddy => YieldToFlavour::LastBuddy,
            },
            lag_clamp: match s.kernel.lag_clamp.unwrap_or(LagClampMode::MaxSliceTick) {
                LagClampMode::MaxSliceTick => LagClamp::MaxSliceTick,
                LagClampMode::TwoSliceOrTick => LagClamp::TwoSliceOrTick,
            },
            wakeup_preempt: match s.kernel.wakeup_preempt.unwrap_or(WakeupPreemptMode::Machine) {
                WakeupPreemptMode::Machine => WakeupPreempt::Machine,
                WakeupPreemptMode::Stable618 => WakeupPreempt::Stable618,
            },
            vcpu_pack: match s.kernel.vcpu_pack.unwrap_or(VcpuPackMode::Machine) {
                VcpuPackMode::Machine => crate::sched::select_vendor::SCHED_VCPU_PACK_MACHINE,
                VcpuPackMode::Stable618 => 0,
            },
        };
        let features = SchedFeatures::from_overrides(&s.kernel.features)?;
        let tg_of = |path: &str| -> u32 {
            if path == "/" {
                0
            } else {
                s.cgroups.iter().position(|g| g.path == path).map(|i| i as u32 + 1).unwrap_or(0)
            }
        };
        let mut cgroups: Vec<CgroupConfig> = s
            .cgroups
            .iter()
            .map(|g| CgroupConfig {
                path: g.path.clone(),
                parent: tg_of(cgroup_parent(&g.path)),
                shares: match (g.shares, g.weight) {
                    (_, Some(w)) => shares_from_v2_weight(w),
                    (Some(v), None) => shares_from_v1(v),
                    (None, None) => shares_from_v1(1024),
                },
                quota_ns: match g.max.as_deref().map(parse_cpu_max) {
                    Some(Ok((q, _))) => q,
                    _ => g.quota.map(|d| d.ns()),
                },
                period_ns: cgroup_period_ns(g),
                burst_ns: g.burst.map(|d| d.ns()).unwrap_or(0),
                period_phase_ns: g.period_phase.map(|d| d.ns()).unwrap_or(0),
            })
            .collect();
        // Autogroups: one task group per session for the tasks left in the root cgroup.
        let mut autogroup_of = |session: &str| -> u32 {
            let path = format!("/autogroup-{session}");
            match cgroups.iter().position(|g| g.path == path) {
                Some(i) => i as u32 + 1,
                None => {
                    cgroups.push(CgroupConfig {
                        path,
                        parent: 0,
                        shares: shares_from_v1(1024),
                        quota_ns: None,
                        period_ns: 100_000_000,
                        burst_ns: 0,
                        period_phase_ns: 0,
                    });
                    cgroups.len() as u32
                }
            }
        };
        let task_tgs: Vec<u32> = s
            .tasks
            .iter()
            .map(|t| match t.cgroup.as_deref().map(tg_of).unwrap_or(0) {
                0 if s.host.autogroup => autogroup_of(t.session.as_deref().unwrap_or("default")),
                tg => tg,
            })
            .collect();
        // Fork children follow the scenario's tasks: their names, and each parent's first one.
        let mut child_names: Vec<String> = Vec::new();
        let mut first_child: Vec<u32> = Vec::with_capacity(s.tasks.len());
        for t in &s.tasks {
            first_child.push((s.tasks.len() + child_names.len()) as u32);
            for f in fork_steps(&t.program) {
                child_names.extend((0..f.children).map(|i| fork_child_name(&t.name, f, i)));
            }
        }
        let names: Vec<&str> =
            s.tasks.iter().map(|t| t.name.as_str()).chain(child_names.iter().map(String::as_str)).collect();
        let mut vms: Vec<String> = Vec::new();
        for t in &s.tasks {
            if let Some(v) = &t.vm {
                if !vms.contains(v) {
                    vms.push(v.clone());
                }
            }
        }
        let mut locks: Vec<String> = Vec::new();
        fn collect_locks(ops: &[crate::scenario::schema::OpSpec], out: &mut Vec<String>) {
            use crate::scenario::schema::OpSpec;
            for o in ops {
                match o {
                    OpSpec::Lock(n) | OpSpec::Unlock(n) if !out.contains(n) => out.push(n.clone()),
                    OpSpec::Loop(l) => collect_locks(&l.body, out),
                    _ => {}
                }
            }
        }
        for t in &s.tasks {
            collect_locks(&t.program, &mut locks);
        }
        // `cgroup` steps name the declared cgroups, task group i + 1 in declaration order.
        let cgroup_paths: Vec<&str> = s.cgroups.iter().map(|g| g.path.as_str()).collect();
        let mut tasks: Vec<TaskConfig> = s
            .tasks
            .iter()
            .zip(&task_tgs)
            .zip(&first_child)
            .map(|((t, &tg), &first)| {
                let mut affinity = t.affinity.clone().unwrap_or_else(|| (0..ncpus).collect());
                affinity.sort_unstable();
                affinity.dedup();
                TaskConfig {
                    name: t.name.clone(),
                    nice: t.nice,
                    policy: t.policy,
                    slice_ns: t.slice.map(|d| d.ns()),
                    affinity,
                    parent_cpu: t.parent_cpu,
                    tg,
                    start_ns: t.start.map(|d| d.ns()).unwrap_or(0),
                    existing: t.existing,
                    stop_ns: t.stop.map(|d| d.ns()),
                    program: Program::compile_with_cgroups(&t.program, &names, &locks, first, &cgroup_paths),
                    vm: t.vm.as_ref().and_then(|v| vms.iter().position(|x| x == v)).map(|i| i as u32),
                    parent: None,
                }
            })
            .collect();
        // Each fork step's children: the parent's attributes, the step's program, no start.
        for (i, t) in s.tasks.iter().enumerate() {
            for f in fork_steps(&t.program) {
                let program = Program::compile_with_cgroups(&f.program, &names, &locks, 0, &cgroup_paths);
                for _ in 0..f.children {
                    let p = &tasks[i];
                    tasks.push(TaskConfig {
                        name: names[tasks.len()].to_string(),
                        stop_ns: None,
                        program: program.clone(),
                        vm: None,
                        existing: None,
                        parent: Some(i as u32),
                        ..p.clone()
                    });
                }
            }
        }
        let vm_ple = {
            let host = crate::sim::kvm::PleConfig {
                ple: s.kernel.kvm_ple.unwrap_or(true),
                window: s.kernel.kvm_ple_window.map_or(crate::sim::kvm::PLE_WINDOW_NS, |d| d.ns().max(1)),
                ..Default::default()
            };
            vms.iter()
                .map(|name| match s.vms.iter().find(|v| &v.name == name) {
                    None => host,
                    Some(v) => crate::sim::kvm::PleConfig {
                        ple: v.ple.unwrap_or(host.ple),
                        window: v.ple_window.map_or(host.window, |d| d.ns().max(1)),
                        grow: v.ple_window_grow.unwrap_or(host.grow),
                        shrink: v.ple_window_shrink.unwrap_or(host.shrink),
                        max: v.ple_window_max.map_or(host.max, |d| d.ns().max(1)),
                    },
                })
                .collect()
        };
        Ok(SimConfig {
            name: s.name.clone(),
            seed: s.seed,
            duration_ns: s.duration.ns(),
            host: HostConfig {
                ncpus,
                hz: s.host.hz,
                timer_slack_ns: s.host.timer_slack.map(|d| d.ns()).unwrap_or(DEFAULT_TIMER_SLACK_NS),
                wakeup_switch_latency_ns: s.host.wakeup_switch_latency.map_or(0, |d| d.ns()),
                schedule_clock_lead_ns: s.host.schedule_clock_lead.map_or(0, |d| d.ns()),
                cpu_switch_gaps: (0..ncpus)
                    .map(|cpu| {
                        let own = s.host.cpu_switch_gaps.iter().find(|g| g.cpu == cpu);
                        let wakeup = own.and_then(|g| g.wakeup_switch_latency).or(s.host.wakeup_switch_latency);
                        let lead = own.and_then(|g| g.schedule_clock_lead).or(s.host.schedule_clock_lead);
                        (wakeup.map_or(0, |d| d.ns()), lead.map_or(0, |d| d.ns()))
                    })
                    .collect(),
                tick_order_machine: s.host.tick_order == Some(crate::scenario::schema::TickOrderMode::Machine),
                tick_ahead_per_mille: s.host.tick_ahead.map_or(0, |p| (p.clamp(0.0, 100.0) * 10.0).round() as u64),
                timekeeper: s.host.timekeeper.unwrap_or(0),
                profiling_timer: s.host.profiling_timer,
                topology: match s.host.topology {
                    Some(t) => x86_topology(t),
                    None => (0..ncpus).map(|core| CpuTopo { socket: 0, core, thread: 0 }).collect(),
                },
                ipi_latency: {
                    let l = s.host.ipi_latency.unwrap_or_default();
                    let ns = |d: Option<crate::scenario::units::DurationSpec>| d.map_or(0, |d| d.ns());
                    [ns(l.smt), ns(l.core), ns(l.socket)]
                },
                cfs_rq_avg: s.host.cfs_rq_avg.clone(),
            },
            params,
            features,
            throttle: match s.kernel.throttle {
                Some(ThrottleSpec::CfsRq) => ThrottleMode::CfsRq,
                _ => ThrottleMode::TaskBased,
            },
            group_shares: match s.kernel.group_shares {
                Some(crate::scenario::schema::GroupSharesSpec::Pelt) => crate::sched::group_pelt::GroupShares::Pelt,
                _ => crate::sched::group_pelt::GroupShares::Instant,
            },
            smp: match s.kernel.smp {
                Some(crate::scenario::schema::SmpSpec::Static) => crate::sched::smp::SmpMode::Static,
                _ => crate::sched::smp::SmpMode::Fair,
            },
            cgroups,
            vms,
            locks,
            on_spin: match s.kernel.kvm_on_spin {
                Some(crate::scenario::schema::OnSpinSpec::Fixed) => crate::sim::kvm::OnSpin::Fixed,
                _ => crate::sim::kvm::OnSpin::Mainline,
            },
            ipi_aware: s.kernel.kvm_ipi_aware.unwrap_or(false),
            relaxed_boost: s.kernel.kvm_relaxed_boost.unwrap_or(true),
            apicv: s.kernel.kvm_apicv.unwrap_or(false),
            pv_sched_yield: s.kernel.kvm_pv_sched_yield.unwrap_or(false),
            pv_spinlock: s.kernel.kvm_pv_spinlock.unwrap_or(false),
            pv_spin_threshold: s
                .kernel
                .kvm_pv_spin_threshold
                .map_or(crate::sim::pvlock::PV_SPIN_THRESHOLD_NS, |d| d.ns()),
            exit_cost: s.kernel.kvm_exit_cost.map_or(0, |d| d.ns()),
            vm_ple,
            tasks,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_slice_scaling_matches_kernel() {
        let f = |n| NORMALIZED_BASE_SLICE_NS * tunable_factor(TunableScaling::Log, n);
        assert_eq!(f(1), 700_000);
        assert_eq!(f(2), 1_400_000);
        assert_eq!(f(3), 1_400_000);
        assert_eq!(f(4), 2_100_000);
        assert_eq!(f(8), 2_800_000);
        assert_eq!(f(64), 2_800_000);
    }
}
