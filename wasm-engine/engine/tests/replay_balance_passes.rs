//! Issue 18: every periodic balance pass the kernel ran, asked of the model in the real state.
//! The four `traces/linux-6.18-smp-balance` captures (build v769) carry, beside each trace, a
//! dump of every SCHED softirq with its CPU's `nr_balance_failed` and `balance_interval` before
//! and after (`tools/capture/schedlab-balance.bt`, `schedlab replay --balance`,
//! `replay::decisions::passes`), and a dump of both CPUs' root averages
//! (`schedlab-cpu-avg.bt`). Nothing here was fitted to these captures: the dumps are the
//! kernel's state, read, and each outcome scored is the model's pass.
#![allow(clippy::disallowed_methods)] // reads trace files

mod common;

use schedlab_engine::import::balance::{self, BalancePassRecord};
use schedlab_engine::import::cpu_avg;
use schedlab_engine::replay::compare::{replay, ReplayReport};
use schedlab_engine::replay::decisions::{BalancePassReport, PassOutcome};
use schedlab_engine::replay::observe::Observed;

const CAPTURES: [&str; 4] =
    ["three-hogs-two-cpus-1", "three-hogs-two-cpus-2", "three-hogs-two-cpus-3", "nice-imbalance-smp-1"];

fn dir() -> std::path::PathBuf {
    common::traces().join("linux-6.18-smp-balance")
}

fn read(capture: &str, file: &str) -> (String, String) {
    let p = dir().join(capture).join(file);
    let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    (p.display().to_string(), text)
}

fn passes(capture: &str) -> Vec<BalancePassRecord> {
    let (file, text) = read(capture, "balance.txt");
    balance::passes(&balance::parse(&file, &text).unwrap_or_else(|e| panic!("{e}")))
}

fn observe(capture: &str, passes: Vec<BalancePassRecord>, kernel_averages: bool) -> Observed {
    let mut obs = common::observe_dat(&dir().join(capture).join("trace.dat"));
    obs.balance = Some(passes);
    if kernel_averages {
        let (file, text) = read(capture, "cpu-avg.txt");
        obs.cpu_avg = cpu_avg::parse(&file, &text).unwrap_or_else(|e| panic!("{e}"));
    }
    obs
}

fn run(capture: &str, passes: Vec<BalancePassRecord>, kernel_averages: bool) -> ReplayReport {
    let layout = common::layout_file(&dir().join(format!("{capture}.layout.toml")));
    replay(&observe(capture, passes, kernel_averages), &layout, capture, &[])
        .unwrap_or_else(|e| panic!("{capture}: {e}"))
        .1
}

fn report(r: &ReplayReport) -> &BalancePassReport {
    r.decisions.balance_passes.as_ref().expect("a dump was given")
}

/// Each dump lines up with its trace (a busy pass finds its tick's record just before it), and
/// its passes are what the kernel's balancer does on two CPUs of one MC domain (min 2 ms, max
/// 4 ms): a failed pass sets the interval to its minimum, a balanced one doubles it, a move
/// clears the failures. Moved by 24.65 ms (the `local` clock against `mono` on this VM), a
/// dump is refused and changes nothing.
#[test]
fn the_dumps_are_on_the_traces_clock_and_read_as_the_balancer_runs() {
    for capture in CAPTURES {
        let p = passes(capture);
        let r = run(capture, p.clone(), false);
        let b = report(&r);
        println!("{capture}: {} passes, {} inside the trace, {} scored", b.passes, b.in_trace, b.scored);
        assert!(b.used && b.in_trace >= 50 && b.scored == b.in_trace, "{capture}: {b:?}");
        for x in &p {
            let outcome = PassOutcome::of(x.failed, x.interval, 2, 4);
            assert_ne!(outcome, PassOutcome::Other, "{capture}: {x:?}");
        }
        // A kernel pass that moved is one the trace shows: a pass moves at least one task, and
        // each balance migration scored is one pass's (or one of a pass's) or a newidle pull's.
        let moved = b.outcomes.iter().filter(|o| o.kernel == PassOutcome::Moved).map(|o| o.count).sum::<u64>();
        let pulls = r.decisions.placements.balance_migrations;
        println!("  {moved} passes moved, {pulls} balance migrations scored");
        assert!(moved > 0 && moved <= pulls, "{capture}: {moved} passes moved, {pulls} balance migrations");
    }
    let capture = "nice-imbalance-smp-1";
    let moved: Vec<BalancePassRecord> = passes(capture)
        .into_iter()
        .map(|p| BalancePassRecord { entry_ns: p.entry_ns + 24_650_000, exit_ns: p.exit_ns + 24_650_000, ..p })
        .collect();
    let off = run(capture, moved, false);
    assert!(!report(&off).used && report(&off).scored == 0, "{:?}", report(&off));
    // A dump whose softirqs hold no pass reports that it holds none; no dump, no report.
    let empty = run(capture, Vec::new(), false);
    assert!(!report(&empty).used && report(&empty).passes == 0, "{:?}", report(&empty));
    let layout = common::layout_file(&dir().join(format!("{capture}.layout.toml")));
    let mut obs = observe(capture, Vec::new(), false);
    obs.balance = None;
    let none = replay(&obs, &layout, capture, &[]).unwrap_or_else(|e| panic!("{capture}: {e}")).1;
    assert!(none.decisions.balance_passes.is_none());
    assert_eq!(off.decisions.agreed, none.decisions.agreed);
    assert_eq!(empty.decisions.agreed, none.decisions.agreed);
}

/// The model, given each pass's `nr_balance_failed` and `balance_interval` and the replay's
/// state of that moment, reaches the kernel's outcome (balanced, failed, moved) at most
/// passes; at the kernel's root averages (`--cpu-avg`) at more. Measured 2026-11-27 (the floors
/// are those figures): 234 of 257 on the model's own averages (222 before the replay re-weighed
/// group entities at the tick records, `clock::tick_section`), 246 at the kernel's; the model's
/// `nr_running` was the kernel's at 240. What is left: the VM's agent (`memfd:sealed-91`, on the
/// root cfs_rq) that the model still held delay-dequeued where the kernel's `nr_running` says
/// it had it off the queue, which keeps the lone hog's CPU from looking idle enough; and on the
/// model's own averages the lone hog's CPU found balanced where the kernel failed (its
/// utilization just below the 875 of `group_has_capacity()` with `imbalance_pct` 117), or a pass
/// that failed on a task too heavy for the imbalance.
#[test]
fn each_pass_as_the_kernel_ran_it() {
    let (mut own, mut kernel, mut scored, mut same_nr) = (0, 0, 0, 0);
    for capture in CAPTURES {
        let a = run(capture, passes(capture), false);
        let b = run(capture, passes(capture), true);
        let (a, b) = (report(&a), report(&b));
        println!(
            "{capture}: own averages {}/{} ({:.1} %), the kernel's {}/{} ({:.1} %); nr_running as the kernel's at {}",
            a.agreed, a.scored, a.agreement_pct, b.agreed, b.scored, b.agreement_pct, a.same_nr_running
        );
        for d in &a.first_disagreements {
            println!(
                "  {:>9.3} ms cpu {}: kernel {:?}, model {:?}: {}",
                d.t as f64 / 1e6,
                d.cpu,
                d.kernel,
                d.model,
                d.why
            );
        }
        assert_eq!(a.scored, b.scored);
        assert!(b.agreed >= a.agreed, "{capture}: the kernel's averages lost passes");
        own += a.agreed;
        kernel += b.agreed;
        scored += a.scored;
        same_nr += a.same_nr_running;
    }
    println!("all: own averages {own}/{scored}, the kernel's {kernel}/{scored}, nr_running {same_nr}/{scored}");
    assert_eq!(scored, 257);
    assert!(own >= 234, "on the model's own averages: {own}/{scored}");
    assert!(kernel >= 246, "at the kernel's averages: {kernel}/{scored}");
    assert!(same_nr >= 240, "nr_running: {same_nr}/{scored}");
}
