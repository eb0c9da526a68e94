//! What the bpftrace dump costs the workload it watches (`traces/linux-6.18-bpftrace-cost`):
//! sleeper-vs-hog captured four times on the same machine within a minute, alternately with
//! `capture.sh`'s bpftrace dump running and without it (`NO_BPF=1`). The sleeper's CPU time
//! per period (one 300 µs spin, one `nanosleep()`) is higher with the dump running: its probe
//! on `sched_switch` runs inside `__schedule()` at every switch.
//!
//! `scenarios/linux-6.18/sleeper-vs-hog.toml` was calibrated on a capture made with the dump
//! running (39.7 µs per period after the spin); the SMP captures (`traces/linux-6.18-smp`) were
//! made without it. `scenarios/linux-6.18-smp/sleepers-and-hogs-smp.toml` therefore charges
//! 39.7 µs less the dump's cost measured here. This test recomputes that cost from the
//! captures and holds the mirror's constant to it, so that neither moves without the other.
//! (Calibration arithmetic, not evidence: the evidence is `fidelity_smp.rs`'s k_s and k_t.)

#![allow(clippy::disallowed_methods)] // reads trace files

mod common;

use schedlab_engine::import::dat::decode_all;
use schedlab_engine::import::metrics::{window_metrics, MetricsWindow};
use schedlab_engine::import::timeline::TraceTimeline;
use schedlab_engine::import::TraceStore;

/// sleeper-vs-hog's calibrated CPU time per period after the spin (µs), bpftrace running.
const CALIBRATED_WITH_DUMP_US: f64 = 39.7;

/// k_s's CPU time per period (µs) in one capture: its CPU time ÷ the periods it printed.
fn per_period_us(capture: &str) -> f64 {
    let dir = common::traces().join("linux-6.18-bpftrace-cost").join(capture);
    let bytes = std::fs::read(dir.join("trace.dat")).expect("trace.dat");
    let mut store = TraceStore::new();
    decode_all(&bytes, &mut store).expect("decode");
    let tl = TraceTimeline::build(&store);
    let m = window_metrics(&store, &tl, &MetricsWindow::all());
    let cpu_ns: u64 = m.tasks.iter().filter(|t| t.comm == "k_s").map(|t| t.cpu_ns).sum();
    let workload = std::fs::read_to_string(dir.join("workload.txt")).expect("workload.txt");
    let periods: f64 = workload
        .split_whitespace()
        .find_map(|w| w.strip_prefix("periods="))
        .and_then(|n| n.parse().ok())
        .expect("workload.txt prints k_s periods=N");
    cpu_ns as f64 / 1e3 / periods
}

/// The `run` step after the spin in the SMP mirror's k_s program (µs).
fn mirror_constant_us() -> f64 {
    let path = common::repo_root().join("scenarios/linux-6.18-smp/sleepers-and-hogs-smp.toml");
    let text = std::fs::read_to_string(path).expect("mirror");
    let line = text.lines().find(|l| l.contains("spin = \"300us\"")).expect("k_s's program");
    let run = line.split("run = \"").nth(1).and_then(|r| r.split("us\"").next()).expect("a run step in us");
    run.parse().expect("a number")
}

#[test]
fn the_bpftrace_dump_costs_the_sleeper_cpu_time_per_period() {
    let with: Vec<f64> = ["sleeper-vs-hog-bpf-1", "sleeper-vs-hog-bpf-2"].map(per_period_us).to_vec();
    let without: Vec<f64> = ["sleeper-vs-hog-nobpf-1", "sleeper-vs-hog-nobpf-2"].map(per_period_us).to_vec();
    println!("k_s CPU per period, dump running: {with:.2?} µs; without: {without:.2?} µs");
    // Every capture with the dump costs more than every capture without it.
    let (min_with, max_without) =
        (with.iter().copied().fold(f64::MAX, f64::min), without.iter().copied().fold(0.0, f64::max));
    assert!(min_with > max_without + 10.0, "the dump's cost is not visible: {with:?} vs {without:?}");
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let cost = mean(&with) - mean(&without);
    let expected = CALIBRATED_WITH_DUMP_US - cost;
    let mirror = mirror_constant_us();
    println!("the dump's cost: {cost:.2} µs per period; the SMP mirror's k_s: 39.7 − {cost:.2} = {expected:.2} µs (file: {mirror} µs)");
    assert!(
        (mirror - expected).abs() <= 0.1,
        "sleepers-and-hogs-smp.toml charges {mirror} µs, the captures give {expected:.2}"
    );
}
