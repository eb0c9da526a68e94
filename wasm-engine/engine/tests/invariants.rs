//! The invariant checker is real: it passes on a live run and catches each kind of
//! corruption it claims to check.

#![allow(clippy::disallowed_methods)] // tests read and write fixture files

mod common;

use schedlab_engine::check::check;
use schedlab_engine::sim::Simulation;

fn live() -> Simulation {
    let path = common::repo_root().join("scenarios/gallery/late-arrival-lag.toml");
    let mut sim = common::load(&path, &[]);
    sim.check_invariants = true;
    sim.run_until(60_000_000);
    check(&sim).expect("a live run satisfies every invariant");
    sim
}

fn assert_caught(what: &str, corrupt: impl FnOnce(&mut Simulation)) {
    let mut sim = live();
    corrupt(&mut sim);
    let err = check(&sim).expect_err(what);
    println!("{what}: {err}");
}

#[test]
fn checker_catches_corruption() {
    assert_caught("sum_weight drift", |s| s.fair.qs[0].sum_weight += 1);
    assert_caught("sum_w_vruntime drift", |s| s.fair.qs[0].sum_w_vruntime += 1024);
    assert_caught("load drift", |s| s.fair.qs[0].load_weight -= 1);
    assert_caught("nr_queued drift", |s| s.fair.qs[0].nr_queued += 1);
    // Skewing zero_vruntime without rebasing the sums moves V: Σ w·lag is no longer 0 (the
    // sums check, which runs first, reports it as the sums no longer matching the keys).
    assert_caught("zero_vruntime skew", |s| {
        s.fair.qs[0].zero_vruntime = s.fair.qs[0].zero_vruntime.wrapping_add(10_000_000);
    });
    assert_caught("entity on two queues", |s| {
        let id = s.fair.qs[0].timeline[0];
        s.fair.qs[0].timeline.push(id);
    });
    assert_caught("on_rq mismatch", |s| {
        let id = s.fair.qs[0].timeline[0];
        s.fair.ents[id as usize].on_rq = false;
    });
    assert_caught("nr_running drift", |s| s.fair.rqs[0].nr_running += 1);
    assert_caught("runtime conservation", |s| s.cpus[0].idle_ns += 1);
    assert_caught("unsorted timeline", |s| {
        let q = &mut s.fair.qs[0];
        if q.timeline.len() >= 2 {
            q.timeline.swap(0, 1);
        }
        let (a, b) = (q.timeline[0], q.timeline[1]);
        let ents = &mut s.fair.ents;
        let (da, db) = (ents[a as usize].deadline, ents[b as usize].deadline);
        if da == db {
            ents[a as usize].deadline = da + 1;
        }
    });
}

#[test]
fn checker_catches_pelt_sums_that_drift_from_their_entities() {
    // Under `smp = "fair"` with movable tasks, PELT is tracked: a cfs_rq's averages must equal
    // its attached entities' (aged to its last update) within rounding.
    let live = || {
        let path = common::repo_root().join("scenarios/linux-6.18-smp/three-hogs-two-cpus.toml");
        let mut sim = common::load(&path, &[]);
        sim.check_invariants = true;
        sim.run_until(300_000_000);
        assert!(sim.fair.pelt(), "this scenario tracks PELT");
        check(&sim).expect("a live run satisfies every invariant");
        sim
    };
    let root = |s: &Simulation| (0..s.fair.qs.len()).find(|&q| s.fair.qs[q].avg.load_avg > 0).expect("a loaded cfs_rq");
    let mut sim = live();
    let q = root(&sim);
    // A drift of the averages and of the sums they come from (the check compares the averages
    // of the sums: `*_avg` alone is recomputed only at period boundaries).
    let div = |a: &schedlab_engine::sched::pelt::SchedAvg| u64::from(schedlab_engine::sched::pelt::get_pelt_divider(a));
    let d = div(&sim.fair.qs[q].avg);
    sim.fair.qs[q].avg.util_avg += 100;
    sim.fair.qs[q].avg.util_sum += (100 * d) as u32;
    let err = check(&sim).expect_err("util drift");
    assert!(err.contains("util_avg"), "{err}");
    let mut sim = live();
    let q = root(&sim);
    let e = (0..sim.fair.ents.len())
        .find(|&e| sim.fair.ents[e].cfs_rq as usize == q && sim.fair.ents[e].avg.last_update_time != 0);
    let e = e.expect("an attached entity");
    let (d, w) = (div(&sim.fair.ents[e].avg), sim.fair.ents[e].load.weight >> 10);
    sim.fair.ents[e].avg.load_avg += 300;
    sim.fair.ents[e].avg.load_sum += 300 * d / w;
    let err = check(&sim).expect_err("an entity's load drift");
    assert!(err.contains("load_avg"), "{err}");
}

/// `online_fair_sched_group()` → `attach_entity_cfs_rq()`: a group entity is attached to its
/// parent, empty, before any load below it propagates up, so a group's load reaches the root
/// cfs_rq once. The engine used to attach it at its first enqueue, after the first propagation
/// had already added its child's load to the root: the root then carried that load twice. In
/// `cgroup-shares-smp` the root cfs_rq of k_a's CPU holds only /sl_A's and /sl_B's group
/// entities, and its `load_avg` must be their sum (the PELT-sum invariant checks queues of
/// group entities for load and util, which fails on the old attach).
#[test]
fn group_entities_are_attached_before_their_load_propagates() {
    let path = common::repo_root().join("scenarios/linux-6.18-smp/cgroup-shares-smp.toml");
    let mut sim = common::load(&path, &[]);
    sim.check_invariants = true;
    sim.run_until(60_000_000);
    let f = &sim.fair;
    for cpu in 0..f.rqs.len() {
        let root = &f.qs[f.rqs[cpu].cfs as usize];
        let groups: u64 =
            (1..f.tgs.len()).filter_map(|tg| f.tgs[tg].se[cpu]).map(|se| f.ents[se as usize].avg.load_avg).sum();
        println!("cpu {cpu}: root load_avg {} = group entities' {groups}", root.avg.load_avg);
        assert!(root.avg.load_avg.abs_diff(groups) <= 8, "cpu {cpu}: root {} vs groups {groups}", root.avg.load_avg);
    }
}
