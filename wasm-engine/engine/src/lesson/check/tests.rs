//! Lesson validation and fact checking on small scenarios: SMP facts validated and located,
//! and checked against runs.

use super::*;
use crate::lesson::facts::*;
use crate::lesson::Step;
use crate::obs::summary::Summary;

/// Three hogs free on two CPUs (the start of `linux-6.18-smp/three-hogs-two-cpus`), and a
/// pipe pair beside a hog: periodic balancing, exec balancing, sync wakeups.
const HOGS: &str = r#"
version = 1
name = "three-hogs"
duration = "300ms"
[kernel]
smp = "fair"
[host]
cpus = 2
hz = 250
[[tasks]]
name = "k_a"
parent_cpu = 0
start = "2.416ms"
program = [{ run = "forever" }]
[[tasks]]
name = "k_b"
parent_cpu = 0
start = "2.623ms"
program = [{ run = "forever" }]
[[tasks]]
name = "k_c"
parent_cpu = 0
start = "4.616ms"
program = [{ run = "forever" }]
"#;

const PIPE: &str = r#"
version = 1
name = "pipe"
duration = "20ms"
[kernel]
smp = "fair"
[host]
cpus = 2
hz = 250
[[tasks]]
name = "k_p"
parent_cpu = 0
start = "2.733ms"
program = [{ pipe = { peer = "k_q", work = "55.92us" } }]
[[tasks]]
name = "k_q"
parent_cpu = 1
start = "4.955ms"
program = [{ pipe = { peer = "k_p", work = "55.92us", first = true } }]
[[tasks]]
name = "k_h"
parent_cpu = 0
start = "3.226ms"
program = [{ run = "forever" }]
"#;

fn run(text: &str) -> Simulation {
    let (_, mut sim) = crate::load("t.toml", text, &[]).expect("loads");
    sim.run();
    sim
}

fn expect(json: &str) -> Expect {
    serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {json}"))
}

fn check(sim: &Simulation, e: &Expect, at: u64, range: (u64, u64)) -> Vec<String> {
    let runs = [("baseline".to_string(), sim)];
    check_expect(e, &Context { runs: &runs, variant: "baseline", at, cpu: 0, range })
}

const MS: u64 = 1_000_000;

#[test]
fn on_cpu_is_task_cpu_at_the_instant() {
    let sim = run(HOGS);
    // Periodic balancing pulled k_a to CPU 1 at 144 ms; k_b went there at its exec.
    let e = expect(
        r#"{"on_cpu": [{"task": "k_a", "cpu": 0, "at": "100ms"}, {"task": "k_a", "cpu": 1}, {"task": "k_b", "cpu": 1}, {"task": "k_c", "cpu": 0}]}"#,
    );
    assert_eq!(check(&sim, &e, 150 * MS, (0, 300 * MS)), Vec::<String>::new());
    let e = expect(r#"{"on_cpu": [{"task": "k_a", "cpu": 0}]}"#);
    assert_eq!(
        check(&sim, &e, 150 * MS, (0, 300 * MS)),
        vec!["k_a is on cpu 1 at 150000000 ns, not cpu 0".to_string()]
    );
    let e = expect(r#"{"on_cpu": [{"task": "k_c", "cpu": 0}]}"#);
    assert_eq!(check(&sim, &e, MS, (0, 300 * MS)), vec!["k_c: no state at 1000000 ns".to_string()]);
    // A sleeping task is on the CPU it will be woken from.
    let pipe = run(PIPE);
    let e = expect(r#"{"on_cpu": [{"task": "k_p", "cpu": 1}, {"task": "k_q", "cpu": 1}, {"task": "k_h", "cpu": 0}]}"#);
    assert_eq!(check(&pipe, &e, 8 * MS, (0, 20 * MS)), Vec::<String>::new());
}

#[test]
fn cpu_time_per_cpu_and_in_all() {
    let sim = run(HOGS);
    let summary = Summary::of(&sim).to_json();
    let on = |c| cpu_time_pct(&summary, "k_a", c).expect("k_a");
    assert!((on(Some(0)) + on(Some(1)) - on(None)).abs() < 1e-9);
    let e = expect(
        r#"{"cpu_time": [{"task": "k_a", "min_pct": 40, "max_pct": 60}, {"task": "k_a", "cpu": 1, "min_pct": 10, "max_pct": 60}]}"#,
    );
    assert_eq!(check(&sim, &e, 0, (0, 300 * MS)), Vec::<String>::new());
    let e = expect(r#"{"cpu_time": [{"task": "k_a", "cpu": 1, "min_pct": 90, "max_pct": 100}]}"#);
    let f = check(&sim, &e, 0, (0, 300 * MS));
    assert_eq!(f.len(), 1);
    assert!(f[0].starts_with("k_a ran ") && f[0].ends_with(" % of the run on cpu 1, outside [90, 100]"), "{f:?}");
    assert!(cpu_time_pct(&summary, "k_a", Some(2)).is_none());
}

#[test]
fn migrations_by_task_class_and_range() {
    let sim = run(HOGS);
    let e = expect(
        r#"{"migrations": [{"class": "exec", "task": "k_b", "min": 1, "max": 1},
            {"task": "k_a", "class": "periodic", "range": ["140ms", "150ms"], "min": 1, "max": 1},
            {"class": "wake", "min": 0, "max": 0}]}"#,
    );
    assert_eq!(check(&sim, &e, 0, (0, 300 * MS)), Vec::<String>::new());
    let e = expect(r#"{"migrations": [{"task": "k_a", "class": "periodic", "min": 0, "max": 0}]}"#);
    let f = check(&sim, &e, 0, (0, 200 * MS));
    assert_eq!(f, vec!["k_a migrations (periodic) in [0, 200000000) ns: 1, outside [0, 0]".to_string()]);
}

#[test]
fn placements_by_rule_affine_and_cpu() {
    let sim = run(PIPE);
    // k_q's first write wakes k_p (WF_SYNC): wake_affine_idle() takes the waker's CPU 1.
    let e = expect(
        r#"{"placements": [{"task": "k_p", "affine": "idle", "cpu": 1, "range": ["5ms", "5.1ms"], "min": 1, "max": 1},
            {"rule": "target_busy", "cpu": 1, "range": ["5.1ms", "12ms"], "min": 100, "max": 200},
            {"cpu": 0, "range": ["5.1ms", "12ms"], "min": 0, "max": 0}],
          "counts": [{"kind": "wakeup", "task": "k_p", "val": 16, "range": ["5ms", "5.1ms"], "min": 1, "max": 1}]}"#,
    );
    assert_eq!(check(&sim, &e, 0, (0, 20 * MS)), Vec::<String>::new());
    let e = expect(r#"{"placements": [{"task": "k_p", "rule": "idle_scan", "min": 1, "max": 9}]}"#);
    let f = check(&sim, &e, 0, (0, 20 * MS));
    assert_eq!(f, vec!["k_p placements (rule idle_scan) in [0, 20000000) ns: 0, outside [1, 9]".to_string()]);
}

#[test]
fn smp_facts_are_validated_and_located() {
    let sim = run(HOGS);
    let names = Names::of(&sim);
    let step: Step = serde_json::from_str(
        r#"{"title": "T", "text": ["x"], "range": ["0ms", "100ms"], "at": "50ms", "question": "q",
            "expect": {"on_cpu": [{"task": "/", "cpu": 0}, {"task": "k_a", "cpu": 2, "at": "5 ms"}],
                       "cpu_time": [{"task": "k_z", "min_pct": 5, "max_pct": 1}],
                       "migrations": [{"class": "sideways", "range": ["50ms", "200ms"], "min": 0, "max": 1}],
                       "placements": [{"rule": "somewhere", "affine": "maybe", "cpu": 7, "min": 0, "max": 1}]}}"#,
    )
    .expect("parses");
    let ok = |_: &[(String, String)]| Ok(());
    let errs = validate_step("l", 0, &step, &names, 300 * MS, 2, &ok).join("\n");
    for want in [
        "l step 1 (T): expect: \"k_z\" is no task or cgroup of the scenario",
        "on_cpu at: \"5 ms\": expected a number and a unit",
        "on_cpu/cpu_time name tasks, not cgroups (\"/\")",
        "expect: cpu 2 does not exist (the scenario has 2)",
        "expect: cpu 7 does not exist",
        "cpu_time of k_z: min_pct is above max_pct",
        "unknown migration class \"sideways\" (wake, periodic, newidle, nohz, active, affinity, exec)",
        "unknown placement rule \"somewhere\"",
        "unknown wake_affine part \"maybe\" (none, idle, weight, prev)",
        "count range [50ms, 200ms] must be two increasing times within the step's range",
    ] {
        assert!(errs.contains(want), "missing {want:?} in\n{errs}");
    }
    // A fact list alone is a fact.
    let only: Step = serde_json::from_str(
        r#"{"title": "T", "text": ["x"], "range": ["0ms", "100ms"], "at": "50ms", "question": "q",
            "expect": {"on_cpu": [{"task": "k_a", "cpu": 0}]}}"#,
    )
    .expect("parses");
    assert_eq!(validate_step("l", 0, &only, &names, 300 * MS, 2, &ok), Vec::<String>::new());
}
