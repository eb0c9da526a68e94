//! The yield_to proposals against the claims of the vCPU-debooster thread (seed 001), with
//! the invariant checker after every event. Printed with `--nocapture`.

#![allow(clippy::disallowed_methods)] // tests read scenario files

mod common;

use schedlab_engine::obs::summary::Summary;
use schedlab_engine::scenario::variants;

fn run(scenario: &str, variant: &str) -> Summary {
    let path = common::repo_root().join(format!("scenarios/yield/{scenario}.toml"));
    let v = variants::find(variant).expect("known variant");
    let mut sim = common::load(&path, v.overrides);
    sim.check_invariants = true;
    sim.run();
    Summary::of(&sim)
}

fn share(s: &Summary, task: &str) -> f64 {
    s.tasks.iter().find(|t| t.name == task).expect("task").share_pct
}

#[test]
fn cross_cgroup_yield_to_only_moves_cpu_when_the_group_level_moves() {
    // Topology 1: root → {CG0{A}, CG1{B}}. Mainline's buddy + task-level forfeit leaves the
    // root level fair between CG0 and CG1: A keeps ~50 % however often it yields.
    let base = run("prateek-topology-1", "baseline");
    let hier = run("prateek-topology-1", "hier-yield");
    let v2 = run("prateek-topology-1", "debooster-v2");
    println!(
        "topology 1, B's share: baseline {:.1} %, hier-yield {:.1} %, debooster-v2 {:.1} %",
        share(&base, "B"),
        share(&hier, "B"),
        share(&v2, "B")
    );
    assert!((share(&base, "B") - 50.0).abs() < 2.0);
    assert!(share(&hier, "B") > share(&base, "B") + 10.0, "the hierarchical walk pushes CG0 too");
    assert!(share(&v2, "B") > share(&base, "B") + 5.0, "the LCA penalty pushes CG0");
}

#[test]
fn the_debooster_charges_the_bystander_and_the_hierarchical_yield_does_not() {
    // Topology 2: root → {CG0{A, C}, CG1{B}}: C is in A's cgroup but unrelated.
    let base = share(&run("prateek-topology-2", "baseline"), "C");
    for v in ["debooster-v1", "debooster-v2"] {
        let c = share(&run("prateek-topology-2", v), "C");
        println!("topology 2, C's share: baseline {base:.1} %, {v} {c:.1} %");
        assert!(c < base - 5.0, "{v}: C should lose CPU to the LCA penalty ({c} vs {base})");
    }
    let c = share(&run("prateek-topology-2", "hier-yield"), "C");
    println!("topology 2, C's share: hier-yield {c:.1} %");
    assert!((c - base).abs() < 1.0, "the hierarchical walk stops inside CG0 because C is runnable");
}

#[test]
fn v1_rate_limit_suppresses_almost_every_penalty_v2_allows_one_per_6ms() {
    let v1 = run("ping-pong", "debooster-v1");
    let v2 = run("ping-pong", "debooster-v2");
    println!(
        "ping-pong: v1 penalties {}/{} calls ({} limited), v2 {}/{} ({} limited, {} debounced)",
        v1.yield_to.penalties,
        v1.yield_to.calls,
        v1.yield_to.rate_limited,
        v2.yield_to.penalties,
        v2.yield_to.calls,
        v2.yield_to.rate_limited,
        v2.yield_to.debounced
    );
    assert!(v1.yield_to.calls > 100);
    assert_eq!(v1.yield_to.penalties, 1, "v1 refreshes the timestamp on every call: only the first penalty lands");
    // 120 ms / 6 ms = 20 windows.
    assert!(
        (12..=21).contains(&v2.yield_to.penalties),
        "v2: about one penalty per 6 ms, got {}",
        v2.yield_to.penalties
    );
}

#[test]
fn yield_throttling_keeps_yields_from_reaching_schedule() {
    let path = common::repo_root().join("scenarios/gallery/yield-vs-hog.toml");
    let mut sim = common::load(&path, &[("yield_interval", "50us")]);
    sim.check_invariants = true;
    sim.run();
    let s = Summary::of(&sim);
    let y = s.tasks.iter().find(|t| t.name == "yielder").expect("yielder");
    println!("yield-vs-hog with yield_interval 50us: {} yields, {} reached schedule()", y.yields, y.yields_scheduled);
    assert!(y.yields_scheduled < y.yields);
    let mut base = common::load(&path, &[]);
    base.run();
    let b = Summary::of(&base);
    let by = b.tasks.iter().find(|t| t.name == "yielder").expect("yielder");
    assert_eq!(by.yields, by.yields_scheduled, "mainline: every sched_yield() calls schedule()");
}

/// Seed 000: with the profiling timer on, ~80 % of CPU time in the cputimer atomic add;
/// with yield_interval_ns = 10000, 1–2 %, and ~60 % fewer yields reaching schedule().
///
/// Calibrated: `per_contender_ns` (25 ns, `cost/cputimer.rs`) was fitted so that the unthrottled
/// figure comes out near the seed's ~80 %, so that figure is not evidence; it is held within 5 %
/// of 80 only to show the calibration still holds. Predicted (nothing fitted to them): the
/// throttled share and how many fewer yields reach schedule(). The throttled share is held to
/// 0.5–4 %, wider than the seed's 1–2 %; the model's 2.21 % lies just outside the seed's range,
/// and the test says so.
#[test]
fn yield_storm_reproduces_seed_000() {
    let path = common::repo_root().join("scenarios/yield/yield-storm.toml");
    let run = |v: &[(&str, &str)]| {
        let mut sim = common::load(&path, v);
        sim.run();
        Summary::of(&sim)
    };
    let base = run(&[]);
    let thr = run(&[("yield_interval", "10us")]);
    let reached = |s: &Summary| s.tasks.iter().map(|t| t.yields_scheduled).sum::<u64>() as f64;
    let fewer = 100.0 * (1.0 - reached(&thr) / reached(&base));
    let throttled = thr.cputimer_pct();
    println!("yield storm, calibrated (per_contender_ns fitted to it; not evidence):");
    println!("  atomic share unthrottled {:.1} % (seed ~80 %)", base.cputimer_pct());
    println!("yield storm, predicted:");
    println!(
        "  atomic share with yield_interval 10 us {throttled:.2} % (seed 1–2 %: {})",
        if (1.0..=2.0).contains(&throttled) {
            "inside".to_string()
        } else {
            format!("outside by {:.2} pp", if throttled > 2.0 { throttled - 2.0 } else { 1.0 - throttled })
        }
    );
    println!("  yields reaching schedule() {fewer:.1} % fewer (seed ~60 %)");
    assert!((base.cputimer_pct() - 80.0).abs() <= 0.05 * 80.0, "calibration: {:.2} %", base.cputimer_pct());
    assert!((0.5..4.0).contains(&throttled));
    assert!((45.0..75.0).contains(&fewer));
}
