//! Scenario file types: the only `Serialize`/`Deserialize` types of the engine.
//!
//! A scenario is written by hand in TOML (JSON is accepted too) and validated against
//! `scenarios/schema/scenario.schema.json`, which is generated from these types
//! (`schedlab schema`; a test fails when the committed file drifts). The loader
//! (`scenario::load`) turns these DTOs into the engine's internal configuration; nothing
//! else in the engine sees them.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The current scenario format version.
pub const SCENARIO_VERSION: u32 = 1;

/// A whole scenario file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    /// JSON Schema reference (ignored by the engine; lets editors validate the file).
    #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    /// Format version. Must be 1.
    pub version: u32,
    /// Short name, shown in the UI and in CLI output.
    pub name: String,
    /// What the scenario shows and where its numbers come from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Seed of the scenario's random streams (split into one sub-seed per component).
    #[serde(default)]
    pub seed: u64,
    /// Simulated time to run (e.g. "1.5s").
    pub duration: DurationSpec,
    /// The modeled machine.
    #[serde(default)]
    pub host: HostSpec,
    /// Kernel configuration: scheduler features and behaviour variants.
    #[serde(default)]
    pub kernel: KernelSpec,
    /// cgroups of the cpu controller, parents before children (the root "/" is implicit).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cgroups: Vec<CgroupSpec>,
    /// Per-VM KVM settings (optional; a VM named by a task's `vm` and not listed here gets the
    /// host-wide `kvm_*` knobs of `[kernel]`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub vms: Vec<VmSpec>,
    /// The tasks (threads) of the workload.
    pub tasks: Vec<TaskSpec>,
}

/// One VM's pause-loop-exiting settings. In KVM the window parameters are kvm_intel module
/// parameters (host-wide) and a VM can only turn PAUSE exits off (`KVM_CAP_X86_DISABLE_EXITS`
/// with `KVM_X86_DISABLE_EXITS_PAUSE`); per-VM windows here let one run compare settings side
/// by side (a model convenience).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VmSpec {
    /// The VM's name, as in the tasks' `vm`.
    pub name: String,
    /// Pause-loop exiting (default: `kernel.kvm_ple`, true). false models the VM having
    /// disabled PAUSE exits (or `ple_gap=0`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ple: Option<bool>,
    /// Base PLE window (`ple_window`; default: `kernel.kvm_ple_window`, 4096 cycles).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ple_window: Option<DurationSpec>,
    /// `ple_window_grow` (default 2): below 4096 a factor, else cycles added; 1 keeps
    /// the window where it is, 0 resets it to the base.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ple_window_grow: Option<u32>,
    /// `ple_window_shrink` (default 0: back to the base at each sched-in): below 4096 a
    /// divisor, else cycles taken off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ple_window_shrink: Option<u32>,
    /// `ple_window_max` (default: 1.4 s, the model's cap for UINT_MAX cycles).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ple_window_max: Option<DurationSpec>,
}

/// One cgroup of the cpu controller: a task group with one group entity and one cfs_rq per CPU.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CgroupSpec {
    /// Path from the root, e.g. "/sl_A" or "/vms/vm1". Its parent must be declared before it.
    pub path: String,
    /// cgroup v1 `cpu.shares` (2..=262144; default 1024). Exclusive with `weight`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shares: Option<u64>,
    /// cgroup v2 `cpu.weight` (1..=10000; default 100, equal to shares 1024). Exclusive with `shares`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight: Option<u64>,
    /// CFS bandwidth quota per period (v1 `cpu.cfs_quota_us`, v2 first field of `cpu.max`);
    /// absent = unlimited. At least 1 ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quota: Option<DurationSpec>,
    /// Bandwidth period (v1 `cpu.cfs_period_us`, v2 second field of `cpu.max`; 1ms..=1s, default 100ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub period: Option<DurationSpec>,
    /// cgroup v2 `cpu.max` as written to the file: "QUOTA_US PERIOD_US" or "max PERIOD_US"
    /// (e.g. "30000 100000"). Exclusive with `quota`/`period`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<String>,
    /// Burst (v1 `cpu.cfs_burst_us`, v2 `cpu.max.burst`; at most the quota; default 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub burst: Option<DurationSpec>,
    /// When the period timer expires, as an offset into each period from the run's start
    /// (less than the period; default 0). The kernel's timer keeps the phase it got when the
    /// quota was set; a trace recorded with `tools/capture` shows it (`hrtimer_expire_entry` of
    /// `sched_cfs_period_timer`), and the shadow re-simulation sets it from there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub period_phase: Option<DurationSpec>,
}

pub use crate::scenario::units::DurationSpec;

/// The host machine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HostSpec {
    /// Number of CPUs (default: 1, or the topology's count). Each gets one rq with its root
    /// cfs_rq.
    #[serde(default = "default_cpus")]
    pub cpus: u32,
    /// x86 topology: sockets × cores × SMT threads as CPUs, numbered as x86 firmware usually
    /// lists them (first threads of every core, socket by socket, then the second threads).
    /// Used for IPI delivery latencies and shown on the CPU lanes (default: none, a flat host).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topology: Option<TopologySpec>,
    /// LAPIC IPI delivery latency by distance between the sending and receiving CPU (default:
    /// 0 everywhere; not measured on our machines).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ipi_latency: Option<IpiLatencySpec>,
    /// Timer tick frequency CONFIG_HZ (default: 250; units: Hz).
    #[serde(default = "default_hz")]
    pub hz: u32,
    /// sysctl_sched_tunable_scaling (default: log): how the base slice scales with CPUs.
    #[serde(default)]
    pub tunable_scaling: TunableScaling,
    /// normalized_sysctl_sched_base_slice (default: "700us"); the effective base slice is
    /// this times the tunable-scaling factor.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_slice: Option<DurationSpec>,
    /// CONFIG_SCHED_AUTOGROUP (`kernel.sched_autogroup_enabled`, default: false): tasks left
    /// in the root cgroup are grouped per session into an autogroup (weight 1024) each.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub autogroup: bool,
    /// A process-wide profiling timer is armed (`setitimer(ITIMER_PROF)`), all tasks being one
    /// process: every yield pays the cputimer atomic adds of the contention model
    /// (`cost::cputimer`; default: false).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub profiling_timer: bool,
    /// Hrtimer slack added to every sleep (default: "50us", the kernel's timer_slack_ns for
    /// SCHED_NORMAL). Model: the timer always fires at the end of its slack range.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timer_slack: Option<DurationSpec>,
    /// Time from a wakeup that preempts the running task to the switch: the interrupt's exit
    /// and `__schedule()` (default: "0", the switch at the wakeup). The runqueue clock is not
    /// updated in between (`rq_clock_skip_update()` in `wakeup_preempt()`, core.c), so the
    /// running task is charged up to the wakeup and the wakee from it: the wakee pays for the
    /// gap, and the preempted task does not run its program in it. Measured on our machine as
    /// the median from a `sched_wakeup` with need-resched set to its `sched_switch`: 7-8 us on
    /// build v769, 12 us on v669, 17 us on v657 (`docs/kernel-6.18.44-findings.md`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wakeup_switch_latency: Option<DurationSpec>,
    /// How long before any other switch `__schedule()` reads the runqueue clock (default:
    /// "0"): the previous task is charged up to that reading and the next one from it, while
    /// the previous one holds the CPU until the switch. Measured on our machine as the median
    /// from a blocking task's last `sched_stat_runtime` (its dequeue's `update_curr()`) to its
    /// `sched_switch`: 1 us on build v769, 8-9 us on v669, 9-10 us on v657.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule_clock_lead: Option<DurationSpec>,
    /// How one jiffy's ticks, balance passes and switches are ordered across CPUs (default:
    /// "cpu", each CPU's tick, pass and switch in CPU order; "machine", as measured on our
    /// machine: every tick, then the switches of the CPUs with no pass due, then the passes,
    /// then the switches they held).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tick_order: Option<TickOrderMode>,
    /// Percent of the jiffies at which a CPU's tick runs ahead of the timekeeping CPU's
    /// `jiffies` update, so that its `sched_balance_trigger()` reads the previous jiffy and a
    /// balance pass due then runs a jiffy late (default: 0, never; 0 to 100). Measured on our
    /// machine: 14 of 123 busy passes due on the CPU that did not keep time, 11.4 %
    /// (`traces/linux-6.18-smp-balance`, `tests/balance_timing.rs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tick_ahead: Option<f64>,
    /// The CPU that advances `jiffies` (`tick_do_timer_cpu`; default: 0). Its ticks are never
    /// ahead (`tick_ahead`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timekeeper: Option<u32>,
    /// When the jiffies begin, less than one tick period (default: "0", a tick at every
    /// multiple of the period from time 0): the ticks fire at this offset plus each multiple
    /// of the period. A trace's shadow takes it from the trace's tick records, so that its
    /// ticks, and the balance passes they raise, fall where the kernel's did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tick_phase: Option<DurationSpec>,
    /// Each listed CPU's root cfs_rq averages at time 0 (default: none, all zero): the blocked
    /// load and utilization that tasks the scenario does not model left there, decaying from
    /// the start. What a trace cannot show of the time before its first record.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cfs_rq_avg: Vec<CfsRqAvgSpec>,
    /// Each listed CPU's own switch gaps, in place of `wakeup_switch_latency` and
    /// `schedule_clock_lead` on that CPU (default: none, every CPU the host's). A probe that
    /// runs at some tasks' switches only (a bpftrace dump filtered by comm) lengthens the gaps
    /// of the CPU those tasks run on: on `traces/linux-6.18/two-sleepers-and-hog` CPU 1's
    /// lead is 8.2 us and CPU 0's 2.8 us. A trace's shadow takes them per CPU.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cpu_switch_gaps: Vec<CpuSwitchGapsSpec>,
}

/// One CPU's switch gaps (`HostSpec::cpu_switch_gaps`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CpuSwitchGapsSpec {
    /// The CPU.
    pub cpu: u32,
    /// Its `wakeup_switch_latency` (default: the host's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wakeup_switch_latency: Option<DurationSpec>,
    /// Its `schedule_clock_lead` (default: the host's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule_clock_lead: Option<DurationSpec>,
}

/// One CPU's root cfs_rq `struct sched_avg` at time 0 (`HostSpec::cfs_rq_avg`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CfsRqAvgSpec {
    /// The CPU.
    pub cpu: u32,
    /// `cfs_rq->avg.load_avg` (at most 1048576).
    #[serde(default)]
    pub load_avg: u64,
    /// `cfs_rq->avg.runnable_avg`: 1024 per task runnable all the time (at most 1048576).
    #[serde(default)]
    pub runnable_avg: u64,
    /// `cfs_rq->avg.util_avg`, 0..=1024.
    #[serde(default)]
    pub util_avg: u64,
}

impl Default for HostSpec {
    fn default() -> Self {
        HostSpec {
            cpus: 1,
            topology: None,
            ipi_latency: None,
            hz: 250,
            tunable_scaling: TunableScaling::Log,
            base_slice: None,
            autogroup: false,
            profiling_timer: false,
            timer_slack: None,
            wakeup_switch_latency: None,
            schedule_clock_lead: None,
            tick_order: None,
            tick_ahead: None,
            timekeeper: None,
            tick_phase: None,
            cfs_rq_avg: Vec::new(),
            cpu_switch_gaps: Vec::new(),
        }
    }
}

/// Sockets, cores per socket and SMT threads per core.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TopologySpec {
    /// Packages (default 1).
    #[serde(default = "one")]
    pub sockets: u32,
    /// Cores per package.
    pub cores_per_socket: u32,
    /// SMT threads per core (default 1; 2 with Hyper-Threading).
    #[serde(default = "one")]
    pub threads_per_core: u32,
}

/// IPI delivery latency from the sender's ICR write to the interrupt reaching the receiving
/// CPU, by distance (the posted-interrupt notification or the kick IPI).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IpiLatencySpec {
    /// To the SMT sibling of the same core.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub smt: Option<DurationSpec>,
    /// To another core of the same socket.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub core: Option<DurationSpec>,
    /// To a CPU of another socket.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub socket: Option<DurationSpec>,
}

impl HostSpec {
    /// The CPU count: the topology's when there is one, else `cpus`.
    pub fn ncpus(&self) -> u32 {
        match self.topology {
            Some(t) => t.sockets.saturating_mul(t.cores_per_socket).saturating_mul(t.threads_per_core),
            None => self.cpus,
        }
    }
}

fn one() -> u32 {
    1
}

fn default_cpus() -> u32 {
    1
}
fn default_hz() -> u32 {
    250
}

/// sysctl_sched_tunable_scaling.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TunableScaling {
    /// factor 1.
    None,
    /// factor = min(ncpus, 8).
    Linear,
    /// factor = 1 + log2(min(ncpus, 8)) (kernel default).
    #[default]
    Log,
}

/// Kernel configuration.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KernelSpec {
    /// Scheduler features (kernel/sched/features.h) by name; unnamed ones keep the
    /// Linux 6.18.44 default. Example: `{ RUN_TO_PARITY = false }`.
    #[serde(default)]
    pub features: BTreeMap<String, bool>,
    /// Behaviour of sched_yield() in yield_task_fair (default: forfeit, as measured on 6.18.44).
    #[serde(default, rename = "yield", skip_serializing_if = "Option::is_none")]
    pub yield_mode: Option<YieldMode>,
    /// How update_entity_lag() bounds the saved lag (default: max_slice_tick, measured on
    /// 6.18.44).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lag_clamp: Option<LagClampMode>,
    /// Which check_preempt_wakeup_fair() runs (default: machine, the function decoded from
    /// the 6.18.44 machine, which the captures follow; "6.18" is 6.18.y stable's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wakeup_preempt: Option<WakeupPreemptMode>,
    /// This build's vendor wake placement, `vcpu_pack_room()` with `sched_vcpu_pack=15`
    /// (default: machine, decoded from the 6.18.44 machine's text; "6.18" is 6.18.y stable's
    /// placement, without it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vcpu_pack: Option<VcpuPackMode>,
    /// What yield_to() does (default: mainline).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub yield_to: Option<YieldToSpec>,
    /// `kvm_vcpu_on_spin()` (default: mainline, 6.12–6.18 with the last_boosted_vcpu bug).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kvm_on_spin: Option<OnSpinSpec>,
    /// Wanpeng Li's IPI-aware directed yield (v1 patches 7–10): track sender → receiver on
    /// ICR-write exits and prefer the receiver in kvm_vcpu_on_spin() (default: false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kvm_ipi_aware: Option<bool>,
    /// `enable_relaxed_boost` of the IPI-aware series: a second, relaxed candidate round
    /// (default: true; only with kvm_ipi_aware).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kvm_relaxed_boost: Option<bool>,
    /// APICv/IPIv: IPIs are posted without an exit, so nothing is tracked, but a pending
    /// posted interrupt makes a preempted vCPU a directed-yield candidate (default: false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kvm_apicv: Option<bool>,
    /// The guest's PV sched_yield: after an IPI to a vCPU that steal time shows preempted,
    /// the sender makes the KVM_HC_SCHED_YIELD hypercall to yield to it (default: false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kvm_pv_sched_yield: Option<bool>,
    /// The guest's spinlocks are PV qspinlocks (the VM has `KVM_FEATURE_PV_UNHALT`): waiters
    /// queue in order, halt after the spin threshold, and an unlock kicks a halted head with
    /// KVM_HC_KICK_CPU, which also yields to it (default: false: `virt_spin_lock()`'s
    /// test-and-set lock, what a Linux guest uses without PV unhalt).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kvm_pv_spinlock: Option<bool>,
    /// The PV qspinlock's SPIN_THRESHOLD (1 << 15 loops) as CPU time before a waiter halts
    /// (default: 1.529 ms, ~140 cycles per PAUSE at 3 GHz).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kvm_pv_spin_threshold: Option<DurationSpec>,
    /// Pause-loop exiting (default: true; false models `ple_gap=0`: PAUSE never exits).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kvm_ple: Option<bool>,
    /// The base PLE window (default: 4096 cycles at 3 GHz, 1.365 us); it doubles at each
    /// pause-loop exit and is reset when the vCPU is scheduled in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kvm_ple_window: Option<DurationSpec>,
    /// kvm_intel `ple_window_grow` (default 2): how the window grows at each pause-loop exit
    /// (below 4096 a factor, else cycles added; 1: no growth; 0: the base window).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kvm_ple_window_grow: Option<u32>,
    /// kvm_intel `ple_window_shrink` (default 0: back to the base window when the vCPU is
    /// scheduled in; below 4096 a divisor, else cycles taken off).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kvm_ple_window_shrink: Option<u32>,
    /// CPU time of one VM exit and re-entry, charged to the vCPU for each pause-loop exit and
    /// (without APICv) each IPI send (default: 0, not calibrated on our machines).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kvm_exit_cost: Option<DurationSpec>,
    /// The debooster's 6 ms rate limiter (default: true; false models Christian Borntraeger's
    /// run with it commented out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub debooster_rate_limit: Option<bool>,
    /// Kuba Piecuch's yield throttling: at most one sched_yield() per task reaches schedule()
    /// per interval (default: 0, off).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub yield_interval: Option<DurationSpec>,
    /// CFS bandwidth throttle implementation (default: task_based, as in 6.18).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub throttle: Option<ThrottleSpec>,
    /// How group entity weights are computed (default: instant, the engine's shortcut without
    /// PELT; pelt: the kernel's `calc_group_shares()` from PELT load averages).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group_shares: Option<GroupSharesSpec>,
    /// Where tasks free to run on several CPUs run (default: fair): "fair" is Linux 6.18's
    /// `select_task_rq_fair()` wakeup placement (with our machine's vendor block,
    /// `vcpu_pack`) and load balancing over the host's sched domains; "static" the engine's
    /// earlier rule (an idle CPU first, no load balancing), a named shortcut.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub smp: Option<SmpSpec>,
}

/// kvm_vcpu_on_spin() variants.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum OnSpinSpec {
    /// 6.12–6.18: the loop offset is stored as last_boosted_vcpu (bug).
    Mainline,
    /// 6.19-rc1: the vCPU index is stored (Wanpeng Li's fix).
    Fixed,
}

/// yield_to_task_fair() variants.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum YieldToSpec {
    /// 6.18: set_next_buddy(target) + yield_task_fair.
    Mainline,
    /// Wanpeng Li's vCPU debooster, v1 code (2025-11-10).
    DeboosterV1,
    /// Wanpeng Li's vCPU debooster, v2 code (2025-12-19).
    DeboosterV2,
    /// Lag credit to the target (v3 cover letter).
    LagCredit,
    /// The yielder's positive lag transferred to the target (K Prateek Nayak's suggestion).
    LagTransfer,
    /// A LAST_BUDDY-like sustained buddy (K Prateek Nayak's suggestion).
    LastBuddy,
}

/// CFS bandwidth throttle implementations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ThrottleSpec {
    /// 6.18: throttle at return to user, limbo lists, per-task re-enqueue on unthrottle.
    TaskBased,
    /// Up to 6.17: dequeue the throttled cfs_rq's group entity at once.
    CfsRq,
}

/// How group entity weights are computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum GroupSharesSpec {
    /// A group cfs_rq's load is its runnable weight, `tg->load_avg` their exact sum (shortcut).
    Instant,
    /// The kernel's PELT `load_avg`s, `tg->load_avg` updated past a 1/64 change, once per ms.
    Pelt,
}

/// Where unpinned tasks run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SmpSpec {
    /// Linux 6.18: `select_task_rq_fair()` at wakeup and fork, periodic, newidle and nohz
    /// load balancing over the sched domains built from the host (`sched/smp.rs`).
    Fair,
    /// The engine's earlier rule (named shortcut): a woken task goes to its previous CPU if
    /// idle, else the lowest idle allowed CPU, else its previous CPU; nothing ever migrates
    /// a queued task.
    Static,
}

/// How the CPUs' ticks of one jiffy are ordered (`HostSpec::tick_order`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum TickOrderMode {
    /// Each CPU's tick, its SCHED softirq and the switch its tick asked for, CPU by CPU: a
    /// named shortcut (the ticks of one jiffy are microseconds apart on the machine).
    #[serde(rename = "cpu")]
    Cpu,
    /// As the balance-pass probe measured on our machine: a busy CPU acts on its tick's
    /// resched only after its own softirq, so every tick runs first, then the switches of the
    /// CPUs with no balance pass due, then the passes (the busiest CPU's first), then the
    /// switches the passes held (`docs/kernel-6.18.44-findings.md`, "The tick's switch waits
    /// for the CPU's softirq").
    #[serde(rename = "machine")]
    Machine,
}

/// Whether this build's vendor wake placement (`sched/select_vendor.rs`) runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum VcpuPackMode {
    /// The machine's build: `sched_vcpu_pack=15`, every task allowed on more than one CPU is
    /// packed onto a busy CPU with room (`vcpu_pack_room()`: under 70 % utilized, at most one
    /// other runnable task) before stable's placement runs. Decoded from the live text.
    #[serde(rename = "machine")]
    Machine,
    /// 6.18.y stable's `select_task_rq_fair()`, without the vendor block.
    #[serde(rename = "6.18")]
    Stable618,
}

/// Shapes of `check_preempt_wakeup_fair()`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum WakeupPreemptMode {
    /// The function decoded from our 6.18.44-fc machine (the preempt-action shape of 6.19's
    /// NEXT_BUDDY rework): a fork or delayed wakee never preempts unless its slice is shorter,
    /// every non-preempting wakeup tightens curr's protection, NEXT_BUDDY keeps an
    /// earlier-deadline buddy, a delayed winner of the pick is dequeued. Measured.
    #[serde(rename = "machine")]
    Machine,
    /// 6.18.y stable's function (6.18.26 fair.c l.8802): fork wakeups run the pick,
    /// protection is tightened only for a shorter-slice wakee, NEXT_BUDDY marks every
    /// non-fork wakee, a delayed winner blocks the preemption.
    #[serde(rename = "6.18")]
    Stable618,
}

/// Flavours of the lag clamp in `update_entity_lag()`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LagClampMode {
    /// ±(max slice on the queue + TICK_NSEC) in the entity's virtual time ("fix lag clamp":
    /// 6.18.y stable, in 6.18.26; measured on 6.18.44).
    MaxSliceTick,
    /// ±max(2 × own slice, TICK_NSEC) (6.6 … 6.18.2, before "fix lag clamp").
    TwoSliceOrTick,
}

/// Flavours of `yield_task_fair()`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum YieldMode {
    /// The "forfeit" of 79104becf42b (6.19; in 6.18.y stable since 6.18.2): an eligible
    /// yielder's vruntime jumps to its deadline, then the deadline advances by one slice.
    /// Measured on 6.18.44.
    Forfeit,
    /// 6.12–6.18.1: only the deadline advances by one slice; vruntime is unchanged.
    DeadlineBump,
    /// K Prateek Nayak's hierarchical yield (Nov 2025): forfeit at each level while
    /// eligible, stop where another runnable task sits below.
    Hierarchical,
}

/// Scheduling policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum PolicySpec {
    /// SCHED_NORMAL.
    #[default]
    Normal,
    /// SCHED_BATCH: never wakeup-preempts.
    Batch,
    /// SCHED_IDLE: weight 3, loses to any non-idle entity.
    Idle,
}

/// One task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskSpec {
    /// Task name (comm); unique within the scenario.
    pub name: String,
    /// Nice value, -20..=19 (default: 0).
    #[serde(default)]
    pub nice: i32,
    /// Scheduling policy (default: normal).
    #[serde(default)]
    pub policy: PolicySpec,
    /// Custom slice via sched_setattr(sched_runtime), clamped to 0.1–100 ms (default: none,
    /// i.e. the base slice).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slice: Option<DurationSpec>,
    /// CPUs the task may run on (default: all). A single CPU pins it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub affinity: Option<Vec<u32>>,
    /// The CPU its parent ran on when it forked the task: under `smp = "fair"` the fork's
    /// placement (`select_task_rq_fair()` with WF_FORK) starts from there (default: the task's
    /// first allowed CPU). A real trace shows it as the CPU of the task's `sched_wakeup_new`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_cpu: Option<u32>,
    /// cgroup path the task runs in (default: "/", the root group).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cgroup: Option<String>,
    /// This task is a vCPU thread of the named VM (vCPU indices follow the order of the VM's
    /// tasks in the file).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vm: Option<String>,
    /// Session (setsid) the task belongs to, for autogroups (default: "default").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// When the task is created (woken as a new task; default: 0), or, for an `existing`
    /// task, when it first wakes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<DurationSpec>,
    /// The task existed before the run (a replayed trace's task whose fork the trace does not
    /// show): at `start` it wakes as any sleeping task does (`try_to_wake_up()` from `cpu`),
    /// not as a new one (`wake_up_new_task()`), with the PELT averages given here rather than
    /// a new task's (default: none, a new task).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub existing: Option<ExistingSpec>,
    /// When the task is killed (default: never).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<DurationSpec>,
    /// The behaviour program, run in order; the task exits when it ends.
    pub program: Vec<OpSpec>,
}

/// One step of a behaviour program.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum OpSpec {
    /// Consume this much CPU time ("forever" for a hog).
    Run(DurationSpec),
    /// Busy-wait until this much wall-clock time has passed since the step began (like a
    /// loop on clock_gettime): time spent preempted counts.
    Spin(DurationSpec),
    /// Sleep (block) for this long, plus the host's timer slack.
    Sleep(DurationSpec),
    /// Call sched_yield() this many times in a row.
    SchedYield(u32),
    /// Call yield_to(task) (the KVM directed-yield primitive) with the named task as target.
    YieldTo(String),
    /// Guest code (vCPU tasks only): take the named guest spinlock, spinning with PAUSE (and
    /// pause-loop exits into KVM's directed yield) while another vCPU holds it.
    Lock(String),
    /// Guest code: release the named guest spinlock.
    Unlock(String),
    /// Guest code (vCPU tasks only): send an IPI to the named vCPU of the same VM and spin,
    /// smp_call_function style (PAUSE with pause-loop exits), until it has handled it.
    IpiWait(String),
    /// Guest code (vCPU tasks only): a TLB shootdown, flush_tlb_others style: send an IPI to
    /// each named vCPU of the same VM, in order (x2APIC physical mode: one ICR write each),
    /// and spin until all have handled theirs.
    TlbShootdown(Vec<String>),
    /// Guest idle (vCPU tasks only): HLT. The vCPU thread blocks in KVM until an IPI kicks
    /// it or this much time has passed (the guest's timer interrupt).
    Halt(DurationSpec),
    /// Pass a token back and forth with `peer` (Christian Borntraeger's counter ping-pong):
    /// holding the token, do `work`, hand it over; without it, spin for `spin` of CPU time and
    /// then yield_to(peer) (s390's diag 0x9c directed yield), until the token comes back.
    PingPong(PingPongSpec),
    /// Run X every P: each period consumes `run` of CPU time, then sleeps until the next
    /// period boundary (skipped if already past it).
    Periodic(PeriodicSpec),
    /// Repeat `body` `times` times, or forever when `times` is absent.
    Loop(LoopSpec),
    /// Exchange one-byte messages with `peer` over a pair of pipes (`workers pipe`): each
    /// message is `work` of CPU time, then a write that wakes the peer blocked in read() with
    /// a synchronous wakeup (WF_SYNC), then a read of the reply that blocks while the pipe is
    /// empty. The peer must have a `pipe` step naming this task; one of the two starts
    /// (`first`). Once the peer has exited, a read of the empty pipe returns (end of file) and
    /// a write fails, and either ends the step. No system-call cost is modeled.
    Pipe(PipeSpec),
    /// Fork `children` tasks that run `program`, then wait() until every one has exited (the
    /// last exit wakes this task). Inside a loop, each execution forks the same children
    /// again as new tasks: their CPU time and counters add up over all of them. Children
    /// get this task's cgroup, nice, policy, slice and affinity, and are named `name0`,
    /// `name1`, … (default name: this task's name + "/child").
    Fork(ForkSpec),
    /// Wake the named task (`try_to_wake_up()` from this task's CPU, as a futex wake or a
    /// write to a pipe it reads does): if it is blocked in a `wait_wakeup` step it is woken
    /// and that step ends; otherwise the wakeup is kept and its next `wait_wakeup` returns at
    /// once (a counting semaphore). `sync`: a synchronous wakeup (`WF_SYNC`: the waker says
    /// it is about to sleep, as `pipe_write()` does). The trace replay's shadow writes a
    /// `sched_wakeup` raised by a modeled task as this step.
    Wake(WakeSpec),
    /// Block until another task's `wake` step wakes this task, this many times in a row (a
    /// wakeup sent before the wait is counted and consumed without blocking).
    WaitWakeup(u32),
    /// Move this task into the named cgroup ("/" for the root), as a write of its pid to the
    /// cgroup's `tasks` file does (`cgroup_attach_task()` → `sched_move_task()`, which
    /// reschedules); it takes no CPU time. The cgroup must be declared in `[[cgroups]]`. The
    /// trace replay's shadow writes a `cgroup_attach_task` record as this step.
    Cgroup(String),
}

/// A task that existed before the run (`TaskSpec::existing`): where it last ran and its
/// `struct sched_avg` averages at its first wakeup.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExistingSpec {
    /// The CPU it last ran on (the wakeup's `prev_cpu`; default: its first allowed CPU).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu: Option<u32>,
    /// `se.avg.load_avg`: at most its weight scaled down (1024 at nice 0).
    #[serde(default)]
    pub load_avg: u64,
    /// `se.avg.runnable_avg`, 0..=1024.
    #[serde(default)]
    pub runnable_avg: u64,
    /// `se.avg.util_avg`, 0..=1024.
    #[serde(default)]
    pub util_avg: u64,
}

/// A `wake` step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WakeSpec {
    /// The task to wake (another task of the scenario).
    pub task: String,
    /// A synchronous wakeup (`WF_SYNC`; default: false).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sync: bool,
}

/// A pipe ping-pong step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PipeSpec {
    /// The other task of the pair (it must have a `pipe` step naming this task).
    pub peer: String,
    /// Round trips (default: forever; end the tasks with `stop`). The task that starts does
    /// work, write, read each round; the other read, work, write.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rounds: Option<u64>,
    /// CPU time of the work done for each message (e.g. "50us").
    pub work: DurationSpec,
    /// Each message's work is drawn uniformly from `work` ± this, from the task's seeded
    /// stream (default: 0, every message costs `work`). A real pair's cycle jitters; an
    /// exactly periodic one locks its phase to the tick, and what a periodic load balance
    /// finds at each tick then repeats.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub work_jitter: Option<DurationSpec>,
    /// This task writes the first message; the other one starts by reading (default: false;
    /// exactly one task of the pair starts).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub first: bool,
    /// CPU time a read that finds the pipe empty costs before the task blocks, beyond `work`
    /// (default: 0). On the machine, the run that ends in that block is charged the blocking
    /// read and the writer's tail after its wakeup (the wakeup's `rq_clock_skip_update()`
    /// hands that time to the next task), ~1 µs more than the writer's run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_cost: Option<DurationSpec>,
}

/// A fork-and-wait step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ForkSpec {
    /// How many children each execution forks (1..=1024).
    pub children: u32,
    /// Name prefix of the children, numbered from 0 (default: the parent's name + "/child").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// What each child runs; it exits when the program ends. No `fork` of its own, no guest
    /// (vCPU) steps, no `pipe` or `ping_pong`.
    pub program: Vec<OpSpec>,
}

/// A token ping-pong step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PingPongSpec {
    /// The other task of the pair.
    pub peer: String,
    /// Hand-offs this task makes.
    pub rounds: u64,
    /// CPU time of the work done while holding the token.
    pub work: DurationSpec,
    /// CPU time spun while waiting before each directed yield.
    pub spin: DurationSpec,
    /// This task holds the token at the start (default: false).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub first: bool,
}

/// A periodic step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PeriodicSpec {
    /// CPU time per period.
    pub run: DurationSpec,
    /// Period length.
    pub period: DurationSpec,
    /// Number of periods (default: forever).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u64>,
}

/// A loop.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LoopSpec {
    /// Repetitions (default: forever).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub times: Option<u64>,
    /// The steps to repeat.
    pub body: Vec<OpSpec>,
}
