//! Christian Borntraeger's counter ping-pong (seed 001) in the model: two vCPUs sharing one
//! host CPU, diag 0x9c directed yields. The thread reports ≈ 10 hypercalls per hand-off with
//! debooster v1's rate limit and exactly 1 without it; the model gives 1 per hand-off either
//! way (the buddy hands the CPU to the counter holder at once) and the rate limit only decides
//! how many penalties land. This test pins that prediction.

#![allow(clippy::disallowed_methods)] // tests read scenario files

mod common;

use schedlab_engine::obs::summary::Summary;
use schedlab_engine::scenario::variants;

fn run(variant: &str, extra: &[(&str, &str)]) -> Summary {
    let path = common::repo_root().join("scenarios/kvm/borntraeger-pingpong.toml");
    let mut o: Vec<(&str, &str)> = variants::find(variant).expect("variant").overrides.to_vec();
    o.extend_from_slice(extra);
    let mut sim = common::load(&path, &o);
    sim.run();
    Summary::of(&sim)
}

#[test]
fn one_hypercall_per_handoff_whatever_the_rate_limit() {
    for base in [&[][..], &[("yield", "deadline_bump")][..]] {
        for v in ["debooster-v1", "debooster-v1-nolimit"] {
            let s = run(v, base);
            let calls: u64 = s.tasks.iter().map(|t| t.yield_to_calls).sum();
            let handoffs = 20_000.0;
            println!(
                "{v} {base:?}: {calls} hypercalls for 20000 hand-offs ({:.3} per hand-off), {} penalties",
                calls as f64 / handoffs,
                s.yield_to[1]
            );
            assert!((0.95..1.05).contains(&(calls as f64 / handoffs)), "{v}: {calls}");
            if v == "debooster-v1" {
                assert!(s.yield_to[1] <= 1, "v1's limiter refreshed on every call lets one penalty through");
            } else {
                assert!(s.yield_to[1] as f64 > 0.9 * handoffs, "without the limiter nearly every yield is penalised");
            }
        }
    }
}

#[test]
fn lock_holder_preemption_triggers_ple_exits_and_directed_yields() {
    let path = common::repo_root().join("scenarios/kvm/lock-holder-preemption.toml");
    let run = |v: &[(&str, &str)]| {
        let mut sim = common::load(&path, v);
        sim.check_invariants = true;
        sim.run();
        (Summary::of(&sim), sim.kvm.directed_yields)
    };
    let (bug, dy_bug) = run(&[]);
    let (fixed, dy_fixed) = run(&[("kvm_on_spin", "fixed")]);
    let ple = |s: &Summary| s.tasks.iter().map(|t| t.ple_exits).sum::<u64>();
    let locks = |s: &Summary| s.tasks.iter().map(|t| t.guest_locks).sum::<u64>();
    println!(
        "lock-holder preemption: mainline {} PLE exits, {dy_bug} directed yields, {} locks; fixed {} PLE exits, {dy_fixed} directed yields, {} locks",
        ple(&bug),
        locks(&bug),
        ple(&fixed),
        locks(&fixed)
    );
    assert!(ple(&bug) > 10 && dy_bug > 10, "holders get preempted, waiters exit and yield");
    assert!(locks(&bug) > 1000);
    assert_ne!(bug.digest, fixed.digest, "the last_boosted_vcpu fix changes which vCPU is boosted");
}
