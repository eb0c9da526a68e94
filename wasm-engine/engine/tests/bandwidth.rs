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

#[test]
fn cgroup_v2_cpu_max_equals_v1_quota_and_period() {
    let path = common::repo_root().join("scenarios/linux-6.18/bandwidth-30-of-100.toml");
    let v1 = std::fs::read_to_string(&path).expect("scenario");
    let v2 = v1.replace("quota = \"30ms\"\nperiod = \"100ms\"", "max = \"30000 100000\"");
    assert_ne!(v1, v2);
    let digest = |text: &str| {
        let (_, mut sim) = schedlab_engine::load("t.toml", text, &[]).unwrap_or_else(|e| panic!("{e}"));
        sim.run();
        sim.fair.log.digest()
    };
    assert_eq!(digest(&v1), digest(&v2));
    use schedlab_engine::scenario::load::parse_cpu_max;
    assert_eq!(parse_cpu_max("max 100000"), Ok((None, 100_000_000)));
    assert_eq!(parse_cpu_max("50000"), Ok((Some(50_000_000), 100_000_000)));
    assert!(parse_cpu_max("fifty").is_err());
    let bad = v1.replace("quota = \"30ms\"\nperiod = \"100ms\"", "max = \"30000 100000 7\"");
    let Err(e) = schedlab_engine::load("bad.toml", &bad, &[]) else {
        panic!("cpu.max with three fields must be rejected")
    };
    assert!(e.contains("cpu.max"), "{e}");
}
