//! The build itself: the topology levels (x86's of arch/x86/kernel/smpboot.c and
//! `sched_init_numa()`'s), `sd_init()`, `topology_span_sane()` and `build_sched_domains()`'s
//! passes in order (kernel/sched/topology.c, Linux 6.18.26). The group builders are in `groups.rs`,
//! `cpu_attach_domain()` and `update_top_cache_domain()` in `attach.rs`.

use super::*;
use std::collections::BTreeMap;

/// Why a host description cannot be built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BuildError {
    /// No CPUs, or more than the [`super::MAX_CPUS`] a [`CpuMask`] holds.
    CpuCount(usize),
    /// A CPU's node has no row in the distance table, or no column in another node's row.
    NodeDistance { node: u32 },
    /// A distance below `LOCAL_DISTANCE` or not below 256 (`sched_init_numa()` gives up).
    InvalidDistance { from: u32, to: u32, distance: u32 },
    /// Two CPUs' masks of a non-NUMA level overlap without being equal (`topology_span_sane()`).
    SpanNotSane { level: &'static str },
}

/// Which mask a topology level uses (`tl->mask`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Mask {
    Smt,
    Cls,
    Mc,
    Pkg,
    /// `sd_numa_mask()` at this `numa_level`.
    Numa(usize),
}

/// A `struct sched_domain_topology_level`: name, mask and `tl->sd_flags()`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Level {
    pub(super) name: &'static str,
    pub(super) mask: Mask,
    pub(super) flags: u32,
}

/// A domain of one CPU at one level as `sd_init()` and the group builders leave it.
#[derive(Clone, Debug)]
pub(super) struct Raw {
    pub(super) name: &'static str,
    pub(super) level: u32,
    pub(super) flags: u32,
    pub(super) span: CpuMask,
    pub(super) sd_weight: u32,
    pub(super) imbalance_pct: u32,
    pub(super) cache_nice_tries: u32,
    pub(super) imb_numa_nr: u32,
    pub(super) shared: bool,
    /// Indices into the group arena, in ring order.
    pub(super) groups: Vec<usize>,
}

/// A `struct sched_group`; `sgc` indexes the capacity arena.
#[derive(Clone, Debug)]
pub(super) struct RawGroup {
    pub(super) span: CpuMask,
    pub(super) flags: u32,
    pub(super) sgc: usize,
}

/// A `struct sched_group_capacity`.
#[derive(Clone, Debug)]
pub(super) struct Sgc {
    pub(super) id: usize,
    pub(super) balance_mask: Option<CpuMask>,
    pub(super) capacity: u64,
}

/// The state of one build: every CPU's chain (index = topology level) and the shared objects.
pub(super) struct Builder<'h> {
    pub(super) host: &'h Host,
    pub(super) levels: Vec<Level>,
    pub(super) numa_distance: Vec<u32>,
    pub(super) cpu_map: CpuMask,
    pub(super) chains: Vec<Vec<Raw>>,
    pub(super) groups: Vec<RawGroup>,
    pub(super) sgcs: Vec<Sgc>,
    /// `per_cpu_ptr(sdd->sgc, cpu)` of each level, created on first use.
    pub(super) sgc_of: BTreeMap<(usize, usize), usize>,
    /// `per_cpu_ptr(sdd->sg, cpu)` of each non-NUMA level, created on first use.
    pub(super) sg_of: BTreeMap<(usize, usize), usize>,
}

pub(super) fn build(host: &Host) -> Result<Topology, BuildError> {
    let n = host.cpus.len();
    if n == 0 || n > super::MAX_CPUS {
        return Err(BuildError::CpuCount(n));
    }
    let numa_distance = numa_distances(host)?;
    let levels = levels(host, numa_distance.len());
    let cpu_map = CpuMask::first_n(n);
    let mut b = Builder {
        host,
        levels,
        numa_distance,
        cpu_map,
        chains: vec![Vec::new(); n],
        groups: Vec::new(),
        sgcs: Vec::new(),
        sgc_of: BTreeMap::new(),
        sg_of: BTreeMap::new(),
    };
    for cpu in 0..n {
        b.build_chain(cpu);
    }
    b.topology_span_sane()?;
    for cpu in 0..n {
        for k in 0..b.chains[cpu].len() {
            let groups = if b.chains[cpu][k].flags & SD_NUMA != 0 {
                b.build_overlap_sched_groups(cpu, k)
            } else {
                b.build_sched_groups(cpu, k)
            };
            b.chains[cpu][k].groups = groups;
        }
    }
    for cpu in 0..n {
        b.imb_numa_nr(cpu);
    }
    let attached: Vec<Vec<usize>> = (0..n).map(|cpu| b.cpu_attach_domain(cpu)).collect();
    let cpus = attached.iter().enumerate().map(|(cpu, chain)| b.snapshot(cpu, chain)).collect();
    Ok(Topology { cpus, root_span: cpu_map })
}

/// `sched_init_numa()`'s distinct distances, sorted (`sched_domains_numa_distance[]`).
fn numa_distances(host: &Host) -> Result<Vec<u32>, BuildError> {
    let nodes: Vec<u32> = {
        let mut v: Vec<u32> = host.cpus.iter().map(|c| c.node).collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    let mut seen = Vec::new();
    for &a in &nodes {
        for &b in &nodes {
            let d = distance(host, a, b)?;
            if !(LOCAL_DISTANCE..256).contains(&d) {
                return Err(BuildError::InvalidDistance { from: a, to: b, distance: d });
            }
            seen.push(d);
        }
    }
    seen.sort_unstable();
    seen.dedup();
    Ok(seen)
}

pub(super) fn distance(host: &Host, a: u32, b: u32) -> Result<u32, BuildError> {
    let row = host.node_distance.get(a as usize).ok_or(BuildError::NodeDistance { node: a })?;
    row.get(b as usize).copied().ok_or(BuildError::NodeDistance { node: b })
}

/// `x86_topology[]` as `build_sched_topology()` trims it, then the levels `sched_init_numa()`
/// appends (`NODE`, and `NUMA` for numa_level 1 ..).
fn levels(host: &Host, numa_levels: usize) -> Vec<Level> {
    let threads = |core| host.cpus.iter().filter(|c| c.core == core).count();
    let smt_threads = host.cpus.iter().map(|c| threads(c.core)).max().unwrap_or(1);
    let numa_in_package =
        host.cpus.iter().any(|a| host.cpus.iter().any(|b| a.package == b.package && a.node != b.node));
    let mut v = Vec::new();
    if smt_threads > 1 {
        v.push(Level { name: "SMT", mask: Mask::Smt, flags: SD_SHARE_CPUCAPACITY | SD_SHARE_LLC });
    }
    if host.sched_cluster {
        v.push(Level { name: "CLS", mask: Mask::Cls, flags: SD_CLUSTER | SD_SHARE_LLC });
    }
    v.push(Level { name: "MC", mask: Mask::Mc, flags: SD_SHARE_LLC });
    if !numa_in_package {
        v.push(Level { name: "PKG", mask: Mask::Pkg, flags: 0 });
    }
    v.push(Level { name: "NODE", mask: Mask::Numa(0), flags: 0 });
    for j in 1..numa_levels {
        v.push(Level { name: "NUMA", mask: Mask::Numa(j), flags: SD_NUMA });
    }
    v
}

impl Builder<'_> {
    /// `tl->mask(tl, cpu)`.
    pub(super) fn mask(&self, k: usize, cpu: usize) -> CpuMask {
        let me = self.host.cpus[cpu];
        let same = |f: &dyn Fn(&CpuPlace) -> bool| {
            self.host.cpus.iter().enumerate().filter(|(_, c)| f(c)).map(|(i, _)| i).collect::<CpuMask>()
        };
        match self.levels[k].mask {
            Mask::Smt => same(&|c| c.core == me.core),
            Mask::Cls => same(&|c| c.cluster == me.cluster),
            Mask::Mc => same(&|c| c.llc == me.llc),
            Mask::Pkg => same(&|c| c.node == me.node),
            Mask::Numa(j) => {
                let limit = self.numa_distance[j];
                same(&|c| distance(self.host, me.node, c.node).is_ok_and(|d| d <= limit))
            }
        }
    }

    /// `sd_init()`: the domain of `cpu` at level `k` above `child`.
    fn sd_init(&self, k: usize, cpu: usize) -> Raw {
        let tl = self.levels[k];
        let tl_mask = self.mask(k, cpu);
        let sd_weight = tl_mask.weight();
        let mut flags = SD_BALANCE_NEWIDLE | SD_BALANCE_EXEC | SD_BALANCE_FORK | SD_WAKE_AFFINE | SD_PREFER_SIBLING;
        flags |= tl.flags;
        let (mut imbalance_pct, mut cache_nice_tries) = (117, 0);
        if flags & SD_SHARE_CPUCAPACITY != 0 {
            imbalance_pct = 110;
        } else if flags & SD_SHARE_LLC != 0 {
            imbalance_pct = 117;
            cache_nice_tries = 1;
        } else if flags & SD_NUMA != 0 {
            cache_nice_tries = 2;
            flags &= !SD_PREFER_SIBLING;
            flags |= SD_SERIALIZE;
            let Mask::Numa(j) = tl.mask else { unreachable!("SD_NUMA is set on NUMA levels only") };
            if self.numa_distance[j] > self.host.node_reclaim_distance {
                flags &= !(SD_BALANCE_EXEC | SD_BALANCE_FORK | SD_WAKE_AFFINE);
            }
        } else {
            cache_nice_tries = 1;
        }
        Raw {
            name: tl.name,
            level: 0,
            flags,
            span: tl_mask.and(self.cpu_map),
            sd_weight,
            imbalance_pct,
            cache_nice_tries,
            imb_numa_nr: 0,
            shared: flags & SD_SHARE_LLC != 0,
            groups: Vec::new(),
        }
    }

    /// `build_sched_domains()`'s first loop for one CPU: `build_sched_domain()` level by level,
    /// stopping at the first domain that spans every CPU.
    fn build_chain(&mut self, cpu: usize) {
        for k in 0..self.levels.len() {
            let mut sd = self.sd_init(k, cpu);
            if let Some(child) = self.chains[cpu].last() {
                sd.level = child.level + 1;
                if !child.span.is_subset(sd.span) {
                    // "BUG: arch topology borken": the kernel widens the parent.
                    sd.span = sd.span.or(child.span);
                }
            }
            let full = sd.span == self.cpu_map;
            self.chains[cpu].push(sd);
            if full {
                break;
            }
        }
    }

    /// `topology_span_sane()`: on levels without `SD_NUMA` two CPUs' masks are equal or disjoint.
    fn topology_span_sane(&self) -> Result<(), BuildError> {
        for (k, tl) in self.levels.iter().enumerate() {
            if tl.flags & SD_NUMA != 0 {
                continue;
            }
            let masks: Vec<CpuMask> = (0..self.host.cpus.len()).map(|c| self.mask(k, c)).collect();
            for a in &masks {
                if masks.iter().any(|b| a != b && a.intersects(*b)) {
                    return Err(BuildError::SpanNotSane { level: tl.name });
                }
            }
        }
        Ok(())
    }

    /// `build_sched_domains()`'s `imb_numa_nr` pass over one CPU's chain.
    fn imb_numa_nr(&mut self, cpu: usize) {
        let chain = &mut self.chains[cpu];
        let (mut imb, mut imb_span) = (0u32, 1u32);
        for k in 0..chain.len() {
            let w = chain[k].span.weight();
            let llc_child = k > 0 && chain[k - 1].flags & SD_SHARE_LLC != 0;
            if chain[k].flags & SD_SHARE_LLC == 0 && llc_child {
                let nr_llcs = w / chain[k - 1].span.weight();
                imb = if nr_llcs == 1 { w >> 3 } else { nr_llcs }.max(1);
                chain[k].imb_numa_nr = imb;
                let top = chain[k + 1..].iter().find(|p| p.flags & SD_NUMA != 0);
                imb_span = top.map_or(w, |p| p.span.weight());
            } else {
                chain[k].imb_numa_nr = imb * (w / imb_span).max(1);
            }
        }
    }
}
