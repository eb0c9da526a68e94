//! Every scheduler feature knob is wired: flipping it changes the run of a scenario that
//! exercises it. PLACE_REL_DEADLINE is the exception until migration of queued tasks (load
//! balancing) and reweighting exist: the engine has no non-sleep dequeue that re-enqueues.
//! PICK_BUDDY only matters once something sets a next buddy; until yield_to and cgroups
//! exist that is NEXT_BUDDY, so it is flipped on top of NEXT_BUDDY=true. The placement and
//! balancing features (`SMP_FEATURES`) only act under `smp = "fair"` with tasks free to
//! move; they are flipped on SMP scenarios in `smp_features_change_the_run` (NI_RANDOM,
//! WA_IDLE) and `placement_and_balancing_features_change_their_runs` (WA_WEIGHT, WA_BIAS,
//! LB_MIN, CACHE_HOT_BUDDY); SIS_UTIL in `tests/select.rs`.

#![allow(clippy::disallowed_methods)] // tests read fixture files

mod common;

use schedlab_engine::obs::log::EventKind;
use schedlab_engine::obs::summary::Summary;
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

/// The balancing features act under `smp = "fair"`: NI_RANDOM changes this run, WA_IDLE a
/// pipe pair's; the other five in `placement_and_balancing_features_change_their_runs`.
#[test]
fn smp_features_change_the_run() {
    let base = run_fixture("smp-features", SMP_FIXTURE, &[]).fair.log.digest();
    let flipped = !SchedFeatures::default().get("NI_RANDOM").expect("known");
    let d = run_fixture("smp-features", SMP_FIXTURE, &[("NI_RANDOM", &flipped.to_string())]).fair.log.digest();
    println!("NI_RANDOM={flipped}: digest {d:016x} (default {base:016x})");
    assert_ne!(d, base, "NI_RANDOM changes the SMP run");
    // wake_affine() runs at cross-CPU wakeups: a pipe pair beside hogs, with 6.18.y stable's
    // placement (the machine's vcpu_pack block would take most sync wakeups first).
    let base = run_fixture("smp-pipe-features", PIPE_FIXTURE, &[]).fair.log.digest();
    let d = run_fixture("smp-pipe-features", PIPE_FIXTURE, &[("WA_IDLE", "false")]).fair.log.digest();
    println!("WA_IDLE=false: digest {d:016x} (default {base:016x})");
    assert_ne!(d, base, "WA_IDLE changes a run with cross-CPU sync wakeups");
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
program = [{ pipe = { peer = "q", work = "500us", first = true } }]
[[tasks]]
name = "q"
program = [{ pipe = { peer = "p", work = "100us" } }]
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

/// A waker pinned to CPU 1 wakes `s` (free) every 10 ms, not sync, from beside a hog; `s`
/// starts on CPU 0, beside an equal hog. Both CPUs busy, so `wake_affine_idle()` has no
/// answer and `wake_affine_weight()` decides: with WA_BIAS the previous CPU's load counts
/// 8 % more (`imbalance_pct` 117), which outweighs `s`'s own small load on the waker's side,
/// so `s` moves to CPU 1 (once: after that its previous CPU is the waker's).
const WAKE_AFFINE_FIXTURE: &str = r#"
version = 1
name = "smp-wake-affine"
seed = 1
duration = "400ms"
[host]
cpus = 2
hz = 250
[kernel]
smp = "fair"
vcpu_pack = "6.18"
[[tasks]]
name = "w"
affinity = [1]
program = [{ loop = { body = [{ run = "50us" }, { wake = { task = "s" } }, { sleep = "10ms" }] } }]
[[tasks]]
name = "s"
program = [{ loop = { body = [{ wait_wakeup = 1 }, { run = "100us" }] } }]
[[tasks]]
name = "h0"
affinity = [0]
program = [{ run = "forever" }]
[[tasks]]
name = "h1"
affinity = [1]
program = [{ run = "forever" }]
"#;

/// Three hogs pinned to CPU 0, two to CPU 1, and a free hog `i` in a cgroup of
/// `cpu.shares` 2 (MIN_SHARES): both CPUs overloaded, so the balance is by load
/// (`migrate_load`), and `i`'s `task_h_load()` is far below 16.
const LB_MIN_FIXTURE: &str = r#"
version = 1
name = "smp-lb-min"
seed = 1
duration = "400ms"
[host]
cpus = 2
hz = 250
[kernel]
smp = "fair"
vcpu_pack = "6.18"
[[cgroups]]
path = "/tiny"
shares = 2
[[tasks]]
name = "i"
cgroup = "/tiny"
program = [{ run = "forever" }]
[[tasks]]
name = "a"
affinity = [0]
program = [{ run = "forever" }]
[[tasks]]
name = "b"
affinity = [0]
program = [{ run = "forever" }]
[[tasks]]
name = "e"
affinity = [0]
program = [{ run = "forever" }]
[[tasks]]
name = "c"
affinity = [1]
program = [{ run = "forever" }]
[[tasks]]
name = "d"
affinity = [1]
program = [{ run = "forever" }]
"#;

/// Three free sleepers beside pinned hogs (one on CPU 0, two on CPU 1), under 6.18.y
/// stable's `check_preempt_wakeup_fair()` with NEXT_BUDDY on: every non-fork wakeup makes the
/// wakee its queue's next buddy before the preemption test, so a wakee that does not preempt
/// waits queued as the buddy, and a balance pass from the busy CPU finds it cache hot. (The
/// machine's 6.19 shape sets the buddy only for a wakee that preempts, which then runs at
/// once: there the flip changes nothing in this fixture.)
const CACHE_HOT_BUDDY_FIXTURE: &str = r#"
version = 1
name = "smp-cache-hot-buddy"
seed = 1
duration = "1s"
[host]
cpus = 2
hz = 250
[kernel]
smp = "fair"
vcpu_pack = "6.18"
wakeup_preempt = "6.18"
features = { NEXT_BUDDY = true }
[[tasks]]
name = "s1"
program = [{ loop = { body = [{ run = "300us" }, { sleep = "700us" }] } }]
[[tasks]]
name = "s2"
program = [{ loop = { body = [{ run = "500us" }, { sleep = "900us" }] } }]
[[tasks]]
name = "s3"
program = [{ loop = { body = [{ run = "200us" }, { sleep = "1300us" }] } }]
[[tasks]]
name = "h0"
affinity = [0]
program = [{ run = "forever" }]
[[tasks]]
name = "h1"
affinity = [1]
program = [{ run = "forever" }]
[[tasks]]
name = "h2"
affinity = [1]
program = [{ run = "forever" }]
"#;

fn run_fixture(name: &str, text: &str, variants: &[(&str, &str)]) -> schedlab_engine::sim::Simulation {
    let v: Vec<(String, String)> = variants.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
    let (_, mut sim) = schedlab_engine::load(name, text, &v).expect("valid");
    sim.check_invariants = true;
    sim.run();
    sim
}

/// Per task: (name, migrations).
fn migrations(sim: &schedlab_engine::sim::Simulation) -> Vec<(String, u64)> {
    Summary::of(sim).tasks.iter().map(|t| (t.name.clone(), t.migrations)).collect()
}

/// Issue 17: WA_WEIGHT, WA_BIAS, LB_MIN and CACHE_HOT_BUDDY each change a run, where the
/// mechanism they gate is reached (fixtures above).
#[test]
fn placement_and_balancing_features_change_their_runs() {
    // wake_affine_weight(): s moves to the waker's CPU once by default; without WA_WEIGHT the
    // weight test is never asked, without WA_BIAS the previous CPU's load is not raised and
    // wins: s stays on CPU 0.
    let base = run_fixture("wa", WAKE_AFFINE_FIXTURE, &[]);
    let s = |sim: &schedlab_engine::sim::Simulation| {
        let sum = Summary::of(sim);
        let t = sum.tasks.iter().find(|t| t.name == "s").unwrap().clone();
        (t.migrations, t.cpu_time_ns_by_cpu.clone())
    };
    println!("wake affine, default: s {:?}", s(&base));
    assert_eq!(s(&base).0, 1, "s moves to the waker's CPU once");
    assert!(s(&base).1[1] > 0);
    for f in ["WA_WEIGHT", "WA_BIAS"] {
        let off = run_fixture("wa", WAKE_AFFINE_FIXTURE, &[(f, "false")]);
        println!("wake affine, {f}=false: s {:?}", s(&off));
        assert_ne!(off.fair.log.digest(), base.fair.log.digest(), "{f}");
        assert_eq!((s(&off).0, s(&off).1[1]), (0, 0), "{f}=false: s stays on its previous CPU");
    }
    // LB_MIN: the first load-balance pass that reaches i (nr_balance_failed 0) skips it for
    // its load below 16; the default pulls it.
    let base = run_fixture("lb", LB_MIN_FIXTURE, &[]);
    let on = run_fixture("lb", LB_MIN_FIXTURE, &[("LB_MIN", "true")]);
    println!("LB_MIN default {:?}, on {:?}", migrations(&base), migrations(&on));
    assert_ne!(on.fair.log.digest(), base.fair.log.digest(), "LB_MIN");
    // The pass that would have pulled i at once refuses it (a Balance row keeps only its last
    // refusal, a pinned hog's here), the pass after it (nr_balance_failed 1) pulls it.
    let first_move = |sim: &schedlab_engine::sim::Simulation| {
        let e = &sim.fair.log.events;
        (0..e.t.len()).find(|&i| e.kind[i] == EventKind::Migrate as u8 && e.task[i] == 0).map(|i| e.t[i])
    };
    let (t_base, t_on) = (first_move(&base).expect("i pulled"), first_move(&on).expect("i pulled"));
    println!("LB_MIN: i first pulled at {t_base} ns by default, at {t_on} ns with LB_MIN");
    assert!(t_on > t_base, "LB_MIN delays the pull: {t_base} → {t_on}");
    // CACHE_HOT_BUDDY: the sleepers' migrations differ once the buddy no longer counts as hot.
    let base = run_fixture("chb", CACHE_HOT_BUDDY_FIXTURE, &[]);
    let off = run_fixture("chb", CACHE_HOT_BUDDY_FIXTURE, &[("CACHE_HOT_BUDDY", "false")]);
    println!("CACHE_HOT_BUDDY default {:?}, off {:?}", migrations(&base), migrations(&off));
    assert_ne!(off.fair.log.digest(), base.fair.log.digest(), "CACHE_HOT_BUDDY");
    assert_ne!(migrations(&off), migrations(&base));
}
