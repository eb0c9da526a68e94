//! Issue 16: the cgroup workloads captured again with every task started on its CPU
//! (`traces/linux-6.18-cgroups-v769`): what the per-decision replay agrees at once the start
//! is not another CPU's, and the shadow's shares.
#![allow(clippy::disallowed_methods)] // reads trace files

mod common;

use schedlab_engine::replay::compare::{replay, ReplayReport};
use schedlab_engine::replay::decisions::ObsEvent;
use schedlab_engine::replay::observe::Observed;
use serde_json::Value;

fn observe(capture: &str) -> Observed {
    common::observe_dat(&common::traces().join("linux-6.18-cgroups-v769").join(capture).join("trace.dat"))
}

fn replay_of(obs: &Observed, capture: &str, layout: &str) -> ReplayReport {
    let layout = common::layout_file(&common::traces().join("linux-6.18-cgroups-v769").join(layout));
    replay(obs, &layout, capture, &[]).unwrap_or_else(|e| panic!("{capture}: {e}")).1
}

fn run(capture: &str, layout: &str) -> ReplayReport {
    replay_of(&observe(capture), capture, layout)
}

/// Shares of the k_* tasks among themselves against `oracle.json`, each within 1 pp.
fn shares_within_a_point(capture: &str, r: &ReplayReport) {
    let p = common::traces().join("linux-6.18-cgroups-v769/oracle.json");
    let oracle: Value = serde_json::from_str(&std::fs::read_to_string(p).expect("oracle.json")).expect("parses");
    let k: Vec<_> = r.tasks.iter().filter(|t| t.name.starts_with("k_")).collect();
    let total: u64 = k.iter().map(|t| t.simulated_ns).sum();
    for t in k {
        let real = oracle[capture]["tasks"][&t.name]["share_pct"].as_f64().expect("in oracle.json");
        let model = 100.0 * t.simulated_ns as f64 / total as f64;
        println!("{capture} {}: real {real:.2} %, model {model:.2} %", t.name);
        assert!((model - real).abs() < 1.0, "{capture} {}: {model:.2} against {real:.2}", t.name);
    }
}

/// (agreed, scored) on CPU 1, and over all CPUs.
fn picks(r: &ReplayReport) -> ((u64, u64), (u64, u64)) {
    let d = &r.decisions;
    let c1 = d.per_cpu.iter().find(|c| c.cpu == 1).expect("CPU 1");
    ((c1.agreed, c1.scored), (d.agreed, d.scored))
}

/// Started on CPU 1, cgroup-shares agrees at 94.7 and 97.4 % of the picks (the capture forked
/// from CPU 0, 85.7 %; 52.6 % on CPU 1): its misses were the start's. What is left on
/// `cgroup-shares-2` is mostly sl_B's two hogs in near ties: 11 picks where the model's k_b is
/// 1.0-10.7 µs of lag behind k_c and the kernel still took k_b, so their offset is not the
/// kernel's by that much; the shells moved themselves into sl_B (`echo $$ > tasks`) at times the
/// trace does not show.
#[test]
fn cgroup_shares_started_on_its_cpu_agrees_pick_by_pick() {
    for capture in ["cgroup-shares-1", "cgroup-shares-2"] {
        let r = run(capture, "cgroup-shares.layout.toml");
        let ((a1, s1), (a, s)) = picks(&r);
        println!("{capture}: picks {a}/{s}, CPU 1 {a1}/{s1}");
        assert!(s1 > 250 && a1 * 100 >= s1 * 92, "{capture}: CPU 1 {a1}/{s1}");
        assert!(a * 1000 >= s * 945, "{capture}: {a}/{s}");
        shares_within_a_point(capture, &r);
    }
}

/// bandwidth-30-of-100 started on CPU 1 keeps its shares within a point, but its picks do not
/// improve (62.0 and 62.9 %; the capture forked from CPU 0, 84.1 %): k_c is in the capture's
/// session autogroup, whose other tasks run on CPU 0, so its weight on CPU 1 is a PELT share
/// the replay's instantaneous shares do not give (OPEN, printed).
#[test]
fn bandwidth_started_on_its_cpu_keeps_its_shares() {
    for capture in ["bandwidth-30-of-100-1", "bandwidth-30-of-100-2"] {
        let r = run(capture, "bandwidth-30-of-100.layout.toml");
        let ((a1, s1), (a, s)) = picks(&r);
        println!("{capture}: picks {a}/{s}, CPU 1 {a1}/{s1} (OPEN: the autogroup's PELT share)");
        assert!(r.decisions.throttled > 0 || r.decisions.unthrottles > 0, "{capture}: the quota throttled");
        shares_within_a_point(capture, &r);
    }
}

/// bandwidth-30-of-100 with k_c in a cgroup of its own, captured with the two events the capture
/// tool now records: the period timer's expiries (`hrtimer_expire_entry` of
/// `sched_cfs_period_timer`) and each task's move into its cgroup (`cgroup_attach_task`).
/// The replay unthrottles at the timer (`tg_unthrottle_up()` enqueues without a reschedule, so
/// the group gains lag while k_c runs on to its tick: 3.1 ms a period here) and moves each
/// shell into its group where it wrote itself there. CPU 1 agrees at 290/294 and 225/288 (all
/// CPUs 99.0 % and 84.1 %); the same traces without those two events, at 145/293 and 152/288.
/// What is left on `-2` are near ties of k_c and sl_Q (lags 18-64 µs apart) after ticks whose
/// switch came up to 157 µs late; not traced further.
#[test]
fn bandwidth_with_its_period_timer_and_moves_in_the_trace_agrees_pick_by_pick() {
    let layout = "bandwidth-own-cgroup.layout.toml";
    for (capture, min_pct) in [("bandwidth-own-cgroup-1", 97), ("bandwidth-own-cgroup-2", 76)] {
        let obs = observe(capture);
        let r = replay_of(&obs, capture, layout);
        let ((a1, s1), (a, s)) = picks(&r);
        let d = &r.decisions;
        println!(
            "{capture}: picks {a}/{s}, CPU 1 {a1}/{s1}; {} period timers, {} moves",
            d.period_timers, d.cgroup_moves
        );
        assert!(
            d.period_timers >= 14 && d.cgroup_moves == 3,
            "{capture}: {} timers, {} moves",
            d.period_timers,
            d.cgroup_moves
        );
        assert!(s1 > 250 && a1 * 100 >= s1 * min_pct, "{capture}: CPU 1 {a1}/{s1}");
        shares_within_a_point(capture, &r);
        // Without the two events, the unthrottle is where the trace first shows it and the
        // shells are in their groups from the start.
        let mut blind = obs.clone();
        blind.events.retain(|e| !matches!(e.ev, ObsEvent::BandwidthTimer { .. } | ObsEvent::CgroupMove { .. }));
        let ((b1, t1), _) = picks(&replay_of(&blind, capture, layout));
        println!("{capture} without them: CPU 1 {b1}/{t1}");
        assert!(b1 + 40 <= a1, "{capture}: {b1}/{t1} without the events, {a1}/{s1} with them");
    }
}

/// The autogroup shape again, with both events in the trace: the timer and the moves are
/// replayed, but the picks stay where they were (64-68 %): with k_c in the session's
/// autogroup, its weight on CPU 1 is a PELT share of a group whose other tasks the trace does
/// not show (the contrast with `bandwidth-own-cgroup` is the measurement; OPEN, printed).
#[test]
fn bandwidth_in_the_autogroup_replays_its_timer_and_keeps_its_shares() {
    let capture = "bandwidth-30-of-100-3";
    let r = run(capture, "bandwidth-30-of-100.layout.toml");
    let ((a1, s1), (a, s)) = picks(&r);
    println!("{capture}: picks {a}/{s}, CPU 1 {a1}/{s1} (OPEN: the autogroup's PELT share)");
    assert!(r.decisions.period_timers >= 14 && r.decisions.cgroup_moves == 2);
    shares_within_a_point(capture, &r);
}

/// yield-in-cgroup-staggered started on CPU 1, with the shells' moves into sl_Y and sl_Z in the
/// trace and the capture session's autogroup in the layout (the shells start in it): CPU 1 agrees
/// at 920/993 and 988/992 of the picks (the `traces/linux-6.18` capture, forked from CPU 0:
/// 301/1,065). What is left on `-1` is its start: k_g and k_h 0.45-0.49 ms of lag from the
/// kernel's offset after k_h's shell waited 3.9 ms behind k_g and was not picked at the tick nor
/// at ksoftirqd's wakeup (its group entity was not eligible in the kernel; in the model it was,
/// by 2 ms); not traced further. The shadow makes the yields the kernel made within 2 % (539 for
/// 538, 542 for 536).
#[test]
fn yield_in_cgroup_started_on_its_cpu_agrees_pick_by_pick() {
    for (capture, min_pct) in [("yield-in-cgroup-staggered-1", 92), ("yield-in-cgroup-staggered-2", 99)] {
        let r = run(capture, "yield-in-cgroup-staggered.layout.toml");
        let ((a1, s1), (a, s)) = picks(&r);
        println!("{capture}: picks {a}/{s}, CPU 1 {a1}/{s1}; {} moves", r.decisions.cgroup_moves);
        assert_eq!(r.decisions.cgroup_moves, 3, "{capture}");
        assert!(s1 > 900 && a1 * 100 >= s1 * min_pct, "{capture}: CPU 1 {a1}/{s1}");
        shares_within_a_point(capture, &r);
        let y = r.tasks.iter().find(|t| t.name == "k_y").expect("k_y");
        println!("{capture} k_y yields: real {}, model {}", y.observed_yields, y.simulated_yields);
        assert!(
            y.observed_yields > 500 && y.simulated_yields.abs_diff(y.observed_yields) * 50 <= y.observed_yields,
            "{capture}"
        );
    }
}

/// cgroup-shares captured again with the shells' moves into sl_A and sl_B in the trace
/// (`cgroup_attach_task`): 389/392 and 388/393 of the picks (CPU 1: 282/284, 273/278), where the
/// two captures without them agree at 97.4 % and 94.7 %.
#[test]
fn cgroup_shares_with_its_moves_in_the_trace_agrees_pick_by_pick() {
    for capture in ["cgroup-shares-3", "cgroup-shares-4"] {
        let r = run(capture, "cgroup-shares.layout.toml");
        let ((a1, s1), (a, s)) = picks(&r);
        println!("{capture}: picks {a}/{s}, CPU 1 {a1}/{s1}; {} moves", r.decisions.cgroup_moves);
        assert_eq!(r.decisions.cgroup_moves, 3, "{capture}");
        assert!(s1 > 250 && a1 * 100 >= s1 * 98, "{capture}: CPU 1 {a1}/{s1}");
        assert!(a * 100 >= s * 98, "{capture}: {a}/{s}");
        shares_within_a_point(capture, &r);
    }
}

/// Two more captures of bandwidth-own-cgroup. `-3`: the kernel throttled where the model still
/// had runtime three times (its slice and pool before the trace are not in it); the replay takes
/// the kernel's state there (`throttle_resyncs`) and agrees at 239/304 of CPU 1's picks (169/304
/// without). `-4` was taken with the EEVDF dump: seeded from it (and again after each
/// unthrottle), CPU 1 agrees at 290/296, 278 of the 281 picks after the first seed; unseeded,
/// 233/296. The two groups' lag apart, modulo a tick's worth, is carried from the start and
/// moved by the same amount every period, so without a dump the start decides (-2: 225/288).
#[test]
fn bandwidth_throttles_the_trace_shows_and_the_dump_seed() {
    let layout = "bandwidth-own-cgroup.layout.toml";
    let r = run("bandwidth-own-cgroup-3", layout);
    let ((a1, s1), (a, s)) = picks(&r);
    println!("bandwidth-own-cgroup-3: picks {a}/{s}, CPU 1 {a1}/{s1}; {} resyncs", r.decisions.throttle_resyncs);
    assert!(r.decisions.throttle_resyncs >= 1 && r.decisions.throttled >= 28);
    assert!(s1 > 250 && a1 * 100 >= s1 * 76, "CPU 1 {a1}/{s1}");
    shares_within_a_point("bandwidth-own-cgroup-3", &r);

    let capture = "bandwidth-own-cgroup-4";
    let dir = common::traces().join("linux-6.18-cgroups-v769").join(capture);
    let mut obs = observe(capture);
    obs.eevdf = common::eevdf_dump(&dir.join("eevdf-state.txt"));
    let r = replay_of(&obs, capture, layout);
    let seed = r.decisions.seed.as_ref().expect("seeded");
    let ((a1, s1), _) = picks(&r);
    println!(
        "{capture}: CPU 1 {a1}/{s1}; after the first seed {}/{} ({} queues seeded)",
        seed.agreed_after,
        seed.scored_after,
        seed.queues.len()
    );
    assert!(seed.scored_after > 250 && seed.agreed_after * 100 >= seed.scored_after * 98);
    shares_within_a_point(capture, &r);
}

/// k_c in the session's autogroup, captured with the EEVDF dump (`bandwidth-30-of-100-4`, `-5`):
/// the autogroup's weight on CPU 1 is a PELT share (`calc_group_shares()` over both CPUs' loads,
/// some of them from before the trace), and each change re-weighs the running group entity
/// away from V. At the weights the dump records (`gw`, taken at every `G` record) the picks
/// after the first seed agree at 288/292 and 287/288; with the weights the model computes
/// itself they were 252/285 and 272/282, and without the dump 723/876 and 755/899 of all picks.
#[test]
fn bandwidth_in_the_autogroup_at_the_kernels_group_weights() {
    for capture in ["bandwidth-30-of-100-4", "bandwidth-30-of-100-5"] {
        let dir = common::traces().join("linux-6.18-cgroups-v769").join(capture);
        let mut obs = observe(capture);
        obs.eevdf = common::eevdf_dump(&dir.join("eevdf-state.txt"));
        let r = replay_of(&obs, capture, "bandwidth-30-of-100.layout.toml");
        let seed = r.decisions.seed.as_ref().expect("seeded");
        println!(
            "{capture}: picks {}/{}; after the first seed {}/{}; group weights from {} records, {} changed the model's",
            r.decisions.agreed,
            r.decisions.scored,
            seed.agreed_after,
            seed.scored_after,
            seed.group_weights,
            seed.group_reweights
        );
        assert!(seed.group_weights > 200 && seed.group_reweights > 0, "{seed:?}");
        assert!(seed.scored_after > 250 && seed.agreed_after * 100 >= seed.scored_after * 98, "{capture}");
        assert!(r.decisions.agreement_pct >= 99.0, "{capture}: {:.1} %", r.decisions.agreement_pct);
        shares_within_a_point(capture, &r);
    }
}

/// The shadow re-simulation starts sl_Q's period timer at the phase the trace shows (its first
/// expiry past a 100 ms boundary of the trace's start): the free run then throttles and
/// unthrottles when the kernel did. Same task on the same CPU, phase 0 → the trace's: 59.6 →
/// 73.2 %, 63.7 → 65.2 %, 49.4 → 75.5 %, 63.9 → 61.6 % on `bandwidth-own-cgroup-1..4` (with
/// the moves; without them 62.4 → 71.1, 60.8 → 66.3, 50.6 → 75.9, 62.3 → 61.6 %).
#[test]
fn the_shadow_runs_the_period_timer_at_the_traces_phase() {
    let layout =
        common::layout_file(&common::traces().join("linux-6.18-cgroups-v769/bandwidth-own-cgroup.layout.toml"));
    for capture in ["bandwidth-own-cgroup-1", "bandwidth-own-cgroup-3"] {
        let obs = observe(capture);
        let first = obs
            .events
            .iter()
            .find(|e| matches!(e.ev, ObsEvent::BandwidthTimer { .. }))
            .map(|e| e.ts - obs.t0.expect("records"))
            .expect("the timer is in the trace");
        let (shadow, r) = replay(&obs, &layout, capture, &[]).expect("replays");
        let q = shadow.scenario.cgroups.iter().find(|g| g.path == "/sl_Q").expect("sl_Q");
        assert_eq!(q.period_phase.map(|d| d.ns()), Some(first % 100_000_000), "{capture}");
        println!("{capture}: phase {} ns, same task on the same CPU {:.1} %", first % 100_000_000, r.agreement_pct);
        assert!(r.agreement_pct > 70.0, "{capture}: {:.1} %", r.agreement_pct);
        // A phase the layout gives is kept.
        let mut fixed = layout.clone();
        fixed.cgroups.iter_mut().find(|g| g.path == "/sl_Q").expect("sl_Q").period_phase =
            Some(schedlab_engine::scenario::units::DurationSpec(0));
        let (shadow, r0) = replay(&obs, &fixed, capture, &[]).expect("replays");
        let q = shadow.scenario.cgroups.iter().find(|g| g.path == "/sl_Q").expect("sl_Q");
        assert_eq!(q.period_phase.map(|d| d.ns()), Some(0));
        println!("{capture}: at phase 0, {:.1} %", r0.agreement_pct);
        assert!(
            r0.agreement_pct + 5.0 < r.agreement_pct,
            "{capture}: {:.1} against {:.1}",
            r0.agreement_pct,
            r.agreement_pct
        );
    }
}

/// The shadow re-simulation moves a task into its cgroup where the trace shows it: k_a starts
/// in its parent's group (the session's autogroup, where `cgroup_post_fork()` left it), runs and
/// sleeps as its shell did, then has a `cgroup` step into sl_Q. Same task on the same CPU, before
/// → with the moves: cgroup-shares-3, -4 90.3 → 67.5 %, 35.2 → 62.9 %; bandwidth-own-cgroup-1..4
/// 71.1 → 73.2, 66.3 → 65.2, 75.9 → 75.5, 61.6 → 61.6 %; yield-in-cgroup-staggered-1, -2
/// 83.6 → 84.5 %, 43.4 → 33.5 %: the free run's alternation is a matter of microseconds at the
/// start, and no better on the whole. The shares stay within 0.6 pp.
#[test]
fn the_shadow_moves_a_task_where_the_trace_shows_it() {
    let layout =
        common::layout_file(&common::traces().join("linux-6.18-cgroups-v769/bandwidth-own-cgroup.layout.toml"));
    let obs = observe("bandwidth-own-cgroup-1");
    let (shadow, r) = replay(&obs, &layout, "bandwidth-own-cgroup-1", &[]).expect("replays");
    let k_a = shadow.scenario.tasks.iter().find(|t| t.name == "k_a").expect("k_a");
    println!("k_a starts in {:?} with {:?}", k_a.cgroup, k_a.program);
    assert_eq!(k_a.cgroup.as_deref(), Some("/autogroup-capture"));
    assert!(k_a.program.iter().any(|s| matches!(s, schedlab_engine::scenario::OpSpec::Cgroup(p) if p == "/sl_Q")));
    shares_within_a_point("bandwidth-own-cgroup-1", &r);
}
