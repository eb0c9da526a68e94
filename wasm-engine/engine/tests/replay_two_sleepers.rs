//! Issue 16: `two-sleepers-and-hog` (k_s runs 300 µs and sleeps 700 µs, k_t runs 1000 µs and
//! sleeps 2000 µs, beside the hog k_h, all on CPU 1) captured eight more times on build v769
//! (`traces/linux-6.18-two-sleepers`): five quiet, three with the EEVDF dump running.
//!
//! The workload has two regimes (docs/kernel-6.18.44-findings.md, "two-sleepers-and-hog is
//! bistable"): phase-locked, k_s waking just after k_t and waiting for it, k_t near 28 %; and
//! broken, k_t preempted by k_s and lags of a millisecond, k_t near 22 %. The kernel's quiet
//! runs stay mostly locked (k_t 27.0-29.0 %); the dump's per-switch work tips it into the
//! broken one more often (22.5-24.2 %). The shadow re-simulation replays the sleepers' bursts by
//! the wall clock (`replay::shadow::wall_paced`) and the switch's gaps measured on the trace
//! (`host.wakeup_switch_latency`, `host.schedule_clock_lead`); which regime each run of it
//! falls into is a knife edge (`switch_clock.rs` shows the gap's part in a controlled run).
//! Nothing was fitted to these captures.
#![allow(clippy::disallowed_methods)] // reads trace files

mod common;

use schedlab_engine::replay::compare::{replay, ReplayReport};
use schedlab_engine::replay::observe::Observed;
use serde_json::Value;

const QUIET: [&str; 5] = ["quiet-1", "quiet-2", "quiet-3", "quiet-4", "quiet-5"];
const DUMP: [&str; 3] = ["dump-1", "dump-2", "dump-3"];

fn dir() -> std::path::PathBuf {
    common::traces().join("linux-6.18-two-sleepers")
}

fn run(capture: &str, variants: &[(&str, &str)]) -> (Observed, ReplayReport) {
    let kind = capture.split('-').next().expect("quiet or dump");
    let layout = common::layout_file(&dir().join(format!("{kind}.layout.toml")));
    let obs = common::observe_dat(&dir().join(capture).join("trace.dat"));
    let v: Vec<(String, String)> = variants.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
    let report = replay(&obs, &layout, capture, &v).unwrap_or_else(|e| panic!("{capture}: {e}")).1;
    (obs, report)
}

/// The model's share of the k_* CPU time minus the kernel's (`oracle.json`), per k_* task.
fn errors(capture: &str, r: &ReplayReport, oracle: &Value) -> Vec<(String, f64)> {
    let k: Vec<_> = r.tasks.iter().filter(|t| t.name.starts_with("k_")).collect();
    let total: u64 = k.iter().map(|t| t.simulated_ns).sum();
    k.iter()
        .map(|t| {
            let real = oracle[capture]["tasks"][&t.name]["share_pct"].as_f64().expect("in oracle.json");
            (t.name.clone(), 100.0 * t.simulated_ns as f64 / total as f64 - real)
        })
        .collect()
}

fn oracle() -> Value {
    let p = dir().join("oracle.json");
    serde_json::from_str(&std::fs::read_to_string(&p).expect("oracle.json")).expect("oracle.json parses")
}

fn k_t(errors: &[(String, f64)]) -> f64 {
    errors.iter().find(|(n, _)| n == "k_t").expect("k_t").1
}

#[test]
fn the_shadow_of_the_quiet_captures_keeps_k_ts_share() {
    let oracle = oracle();
    let (mut with, mut without) = (Vec::new(), Vec::new());
    for capture in QUIET {
        let (obs, r) = run(capture, &[]);
        // The gaps as this machine shows them (build v769, no probe): 7-9 us from a preempting
        // wakeup to its switch, about 1 us from a block's last record to its switch.
        let latency = obs.wakeup_switch_latency().expect("measured");
        let lead = obs.schedule_clock_lead().expect("measured");
        assert!((6_000..10_000).contains(&latency) && (500..2_000).contains(&lead), "{capture}: {latency} {lead}");
        let e = errors(capture, &r, &oracle);
        println!("{capture}: gaps {latency} ns / {lead} ns; model − real {e:.2?}");
        assert!(e.iter().all(|(_, d)| d.abs() < 4.0), "{capture}: {e:.2?}");
        with.push(k_t(&e));
        // The same shadow with the switch taking no time.
        let (_, r0) = run(capture, &[("wakeup_switch_latency", "0ns"), ("schedule_clock_lead", "0ns")]);
        let e0 = errors(capture, &r0, &oracle);
        println!("{capture}: without the gaps {e0:.2?}");
        without.push(k_t(&e0));
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    println!(
        "k_t, model − real, mean over the five: {:+.2} pp with the gaps, {:+.2} without",
        mean(&with),
        mean(&without)
    );
    // Before this shadow (the bursts as CPU time, the switch taking no time) the mean was
    // -4.12 pp; now -2.17, and -2.29 with the gaps set to 0: run by run, the regime decides.
    assert!(mean(&with).abs() < 2.5, "with the gaps: {with:.2?}");
}

#[test]
fn the_shadow_of_the_captures_with_the_dump_keeps_k_ts_share() {
    let oracle = oracle();
    for capture in DUMP {
        let (_, r) = run(capture, &[]);
        let e = errors(capture, &r, &oracle);
        println!("{capture}: model − real {e:.2?}");
        assert!(e.iter().all(|(_, d)| d.abs() < 1.5), "{capture}: {e:.2?}");
    }
}

/// The kernel's own spread over the eight captures: the quiet ones apart from those with the
/// dump, so that no single capture is the reference for k_t.
#[test]
fn the_kernel_spreads_with_and_without_the_dump() {
    let oracle = oracle();
    let share = |c: &str| oracle[c]["tasks"]["k_t"]["share_pct"].as_f64().unwrap();
    let quiet: Vec<f64> = QUIET.iter().map(|c| share(c)).collect();
    let dump: Vec<f64> = DUMP.iter().map(|c| share(c)).collect();
    println!("k_t: quiet {quiet:.2?}, with the dump {dump:.2?}");
    let (qmin, dmax) = (quiet.iter().cloned().fold(f64::MAX, f64::min), dump.iter().cloned().fold(0.0, f64::max));
    assert!(qmin > dmax + 2.0, "quiet {quiet:?} against dump {dump:?}");
}
