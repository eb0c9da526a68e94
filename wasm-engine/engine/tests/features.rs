//! Every scheduler feature knob is wired: flipping it changes the run of a scenario that
//! exercises it. PLACE_REL_DEADLINE is the exception until migration of queued tasks (load
//! balancing) and reweighting exist: the engine has no non-sleep dequeue that re-enqueues.
//! PICK_BUDDY only matters once something sets a next buddy; until yield_to and cgroups
//! exist that is NEXT_BUDDY, so it is flipped on top of NEXT_BUDDY=true. The placement and
//! balancing features (`SMP_FEATURES`) only act under `smp = "fair"` with tasks free to
//! move; they are flipped on an SMP scenario in `smp_features_change_the_run`.

#![allow(clippy::disallowed_methods)] // tests read fixture files

mod common;

use schedlab_engine::sched::features::SchedFeatures;

const MIXED: &str = include_str!("fixtures/features-mixed.toml");

fn digest(variants: &[(String, String)]) -> u64 {
    let (_, mut sim) = schedlab_engine::load("features-mixed", MIXED, variants).expect("valid");
    sim.check_invariants = true;
    sim.run();
    sim.fair.log.digest()
}

/// The features read only by wakeup placement and load balancing.
const SMP_FEATURES: [&str; 7] =
    ["CACHE_HOT_BUDDY", "SIS_UTIL", "LB_MIN", "WA_IDLE", "WA_WEIGHT", "WA_BIAS", "NI_RANDOM"];

#[test]
fn each_feature_changes_the_run() {
    let base = digest(&[]);
    let defaults = SchedFeatures::default();
    let mut unchanged = Vec::new();
    for name in SchedFeatures::NAMES.into_iter().filter(|n| !SMP_FEATURES.contains(n)) {
        let flipped = !defaults.get(name).expect("known");
        let d = digest(&[(name.to_string(), flipped.to_string())]);
        println!("{name}={flipped}: digest {d:016x} (default {base:016x})");
        if d == base {
            unchanged.push(name);
        }
    }
    assert_eq!(unchanged, vec!["PLACE_REL_DEADLINE", "PICK_BUDDY"], "features whose flip changed nothing");
    let nb = [("NEXT_BUDDY".to_string(), "true".to_string())];
    let nb_no_pick = [nb[0].clone(), ("PICK_BUDDY".to_string(), "false".to_string())];
    assert_ne!(digest(&nb), digest(&nb_no_pick), "PICK_BUDDY must matter once NEXT_BUDDY sets buddies");
}

/// An SMP fixture: a sleeper pinned to CPU 1 and two unpinned hogs on two CPUs: CPU 1 goes
/// newly idle next to an overloaded CPU 0.
const SMP_FIXTURE: &str = r#"
version = 1
name = "smp-features"
seed = 1
duration = "600ms"
[host]
cpus = 2
hz = 250
[kernel]
smp = "fair"
[[tasks]]
name = "s"
affinity = [1]
program = [{ loop = { body = [{ run = "20ms" }, { sleep = "2ms" }] } }]
[[tasks]]
name = "h1"
affinity = [0, 1]
program = [{ run = "forever" }]
[[tasks]]
name = "h2"
affinity = [0, 1]
program = [{ run = "forever" }]
"#;

fn smp_digest(variants: &[(String, String)]) -> u64 {
    let (_, mut sim) = schedlab_engine::load("smp-features", SMP_FIXTURE, variants).expect("valid");
    sim.check_invariants = true;
    sim.run();
    sim.fair.log.digest()
}

/// The balancing features act under `smp = "fair"`: NI_RANDOM changes this run. Not yet
/// exercised here: CACHE_HOT_BUDDY (needs a next buddy on the source queue, i.e. NEXT_BUDDY
/// or yield_to, when a balance looks at it), LB_MIN (needs a task whose `task_h_load()` is
/// below 16, a SCHED_IDLE task or a deep cgroup, with `nr_balance_failed` 0), and WA_IDLE,
/// WA_WEIGHT, WA_BIAS (they act only on wakeups from another CPU, `wake_affine()`, which
/// need a cross-CPU waker: the pipe step being written elsewhere).
#[test]
fn smp_features_change_the_run() {
    let base = smp_digest(&[]);
    let flipped = !SchedFeatures::default().get("NI_RANDOM").expect("known");
    let d = smp_digest(&[("NI_RANDOM".to_string(), flipped.to_string())]);
    println!("NI_RANDOM={flipped}: digest {d:016x} (default {base:016x})");
    assert_ne!(d, base, "NI_RANDOM changes the SMP run");
    // wake_affine() runs at cross-CPU wakeups: a pipe pair beside hogs, with 6.18.y stable's
    // placement (the machine's vcpu_pack block would take most sync wakeups first).
    let base = pipe_digest(&[]);
    let off = |n: &str| (n.to_string(), "false".to_string());
    let d = pipe_digest(&[off("WA_IDLE")]);
    println!("WA_IDLE=false: digest {d:016x} (default {base:016x})");
    assert_ne!(d, base, "WA_IDLE changes a run with cross-CPU sync wakeups");
    // Not yet exercised: CACHE_HOT_BUDDY, LB_MIN (see the doc comment), WA_WEIGHT and WA_BIAS:
    // in this fixture, even with WA_IDLE off, wake_affine_weight() never finds the waker's CPU
    // lighter (the pair mostly shares a CPU, where wake_affine() is not asked), so flipping
    // them changes nothing; `tests/select.rs` checks wake_affine_weight() directly.
    println!("not yet exercised: CACHE_HOT_BUDDY, LB_MIN, WA_WEIGHT, WA_BIAS");
}

/// A pipe pair and three hogs, all free on three CPUs, under stable's placement.
const PIPE_FIXTURE: &str = r#"
version = 1
name = "smp-pipe-features"
seed = 1
duration = "400ms"
[host]
cpus = 3
hz = 250
[kernel]
smp = "fair"
vcpu_pack = "6.18"
[[tasks]]
name = "p"
program = [{ pipe = { peer = "q", work = "200us", first = true } }]
[[tasks]]
name = "q"
program = [{ pipe = { peer = "p", work = "150us" } }]
[[tasks]]
name = "h1"
program = [{ run = "forever" }]
[[tasks]]
name = "h2"
program = [{ loop = { body = [{ run = "3ms" }, { sleep = "1ms" }] } }]
[[tasks]]
name = "h3"
nice = 3
program = [{ run = "forever" }]
"#;

fn pipe_digest(variants: &[(String, String)]) -> u64 {
    let (_, mut sim) = schedlab_engine::load("smp-pipe-features", PIPE_FIXTURE, variants).expect("valid");
    sim.check_invariants = true;
    sim.run();
    sim.fair.log.digest()
}
