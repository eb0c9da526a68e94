//! CFS bandwidth under both throttle implementations, with the invariant checker after every
//! event: the quota caps the group, throttles and unthrottles happen, and only the task-based
//! variant moves tasks to limbo lists.

#![allow(clippy::disallowed_methods)] // tests read scenario files

mod common;

use schedlab_engine::obs::log::EventKind;
use schedlab_engine::obs::summary::Summary;

fn run(mode: &str) -> (Summary, schedlab_engine::sim::Simulation) {
    let path = common::repo_root().join("scenarios/linux-6.18/bandwidth-30-of-100.toml");
    let mut sim = common::load(&path, &[("throttle", mode)]);
    sim.check_invariants = true;
    sim.run();
    (Summary::of(&sim), sim)
}

fn count(sim: &schedlab_engine::sim::Simulation, kind: EventKind) -> usize {
    sim.fair.log.events.kind.iter().filter(|&&k| k == kind as u8).count()
}

#[test]
fn both_throttle_implementations_cap_the_group() {
    for mode in ["task_based", "cfs_rq"] {
        let (s, sim) = run(mode);
        let group: f64 = s.tasks.iter().filter(|t| t.name != "k_c").map(|t| t.share_pct).sum();
        println!(
            "{mode}: group share {group:.2} %, throttles {}, unthrottles {}, limbo moves {}, distribute calls {}",
            count(&sim, EventKind::Throttle),
            count(&sim, EventKind::Unthrottle),
            count(&sim, EventKind::TaskThrottled),
            sim.fair.bw_stats.distribute_ns.len()
        );
        assert!((29.0..33.0).contains(&group), "{mode}: group share {group}");
        assert!(count(&sim, EventKind::Throttle) >= 10, "{mode}: too few throttles");
        assert!(count(&sim, EventKind::Unthrottle) >= 10, "{mode}: too few unthrottles");
        let limbo = count(&sim, EventKind::TaskThrottled);
        if mode == "task_based" {
            assert!(limbo >= 10, "task-based throttle moves tasks to limbo");
        } else {
            assert_eq!(limbo, 0, "the cfs_rq-based throttle has no limbo");
        }
    }
}

#[test]
fn the_two_implementations_differ_on_the_same_scenario() {
    let (a, _) = run("task_based");
    let (b, _) = run("cfs_rq");
    assert_ne!(a.digest, b.digest);
    let sw = |s: &Summary| s.tasks.iter().map(|t| t.switches_out).sum::<u64>();
    println!("switches: task_based {} cfs_rq {}", sw(&a), sw(&b));
    assert!(sw(&a) > sw(&b), "the task-based throttle adds the return-to-user hops");
}
