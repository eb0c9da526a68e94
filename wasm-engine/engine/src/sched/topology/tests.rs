//! Unit tests of the domain build: each expected value worked out by hand from Linux 6.18.26's
//! kernel/sched/topology.c (`sd_init()`, `build_sched_domains()`, the group builders,
//! `cpu_attach_domain()`) and arch/x86/kernel/smpboot.c (`x86_topology[]`).

use super::*;

/// The flags `sd_init()` starts every domain with.
const BASE: u32 = SD_BALANCE_NEWIDLE | SD_BALANCE_EXEC | SD_BALANCE_FORK | SD_WAKE_AFFINE | SD_PREFER_SIBLING;
const SMT: u32 = BASE | SD_SHARE_CPUCAPACITY | SD_SHARE_LLC;
const CLS: u32 = BASE | SD_CLUSTER | SD_SHARE_LLC;
const MC: u32 = BASE | SD_SHARE_LLC;
/// A `SD_NUMA` level within `node_reclaim_distance`.
const NUMA_NEAR: u32 = (BASE & !SD_PREFER_SIBLING) | SD_SERIALIZE | SD_NUMA;
/// A `SD_NUMA` level beyond it: no exec, fork or wake-affine balancing.
const NUMA_FAR: u32 = NUMA_NEAR & !(SD_BALANCE_EXEC | SD_BALANCE_FORK | SD_WAKE_AFFINE);

fn mask(cpus: std::ops::RangeInclusive<usize>) -> CpuMask {
    cpus.collect()
}

/// (name, level, span) of each attached domain of `cpu`.
fn chain(t: &Topology, cpu: usize) -> Vec<(&'static str, u32, CpuMask)> {
    t.cpus[cpu].domains.iter().map(|d| (d.name, d.level, d.span)).collect()
}

fn group_spans(d: &Domain) -> Vec<CpuMask> {
    d.groups.iter().map(|g| g.span).collect()
}

/// `sd_init()`'s intervals and the fields every domain shares, on every CPU.
fn check_common(t: &Topology) {
    for c in &t.cpus {
        for d in &c.domains {
            assert_eq!(d.span_weight, d.span.weight());
            assert_eq!((d.min_interval, d.max_interval), (u64::from(d.span_weight), 2 * u64::from(d.span_weight)));
            assert_eq!(d.balance_interval, d.span_weight);
            assert_eq!((d.busy_factor, d.nr_balance_failed, d.max_newidle_lb_cost), (16, 0, 0));
            assert_eq!((d.newidle_call, d.newidle_success, d.newidle_ratio), (512, 256, 512));
            let covered = d.groups.iter().fold(CpuMask::default(), |m, g| m.or(g.span));
            assert_eq!(covered, d.span, "{}: the groups cover the span", d.name);
            for g in &d.groups {
                assert_eq!(g.capacity, SCHED_CAPACITY_SCALE * u64::from(g.group_weight));
            }
        }
    }
}

#[test]
fn flag_values_are_the_kernels() {
    assert_eq!(MC, 0x1217, "the MC domain of the project's machine, as recorded");
    assert_eq!(SD_NUMA, 0x2000);
    assert_eq!(SD_DEGENERATE_GROUPS_MASK, 0x3fff & !SD_WAKE_AFFINE);
    assert_eq!(flag_names(SD_SHARE_LLC | SD_NUMA), "SD_SHARE_LLC|SD_NUMA");
}

#[test]
fn two_cpus_one_llc_is_one_mc_domain() {
    let t = Topology::this_machine();
    check_common(&t);
    assert_eq!(t.root_span, CpuMask::from_bits(0b11));
    for cpu in 0..2 {
        // SMT is dropped (one thread per core); CLS (level 0) spans one CPU and degenerates; the
        // walk stops at MC, which spans both CPUs, so PKG and NODE are never built.
        assert_eq!(chain(&t, cpu), vec![("MC", 1, CpuMask::from_bits(0b11))]);
        let d = &t.cpus[cpu].domains[0];
        assert_eq!(d.flags, MC);
        assert_eq!((d.imbalance_pct, d.cache_nice_tries, d.imb_numa_nr), (117, 1, 0));
        assert_eq!((d.min_interval, d.max_interval, d.balance_interval), (2, 4, 2));
        assert!(!d.has_child);
        assert_eq!(d.shared_nr_busy_cpus, Some(2));
        let other = 1 - cpu;
        assert_eq!(group_spans(d), vec![CpuMask::of(cpu), CpuMask::of(other)]);
        // Each group is some CPU's first group, whose flags cpu_attach_domain() cleared.
        assert!(d.groups.iter().all(|g| g.flags == 0 && g.cores == 1 && g.capacity == 1024));
        assert_eq!(d.groups[0].sgc_id, cpu);
        let c = &t.cpus[cpu];
        assert_eq!((c.sd_llc, c.sd_llc_size, c.sd_llc_id, c.sd_share_id, c.sd_numa), (Some(0), 2, 0, 0, None));
    }
}

/// 2 SMT threads × 4 cores × 2 packages, each package its own node (distance 21).
fn two_sockets(nodes_per_package: u32, distance: Vec<Vec<u32>>) -> Topology {
    let shape = HostShape {
        packages: 2,
        nodes_per_package: 1,
        llcs_per_node: 1,
        clusters_per_llc: 4,
        cores_per_cluster: 1,
        threads_per_core: 2,
    };
    let mut host = Host::from_shape(shape, distance);
    if nodes_per_package == 0 {
        // Both packages in one node.
        host.cpus.iter_mut().for_each(|c| c.node = 0);
    }
    let t = Topology::build(&host).expect("builds");
    check_common(&t);
    t
}

#[test]
fn smt_cores_packages_numa() {
    let t = two_sockets(1, vec![vec![10, 21], vec![21, 10]]);
    // Built: SMT 0, CLS 1, MC 2, PKG 3, NODE 4, NUMA 5. CLS has SMT's span and one group: only
    // SD_WAKE_AFFINE counts, SMT has it (removed); PKG and NODE equal MC (removed).
    assert_eq!(chain(&t, 0), vec![("SMT", 0, mask(0..=1)), ("MC", 2, mask(0..=7)), ("NUMA", 5, mask(0..=15))]);
    assert_eq!(chain(&t, 13), vec![("SMT", 0, mask(12..=13)), ("MC", 2, mask(8..=15)), ("NUMA", 5, mask(0..=15))]);
    let [smt, mc, numa] = &t.cpus[0].domains[..] else { panic!("three domains") };
    assert_eq!(
        (smt.flags, smt.imbalance_pct, smt.cache_nice_tries, smt.min_interval, smt.max_interval),
        (SMT, 110, 0, 2, 4)
    );
    assert_eq!(group_spans(smt), vec![CpuMask::of(0), CpuMask::of(1)]);
    assert_eq!(
        (mc.flags, mc.imbalance_pct, mc.cache_nice_tries, mc.min_interval, mc.max_interval),
        (MC, 117, 1, 8, 16)
    );
    assert_eq!(group_spans(mc), vec![mask(0..=1), mask(2..=3), mask(4..=5), mask(6..=7)]);
    // Built with CLS's flags; every CPU's attach, removing CLS, gave its first MC group SMT's.
    assert!(mc.groups.iter().all(|g| g.flags == SMT && g.cores == 1 && g.group_weight == 2));
    assert_eq!(mc.groups[2].balance_mask, mask(4..=5));
    assert_eq!(
        (numa.flags, numa.imbalance_pct, numa.cache_nice_tries, numa.min_interval, numa.max_interval),
        (NUMA_NEAR, 117, 2, 16, 32)
    );
    assert_eq!(group_spans(numa), vec![mask(0..=7), mask(8..=15)]);
    // The first group got MC's flags when NODE (its child when built) was removed; the other
    // keeps NODE's.
    assert_eq!((numa.groups[0].flags, numa.groups[1].flags), (MC, BASE));
    assert_eq!((numa.groups[1].balance_mask, numa.groups[1].sgc_id, numa.groups[1].cores), (mask(8..=15), 8, 4));
    // PKG (not LLC above the LLC MC): one LLC per node, 8 >> 3 = 1; NUMA: 1 × 16/16.
    assert_eq!((smt.imb_numa_nr, mc.imb_numa_nr, numa.imb_numa_nr), (0, 0, 1));
    let c = &t.cpus[9];
    assert_eq!((c.sd_llc, c.sd_llc_size, c.sd_llc_id, c.sd_share_id, c.sd_numa), (Some(1), 8, 8, 8, Some(2)));
}

#[test]
fn pkg_spans_the_node_in_6_18() {
    // tl_pkg_mask() is cpu_node_mask(): two packages in one node give one PKG domain over both.
    let t = two_sockets(0, vec![vec![10]]);
    assert_eq!(chain(&t, 0), vec![("SMT", 0, mask(0..=1)), ("MC", 2, mask(0..=7)), ("PKG", 3, mask(0..=15))]);
    let pkg = &t.cpus[0].domains[2];
    assert_eq!((pkg.flags, pkg.cache_nice_tries, pkg.min_interval, pkg.max_interval), (BASE, 1, 16, 32));
    assert_eq!(group_spans(pkg), vec![mask(0..=7), mask(8..=15)]);
    assert_eq!(pkg.imb_numa_nr, 2, "two LLCs under PKG");
    assert_eq!(t.cpus[0].sd_numa, None);
}

#[test]
fn numa_in_package_box() {
    // 2 packages × 2 nodes × 4 cores (own L2, one L3 per node). Same package 12, other 32; AMD's
    // node_reclaim_distance 32 keeps wake-affine at 32, the default 30 does not.
    let shape = HostShape {
        packages: 2,
        nodes_per_package: 2,
        llcs_per_node: 1,
        clusters_per_llc: 4,
        cores_per_cluster: 1,
        threads_per_core: 1,
    };
    let d = vec![vec![10, 12, 32, 32], vec![12, 10, 32, 32], vec![32, 32, 10, 12], vec![32, 32, 12, 10]];
    let host = Host::from_shape(shape, d);
    let t = Topology::build(&host).expect("builds");
    check_common(&t);
    // PKG is dropped (x86_has_numa_in_package). Built: CLS 0, MC 1, NODE 2, NUMA 3 (12), NUMA 4.
    assert_eq!(chain(&t, 5), vec![("MC", 1, mask(4..=7)), ("NUMA", 3, mask(0..=7)), ("NUMA", 4, mask(0..=15))]);
    let [mc, near, far] = &t.cpus[5].domains[..] else { panic!("three domains") };
    assert_eq!((mc.flags, near.flags, far.flags), (MC, NUMA_NEAR, NUMA_FAR));
    assert_eq!((near.cache_nice_tries, far.cache_nice_tries, near.min_interval, far.max_interval), (2, 2, 8, 32));
    assert_eq!(group_spans(near), vec![mask(4..=7), mask(0..=3)]);
    assert_eq!(group_spans(far), vec![mask(0..=7), mask(8..=15)]);
    assert_eq!((near.groups[0].flags, near.groups[1].flags, far.groups[1].flags), (MC, BASE, NUMA_NEAR));
    // NODE: one LLC per node, 4 >> 3 = 0 → 1, imb_span = the first NUMA domain's 8 CPUs.
    assert_eq!((mc.imb_numa_nr, near.imb_numa_nr, far.imb_numa_nr), (0, 1, 2));
    let c = &t.cpus[5];
    assert_eq!((c.sd_llc, c.sd_llc_size, c.sd_llc_id, c.sd_numa), (Some(0), 4, 4, Some(1)));
    let amd = Topology::build(&Host { node_reclaim_distance: 32, ..host }).expect("builds");
    assert_eq!(amd.cpus[5].domains[2].flags, NUMA_NEAR);
}

#[test]
fn diameter_three_line_matches_the_kernel_comment() {
    // build_overlap_sched_groups()'s comment: nodes 0 - 1 - 2 - 3 in a line, one CPU each.
    let shape = HostShape {
        packages: 4,
        nodes_per_package: 1,
        llcs_per_node: 1,
        clusters_per_llc: 1,
        cores_per_cluster: 1,
        threads_per_core: 1,
    };
    let d = (0..4i32).map(|a| (0..4i32).map(|b| 10 + 10 * (a - b).unsigned_abs()).collect()).collect();
    let t = Topology::build(&Host::from_shape(shape, d)).expect("builds");
    check_common(&t);
    // CLS 0, MC 1, PKG 2, NODE 3 span one CPU; NUMA-1 (20) 4, NUMA-2 (30) 5, NUMA-3 (40) 6.
    assert_eq!(chain(&t, 0), vec![("NUMA", 4, mask(0..=1)), ("NUMA", 5, mask(0..=2)), ("NUMA", 6, mask(0..=3))]);
    assert_eq!(chain(&t, 1), vec![("NUMA", 4, mask(0..=2)), ("NUMA", 5, mask(0..=3))]);
    assert_eq!(chain(&t, 3), vec![("NUMA", 4, mask(2..=3)), ("NUMA", 5, mask(1..=3)), ("NUMA", 6, mask(0..=3))]);
    let groups = |cpu: usize, i: usize| group_spans(&t.cpus[cpu].domains[i]);
    let m = CpuMask::of;
    assert_eq!(groups(0, 0), vec![m(0), m(1)]);
    assert_eq!(groups(1, 0), vec![m(1), m(2), m(0)]);
    assert_eq!(groups(2, 0), vec![m(2), m(3), m(1)]);
    assert_eq!(groups(1, 1), vec![mask(0..=2), mask(2..=3)]);
    assert_eq!(groups(0, 2), vec![mask(0..=2), mask(1..=3)]);
    assert_eq!(groups(3, 2), vec![mask(1..=3), mask(0..=2)]);
    // The comment's "buggered" NUMA-2 group of node 0 ({1-3}) is what find_descended_sibling()
    // fixes: CPU 2's NUMA-2 child spans outside 0-2, so its NODE domain makes the group.
    assert_eq!(groups(0, 1), vec![mask(0..=1), m(2)]);
    assert_eq!(t.cpus[0].domains[1].groups[1].balance_mask, m(2));
    let flags: Vec<u32> = t.cpus[0].domains.iter().map(|d| d.flags).collect();
    assert_eq!(flags, vec![NUMA_NEAR, NUMA_NEAR, NUMA_FAR], "30 is not beyond RECLAIM_DISTANCE");
}

#[test]
fn a_shared_l2_keeps_the_cls_level() {
    // 2 clusters of 2 cores sharing an L2, one LLC: CLS survives below MC.
    let shape = HostShape {
        packages: 1,
        nodes_per_package: 1,
        llcs_per_node: 1,
        clusters_per_llc: 2,
        cores_per_cluster: 2,
        threads_per_core: 1,
    };
    let t = Topology::build(&Host::from_shape(shape, vec![vec![10]])).expect("builds");
    check_common(&t);
    assert_eq!(chain(&t, 3), vec![("CLS", 0, mask(2..=3)), ("MC", 1, mask(0..=3))]);
    let [cls, mc] = &t.cpus[3].domains[..] else { panic!("two domains") };
    assert_eq!((cls.flags, cls.imbalance_pct, cls.cache_nice_tries, cls.shared_nr_busy_cpus), (CLS, 117, 1, Some(2)));
    assert_eq!(group_spans(cls), vec![CpuMask::of(3), CpuMask::of(2)]);
    assert_eq!(group_spans(mc), vec![mask(2..=3), mask(0..=1)]);
    assert!(mc.groups.iter().all(|g| g.flags == CLS && g.cores == 2));
    let c = &t.cpus[3];
    // sd_llc is the highest SD_SHARE_LLC domain; sd_share_id the lowest SD_CLUSTER one's first CPU.
    assert_eq!((c.sd_llc, c.sd_llc_size, c.sd_llc_id, c.sd_share_id), (Some(1), 4, 0, 2));
}

#[test]
fn bad_hosts_are_refused() {
    let mut host = Host::this_machine();
    host.cpus[1].llc = 1;
    host.cpus[1].cluster = 0; // CLS {0,1} but MC {0} / {1}: fine for spans, fixed up upward
    assert!(Topology::build(&host).is_ok());
    let mut host = Host::this_machine();
    host.node_distance = vec![vec![5]];
    assert_eq!(Topology::build(&host), Err(BuildError::InvalidDistance { from: 0, to: 0, distance: 5 }));
    let mut host = Host::this_machine();
    host.cpus[1].node = 3;
    assert_eq!(Topology::build(&host), Err(BuildError::NodeDistance { node: 3 }));
    // An asymmetric table: node 0's NODE mask holds node 1, node 1's does not.
    let mut host = Host::this_machine();
    host.cpus[1].node = 1;
    host.node_distance = vec![vec![10, 10], vec![20, 10]];
    assert_eq!(Topology::build(&host), Err(BuildError::SpanNotSane { level: "NODE" }));
    let host = Host { cpus: Vec::new(), ..Host::this_machine() };
    assert_eq!(Topology::build(&host), Err(BuildError::CpuCount(0)));
}

#[test]
fn hosts_beyond_64_cpus_build() {
    // Seed 002's scale: 384 CPUs, two sockets of 96 cores with 2 threads each, one node each.
    let shape = HostShape {
        packages: 2,
        nodes_per_package: 1,
        llcs_per_node: 1,
        clusters_per_llc: 96,
        cores_per_cluster: 1,
        threads_per_core: 2,
    };
    let t = Topology::build(&Host::from_shape(shape, vec![vec![10, 21], vec![21, 10]])).expect("builds");
    check_common(&t);
    assert_eq!(chain(&t, 0), vec![("SMT", 0, mask(0..=1)), ("MC", 2, mask(0..=191)), ("NUMA", 5, mask(0..=383))]);
    assert_eq!(
        chain(&t, 383),
        vec![("SMT", 0, mask(382..=383)), ("MC", 2, mask(192..=383)), ("NUMA", 5, mask(0..=383))]
    );
    assert_eq!((t.cpus[200].sd_llc_size, t.cpus[200].sd_llc_id), (192, 192));
    assert_eq!(mask(60..=70).iter_wrap(65).collect::<Vec<_>>(), [65, 66, 67, 68, 69, 70, 60, 61, 62, 63, 64]);
    assert_eq!((mask(60..=70).weight(), mask(60..=70).first()), (11, Some(60)));
    assert_eq!(format!("{:?}", CpuMask::of(64)), "0x1_0000000000000000");
    let too_many = HostShape { clusters_per_llc: 129, ..shape };
    assert!(Topology::build(&Host::from_shape(too_many, vec![vec![10, 21], vec![21, 10]])).is_err());
}
