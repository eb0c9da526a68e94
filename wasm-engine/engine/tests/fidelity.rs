//! Fidelity against the real Linux 6.18.44 kernel: the `scenarios/linux-6.18/*` mirrors of the
//! captures in `traces/linux-6.18` against the measured per-task figures of
//! `traces/linux-6.18/oracle.json`.
//!
//! Every checked figure is labelled (the constants are listed in `docs/calibration.md`):
//! * **calibrated**: a model constant was fitted to this same figure of this same capture, so it
//!   agrees by construction. It is not evidence; it is held to 1 % only to show the calibration
//!   still holds.
//! * **predicted**: nothing was fitted to it, so agreement is evidence: CPU share within 1.0
//!   percentage point, mean run length within 15 %, yields within 25 %, sleeper periods within
//!   10 % (relative tolerances for figures that are small: yield-vs-hog's 0.84 % share is held to
//!   25 % of itself, not to ±1 point, which it could not miss).
//! * **open** (a predicted figure the model misses, printed and not checked): each names what the
//!   capture shows and the model lacks; `docs/kernel-6.18.44-findings.md` has the measurements.
//!   They are the work left, not evidence either way.
//!
//! Shares are among the oracle's `k_*` tasks, as `oracle.py` computes them: the later mirrors
//! also run the background tasks their capture shows on CPU 1 (`vm_agent_*`).
//!
//! A predicted figure that follows from another one (the second share of a two-task window; a
//! count that is a share divided by a calibrated cost) is marked with what it follows from; when
//! it could not fail on its own it is printed, not checked. The weight rests on the independent
//! predicted figures. `cargo test -p schedlab-engine --test fidelity -- --nocapture` prints the
//! calibrated and the predicted figures in two tables.

#![allow(clippy::disallowed_methods)] // tests read fixture files

mod common;

use schedlab_engine::obs::summary::Summary;
use serde_json::Value;

fn oracle() -> Value {
    let text = std::fs::read_to_string(common::traces().join("linux-6.18/oracle.json")).expect("oracle.json");
    serde_json::from_str(&text).expect("oracle.json parses")
}

const EXPERIMENTS: [&str; 9] = [
    "nice-0-vs-2",
    "cgroup-shares",
    "yield-vs-hog",
    "bandwidth-30-of-100",
    "sleeper-vs-hog",
    "yield-in-cgroup",
    "late-nice7-hog",
    "two-sleepers-and-hog",
    "yield-in-cgroup-staggered",
];

/// Why a figure agrees with the capture.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Label {
    /// A constant of the model (or of the mirror scenario) was fitted to this figure.
    Calibrated { from: &'static str },
    /// Nothing was fitted to it.
    Predicted,
}

/// How close the model must come.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Tol {
    /// Within this many percentage points.
    Points(f64),
    /// Within this fraction of the real figure.
    Relative(f64),
    /// Printed, not checked: it follows from a figure checked in the same table and cannot fail
    /// on its own.
    Follows,
    /// Printed, not checked: a prediction the model misses, for the reason given (what the
    /// capture shows that the model does not have).
    Open(&'static str),
}

/// One figure of one task: the capture's, the model's, and how it is judged.
#[derive(Debug)]
struct Check {
    experiment: &'static str,
    task: String,
    figure: &'static str,
    real: f64,
    sim: f64,
    tol: Tol,
    label: Label,
    /// The figure it follows from, when it is not independent.
    follows: Option<&'static str>,
}

impl Check {
    fn ok(&self) -> bool {
        match self.tol {
            Tol::Points(pp) => (self.sim - self.real).abs() <= pp,
            Tol::Relative(f) => (self.sim - self.real).abs() <= f * self.real.abs(),
            Tol::Follows | Tol::Open(_) => true,
        }
    }

    fn open(&self) -> bool {
        matches!(self.tol, Tol::Open(_))
    }

    fn line(&self) -> String {
        let diff = if self.figure == "share %" && !matches!(self.tol, Tol::Relative(_)) {
            format!("{:+.2} pp", self.sim - self.real)
        } else {
            format!("{:+.1} %", 100.0 * (self.sim - self.real) / self.real)
        };
        let tol = match self.tol {
            Tol::Points(pp) => format!("±{pp} pp"),
            Tol::Relative(f) => format!("±{} %", 100.0 * f),
            Tol::Follows => "not checked".to_string(),
            Tol::Open(_) => "OPEN".to_string(),
        };
        let mut l = format!(
            "{:<20} {:<4} {:<16} real {:>10.4} sim {:>10.4} ({diff:>9}, {tol:<11}) {}",
            self.experiment,
            self.task,
            self.figure,
            self.real,
            self.sim,
            if self.open() {
                "open"
            } else if self.ok() {
                "ok"
            } else {
                "FAILS"
            }
        );
        if let Label::Calibrated { from } = self.label {
            l.push_str(&format!("\n{:>26}fitted to: {from}", ""));
        }
        if let Some(f) = self.follows {
            l.push_str(&format!("\n{:>26}follows from: {f}", ""));
        }
        if let Tol::Open(why) = self.tol {
            l.push_str(&format!("\n{:>26}open: {why}", ""));
        }
        l
    }
}

/// The calibrations of the mirrors (`docs/calibration.md`).
const YIELD_RUN: &str = "yield-vs-hog: k_y's 12.625 ms of CPU / 1064 yields = 11.87 us per loop (its `run` step)";
const SLEEPER_RUN: &str = "sleeper-vs-hog: k_s's 458.94 ms of CPU / 1351 periods = 339.7 us per period, less the \
                           300 us spin = its `run = 39.7us` step; k_s is never preempted, so one period is one run";

/// Why the open figures are open (the measurements are in `docs/kernel-6.18.44-findings.md`).
const YIELD_IN_CGROUP_YIELDS: &str = "694 of the 1225 real yields fall in 0.6 ms of k_y's loop before k_h arrived: \
     with no other task in sl_Y a yield does not switch (alone on the CPU, then while sl_Y's group entity kept the \
     CPU) and costs ~0.8 us, where the model charges every iteration the 11.87 us average of yield-vs-hog (whose \
     turns are a ~28 us switch-in plus ~0.35 us per further yield). From k_h's arrival to the first exit: 531 \
     real, 531 model";
const YIELD_IN_CGROUP_RUN: &str = "k_y's CPU per turn on the CPU is the machine's switch-in cost: ~29 us in this \
     capture (14-30 us in repeat captures of this VM), 2.8 x 11.87 = 33 us in the model";
const LATE_NICE7_KC_RUN: &str = "9 of k_c's 40 real switch-outs go to tasks the mirror leaves out or has only \
     as periodic agents (rcu_preempt 4, one-off threads 3, the VM's agents 2); the model has 35";
/// What else a reader of an experiment's figures must know: a constant measured on the same
/// capture that the figures do not follow from.
const NOTES: [(&str, &str); 1] = [(
    "bandwidth-30-of-100",
    "RETURN_TO_USER_NS (27 us) was measured on this capture: the median run of its 30 tasks picked through a \
     throttled hierarchy. It sets the length of those ~30 runs (~0.8 ms of the 1,527 ms window: at most \
     ~0.05 pp of a share, ~0.2 % of a mean run), not the figures of this capture, which stay predictions",
)];

fn print_notes(experiment: &str) {
    for (_, note) in NOTES.iter().filter(|(e, _)| *e == experiment) {
        println!("  note ({experiment}): {note}");
    }
}

/// The label, tolerance and dependence of one figure of one experiment's task. Defaults:
/// predicted, share ±1 pp, mean run ±15 %, yields ±25 %, periods ±10 %.
fn judge(experiment: &str, task: &str, figure: &str) -> (Label, Tol, Option<&'static str>) {
    use Label::*;
    match (experiment, task, figure) {
        // Two-task windows: the second share is 100 % minus the first.
        ("nice-0-vs-2", "k_b", "share %") => (Predicted, Tol::Follows, Some("100 - k_a's share (two tasks)")),
        ("yield-vs-hog", "k_h", "share %") => (Predicted, Tol::Follows, Some("100 - k_y's share (two tasks)")),
        ("sleeper-vs-hog", "k_h", "share %") => (Predicted, Tol::Follows, Some("100 - k_s's share (two tasks)")),
        // yield-vs-hog: the cost of one loop is fitted; how often and how long k_y gets the CPU is not.
        ("yield-vs-hog", "k_y", "CPU per yield ms") => (Calibrated { from: YIELD_RUN }, Tol::Relative(0.01), None),
        ("yield-vs-hog", "k_y", "share %") => {
            (Predicted, Tol::Relative(0.25), Some("k_y's yields x 11.87 us (calibrated) / window: the yields' figure"))
        }
        // sleeper-vs-hog: k_s's run per period is fitted; the period (sleep, slack, wakeup wait) is not.
        ("sleeper-vs-hog", "k_s", "mean run ms") => (Calibrated { from: SLEEPER_RUN }, Tol::Relative(0.01), None),
        ("sleeper-vs-hog", "k_s", "periods") => {
            (Predicted, Tol::Relative(0.10), Some("k_s's share x window / 339.7 us (calibrated): the share's figure"))
        }
        ("sleeper-vs-hog", "k_h", "mean run ms") => (
            Predicted,
            Tol::Relative(0.15),
            Some("k_s's share s: k_h leaves the CPU once per k_s period, so its run is (100 - s) / s x 339.7 us"),
        ),
        // yield-in-cgroup: k_y reuses yield-vs-hog's 11.87 us per loop; nothing is fitted here.
        ("yield-in-cgroup", "k_y", "share %") => (Predicted, Tol::Relative(0.25), None),
        ("yield-in-cgroup", "k_y", "yields") => (Predicted, Tol::Open(YIELD_IN_CGROUP_YIELDS), None),
        ("yield-in-cgroup", "k_y", "CPU per yield ms") => {
            (Predicted, Tol::Follows, Some("k_y's CPU time (its share, checked) / its yields (open)"))
        }
        ("yield-in-cgroup", "k_y", "mean run ms") => (Predicted, Tol::Open(YIELD_IN_CGROUP_RUN), None),
        // yield-in-cgroup-staggered: k_y reuses the v669 repeat of yield-vs-hog's 6.76 us per loop
        // (`yield_in_cgroup_staggered_reuses_the_v669_yield_cost`); nothing is fitted here.
        ("yield-in-cgroup-staggered", "k_y", "share %") => (Predicted, Tol::Relative(0.25), None),
        ("yield-in-cgroup-staggered", "k_y", "CPU per yield ms") => {
            (Predicted, Tol::Follows, Some("k_y's CPU time (its share, checked) / its yields (checked)"))
        }
        // late-nice7-hog: k_c's share is below 10 %, so it is held relative to itself (±0.9 pp).
        ("late-nice7-hog", "k_c", "share %") => (Predicted, Tol::Relative(0.10), None),
        ("late-nice7-hog", "k_c", "mean run ms") => (Predicted, Tol::Open(LATE_NICE7_KC_RUN), None),
        (_, _, "share %") => (Predicted, Tol::Points(1.0), None),
        (_, _, "mean run ms") => (Predicted, Tol::Relative(0.15), None),
        (_, _, "yields") => (Predicted, Tol::Relative(0.25), None),
        (_, _, "periods") => (Predicted, Tol::Relative(0.10), None),
        other => panic!("no judgement for {other:?}"),
    }
}

/// Runs one mirror and returns every labelled figure of its tasks.
fn checks(experiment: &'static str) -> Vec<Check> {
    let oracle = oracle();
    let real = oracle[experiment]["tasks"].as_object().expect("tasks object");
    assert!(!real.is_empty());
    let path = common::repo_root().join(format!("scenarios/linux-6.18/{experiment}.toml"));
    let mut sim = common::load(&path, &[]);
    sim.run();
    let s = Summary::of(&sim);
    // Shares among the oracle's tasks (the mirror may also run background tasks).
    let k_total: u64 = s.tasks.iter().filter(|t| real.contains_key(&t.name)).map(|t| t.cpu_time_ns).sum();
    let mut out = Vec::new();
    for (name, r) in real {
        let t = s
            .tasks
            .iter()
            .find(|t| &t.name == name)
            .unwrap_or_else(|| panic!("{experiment}: no task {name} in the scenario"));
        let num = |k: &str| r[k].as_f64().unwrap_or_else(|| panic!("{experiment} {name}: {k}"));
        let mut figures = vec![
            ("share %", num("share_pct"), 100.0 * t.cpu_time_ns as f64 / k_total as f64),
            ("mean run ms", num("mean_run_ms"), t.mean_run_ns as f64 / 1e6),
        ];
        if r.get("yields").is_some() {
            figures.push(("yields", num("yields"), t.yields as f64));
            figures.push((
                "CPU per yield ms",
                num("runtime_ms") / num("yields"),
                t.cpu_time_ns as f64 / 1e6 / t.yields as f64,
            ));
        }
        if r.get("periods").is_some() {
            figures.push(("periods", num("periods"), t.sleeps as f64));
        }
        for (figure, real, model) in figures {
            let (label, tol, follows) = judge(experiment, name, figure);
            out.push(Check { experiment, task: name.clone(), figure, real, sim: model, tol, label, follows });
        }
    }
    out
}

/// One mirror's figures, calibrated then predicted, printed; the ones off the capture returned.
fn failures(experiment: &'static str) -> Vec<String> {
    let all = checks(experiment);
    for (title, calibrated) in [("calibrated (not evidence)", true), ("predicted", false)] {
        println!("{experiment}: {title}");
        for c in all.iter().filter(|c| matches!(c.label, Label::Calibrated { .. }) == calibrated) {
            println!("  {}", c.line());
        }
    }
    print_notes(experiment);
    all.iter().filter(|c| !c.ok()).map(Check::line).collect()
}

#[test]
fn nice_0_vs_2_matches_the_real_kernel() {
    let e = failures("nice-0-vs-2");
    assert!(e.is_empty(), "{e:#?}");
}

#[test]
fn yield_vs_hog_matches_the_real_kernel() {
    let e = failures("yield-vs-hog");
    assert!(e.is_empty(), "{e:#?}");
}

#[test]
fn cgroup_shares_matches_the_real_kernel() {
    let e = failures("cgroup-shares");
    assert!(e.is_empty(), "{e:#?}");
}

#[test]
fn bandwidth_30_of_100_matches_the_real_kernel() {
    let e = failures("bandwidth-30-of-100");
    assert!(e.is_empty(), "{e:#?}");
}

#[test]
fn sleeper_vs_hog_matches_the_real_kernel() {
    let e = failures("sleeper-vs-hog");
    assert!(e.is_empty(), "{e:#?}");
}

#[test]
fn yield_in_cgroup_matches_the_real_kernel() {
    let e = failures("yield-in-cgroup");
    assert!(e.is_empty(), "{e:#?}");
}

/// Issue 16: the yielder arrives 0.1 s after the hogs and leaves 0.1 s before them, so every
/// yield is taken with both hogs runnable: the yield count, k_y's CPU time and its turns on the
/// CPU are predictions of the forfeit yield inside a cgroup, not of the start-up.
#[test]
fn yield_in_cgroup_staggered_matches_the_real_kernel() {
    let e = failures("yield-in-cgroup-staggered");
    assert!(e.is_empty(), "{e:#?}");
}

/// The staggered capture was taken on build v669, where a `sched_yield()` loop costs less than
/// on v657 (yield-vs-hog's 11.87 us): its mirror reuses the v669 repeat of yield-vs-hog
/// (`traces/linux-6.18-repeats/yield-vs-hog`, the same build, the day before), k_y's CPU time
/// over its yields, to 10 ns. A constant of another capture: the staggered figures stay
/// predictions. With v657's 11.87 us the model's k_y CPU would be +33 % (yields +0.8 %).
#[test]
fn yield_in_cgroup_staggered_reuses_the_v669_yield_cost() {
    let text = std::fs::read_to_string(common::traces().join("linux-6.18-repeats/oracle.json")).unwrap();
    let repeats: Value = serde_json::from_str(&text).unwrap();
    let ky = &repeats["yield-vs-hog"]["tasks"]["k_y"];
    let per_loop_ns = ky["runtime_ms"].as_f64().unwrap() * 1e6 / ky["yields"].as_f64().unwrap();
    let step = format!("{{ run = \"{:.2}us\" }}, {{ sched_yield = 1 }}", per_loop_ns / 1e3);
    let path = common::repo_root().join("scenarios/linux-6.18/yield-in-cgroup-staggered.toml");
    let scenario = std::fs::read_to_string(&path).unwrap();
    println!("v669 yield-vs-hog: {per_loop_ns:.0} ns per loop; the mirror's loop: {step}");
    assert!(scenario.contains(&step), "{} has no loop {step}", path.display());
}

#[test]
fn late_nice7_hog_matches_the_real_kernel() {
    let e = failures("late-nice7-hog");
    assert!(e.is_empty(), "{e:#?}");
}

#[test]
fn two_sleepers_and_hog_matches_the_real_kernel() {
    let e = failures("two-sleepers-and-hog");
    assert!(e.is_empty(), "{e:#?}");
}

/// All the mirrors in two tables: the calibrated figures (agreement by construction), then the
/// predicted ones (the evidence), with how many of those are independent. Every calibrated
/// figure names what it was fitted to; every figure that is not checked follows from one that
/// is; and no check is looser than its kind allows.
#[test]
fn calibrated_and_predicted_figures_apart() {
    let all: Vec<Check> = EXPERIMENTS.into_iter().flat_map(checks).collect();
    let (calibrated, predicted): (Vec<&Check>, Vec<&Check>) =
        all.iter().partition(|c| matches!(c.label, Label::Calibrated { .. }));
    println!("CALIBRATED: a constant was fitted to the same figure of the same capture (not evidence)");
    for c in &calibrated {
        println!("  {}", c.line());
    }
    let independent = predicted.iter().filter(|c| c.follows.is_none() && !c.open()).count();
    let open = predicted.iter().filter(|c| c.open()).count();
    println!(
        "PREDICTED: nothing fitted to them ({} figures, {independent} independent and checked, {open} open; the rest \
         follow from those)",
        predicted.len()
    );
    for c in &predicted {
        println!("  {}", c.line());
    }
    for e in EXPERIMENTS {
        print_notes(e);
    }
    for c in &all {
        match (c.label, c.tol) {
            (Label::Calibrated { from }, tol) => {
                assert!(!from.is_empty() && tol == Tol::Relative(0.01), "{c:?}: a calibration is held to 1 %")
            }
            (Label::Predicted, Tol::Follows) => assert!(c.follows.is_some(), "{c:?}: unchecked without a reason"),
            (Label::Predicted, Tol::Open(why)) => assert!(why.len() > 20, "{c:?}: open without a reason"),
            (Label::Predicted, Tol::Points(pp)) => {
                assert!(pp <= 1.0 && c.real >= 10.0, "{c:?}: points on a small figure")
            }
            (Label::Predicted, Tol::Relative(f)) => assert!(f <= 0.25, "{c:?}"),
        }
    }
    let failed: Vec<String> = all.iter().filter(|c| !c.ok()).map(Check::line).collect();
    assert!(failed.is_empty(), "{failed:#?}");
}

/// 6.18.0's yield (deadline bump only) must NOT match the capture: this is what
/// shows the 6.18.44 kernel carries the forfeit change. Predicted: no constant was fitted
/// under this variant.
#[test]
fn deadline_bump_yield_does_not_match_the_capture() {
    let oracle = oracle();
    let real = &oracle["yield-vs-hog"]["tasks"]["k_y"];
    let (share, yields) = (real["share_pct"].as_f64().unwrap(), real["yields"].as_f64().unwrap());
    let path = common::repo_root().join("scenarios/linux-6.18/yield-vs-hog.toml");
    let mut sim = common::load(&path, &[("yield", "deadline_bump")]);
    sim.run();
    let s = Summary::of(&sim);
    let ky = s.tasks.iter().find(|t| t.name == "k_y").expect("k_y");
    println!("yield=deadline_bump: k_y share {:.2}% (real {share}) yields {} (real {yields})", ky.share_pct, ky.yields);
    assert!((ky.share_pct - share).abs() > 1.0 || (ky.yields as f64 - yields).abs() / yields > 0.25);
}

/// Reads `key=value` fields of the `S` lines of a bpftrace EEVDF dump for one task.
fn real_state_lines(experiment: &str, comm: &str) -> Vec<std::collections::BTreeMap<String, i128>> {
    let path = common::traces().join(format!("linux-6.18/{experiment}/eevdf-state.txt"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut out = Vec::new();
    for line in text.lines().filter(|l| l.starts_with("S ") && l.contains(&format!(" comm={comm} "))) {
        let mut m = std::collections::BTreeMap::new();
        for kv in line.split_whitespace() {
            if let Some((k, v)) = kv.split_once('=') {
                if let Ok(n) = v.parse::<i128>() {
                    m.insert(k.to_string(), n);
                }
            }
        }
        out.push(m);
    }
    out
}

/// The real EEVDF state at every switch (eevdf-state.txt) against the model: after yielding,
/// the 6.18.44 yielder leaves the CPU with deadline − vruntime = exactly one slice (forfeit);
/// the sleeper goes to sleep ineligible (and is delay-dequeued) about half the time. Both are
/// predicted: the calibrations set how long a loop or a period runs, not where the EEVDF state
/// lands.
#[test]
fn eevdf_state_signatures_match_the_real_kernel() {
    use schedlab_engine::obs::log::{EventKind, SwitchReason};
    let real_y = real_state_lines("yield-vs-hog", "k_y");
    let real_forfeit = real_y.iter().filter(|m| m["d"] - m["v"] == 1_400_000).count() as f64 / real_y.len() as f64;
    let path = common::repo_root().join("scenarios/linux-6.18/yield-vs-hog.toml");
    let mut sim = common::load(&path, &[]);
    sim.run();
    let log = &sim.fair.log;
    let ky = sim.tasks.iter().position(|t| t.cfg.name == "k_y").expect("k_y") as u32;
    // The sample recorded when k_y was put back at each switch-out.
    let (mut outs, mut forfeit) = (0usize, 0usize);
    for i in 0..log.events.t.len() {
        if log.events.kind[i] == EventKind::Switch as u8 && log.events.arg[i] == ky {
            let t = log.events.t[i];
            let (lo, hi) = log.sample_window(t, t + 1);
            if let Some(j) = (lo..hi).rev().find(|&j| log.samples.task[j] == ky) {
                outs += 1;
                if log.samples.deadline[j].wrapping_sub(log.samples.vruntime[j]) == 1_400_000 {
                    forfeit += 1;
                }
            }
        }
    }
    let sim_forfeit = forfeit as f64 / outs as f64;
    println!(
        "yield-vs-hog k_y (predicted): deadline − vruntime = one slice at switch-out: real {:.1}% sim {:.1}%",
        100.0 * real_forfeit,
        100.0 * sim_forfeit
    );
    assert!(real_forfeit > 0.95 && sim_forfeit > 0.95);

    let real_s = real_state_lines("sleeper-vs-hog", "k_s");
    let real_delayed = real_s.iter().filter(|m| m["delayed"] == 1).count() as f64 / real_s.len() as f64;
    let path = common::repo_root().join("scenarios/linux-6.18/sleeper-vs-hog.toml");
    let mut sim = common::load(&path, &[]);
    sim.run();
    let log = &sim.fair.log;
    let ks = sim.tasks.iter().position(|t| t.cfg.name == "k_s").expect("k_s") as u32;
    let sleeps = (0..log.events.t.len())
        .filter(|&i| {
            log.events.kind[i] == EventKind::Switch as u8
                && log.events.arg[i] == ks
                && log.events.val[i] == SwitchReason::Sleep as i64
        })
        .count();
    let delayed = (0..log.events.t.len())
        .filter(|&i| {
            log.events.kind[i] == EventKind::Dequeue as u8 && log.events.task[i] == ks && log.events.val[i] == 1
        })
        .count();
    let sim_delayed = delayed as f64 / sleeps as f64;
    println!(
        "sleeper-vs-hog k_s (predicted): sleeps that were delay-dequeued: real {:.1}% sim {:.1}%",
        100.0 * real_delayed,
        100.0 * sim_delayed
    );
    assert!(
        (real_delayed - sim_delayed).abs() < 0.15,
        "delayed-dequeue fraction real {real_delayed:.3} sim {sim_delayed:.3}"
    );
}

/// yield-in-cgroup once all three tasks are runnable (k_h's arrival on CPU 1 at +36.001 ms to the
/// first exit, k_g's at +1535.572 ms): the real yields are k_y's `sched_stat_runtime` records on
/// CPU 1 outside the tick (`h`) and `__schedule()` (`N`), one per `yield_task_fair()` that reached
/// `update_curr()`. Predicted: each forfeit moves k_y one slice (1.4 ms of vruntime) ahead of k_h
/// in sl_Y, so k_y yields about once per 1.4 ms that k_h runs. The whole window's count is open
/// (see `YIELD_IN_CGROUP_YIELDS`): of the 694 yields before k_h arrived, one switched.
#[test]
fn yield_in_cgroup_steady_state_yields_match_the_real_kernel() {
    use schedlab_engine::obs::log::EventKind;
    let (from_ns, to_ns) = (36_001_000u64, 1_535_572_000u64);
    let text = std::fs::read_to_string(common::traces().join("linux-6.18/yield-in-cgroup/trace.txt")).unwrap();
    let (mut first, mut before, mut steady) = (None::<f64>, 0u32, 0u32);
    for line in text.lines() {
        let mut it = line.split_whitespace().skip_while(|w| *w != "[001]").skip(1);
        let (Some(flags), Some(ts), Some(event)) = (it.next(), it.next(), it.next()) else { continue };
        let Ok(ts) = ts.trim_end_matches(':').parse::<f64>() else { continue };
        if first.is_none() && event == "sched_switch:" {
            first = Some(ts);
        }
        if event != "sched_stat_runtime:" || !line.contains(" comm=k_y ") || flags.contains(['h', 'N']) {
            continue;
        }
        let t = ((ts - first.expect("a switch first")) * 1e9).round() as u64;
        if t < from_ns {
            before += 1;
        } else if t < to_ns {
            steady += 1;
        }
    }
    let path = common::repo_root().join("scenarios/linux-6.18/yield-in-cgroup.toml");
    let mut sim = common::load(&path, &[]);
    sim.run();
    let log = &sim.fair.log;
    let ky = sim.tasks.iter().position(|t| t.cfg.name == "k_y").expect("k_y") as u32;
    let sim_steady = (0..log.events.t.len())
        .filter(|&i| log.events.kind[i] == EventKind::Yield as u8 && log.events.task[i] == ky)
        .filter(|&i| (from_ns..to_ns).contains(&log.events.t[i]))
        .count() as f64;
    println!(
        "yield-in-cgroup k_y yields with k_h and k_g runnable (predicted): real {steady} sim {sim_steady} \
         ({:+.1} %); real yields before k_h arrived: {before}",
        100.0 * (sim_steady - f64::from(steady)) / f64::from(steady)
    );
    assert_eq!((before, steady), (694, 531), "the capture's counts");
    assert!((sim_steady - f64::from(steady)).abs() <= 0.25 * f64::from(steady));
}

/// The three captures of `two-sleepers-and-hog` with the EEVDF dump running, on build v769
/// (`traces/linux-6.18-two-sleepers/dump-*`): the same workload, script and dump as the
/// capture in `traces/linux-6.18`, which none of them is.
const TWO_SLEEPERS_REPEATS: [&str; 3] = ["dump-1", "dump-2", "dump-3"];

/// The sleepers' CPU per period after the spin, from the workload's three dumped repeats, never
/// from the mirror's capture: the median of both sleepers' unpreempted bursts between two sleeps,
/// less the spin (300 us for k_s, 1000 us for k_t; pooled, ns).
fn two_sleepers_repeats_cost() -> u64 {
    use schedlab_engine::replay::observe::ShadowOp;
    let mut costs = Vec::new();
    for capture in TWO_SLEEPERS_REPEATS {
        let path = common::traces().join("linux-6.18-two-sleepers").join(capture).join("trace.dat");
        let obs = common::observe_dat(&path);
        for (comm, spin_ns) in [("k_s", 300_000u64), ("k_t", 1_000_000)] {
            let t = obs.tasks.iter().find(|t| t.comm == comm).unwrap_or_else(|| panic!("{capture}: no {comm}"));
            for &(i, preempted) in &t.block_bursts {
                let ShadowOp::Run(ns) = t.ops[i] else { continue };
                if !preempted && i > 0 && t.ops[i - 1].blocks() {
                    costs.push(ns.saturating_sub(spin_ns));
                }
            }
        }
    }
    costs.sort_unstable();
    println!("two-sleepers repeats: {} unpreempted bursts", costs.len());
    costs[costs.len() / 2]
}

/// Issue 16: the two-sleepers mirror's constants, rounded to 0.1 us. Its cost per period comes
/// from the workload's three dumped repeats (sleeper-vs-hog's 39.7 us did not carry over: these
/// sleepers spend 27 us per period after their spin on every dumped capture of the workload,
/// v669's included). Its switch gaps are its own capture's on the workload's CPU (CPU 1),
/// measured, not fitted: that capture's dump probed the workload's switches only, so they are
/// longer than the repeats' (whose dump probed every task), and so is the block's clock lead
/// that keeps k_t locked to k_h's slice (docs/kernel-6.18.44-findings.md).
#[test]
fn two_sleepers_takes_its_cost_from_the_repeats_and_its_gaps_from_its_cpu() {
    let cost = two_sleepers_repeats_cost();
    let own = common::observe_dat(&common::traces().join("linux-6.18/two-sleepers-and-hog/trace.dat"));
    let gaps = |obs: &schedlab_engine::replay::observe::Observed| match obs.cpu_switch_gaps(1) {
        (Some(wakeup), Some(lead)) => (wakeup, lead),
        other => panic!("CPU 1's gaps: {other:?}"),
    };
    let (wakeup, lead) = gaps(&own);
    let repeats: Vec<(u64, u64)> = TWO_SLEEPERS_REPEATS
        .iter()
        .map(|c| {
            let path = common::traces().join("linux-6.18-two-sleepers").join(c).join("trace.dat");
            gaps(&common::observe_dat(&path))
        })
        .collect();
    println!("the repeats' CPU 1 gaps (ns): {repeats:?}");
    // What makes the capture's gaps its own: its block lead is several times the repeats'.
    assert!(repeats.iter().all(|&(_, l)| 4 * l < lead), "lead {lead} ns against the repeats' {repeats:?}");
    let us = |ns: u64| format!("{:.1}us", ns as f64 / 1e3);
    let path = common::repo_root().join("scenarios/linux-6.18/two-sleepers-and-hog.toml");
    let scenario = std::fs::read_to_string(&path).unwrap();
    println!("cost {} per period; CPU 1's wakeup gap {}, clock lead {}", us(cost), us(wakeup), us(lead));
    for want in [
        format!("{{ run = \"{}\" }}, {{ sleep = \"700us\" }}", us(cost)),
        format!("{{ run = \"{}\" }}, {{ sleep = \"2000us\" }}", us(cost)),
        format!("wakeup_switch_latency = \"{}\"", us(wakeup)),
        format!("schedule_clock_lead = \"{}\"", us(lead)),
    ] {
        assert!(scenario.contains(&want), "{} has no {want}", path.display());
    }
}

/// Issue 16: the two-sleepers mirror sits where the kernel does, between the workload's locked
/// and broken regimes, so where its ticks fall moves k_t's share by some 2 pp. Over eight
/// phases of the tick each k_* task's mean share is within 1 pp of the capture's: the figure at
/// phase 0 (`two_sleepers_and_hog_matches_the_real_kernel`) is not a lucky draw.
#[test]
fn two_sleepers_averaged_over_phases_of_the_tick() {
    let oracle = oracle();
    let real = oracle["two-sleepers-and-hog"]["tasks"].as_object().expect("tasks");
    let path = common::repo_root().join("scenarios/linux-6.18/two-sleepers-and-hog.toml");
    let names = ["k_s", "k_t", "k_h"];
    let mut shares: Vec<Vec<f64>> = vec![Vec::new(); names.len()];
    for k in 0..8 {
        let phase = format!("{}us", k * 500);
        let mut sim = common::load(&path, &[("tick_phase", &phase)]);
        sim.run();
        let s = Summary::of(&sim);
        let cpu = |n: &str| s.tasks.iter().find(|t| t.name == n).expect("task").cpu_time_ns as f64;
        let total: f64 = names.iter().map(|n| cpu(n)).sum();
        for (i, n) in names.iter().enumerate() {
            shares[i].push(100.0 * cpu(n) / total);
        }
    }
    for (i, n) in names.iter().enumerate() {
        let v = &shares[i];
        let mean = v.iter().sum::<f64>() / v.len() as f64;
        let want = real[*n]["share_pct"].as_f64().unwrap();
        let (lo, hi) = (v.iter().copied().fold(f64::MAX, f64::min), v.iter().copied().fold(f64::MIN, f64::max));
        println!(
            "{n}: real {want:.2} %, model over 8 phases {lo:.2}-{hi:.2} %, mean {mean:.2} ({:+.2} pp)",
            mean - want
        );
        assert!((mean - want).abs() <= 1.0, "{n}: mean {mean:.2} % against {want:.2} %");
    }
}
