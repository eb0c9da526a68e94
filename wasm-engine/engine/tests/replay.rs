//! Shadow re-simulation of the five linux-6.18 captures (issue 7): the workload inferred from
//! each trace, simulated under the baseline, gives every k_* task's share of the k_* CPU time
//! within 1.0 percentage point of the real one (`oracle.json`), from the tracefs text and from
//! the trace-cmd `.dat` alike. The cgroup layouts the traces cannot show are in
//! `traces/linux-6.18/*.layout.toml`. And (issue 16) every capture in the repository replays,
//! and every third-party trace that imports with `sched_switch` records.
#![allow(clippy::disallowed_methods)] // reads trace files

mod common;

use schedlab_engine::import::{binary_kind, Binary, TextImporter};
use schedlab_engine::replay::compare::{replay, ReplayReport};
use schedlab_engine::replay::observe::Observed;
use schedlab_engine::replay::shadow::Layout;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn observe(capture: &str, file: &str) -> Observed {
    let path = common::traces().join("linux-6.18").join(capture).join(file);
    read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Any trace file (text, or `.dat` or Perfetto by its first bytes) into the observed schedule;
/// Err when it does not import (a `.dat` that does not decode, gzip).
fn read(path: &Path) -> Result<Observed, String> {
    let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
    let mut obs = Observed::default();
    obs.source = path.display().to_string();
    match binary_kind(&bytes) {
        Some(Binary::TraceDat) => {
            schedlab_engine::import::dat::decode_all(&bytes, &mut obs).map_err(|e| e.to_string())?;
        }
        Some(Binary::Gzip) => return Err("gzip-compressed".into()),
        Some(Binary::Perfetto) => {
            schedlab_engine::import::perfetto::import_perfetto(&bytes, &mut obs);
        }
        None => {
            let mut imp = TextImporter::new();
            for chunk in bytes.chunks(1 << 20) {
                imp.feed(chunk, &mut obs);
            }
            imp.finish(&mut obs);
        }
    }
    obs.finish();
    Ok(obs)
}

fn layout(capture: &str) -> Layout {
    let p = common::repo_root().join(format!("traces/linux-6.18/{capture}.layout.toml"));
    match std::fs::read_to_string(&p) {
        Ok(text) => Layout::parse(&p.display().to_string(), &text).expect("layout parses"),
        Err(_) => Layout::default(),
    }
}

/// Shares of the k_* tasks among themselves: (name, real %, model %).
fn k_shares(r: &ReplayReport) -> Vec<(String, f64, f64)> {
    let k: Vec<_> = r.tasks.iter().filter(|t| t.name.starts_with("k_")).collect();
    let (o, s): (u64, u64) = (k.iter().map(|t| t.observed_ns).sum(), k.iter().map(|t| t.simulated_ns).sum());
    k.iter()
        .map(|t| (t.name.clone(), 100.0 * t.observed_ns as f64 / o as f64, 100.0 * t.simulated_ns as f64 / s as f64))
        .collect()
}

const CAPTURES: [&str; 5] = ["nice-0-vs-2", "cgroup-shares", "yield-vs-hog", "bandwidth-30-of-100", "sleeper-vs-hog"];

#[test]
fn shadow_resimulation_matches_the_real_shares_within_one_point() {
    let oracle: Value =
        serde_json::from_str(&std::fs::read_to_string(common::traces().join("linux-6.18/oracle.json")).unwrap())
            .unwrap();
    let mut failures = Vec::new();
    for capture in CAPTURES {
        for file in ["trace.txt", "trace.dat"] {
            let obs = observe(capture, file);
            let (_, report) = replay(&obs, &layout(capture), capture, &[]).unwrap_or_else(|e| panic!("{capture}: {e}"));
            let shares = k_shares(&report);
            assert_eq!(shares.len(), oracle[capture]["tasks"].as_object().unwrap().len(), "{capture}: the k_* tasks");
            for (name, real, model) in shares {
                let oracle_share = oracle[capture]["tasks"][&name]["share_pct"].as_f64().unwrap();
                println!("{capture}/{file} {name}: oracle {oracle_share:.2} %, trace {real:.2} %, model {model:.2} %");
                // The trace's own figure is the oracle's up to the window: oracle.py starts at
                // CPU 1's first switch, the replay at the trace's first record.
                assert!(
                    (real - oracle_share).abs() < 0.2,
                    "{capture}/{file} {name}: observed {real:.3} vs oracle {oracle_share:.3}"
                );
                if (model - oracle_share).abs() > 1.0 {
                    failures.push(format!("{capture}/{file} {name}: model {model:.2} % vs real {oracle_share:.2} %"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn the_yield_count_is_recovered_from_sched_stat_runtime() {
    let obs = observe("yield-vs-hog", "trace.txt");
    let k_y = obs.tasks.iter().find(|t| t.comm == "k_y").unwrap();
    // workload.txt: k_y yields=1064; 378 of them switched.
    assert!((1060..=1070).contains(&k_y.yields), "{}", k_y.yields);
    let k_h = obs.tasks.iter().find(|t| t.comm == "k_h").unwrap();
    assert_eq!(k_h.yields, 0, "the hog's plain-R switches carry need-resched: involuntary");
    // Issue 16: in a cgroup the yielder's runs end at a tick after hundreds of yields that did
    // not switch; their records (preempt depth 1, `d..1.`) are yields too. workload.txt: k_y
    // yields=1225; 1,224 recovered (545 of them were lost before).
    for file in ["trace.txt", "trace.dat"] {
        let obs = observe("yield-in-cgroup", file);
        let k_y = obs.tasks.iter().find(|t| t.comm == "k_y").unwrap();
        println!("yield-in-cgroup/{file}: {} yields recovered", k_y.yields);
        assert!((1200..=1230).contains(&k_y.yields), "{file}: {}", k_y.yields);
    }
    // A variant that changes yield changes the replay: the 6.18.0 deadline bump gives the
    // yielder far more CPU (docs/kernel-6.18.44-findings.md).
    let (_, bump) = replay(&obs, &Layout::default(), "y", &[("yield".into(), "deadline_bump".into())]).unwrap();
    let y = bump.tasks.iter().find(|t| t.name == "k_y").unwrap();
    println!("deadline_bump: k_y {:.2} % of CPU 1", y.simulated_share_pct);
    assert!(y.simulated_share_pct > 5.0, "{}", y.simulated_share_pct);
}

/// The model replayed along the real schedule (`replay::decisions`): at every pick the trace
/// shows, the model's own pick. The three flat captures agree at ≥ 95 % of their picks (the
/// cgroup and bandwidth captures are reported, not held: see docs/kernel-6.18.44-findings.md);
/// and the metric tells kernels apart: the 6.18.0 yield (deadline bump) and disabling
/// DELAY_DEQUEUE each cost the matching capture over ten points.
#[test]
fn the_models_picks_agree_with_the_kernels_along_the_real_schedule() {
    let agreement = |capture: &str, variants: &[(String, String)]| {
        let obs = observe(capture, "trace.dat");
        let (_, r) = replay(&obs, &layout(capture), capture, variants).unwrap();
        let d = r.decisions;
        println!(
            "{capture} {variants:?}: {}/{} picks agree ({:.2} %), {} quiet yields, {} idle, {} not queued, {} other class",
            d.agreed, d.scored, d.agreement_pct, d.quiet_yields, d.idle_picks, d.not_queued, d.other_class
        );
        assert!(d.scored > 500, "{capture}: {} picks scored", d.scored);
        if capture == "bandwidth-30-of-100" {
            // Replayed CFS bandwidth: each of the ~15 periods throttles k_a and k_b out at their
            // return to user space (the kernel's ~27 us runs) and unthrottles them once.
            println!("{capture}: {} tasks throttled, {} unthrottles", d.throttled, d.unthrottles);
            assert!(d.throttled >= 20 && d.unthrottles >= 10, "{} / {}", d.throttled, d.unthrottles);
        } else {
            assert_eq!((d.throttled, d.unthrottles), (0, 0), "{capture}: no bandwidth");
        }
        d.agreement_pct
    };
    let baseline: Vec<(&str, f64)> = CAPTURES.iter().map(|&c| (c, agreement(c, &[]))).collect();
    for (capture, pct) in &baseline {
        if ["nice-0-vs-2", "yield-vs-hog", "sleeper-vs-hog"].contains(capture) {
            assert!(*pct >= 95.0, "{capture}: {pct:.2} %");
        }
    }
    let of = |c: &str| baseline.iter().find(|(x, _)| *x == c).unwrap().1;
    let bump = agreement("yield-vs-hog", &[("yield".into(), "deadline_bump".into())]);
    assert!(bump < of("yield-vs-hog") - 10.0, "deadline bump {bump:.2} %");
    let no_delay = agreement("sleeper-vs-hog", &[("DELAY_DEQUEUE".into(), "false".into())]);
    assert!(no_delay < of("sleeper-vs-hog") - 10.0, "no DELAY_DEQUEUE {no_delay:.2} %");
}

/// Replays `path` under the baseline (with `layout` when given), as `schedlab replay` does, and
/// checks that the shadow scenario also loads as the TOML `--emit-scenario` prints. Returns the
/// line to print.
fn replays(path: &Path, layout: Option<&Path>) -> Result<String, String> {
    let obs = read(path)?;
    let layout = match layout {
        Some(p) => Layout::parse(&p.display().to_string(), &std::fs::read_to_string(p).unwrap())?,
        None => Layout::default(),
    };
    let (shadow, r) = replay(&obs, &layout, "replay/t", &[])?;
    let toml = toml::to_string(&shadow.scenario).map_err(|e| e.to_string())?;
    schedlab_engine::load("shadow.toml", &toml, &[])?;
    let d = &r.decisions;
    Ok(format!(
        "{:>7.2} % of {:>5} picks, {:>6.2} % of the time, {} tasks modeled",
        d.agreement_pct,
        d.scored,
        r.agreement_pct,
        r.tasks.len()
    ))
}

/// Issue 16: every capture in the repository replays (with its layout file where there is
/// one): the `trace.txt`, `trace.dat` and `trace-cmd-report.txt` of `traces/linux-6.18` and
/// `traces/linux-6.18-smp`, and `traces/capture-example`.
#[test]
fn every_capture_in_the_repository_replays() {
    let traces = common::traces();
    let mut files: Vec<(PathBuf, Option<PathBuf>)> = Vec::new();
    for set in ["linux-6.18", "linux-6.18-smp"] {
        let mut dirs: Vec<PathBuf> =
            std::fs::read_dir(traces.join(set)).unwrap().map(|e| e.unwrap().path()).filter(|p| p.is_dir()).collect();
        dirs.sort();
        for dir in dirs {
            let layout = traces.join(set).join(format!("{}.layout.toml", dir.file_name().unwrap().to_str().unwrap()));
            for f in ["trace.txt", "trace.dat", "trace-cmd-report.txt"] {
                if dir.join(f).exists() {
                    files.push((dir.join(f), layout.exists().then(|| layout.clone())));
                }
            }
        }
    }
    files.push((traces.join("capture-example/trace.txt"), None));
    assert!(files.len() >= 25, "{} captures", files.len());
    let mut failures = Vec::new();
    for (f, layout) in &files {
        let rel = f.strip_prefix(&traces).unwrap().display();
        match replays(f, layout.as_deref()) {
            Ok(line) => println!("{rel:<48} {line}"),
            Err(e) => failures.push(format!("{rel}: {e}")),
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// Issue 16: every third-party trace (`SCHEDLAB_THIRD_PARTY_TRACES`: trappy/, lisa/, perfetto/)
/// that imports with `sched_switch` records replays, the Perfetto protobuf traces included (issue
/// 19). Files that do not import with any (trappy's traces without the event; the folder's
/// READMEs and scripts) are named as skipped.
#[test]
fn every_third_party_trace_that_imports_replays() {
    let Some(dir) =
        common::third_party("every_third_party_trace_that_imports_replays", "trappy/, lisa/ and perfetto/ samples")
    else {
        return;
    };
    let mut files = Vec::new();
    let mut stack = vec![dir.clone()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                files.push(p);
            }
        }
    }
    files.sort();
    let (mut replayed, mut failures) = (0, Vec::new());
    for f in &files {
        let rel = f.strip_prefix(&dir).unwrap().display();
        match read(f) {
            Err(e) => println!("{rel:<48} SKIPPED: does not import ({e})"),
            Ok(obs) if obs.t0.is_none() => {
                println!("{rel:<48} SKIPPED: no records (not a format the importers read)")
            }
            Ok(obs) if obs.switches == 0 => println!("{rel:<48} SKIPPED: imports without sched_switch records"),
            Ok(_) => match replays(f, None) {
                Ok(line) => {
                    replayed += 1;
                    println!("{rel:<48} {line}");
                }
                Err(e) => failures.push(format!("{rel}: {e}")),
            },
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
    assert!(replayed >= 10, "{replayed} third-party traces replayed (the three Perfetto ones among them)");
}

/// Per-decision agreement of the five flat captures, per CPU, held at what the replay reaches
/// (issue 16). Predicted: nothing in the replay was fitted to these figures; the layouts say
/// which tasks share an autogroup (established from the bpftrace dumps and the fork records),
/// except the one autogroup given to the other people's build on CPU 0 of the two later
/// captures, which was chosen over the root cfs_rq by CPU 0's agreement (so those two CPU 0
/// figures are not evidence: `docs/calibration.md`). CPU 1 ran the workload; CPU 0 the
/// capture's own bpftrace and shell and, in the two later captures, other people's builds,
/// runnable before the trace began with state it cannot show.
#[test]
fn per_decision_agreement_of_the_flat_captures_per_cpu() {
    // (capture, [CPU 0 %, CPU 1 %]) as reached, rounded down to 0.1.
    const REACHED: [(&str, [f64; 2]); 5] = [
        ("nice-0-vs-2", [99.4, 100.0]),
        ("yield-vs-hog", [99.8, 99.8]),
        ("sleeper-vs-hog", [100.0, 100.0]),
        ("late-nice7-hog", [93.3, 98.7]),
        ("two-sleepers-and-hog", [88.1, 99.8]),
    ];
    let mut failures = Vec::new();
    for (capture, floors) in REACHED {
        for file in ["trace.dat", "trace.txt"] {
            let obs = observe(capture, file);
            let (_, r) = replay(&obs, &layout(capture), capture, &[]).unwrap();
            let d = r.decisions;
            for (c, floor) in d.per_cpu.iter().zip(floors) {
                let pct = 100.0 * c.agreed as f64 / c.scored as f64;
                let later = ["late-nice7-hog", "two-sleepers-and-hog"].contains(&capture);
                let kind = if later && c.cpu == 0 { "layout chosen by it" } else { "predicted" };
                println!(
                    "{capture}/{file} CPU {}: {}/{} ({pct:.2} %), {kind}, held at {floor}",
                    c.cpu, c.agreed, c.scored
                );
                if pct < floor {
                    failures.push(format!("{capture}/{file} CPU {}: {pct:.2} % < {floor}", c.cpu));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// Issue 16/17: the cgroup captures' remaining disagreements on the workload's CPU are choices
/// between group entities at the root, whose weights the kernel takes from PELT
/// (`calc_group_shares()`). In yield-in-cgroup the tasks arrive from CPU 0, where `taskset`
/// found them, and the kernel's dump shows the groups' weights on CPU 1 at 0.56–0.71 of their
/// shares in the first milliseconds. The instantaneous shares (the default) keep 1024; under
/// `group_shares = pelt` (PELT bit-exact by `tests/pelt.rs`, nothing fitted to this capture)
/// CPU 1's agreement rises from about half to over four fifths (its 539 yields that did not
/// switch, picks too since the observation keeps them, agree either way); the other cgroup
/// captures move by at most a few picks either way.
#[test]
fn calc_group_shares_from_pelt_explains_the_cgroup_captures_group_picks() {
    let cpu1 = |capture: &str, variants: &[(String, String)]| {
        let obs = observe(capture, "trace.dat");
        let (_, r) = replay(&obs, &layout(capture), capture, variants).unwrap();
        let c = r.decisions.per_cpu.iter().find(|c| c.cpu == 1).unwrap();
        let pct = 100.0 * c.agreed as f64 / c.scored as f64;
        println!("{capture} {variants:?}: CPU 1 {}/{} ({pct:.1} %)", c.agreed, c.scored);
        pct
    };
    let pelt = [("group_shares".to_string(), "pelt".to_string())];
    let instant = cpu1("yield-in-cgroup", &[]);
    let with_pelt = cpu1("yield-in-cgroup", &pelt);
    assert!(instant < 60.0 && with_pelt > 80.0, "yield-in-cgroup CPU 1: {instant:.1} % → {with_pelt:.1} %");
    for capture in ["cgroup-shares", "bandwidth-30-of-100"] {
        let (a, b) = (cpu1(capture, &[]), cpu1(capture, &pelt));
        assert!(b >= a - 2.0, "{capture}: {a:.1} % → {b:.1} %");
    }
}

/// Issue 16 (D1): the wakeup-preemption decisions along the real schedule. At every wakeup the
/// trace recorded on the wakee's own CPU while a fair task ran there, the model's
/// `check_preempt_wakeup_fair()` against the record's need-resched flag (`sched_wakeup` fires
/// after `wakeup_preempt()`). The machine's shape of the function decides as the kernel did far
/// more often than 6.18.y stable's where wakeups land on a busy queue: in two-sleepers-and-hog
/// stable misses 80 of the kernel's 951 preemptions, the machine's shape 12. Floors as reached,
/// rounded down; predicted (nothing is fitted to these decisions).
#[test]
fn check_preempt_wakeup_fair_decides_as_the_kernel_along_the_real_schedule() {
    const REACHED: [(&str, f64); 4] = [
        ("sleeper-vs-hog", 99.8),
        ("two-sleepers-and-hog", 98.6),
        ("late-nice7-hog", 93.6),
        ("yield-in-cgroup-staggered", 97.4),
    ];
    let pct = |capture: &str, shape: &str| {
        let obs = observe(capture, "trace.dat");
        let variants = [("wakeup_preempt".to_string(), shape.to_string())];
        let (_, r) = replay(&obs, &layout(capture), capture, &variants).unwrap();
        let p = r.decisions.preemptions;
        println!(
            "{capture} wakeup_preempt={shape}: {}/{} ({:.1} %), kernel preempted {}, model alone {}, kernel alone {}, \
             not scored {}",
            p.agreed, p.scored, p.agreement_pct, p.kernel_preempted, p.model_only, p.kernel_only, p.unscored
        );
        for d in p.first_disagreements.iter().take(3) {
            println!("  {d:?}");
        }
        assert!(p.scored > 50, "{capture}: {} wakeups scored", p.scored);
        p.agreement_pct
    };
    let mut failures = Vec::new();
    for (capture, floor) in REACHED {
        let machine = pct(capture, "machine");
        let stable = pct(capture, "6.18");
        if machine < floor {
            failures.push(format!("{capture}: {machine:.1} % < {floor}"));
        }
        if capture == "two-sleepers-and-hog" && machine - stable < 3.0 {
            failures.push(format!("{capture}: the machine's shape {machine:.1} % vs stable's {stable:.1} %"));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}
