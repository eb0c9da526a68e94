//! Scheduler domains: the `struct sched_domain` hierarchy and its `struct sched_group` rings that
//! Linux 6.18 builds for a host, level by level, as `build_sched_domains()` (kernel/sched/topology.c
//! of 6.18.26 stable) does at boot; the project's machine, running 6.18.44, has exactly the domains
//! this build gives it (`traces/linux-6.18-smp/topology`, checked by `tests/topology.rs`).
//!
//! Under `smp = "fair"` (the default) the simulation builds this table for its host
//! (`sim/smp.rs`) and wakeup placement (`sched/select.rs`) and load balancing (`sched/balance`)
//! walk it.
//!
//! What is modeled, with the kernel's names:
//! * the topology levels of x86 (`x86_topology[]` in arch/x86/kernel/smpboot.c): `SMT` (hardware
//!   threads of a core; dropped by `build_sched_topology()` when every core has one thread),
//!   `CLS` (CPUs sharing an L2, `CONFIG_SCHED_CLUSTER`), `MC` (CPUs sharing the last-level cache),
//!   `PKG` (6.18's `tl_pkg_mask()` is the CPU's NUMA node; dropped when a package holds several
//!   nodes), then the levels `sched_init_numa()` appends: `NODE` (distance `LOCAL_DISTANCE`) and
//!   one `NUMA` level per further distinct node distance;
//! * `sd_init()`: flags, `imbalance_pct`, `cache_nice_tries`, `busy_factor`, the intervals from
//!   the span weight, `sd->shared` for `SD_SHARE_LLC` levels, and the `SD_NUMA` rules
//!   (`SD_SERIALIZE`, no `SD_PREFER_SIBLING`, no exec/fork/wake-affine balancing beyond
//!   `node_reclaim_distance`);
//! * the walk that stops at the first level spanning every CPU, `build_sched_groups()` /
//!   `get_group()` (groups shared between CPUs), `build_overlap_sched_groups()` with
//!   `find_descended_sibling()` and `build_balance_mask()` for `SD_NUMA` levels, `imb_numa_nr`,
//!   the group `cores` of `init_sched_groups_capacity()`;
//! * `cpu_attach_domain()`: `sd_parent_degenerate()` / `sd_degenerate()` removal, the
//!   `SD_PREFER_SIBLING` hand-down and the group flags it rewrites (including 6.18's clearing
//!   loop that only ever reaches the first group of the ring), then `update_top_cache_domain()`
//!   (`sd_llc`, `sd_llc_size`, `sd_llc_id`, `sd_share_id`, `sd_numa`).
//!
//! Simplified: every CPU has capacity `SCHED_CAPACITY_SCALE` (no `SD_ASYM_CPUCAPACITY`, no RT/IRQ
//! pressure: a group's `sgc->capacity` is 1024 × its weight, as `get_group()` sets it and
//! `update_group_capacity()` keeps it on an idle symmetric machine); no ITMT (`SD_ASYM_PACKING`);
//! no `relax_domain_level`, no cpusets (one root domain spanning every CPU); at most 64 CPUs; CPUs
//! are numbered in the order [`Host::from_shape`] lays them out. The dynamic fields
//! (`balance_interval`, `nr_balance_failed`, `max_newidle_lb_cost`, `newidle_*`,
//! `nr_busy_cpus`) hold `sd_init()`'s values: the state right after the build.

mod attach;
mod build;
mod groups;
#[cfg(test)]
mod tests;

pub use build::BuildError;

/// `SD_BALANCE_NEWIDLE`: balance when about to become idle.
pub const SD_BALANCE_NEWIDLE: u32 = 1 << 0;
/// `SD_BALANCE_EXEC`: balance on exec.
pub const SD_BALANCE_EXEC: u32 = 1 << 1;
/// `SD_BALANCE_FORK`: balance on fork, clone.
pub const SD_BALANCE_FORK: u32 = 1 << 2;
/// `SD_BALANCE_WAKE`: balance on wakeup.
pub const SD_BALANCE_WAKE: u32 = 1 << 3;
/// `SD_WAKE_AFFINE`: consider waking a task on the waker's CPU.
pub const SD_WAKE_AFFINE: u32 = 1 << 4;
/// `SD_ASYM_CPUCAPACITY`: the span holds CPUs of different capacities.
pub const SD_ASYM_CPUCAPACITY: u32 = 1 << 5;
/// `SD_ASYM_CPUCAPACITY_FULL`: every capacity of the system is in the span.
pub const SD_ASYM_CPUCAPACITY_FULL: u32 = 1 << 6;
/// `SD_SHARE_CPUCAPACITY`: the CPUs share capacity (SMT siblings).
pub const SD_SHARE_CPUCAPACITY: u32 = 1 << 7;
/// `SD_CLUSTER`: the CPUs share cluster resources (an L2 on x86).
pub const SD_CLUSTER: u32 = 1 << 8;
/// `SD_SHARE_LLC`: the CPUs share the last-level cache.
pub const SD_SHARE_LLC: u32 = 1 << 9;
/// `SD_SERIALIZE`: only one CPU at a time balances this domain.
pub const SD_SERIALIZE: u32 = 1 << 10;
/// `SD_ASYM_PACKING`: place busy tasks on the preferred CPUs first.
pub const SD_ASYM_PACKING: u32 = 1 << 11;
/// `SD_PREFER_SIBLING`: spread tasks to the sibling groups.
pub const SD_PREFER_SIBLING: u32 = 1 << 12;
/// `SD_NUMA`: the domain crosses NUMA nodes.
pub const SD_NUMA: u32 = 1 << 13;

/// The flags whose meta-flags include `SDF_NEEDS_GROUPS` (include/linux/sched/sd_flags.h): they
/// need two groups or more to mean anything (`SD_DEGENERATE_GROUPS_MASK`); all but
/// `SD_WAKE_AFFINE`.
pub const SD_DEGENERATE_GROUPS_MASK: u32 = SD_BALANCE_NEWIDLE
    | SD_BALANCE_EXEC
    | SD_BALANCE_FORK
    | SD_BALANCE_WAKE
    | SD_ASYM_CPUCAPACITY
    | SD_ASYM_CPUCAPACITY_FULL
    | SD_SHARE_CPUCAPACITY
    | SD_CLUSTER
    | SD_SHARE_LLC
    | SD_SERIALIZE
    | SD_ASYM_PACKING
    | SD_PREFER_SIBLING
    | SD_NUMA;

/// Every `SD_*` flag with its name, lowest bit first.
pub const SD_FLAG_NAMES: [(u32, &str); 14] = [
    (SD_BALANCE_NEWIDLE, "SD_BALANCE_NEWIDLE"),
    (SD_BALANCE_EXEC, "SD_BALANCE_EXEC"),
    (SD_BALANCE_FORK, "SD_BALANCE_FORK"),
    (SD_BALANCE_WAKE, "SD_BALANCE_WAKE"),
    (SD_WAKE_AFFINE, "SD_WAKE_AFFINE"),
    (SD_ASYM_CPUCAPACITY, "SD_ASYM_CPUCAPACITY"),
    (SD_ASYM_CPUCAPACITY_FULL, "SD_ASYM_CPUCAPACITY_FULL"),
    (SD_SHARE_CPUCAPACITY, "SD_SHARE_CPUCAPACITY"),
    (SD_CLUSTER, "SD_CLUSTER"),
    (SD_SHARE_LLC, "SD_SHARE_LLC"),
    (SD_SERIALIZE, "SD_SERIALIZE"),
    (SD_ASYM_PACKING, "SD_ASYM_PACKING"),
    (SD_PREFER_SIBLING, "SD_PREFER_SIBLING"),
    (SD_NUMA, "SD_NUMA"),
];

/// The names of the flags set in `flags`, joined with `|`.
pub fn flag_names(flags: u32) -> String {
    let names: Vec<&str> = SD_FLAG_NAMES.iter().filter(|(f, _)| flags & f != 0).map(|(_, n)| *n).collect();
    names.join("|")
}

/// `SCHED_CAPACITY_SCALE`: the capacity of one full-speed CPU.
pub const SCHED_CAPACITY_SCALE: u64 = 1024;
/// `LOCAL_DISTANCE`: a node's distance to itself.
pub const LOCAL_DISTANCE: u32 = 10;
/// `RECLAIM_DISTANCE`: `node_reclaim_distance`'s default (AMD Zen sets 32 in
/// `init_amd_zen_common()`).
pub const RECLAIM_DISTANCE: u32 = 30;

/// Words in a [`CpuMask`].
const MASK_WORDS: usize = 8;
/// The most CPUs a [`CpuMask`] holds (`NR_CPUS` of this model).
pub const MAX_CPUS: usize = MASK_WORDS * 64;

/// A set of CPUs 0-511 (`struct cpumask` with `NR_CPUS` = 512).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct CpuMask([u64; MASK_WORDS]);

impl CpuMask {
    /// The mask of one CPU.
    pub fn of(cpu: usize) -> CpuMask {
        let mut m = CpuMask::default();
        m.set(cpu);
        m
    }
    /// The CPUs whose bits are set in `bits` (CPUs 0-63).
    pub fn from_bits(bits: u64) -> CpuMask {
        let mut w = [0; MASK_WORDS];
        w[0] = bits;
        CpuMask(w)
    }
    /// CPUs `0..n` (`cpu_possible_mask` of an `n`-CPU host).
    pub fn first_n(n: usize) -> CpuMask {
        (0..n.min(MAX_CPUS)).collect()
    }
    /// `cpumask_set_cpu()`.
    pub fn set(&mut self, cpu: usize) {
        self.0[cpu / 64] |= 1 << (cpu % 64);
    }
    /// `cpumask_weight()`.
    pub fn weight(self) -> u32 {
        self.0.iter().map(|w| w.count_ones()).sum()
    }
    /// `cpumask_first()`; `None` when empty.
    pub fn first(self) -> Option<usize> {
        self.0.iter().enumerate().find(|(_, w)| **w != 0).map(|(i, w)| i * 64 + w.trailing_zeros() as usize)
    }
    /// `cpumask_test_cpu()`.
    pub fn contains(self, cpu: usize) -> bool {
        cpu < MAX_CPUS && self.0[cpu / 64] & (1 << (cpu % 64)) != 0
    }
    /// `cpumask_subset(self, other)`.
    pub fn is_subset(self, other: CpuMask) -> bool {
        self.0.iter().zip(other.0).all(|(a, b)| a & !b == 0)
    }
    /// `cpumask_and()`.
    pub fn and(self, other: CpuMask) -> CpuMask {
        let mut w = self.0;
        w.iter_mut().zip(other.0).for_each(|(a, b)| *a &= b);
        CpuMask(w)
    }
    /// `cpumask_or()`.
    pub fn or(self, other: CpuMask) -> CpuMask {
        let mut w = self.0;
        w.iter_mut().zip(other.0).for_each(|(a, b)| *a |= b);
        CpuMask(w)
    }
    /// `cpumask_andnot()`.
    pub fn andnot(self, other: CpuMask) -> CpuMask {
        let mut w = self.0;
        w.iter_mut().zip(other.0).for_each(|(a, b)| *a &= !b);
        CpuMask(w)
    }
    /// `cpumask_set_cpu()` on a copy.
    pub fn with(mut self, cpu: usize) -> CpuMask {
        self.set(cpu);
        self
    }
    /// `__cpumask_clear_cpu()` on a copy.
    pub fn without(mut self, cpu: usize) -> CpuMask {
        self.0[cpu / 64] &= !(1 << (cpu % 64));
        self
    }
    /// `cpumask_intersects()`.
    pub fn intersects(self, other: CpuMask) -> bool {
        self.0.iter().zip(other.0).any(|(a, b)| a & b != 0)
    }
    /// `cpumask_empty()`.
    pub fn is_empty(self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }
    /// The CPUs in the mask, lowest first (`for_each_cpu`).
    pub fn iter(self) -> impl Iterator<Item = usize> {
        self.0.into_iter().enumerate().flat_map(|(i, mut w)| {
            std::iter::from_fn(move || {
                (w != 0).then(|| {
                    let b = w.trailing_zeros() as usize;
                    w &= w - 1;
                    i * 64 + b
                })
            })
        })
    }
    /// The CPUs in the mask starting at `start` and wrapping around (`for_each_cpu_wrap`).
    pub fn iter_wrap(self, start: usize) -> impl Iterator<Item = usize> {
        self.iter().filter(move |&c| c >= start).chain(self.iter().filter(move |&c| c < start))
    }
}

impl FromIterator<usize> for CpuMask {
    fn from_iter<I: IntoIterator<Item = usize>>(it: I) -> CpuMask {
        let mut m = CpuMask::default();
        for c in it {
            m.set(c);
        }
        m
    }
}

impl std::fmt::Debug for CpuMask {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let top = self.0.iter().rposition(|&w| w != 0).unwrap_or(0);
        write!(f, "{:#x}", self.0[top])?;
        for w in self.0[..top].iter().rev() {
            write!(f, "_{w:016x}")?;
        }
        Ok(())
    }
}

/// Where one CPU sits. Ids are global (two packages never share a core, cluster or LLC id).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CpuPlace {
    /// The core (SMT siblings share it): `topology_sibling_cpumask()`.
    pub core: u32,
    /// The L2 the CPU shares (`cpu_l2c_shared_mask()`, the `CLS` level).
    pub cluster: u32,
    /// The last-level cache (`cpu_llc_shared_mask()`, the `MC` level).
    pub llc: u32,
    /// `physical_package_id`.
    pub package: u32,
    /// The NUMA node (`cpu_to_node()`).
    pub node: u32,
}

/// A host: where each CPU sits, the node distance table (`node_distance()`, the firmware's SLIT)
/// and the kernel settings the build reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Host {
    /// CPU i's place, for CPUs 0 .. n-1 (all online: `cpu_map` is every CPU).
    pub cpus: Vec<CpuPlace>,
    /// `node_distance(a, b)`, indexed by node id.
    pub node_distance: Vec<Vec<u32>>,
    /// `node_reclaim_distance`: `SD_NUMA` levels farther than this balance neither on exec, fork
    /// nor wakeup.
    pub node_reclaim_distance: u32,
    /// `CONFIG_SCHED_CLUSTER` (the `CLS` level exists).
    pub sched_cluster: bool,
}

/// A regular host: `packages` × `nodes_per_package` × `llcs_per_node` × `clusters_per_llc` ×
/// `cores_per_cluster` × `threads_per_core`, CPUs numbered in that nesting order (the threads of a
/// core adjacent).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostShape {
    pub packages: u32,
    pub nodes_per_package: u32,
    pub llcs_per_node: u32,
    pub clusters_per_llc: u32,
    pub cores_per_cluster: u32,
    pub threads_per_core: u32,
}

impl Host {
    /// The host of `shape` with the distance table `node_distance` (one row per node),
    /// `RECLAIM_DISTANCE` and `CONFIG_SCHED_CLUSTER=y`.
    pub fn from_shape(shape: HostShape, node_distance: Vec<Vec<u32>>) -> Host {
        let mut cpus = Vec::new();
        let (mut core, mut cluster, mut llc, mut node) = (0, 0, 0, 0);
        for package in 0..shape.packages {
            for _ in 0..shape.nodes_per_package {
                for _ in 0..shape.llcs_per_node {
                    for _ in 0..shape.clusters_per_llc {
                        for _ in 0..shape.cores_per_cluster {
                            for _ in 0..shape.threads_per_core {
                                cpus.push(CpuPlace { core, cluster, llc, package, node });
                            }
                            core += 1;
                        }
                        cluster += 1;
                    }
                    llc += 1;
                }
                node += 1;
            }
        }
        Host { cpus, node_distance, node_reclaim_distance: RECLAIM_DISTANCE, sched_cluster: true }
    }

    /// The project's machine (`traces/linux-6.18-smp/topology`): a KVM guest on AMD EPYC (Zen 4),
    /// one package, one node, two cores of one thread, each core its own L2, one L3 shared by both;
    /// `CONFIG_SCHED_CLUSTER=y`; `node_reclaim_distance` 32 (AMD Zen).
    pub fn this_machine() -> Host {
        let shape = HostShape {
            packages: 1,
            nodes_per_package: 1,
            llcs_per_node: 1,
            clusters_per_llc: 2,
            cores_per_cluster: 1,
            threads_per_core: 1,
        };
        Host { node_reclaim_distance: 32, ..Host::from_shape(shape, vec![vec![LOCAL_DISTANCE]]) }
    }
}

/// One `struct sched_group`, with its `struct sched_group_capacity`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    /// `sched_group_span()`.
    pub span: CpuMask,
    /// `group_balance_mask()` (`sgc->cpumask`): the CPUs that may balance on the group's behalf.
    pub balance_mask: CpuMask,
    /// `sg->group_weight`.
    pub group_weight: u32,
    /// `sg->cores`: SMT cores in the span.
    pub cores: u32,
    /// `sg->flags`: the child domain's flags when it was built, as `cpu_attach_domain()` left them.
    pub flags: u32,
    /// `sg->asym_prefer_cpu` (0: no `SD_ASYM_PACKING` here).
    pub asym_prefer_cpu: i32,
    /// `sgc->capacity`, `sgc->min_capacity`, `sgc->max_capacity`.
    pub capacity: u64,
    pub min_capacity: u64,
    pub max_capacity: u64,
    /// `sgc->id`: the CPU whose per-CPU `sched_group_capacity` this is.
    pub sgc_id: usize,
}

/// One `struct sched_domain` attached to a CPU.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Domain {
    /// The topology level's name (`SMT`, `CLS`, `MC`, `PKG`, `NODE`, `NUMA`).
    pub name: &'static str,
    /// `sd->level`: the index in the built chain (degenerate levels below still count).
    pub level: u32,
    pub flags: u32,
    /// `sched_domain_span()`.
    pub span: CpuMask,
    pub span_weight: u32,
    pub imbalance_pct: u32,
    pub cache_nice_tries: u32,
    pub busy_factor: u32,
    /// Milliseconds.
    pub min_interval: u64,
    pub max_interval: u64,
    pub balance_interval: u32,
    pub nr_balance_failed: u32,
    pub max_newidle_lb_cost: u64,
    /// `sd->imb_numa_nr`: tasks a NUMA imbalance may leave before balancing.
    pub imb_numa_nr: u32,
    pub newidle_call: u32,
    pub newidle_success: u32,
    pub newidle_ratio: u32,
    /// Whether `sd->child` is set after the degenerate domains were removed.
    pub has_child: bool,
    /// `sd->shared->nr_busy_cpus` for `SD_SHARE_LLC` domains (`None`: no `sd->shared`).
    pub shared_nr_busy_cpus: Option<u32>,
    /// `sd->groups` and the ring after it, in ring order.
    pub groups: Vec<Group>,
}

/// One CPU's attached domains and the per-CPU values `update_top_cache_domain()` sets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CpuDomains {
    /// `rq->sd` first, then up the `->parent` chain.
    pub domains: Vec<Domain>,
    /// `rq->cpu_capacity`.
    pub cpu_capacity: u64,
    /// `sd_llc` as an index in `domains` (the highest `SD_SHARE_LLC` domain).
    pub sd_llc: Option<usize>,
    pub sd_llc_size: u32,
    pub sd_llc_id: usize,
    pub sd_share_id: usize,
    /// `sd_numa` as an index in `domains` (the lowest `SD_NUMA` domain).
    pub sd_numa: Option<usize>,
}

/// The domains of every CPU of a host, and its one root domain.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Topology {
    /// Indexed by CPU.
    pub cpus: Vec<CpuDomains>,
    /// `rq->rd->span`: every CPU.
    pub root_span: CpuMask,
}

impl Topology {
    /// `build_sched_domains()` over every CPU of `host`.
    pub fn build(host: &Host) -> Result<Topology, BuildError> {
        build::build(host)
    }

    /// The topology of [`Host::this_machine`].
    pub fn this_machine() -> Topology {
        Topology::build(&Host::this_machine()).expect("the project's machine builds")
    }
}
