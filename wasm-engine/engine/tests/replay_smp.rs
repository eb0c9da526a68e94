//! Issue 18: shadow re-simulation of the five `traces/linux-6.18-smp` captures with the tasks
//! free (placed and balanced by the model, `smp = "fair"`), each `sched_wakeup` a modeled task
//! raised in task context replayed as a `wake` step of that task, and placement agreement
//! along the real schedule (`replay::decisions::place`). Nothing here was fitted to these
//! captures: every figure is a prediction. Misses are printed as OPEN with their measured
//! reason, not checked; the rest is checked.
#![allow(clippy::disallowed_methods)] // reads trace files

mod common;

use schedlab_engine::import::dat::decode_all;
use schedlab_engine::replay::compare::{replay, ReplayReport};
use schedlab_engine::replay::observe::Observed;
use schedlab_engine::replay::shadow::{Layout, Pin};
use schedlab_engine::scenario::schema::CfsRqAvgSpec;

const CAPTURES: [&str; 5] =
    ["three-hogs-two-cpus", "nice-imbalance-smp", "pipe-pair-and-hog", "sleepers-and-hogs-smp", "cgroup-shares-smp"];

/// The same five workloads captured again (build v769, `traces/linux-6.18-smp-cpuavg`).
const REPEATS: &str = "linux-6.18-smp-cpuavg";

fn observe(capture: &str) -> Observed {
    observe_in("linux-6.18-smp", capture)
}

fn observe_in(set: &str, capture: &str) -> Observed {
    common::observe_dat(&common::traces().join(set).join(capture).join("trace.dat"))
}

fn layout(capture: &str) -> Layout {
    let p = common::traces().join(format!("linux-6.18-smp/{capture}.layout.toml"));
    match std::fs::read_to_string(&p) {
        Ok(text) => Layout::parse(&p.display().to_string(), &text).expect("layout parses"),
        Err(_) => Layout::default(),
    }
}

fn run(capture: &str, pin: Pin) -> ReplayReport {
    let mut l = layout(capture);
    l.pin = pin;
    replay(&observe(capture), &l, capture, &[]).unwrap_or_else(|e| panic!("{capture}: {e}")).1
}

/// A task's observed CPU time (% of one CPU) in the repeat capture of `capture`'s workload.
fn repeat_share(capture: &str, task: &str) -> f64 {
    let l = common::layout_file(&common::traces().join(format!("{REPEATS}/{capture}.layout.toml")));
    let r = replay(&observe_in(REPEATS, capture), &l, capture, &[]).unwrap_or_else(|e| panic!("{capture}: {e}")).1;
    r.tasks
        .iter()
        .find(|t| t.name == task)
        .unwrap_or_else(|| panic!("{capture}: {task} in the repeat"))
        .observed_cpu_pct
}

/// Per-task CPU time (% of one CPU over the window) the model misses by more than 3 pp, and
/// placement agreement below 90 %, with the reason measured for each: (capture, what, why).
/// Printed, not checked. None today: nice-imbalance-smp's placements (53 of 60 before the
/// replay's forks had `post_init_entity_util_avg()`) now reach 54 of 60.
const OPEN: [(&str, &str, &str); 0] = [];

fn open(capture: &str, what: &str) -> Option<&'static str> {
    OPEN.iter().find(|(c, w, _)| *c == capture && *w == what).map(|o| o.2)
}

#[test]
fn free_shadow_of_the_smp_captures() {
    let (mut scored, mut agreed) = (0u64, 0u64);
    let (mut balance, mut same_source, mut same_task) = (0u64, 0u64, 0u64);
    let mut failures = Vec::new();
    for capture in CAPTURES {
        let r = run(capture, Pin::Free);
        assert_eq!(r.pin, "free");
        let p = &r.decisions.placements;
        println!(
            "{capture}: placements {}/{} ({:.1} %), picks {:.1} %, {} causal wakeups",
            p.agreed, p.scored, p.agreement_pct, r.decisions.agreement_pct, r.causal_wakeups
        );
        scored += p.scored;
        agreed += p.agreed;
        balance += p.balance_migrations;
        same_source += p.balance_same_source;
        same_task += p.balance_same_task;
        match open(capture, "placement") {
            Some(why) if p.agreement_pct < 90.0 => println!("  OPEN placement {:.1} %: {why}", p.agreement_pct),
            _ if p.agreement_pct < 90.0 => failures.push(format!("{capture}: placement {:.1} %", p.agreement_pct)),
            _ => {}
        }
        assert!(p.scored >= 50, "{capture}: only {} placements scored", p.scored);
        // Each balance migration the model did not make is listed with what it did instead.
        let missed_balance = p.balance_migrations - p.balance_same_source;
        assert!(p.balance_disagreements.len() as u64 <= missed_balance, "{capture}: {:?}", p.balance_disagreements);
        for b in &p.balance_disagreements {
            assert!(b.src_cpu != b.dst_cpu && !b.model.is_empty() && b.task.starts_with(|c: char| c.is_alphanumeric()));
        }
        let mut missed = Vec::new();
        for t in r.tasks.iter().filter(|t| t.name.starts_with("k_")) {
            let d = t.simulated_cpu_pct - t.observed_cpu_pct;
            println!(
                "  {:<4} cpu {:>6.2} % real {:>6.2} % ({d:+.2} pp), migrations {} real {}",
                t.name, t.simulated_cpu_pct, t.observed_cpu_pct, t.simulated_migrations, t.observed_migrations
            );
            if d.abs() > 3.0 {
                // The kernel does not repeat itself within 3 pp either: three interchangeable
                // hogs rotate in whichever order small differences decide (k_a 65.64 % here,
                // 71.19 % in the repeat). A task is held to 3 pp beyond what the kernel's own
                // two captures of its workload differ by.
                let again = repeat_share(capture, &t.name);
                let spread = (t.observed_cpu_pct - again).abs();
                if d.abs() <= 3.0 + spread {
                    println!(
                        "  {}: {d:+.2} pp, within 3 pp of the kernel's own spread ({again:.2} % in the repeat)",
                        t.name
                    );
                } else {
                    missed.push(t.name.clone());
                }
            }
        }
        for name in &missed {
            match open(capture, name).or_else(|| open(capture, "k_*")) {
                Some(why) => println!("  OPEN {name}: {why}"),
                None => failures.push(format!("{capture}: {name} off by more than 3 pp")),
            }
        }
    }
    let pct = 100.0 * agreed as f64 / scored as f64;
    println!("all five: placements {agreed}/{scored} ({pct:.1} %)");
    println!(
        "balance migrations: {balance}; the model's balancer on the destination pulls from the same CPU at \
         {same_source}, the same task at {same_task} (below 90 % on the model's own averages; each miss left is \
         a pass that finds them balanced, and at the kernel's averages every one is made: replay_cpu_avg.rs)"
    );
    assert!(balance > 0 && same_task <= same_source && same_source <= balance);
    // 22 of 25 measured 2026-11-27, with each pass asked as its record's context says
    // (`MigrateHow`), a pass's migrations scored together (`place::PASS_NS`) and a wakeup's
    // move of a task the model held delayed not counted as a balance; 20 of 26 before.
    assert!(same_source >= 22, "balance migrations pulled from the kernel's source CPU: {same_source}/{balance}");
    assert!(pct >= 95.0, "placement agreement over the five captures {pct:.1} %");
    assert!(failures.is_empty(), "{failures:#?}");
}

/// Each k_* task's CPU time averaged over the shadow run at eight phases of the tick
/// (`replay::spread`, `schedlab replay --tick-phases 8`): within 3 pp of the observed on all five
/// captures, with no allowance for the kernel's own spread. Where the ticks fall moves single
/// runs of three hogs by up to 18 pp here (docs/kernel-6.18.44-findings.md, "The shadow's tick
/// phase"): their mean is what the model predicts of such a workload. The four other three-hog
/// captures are printed, not checked: on the mean, the repeat is at −3.0, +0.7, +2.6 pp and
/// `smp-balance/three-hogs-two-cpus-3` within 2.8 pp, while `-1` (k_b +7.5, k_c −10.6) and `-2`
/// (k_a −3.6, k_b −3.6, k_c +7.2) stay beyond 3 pp.
#[test]
fn free_shadow_averaged_over_phases_of_the_tick() {
    use schedlab_engine::replay::spread::{shadow_hz, Spread, SpreadAcc};
    let spread = Spread::TickPhases(8);
    let mean_over_phases = |obs: &Observed, l: &Layout, capture: &str| {
        let hz = shadow_hz(l, &[]);
        let mut acc = SpreadAcc::new(spread, hz);
        for k in 0..spread.runs() {
            acc.add(
                &replay(obs, l, capture, &spread.variants(&[], k, hz)).unwrap_or_else(|e| panic!("{capture}: {e}")).1,
            );
        }
        acc.table(&[]).rows.into_iter().filter(|r| r.name.starts_with("k_")).collect::<Vec<_>>()
    };
    let mut failures = Vec::new();
    for capture in CAPTURES {
        let rows = mean_over_phases(&observe(capture), &layout(capture), capture);
        assert!(!rows.is_empty(), "{capture}");
        for r in &rows {
            let d = r.mean - r.observed_cpu_pct;
            println!(
                "{capture} {:<4} real {:>6.2} % mean {:>6.2} % ({d:+.2} pp), runs {:.2}-{:.2} %",
                r.name, r.observed_cpu_pct, r.mean, r.least, r.most
            );
            if d.abs() > 3.0 {
                failures.push(format!("{capture}: {} {d:+.2} pp over the phases", r.name));
            }
        }
    }
    for (set, capture, lay) in [
        (REPEATS, "three-hogs-two-cpus", format!("{REPEATS}/three-hogs-two-cpus.layout.toml")),
        (
            "linux-6.18-smp-balance",
            "three-hogs-two-cpus-1",
            "linux-6.18-smp-balance/three-hogs-two-cpus-1.layout.toml".into(),
        ),
        (
            "linux-6.18-smp-balance",
            "three-hogs-two-cpus-2",
            "linux-6.18-smp-balance/three-hogs-two-cpus-2.layout.toml".into(),
        ),
        (
            "linux-6.18-smp-balance",
            "three-hogs-two-cpus-3",
            "linux-6.18-smp-balance/three-hogs-two-cpus-3.layout.toml".into(),
        ),
    ] {
        let l = common::layout_file(&common::traces().join(lay));
        for r in mean_over_phases(&observe_in(set, capture), &l, capture) {
            println!(
                "  not checked: {set}/{capture} {:<4} real {:>6.2} % mean {:>6.2} % ({:+.2} pp), runs {:.2}-{:.2} %",
                r.name,
                r.observed_cpu_pct,
                r.mean,
                r.mean - r.observed_cpu_pct,
                r.least,
                r.most
            );
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// Three hogs on two CPUs rotate: one hog has a CPU to itself until a balance pass moves a hog,
/// and which hog moves is whichever runs at that tick (docs/kernel-6.18.44-findings.md, "The
/// three-hog rotation is a neutral orbit"). Each hog's CPU time is then a draw: the kernel's
/// five captures of the workload (`linux-6.18-smp`, `-smp-cpuavg`, `-smp-balance/-1..3`) give
/// its hogs 60.9 to 73.7 % of a CPU, a standard deviation of 3.2 pp, so one capture against
/// another misses 3 pp as often as not. What the model predicts is that distribution: over the
/// same five captures' shadows at eight phases of the tick each, the hogs' CPU time spreads by
/// 4.3 pp (its mean, 66.13 % against 66.10 %, is nearly fixed by two CPUs shared three ways),
/// and the hogs move 3.57 times each against 3.6. Nothing here is fitted; the bounds on the
/// spread allow for the kernel's 15 figures (a standard deviation from 15 values is known to
/// within about a fifth, at one sigma).
#[test]
fn three_hogs_rotate_with_the_kernels_spread() {
    use schedlab_engine::replay::spread::{shadow_hz, Spread};
    let spread = Spread::TickPhases(8);
    let (mut real, mut model, mut real_moves, mut model_moves) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (set, capture) in [
        ("linux-6.18-smp", "three-hogs-two-cpus"),
        (REPEATS, "three-hogs-two-cpus"),
        ("linux-6.18-smp-balance", "three-hogs-two-cpus-1"),
        ("linux-6.18-smp-balance", "three-hogs-two-cpus-2"),
        ("linux-6.18-smp-balance", "three-hogs-two-cpus-3"),
    ] {
        let obs = observe_in(set, capture);
        let l = common::layout_file(&common::traces().join(format!("{set}/{capture}.layout.toml")));
        let hz = shadow_hz(&l, &[]);
        for k in 0..spread.runs() {
            let r =
                replay(&obs, &l, capture, &spread.variants(&[], k, hz)).unwrap_or_else(|e| panic!("{capture}: {e}")).1;
            let hogs: Vec<_> = r.tasks.iter().filter(|t| t.name.starts_with("k_")).collect();
            assert_eq!(hogs.len(), 3, "{set}/{capture}");
            for t in hogs {
                if k == 0 {
                    real.push(t.observed_cpu_pct);
                    real_moves.push(t.observed_migrations as f64);
                }
                model.push(t.simulated_cpu_pct);
                model_moves.push(t.simulated_migrations as f64);
            }
        }
    }
    let mean_sd = |v: &[f64]| {
        let m = v.iter().sum::<f64>() / v.len() as f64;
        (m, (v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (v.len() - 1) as f64).sqrt())
    };
    let ((rm, rsd), (mm, msd)) = (mean_sd(&real), mean_sd(&model));
    let ((rmv, _), (mmv, _)) = (mean_sd(&real_moves), mean_sd(&model_moves));
    println!(
        "hog CPU time, % of one CPU: kernel {rm:.2} ± {rsd:.2} ({} hogs), model {mm:.2} ± {msd:.2} ({} runs)",
        real.len(),
        model.len()
    );
    println!("migrations per hog: kernel {rmv:.2}, model {mmv:.2}");
    assert!((mm - rm).abs() < 1.0, "mean: kernel {rm:.2}, model {mm:.2}");
    assert!(msd > 0.5 * rsd && msd < 2.0 * rsd, "spread: kernel {rsd:.2}, model {msd:.2}");
    assert!((mmv - rmv).abs() < 1.0, "migrations: kernel {rmv:.2}, model {mmv:.2}");
}

/// The pipe pair stays a pair: the shadow replays its wakeups as `wake` steps (each task wakes
/// the other from its own CPU), and the pair's CPU time follows. Its hand-offs too (`observe`'s
/// module docs): the writer, preempted by the reader it woke, waits for the reply, so the pair
/// alternates as the kernel's did. Without them it switched 5,706 times against 13,337.
#[test]
fn the_pipe_pair_is_replayed_as_a_pair() {
    let r = run("pipe-pair-and-hog", Pin::Free);
    assert!(r.causal_wakeups > 20_000, "{} causal wakeups", r.causal_wakeups);
    for name in ["k_p", "k_q"] {
        let t = r.tasks.iter().find(|t| t.name == name).unwrap();
        assert!((t.simulated_cpu_pct - t.observed_cpu_pct).abs() < 3.0, "{name}: {t:?}");
        let (real, model) = (t.observed_switches as f64, t.simulated_switches as f64);
        println!("{name}: switches real {real}, model {model}");
        assert!((model - real).abs() < 0.05 * real, "{name}: switches real {real}, model {model}");
    }
    // Pinned where each ran most, with sleeps as observed: no causal wakeup, no migration.
    let r = run("pipe-pair-and-hog", Pin::Observed);
    assert_eq!((r.pin.as_str(), r.causal_wakeups, r.decisions.placements.scored), ("observed", 0, 0));
    assert!(r.tasks.iter().all(|t| t.simulated_migrations == 0));
}

/// Tasks the trace shows being forked start as new tasks (`wake_up_new_task()` on the parent's
/// CPU); the others existed before it and start as sleepers with the averages their observed
/// share of the trace gives (`shadow::existing_averages`), not a new task's full load: the
/// capture's one nice -20 kworker, which ran 8 us, would otherwise weigh 88,761 on its CPU
/// for the first hundred milliseconds.
#[test]
fn tasks_from_before_the_trace_start_as_sleepers() {
    let shadow = schedlab_engine::replay::shadow::shadow_scenario(
        &observe("three-hogs-two-cpus"),
        &layout("three-hogs-two-cpus"),
        "three-hogs",
    )
    .expect("shadow");
    let task = |name: &str| shadow.scenario.tasks.iter().find(|t| t.name == name).unwrap_or_else(|| panic!("{name}"));
    for hog in ["k_a", "k_b", "k_c"] {
        let t = task(hog);
        assert!(t.existing.is_none() && t.parent_cpu.is_some(), "{hog} is forked in the trace: {t:?}");
    }
    let kw = task("kworker/0:1H");
    let ex = kw.existing.expect("the kworker existed before the trace");
    assert_eq!((kw.nice, ex.cpu), (-20, Some(0)));
    assert!(ex.load_avg < 888 && ex.util_avg < 10, "{ex:?}");
    // The capture's script waits for its workload: blocked nearly all the trace.
    let sh = task("capture.sh").existing.expect("capture.sh existed before the trace");
    assert!(sh.runnable_avg < 10 && sh.load_avg < 10, "{sh:?}");
}

/// nice-imbalance-smp's first placements read CPU 1's state from before the trace. The kernel
/// forks bash, k_a and k_b (+0 to +2.6 ms) as the model does, but k_c and k_d (+4.7 ms) onto
/// CPU 0, where k_a runs, while CPU 1 runs bash with k_b queued. In 6.18's
/// `sched_balance_find_dst_group()` two groups with spare capacity and no idle CPU keep the
/// fork local; the kernel moved it, so CPU 1's group was fully busy (`group_has_capacity()`:
/// `runnable_avg` above 1198 or `util_avg` above 875) at +4.7 ms and not at +2.6 ms. The model
/// starts CPU 1's root cfs_rq from nothing but the averages of the tasks it sees; started from
/// a layout's `cfs_rq_avg` of util and runnable 300 (what a few milliseconds of a shell
/// leave: `capture.sh` was charged 3.38 ms at its first record) it forks all five as the
/// kernel did, while runnable 650 moves k_b too. Inferred from these forks, not measured.
#[test]
fn the_first_forks_of_nice_imbalance_bracket_cpu1s_averages_at_the_start() {
    let capture = "nice-imbalance-smp";
    let obs = observe(capture);
    let fork_misses = |util: u64, runnable: u64| -> Vec<String> {
        let mut l = layout(capture);
        l.cfs_rq_avg = vec![CfsRqAvgSpec { cpu: 1, load_avg: util, runnable_avg: runnable, util_avg: util }];
        let r = replay(&obs, &l, capture, &[]).unwrap_or_else(|e| panic!("{capture}: {e}")).1;
        let p = &r.decisions.placements;
        let misses: Vec<String> = p
            .first_disagreements
            .iter()
            .filter(|d| d.new_task)
            .map(|d| format!("{}->{}", d.task, d.model_cpu))
            .collect();
        println!(
            "CPU 1 util_avg {util}, runnable_avg {runnable}: placements {}/{}, fork misses {misses:?}",
            p.agreed, p.scored
        );
        misses
    };
    assert_eq!(fork_misses(0, 0), ["k_c->1", "k_d->1"], "from zero");
    assert!(fork_misses(300, 300).is_empty());
    assert_eq!(fork_misses(300, 650), ["k_b->0"]);
}

/// A repeat of nice-imbalance-smp on a quiet machine and a later build (v769,
/// `traces/linux-6.18-smp-repeats`), which nothing in the model was fitted to: placement
/// agreement along the real schedule (105 of 113 with the replay's `post_init_entity_util_avg()`,
/// 100 without). The kernel again forks k_c and k_d onto k_a's CPU (+4.6 ms, +5.0 ms); the
/// model, starting the CPUs from the averages of the tasks it sees, agrees on k_d but keeps k_c
/// on its parent's CPU, and then disagrees with k_c's exec and first wakeups.
#[test]
fn a_quiet_repeat_of_nice_imbalance() {
    let dir = common::traces().join("linux-6.18-smp-repeats");
    let path = dir.join("nice-imbalance-smp-quiet/trace.dat");
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut obs = Observed::default();
    decode_all(&bytes, &mut obs).expect("decodes");
    obs.finish();
    let lp = dir.join("nice-imbalance-smp-quiet.layout.toml");
    let l = Layout::parse(&lp.display().to_string(), &std::fs::read_to_string(&lp).unwrap()).expect("layout");
    let r = replay(&obs, &l, "nice-imbalance-smp-quiet", &[]).expect("replays").1;
    let p = &r.decisions.placements;
    println!(
        "nice-imbalance-smp-quiet: placements {}/{} ({:.1} %), picks {:.1} %",
        p.agreed, p.scored, p.agreement_pct, r.decisions.agreement_pct
    );
    for d in &p.first_disagreements {
        println!(
            "  {:.3} ms {}: kernel {}, model {} ({})",
            d.at_ns as f64 / 1e6,
            d.task,
            d.kernel_cpu,
            d.model_cpu,
            d.rule
        );
    }
    assert!(p.scored >= 100 && p.agreement_pct >= 90.0, "{}/{}", p.agreed, p.scored);
    let forks: Vec<&str> = p.first_disagreements.iter().filter(|d| d.new_task).map(|d| d.task.as_str()).collect();
    assert_eq!(forks, ["k_c"], "the fork the model keeps on its parent's CPU");
}
