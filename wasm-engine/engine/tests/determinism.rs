//! Determinism: the same scenario and seed give the same event-log digest, run after run,
//! in one call or in many `run_until` steps, and the digest of a fixed mixed scenario is a
//! committed constant (the wasm build is held to the same constant by the bindings' test).

#![allow(clippy::disallowed_methods)] // tests read and write fixture files

mod common;

const MIXED: &str = r#"
version = 1
name = "determinism-mixed"
seed = 7
duration = "400ms"
[host]
cpus = 4
hz = 1000
[[tasks]]
name = "hog-a"
nice = -3
program = [{ run = "forever" }]
[[tasks]]
name = "hog-b"
affinity = [0, 1]
program = [{ run = "forever" }]
[[tasks]]
name = "sleeper"
slice = "300us"
program = [{ loop = { body = [{ spin = "700us" }, { sleep = "1.3ms" }] } }]
[[tasks]]
name = "yielder"
affinity = [1]
program = [{ loop = { body = [{ run = "20us" }, { sched_yield = 1 }] } }]
[[tasks]]
name = "periodic"
nice = 5
start = "13ms"
stop = "350ms"
program = [{ periodic = { run = "2ms", period = "5ms" } }]
[[tasks]]
name = "batch"
policy = "batch"
affinity = [2]
program = [{ loop = { times = 40, body = [{ run = "3ms" }, { sleep = "1ms" }] } }]
[[tasks]]
name = "idle-pol"
policy = "idle"
affinity = [2]
program = [{ run = "forever" }]
"#;

/// The committed digest of MIXED (update it only for an intended model change).
const MIXED_DIGEST: &str = include_str!("fixtures/determinism-mixed.digest");

fn digest_of(steps: &[u64]) -> (String, usize) {
    let (_, mut sim) = schedlab_engine::load("mixed", MIXED, &[]).expect("valid");
    sim.check_invariants = true;
    for &t in steps {
        sim.run_until(t);
    }
    sim.run();
    (format!("{:016x}", sim.fair.log.digest()), sim.fair.log.len())
}

#[test]
fn same_seed_same_digest() {
    let (a, n) = digest_of(&[]);
    let (b, _) = digest_of(&[]);
    assert_eq!(a, b);
    assert!(n > 1000, "the mixed scenario should produce a rich log, got {n} rows");
    let (c, _) = digest_of(&[1, 999_999, 50_000_000, 123_456_789]);
    assert_eq!(a, c, "stepping with run_until must not change the result");
}

#[test]
fn digest_matches_committed_constant() {
    let (d, _) = digest_of(&[]);
    if std::env::var("UPDATE_EXPECT").is_ok_and(|v| v == "1") {
        let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/determinism-mixed.digest");
        std::fs::write(p, format!("{d}\n")).expect("write digest");
        return;
    }
    assert_eq!(d, MIXED_DIGEST.trim(), "refresh with UPDATE_EXPECT=1 cargo test -p schedlab-engine --test determinism");
}

#[test]
fn different_variant_different_digest() {
    let (_, mut a) = schedlab_engine::load("mixed", MIXED, &[]).expect("valid");
    let (_, mut b) = schedlab_engine::load("mixed", MIXED, &[("RUN_TO_PARITY".into(), "false".into())]).expect("valid");
    a.run();
    b.run();
    assert_ne!(a.fair.log.digest(), b.fair.log.digest());
}
