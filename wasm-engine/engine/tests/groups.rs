//! Group scheduling: nested cgroups, v1 shares and v2 weights, autogroups per session and
//! find_matching_se, with the invariant checker after every event.

#![allow(clippy::disallowed_methods)] // tests read fixture files

mod common;

use schedlab_engine::obs::summary::Summary;

fn shares(text: &str, variants: &[(&str, &str)]) -> Vec<(String, f64)> {
    let v: Vec<(String, String)> = variants.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
    let (_, mut sim) = schedlab_engine::load("t.toml", text, &v).unwrap_or_else(|e| panic!("{e}"));
    sim.check_invariants = true;
    sim.run();
    Summary::of(&sim).tasks.iter().map(|t| (t.name.clone(), t.share_pct)).collect()
}

fn hog(name: &str, extra: &str) -> String {
    format!("[[tasks]]\nname = \"{name}\"\n{extra}program = [{{ run = \"forever\" }}]\n")
}

fn near(got: &[(String, f64)], want: &[(&str, f64)], tol: f64) {
    for (n, w) in want {
        let g = got.iter().find(|(x, _)| x == n).map(|(_, s)| *s).expect("task");
        assert!((g - w).abs() <= tol, "{n}: {g:.2} % vs {w:.2} % (all: {got:?})");
    }
}

#[test]
fn nested_groups_split_by_shares_at_every_level() {
    let mut s = String::from("version = 1\nname = \"nested\"\nduration = \"3s\"\n[host]\ncpus = 1\nhz = 1000\n");
    s += "[[cgroups]]\npath = \"/a\"\n[[cgroups]]\npath = \"/a/x\"\nshares = 2048\n[[cgroups]]\npath = \"/a/y\"\nshares = 1024\n[[cgroups]]\npath = \"/b\"\n";
    s += &hog("t1", "cgroup = \"/a/x\"\n");
    s += &hog("t2", "cgroup = \"/a/y\"\n");
    s += &hog("t3", "cgroup = \"/b\"\n");
    let got = shares(&s, &[]);
    near(&got, &[("t3", 50.0), ("t1", 33.33), ("t2", 16.67)], 1.0);
}

#[test]
fn cgroup_v2_weight_maps_to_shares() {
    let mut s = String::from("version = 1\nname = \"v2\"\nduration = \"2s\"\n[host]\ncpus = 1\nhz = 1000\n");
    s += "[[cgroups]]\npath = \"/hi\"\nweight = 200\n[[cgroups]]\npath = \"/lo\"\nweight = 100\n";
    s += &hog("a", "cgroup = \"/hi\"\n");
    s += &hog("b", "cgroup = \"/lo\"\n");
    s += &hog("c", "cgroup = \"/lo\"\n");
    near(&shares(&s, &[]), &[("a", 66.67), ("b", 16.67), ("c", 16.67)], 1.0);
}

#[test]
fn autogroup_splits_by_session() {
    let mut s = String::from("version = 1\nname = \"ag\"\nduration = \"2s\"\n[host]\ncpus = 1\nhz = 1000\n");
    s += &hog("alone", "session = \"one\"\n");
    for i in 0..3 {
        s += &hog(&format!("crowd{i}"), "session = \"two\"\n");
    }
    // Off (the default): four equal tasks.
    near(&shares(&s, &[]), &[("alone", 25.0), ("crowd0", 25.0)], 1.0);
    // On: each session's autogroup gets half.
    near(&shares(&s, &[("autogroup", "true")]), &[("alone", 50.0), ("crowd0", 16.67), ("crowd2", 16.67)], 1.0);
}

#[test]
fn find_matching_se_meets_at_the_lowest_common_cfs_rq() {
    let mut s = String::from("version = 1\nname = \"lca\"\nduration = \"10ms\"\n[host]\ncpus = 1\n");
    s += "[[cgroups]]\npath = \"/cg0\"\n[[cgroups]]\npath = \"/cg1\"\n";
    s += &hog("A", "cgroup = \"/cg0\"\n");
    s += &hog("C", "cgroup = \"/cg0\"\n");
    s += &hog("B", "cgroup = \"/cg1\"\n");
    let (_, mut sim) = schedlab_engine::load("t.toml", &s, &[]).expect("valid");
    sim.run_until(5_000_000);
    let f = &sim.fair;
    // A and C share /cg0's cfs_rq: they are their own LCA pair.
    assert_eq!(f.find_matching_se(0, 1), (0, 1));
    // A and B meet on the root cfs_rq as the group entities of /cg0 and /cg1.
    let (a, b) = f.find_matching_se(0, 2);
    assert_eq!(f.ents[a as usize].my_q.map(|q| f.qs[q as usize].tg), Some(1));
    assert_eq!(f.ents[b as usize].my_q.map(|q| f.qs[q as usize].tg), Some(2));
    assert_eq!(f.ents[a as usize].cfs_rq, f.ents[b as usize].cfs_rq);
}

// Group weights and re-weighing, as Linux 6.18.y does them (kernel line numbers: 6.18.26
// kernel/sched/fair.c), driving the fair class directly.

use schedlab_engine::sched::entity::vdiff;
use schedlab_engine::sched::fair::{protect_slice, ENQUEUE_INITIAL};
use schedlab_engine::sched::weight::NICE_0_LOAD;

fn loaded(text: &str) -> schedlab_engine::sim::Simulation {
    schedlab_engine::load("t.toml", text, &[]).unwrap_or_else(|e| panic!("{e}")).1
}

/// Two nice-0 hogs `a` (entity 0) and `b` (1) queued on one CPU's root cfs_rq.
fn two_hogs() -> schedlab_engine::sim::Simulation {
    let mut s = String::from("version = 1\nname = \"rw\"\nduration = \"1s\"\n[host]\ncpus = 1\nhz = 250\n");
    s += &hog("a", "");
    s += &hog("b", "");
    let mut sim = loaded(&s);
    sim.fair.enqueue_task(0, ENQUEUE_INITIAL);
    sim.fair.enqueue_task(1, ENQUEUE_INITIAL);
    sim
}

/// Doubles `a`'s weight while it runs protected, and returns the (vlag, vruntime) the kernel
/// computes first (update_curr, then update_entity_lag's clamped V − v).
fn reweigh_a(sim: &mut schedlab_engine::sim::Simulation) -> (i64, u64) {
    let f = &mut sim.fair;
    let q = f.rqs[0].cfs;
    assert_eq!(f.qs[q as usize].curr, Some(0));
    assert!(protect_slice(&f.ents[0]), "a runs inside its protected slice");
    f.update_curr(q);
    let v = f.avg_vruntime(q);
    let (vruntime, slice) = (f.ents[0].vruntime, f.ents[0].slice);
    let limit = f.vs(slice + f.params.tick_nsec, 0) as i64;
    let vlag = vdiff(v, vruntime).clamp(-limit, limit);
    f.reweight_entity(q, 0, 2 * NICE_0_LOAD);
    assert_eq!(f.ents[0].load.weight, 2 * NICE_0_LOAD);
    (vlag, vruntime)
}

#[test]
fn reweight_entity_rescales_rel_vprot() {
    // reweight_entity() (l.3836–3890, ff38424030f9 in 6.18.y): a protected curr's vprot is
    // made relative, scaled by old/new weight and re-based after place_entity(). vlag and
    // vprot are one union field, and update_entity_lag() writes it before protect_slice()
    // reads it: the branch is taken while vruntime < vlag (a queue's first ms of virtual time,
    // zero_vruntime starts at −2^20), and the relative value carried is vlag − vruntime.
    let mut sim = two_hogs();
    sim.fair.force_next(0, Some(0));
    sim.fair.now = 100_000;
    let (vlag, vruntime) = reweigh_a(&mut sim);
    assert!((vruntime as i64) < vlag, "early: vruntime {} < vlag {vlag}", vruntime as i64);
    let rel = (vlag as u64).wrapping_sub(vruntime) as i64;
    let e = &sim.fair.ents[0];
    assert_eq!(vdiff(e.vprot, e.vruntime), rel / 2, "vprot − vruntime scaled by 1/2 and re-based");
    assert!(protect_slice(e));
}

#[test]
fn reweight_entity_ends_protection_through_the_vlag_union() {
    // The same function once vruntime has passed its lag (every queue after its first ms):
    // protect_slice() reads the lag update_entity_lag() just wrote, the branch is not taken,
    // and the field keeps the rescaled lag: curr leaves the reweight unprotected.
    let mut sim = two_hogs();
    let f = &mut sim.fair;
    let q = f.rqs[0].cfs;
    f.force_next(0, Some(0));
    f.now = 1_500_000;
    f.update_curr(q);
    f.force_next(0, Some(1));
    f.now = 3_000_000;
    f.update_curr(q);
    f.force_next(0, Some(0));
    f.now = 3_100_000;
    let (vlag, vruntime) = reweigh_a(&mut sim);
    assert!((vruntime as i64) > vlag);
    let e = &sim.fair.ents[0];
    assert_eq!(e.vlag, vlag / 2, "the lag is scaled by old/new");
    assert_eq!(e.vprot, e.vlag as u64, "the union holds the rescaled lag");
    assert!(!protect_slice(e), "the protection is over");
}

#[test]
fn reweight_entity_of_the_running_entity_pushes_it_away_from_v() {
    // reweight_entity() of curr re-places it with place_entity(), whose lag inflation counts
    // cfs_rq->sum_weight plus curr's weight, and curr is the entity being placed: its weight
    // is counted twice. With two equal entities the lag comes back 1.5x in virtual time and
    // 1.25x once V has moved with it, whatever the size of the weight change. A group entity
    // whose PELT share changes at every tick (an autogroup with load on another CPU) drifts
    // ahead of its sibling that way: 4.53-4.98 ms of vruntime per 4 ms run in
    // traces/linux-6.18/bandwidth-30-of-100's dump (docs/kernel-6.18.44-findings.md).
    let mut sim = two_hogs();
    let f = &mut sim.fair;
    let q = f.rqs[0].cfs;
    f.force_next(0, Some(1));
    f.now = 2_000_000;
    f.update_curr(q);
    f.force_next(0, Some(0));
    f.now = 8_000_000;
    f.update_curr(q);
    let real_lag = |f: &mut schedlab_engine::sched::fair::Fair| {
        vdiff(f.avg_vruntime(q), f.ents[0].vruntime) as f64 * f.ents[0].load.weight as f64 / NICE_0_LOAD as f64
    };
    let before = real_lag(f);
    assert!((-2_100_000.0..-1_900_000.0).contains(&before), "a ran 4 ms more than b: {before}");
    f.reweight_entity(q, 0, NICE_0_LOAD * 99 / 100);
    let after = real_lag(f);
    let grew = after / before;
    assert!((1.24..1.26).contains(&grew), "a 1 % lighter, its lag {before} -> {after} ({grew:.3}x)");
}

#[test]
fn update_cfs_group_runs_in_a_throttled_hierarchy() {
    // update_cfs_group() (l.4017) skips only a group whose queue is empty; ≤6.17 also skipped
    // a throttled hierarchy. Two CPUs share /Q: CPU 1's task halves the group's weight on CPU 0,
    // and CPU 0's next tick re-weighs its group entity although /Q is throttled there.
    let mut s = String::from("version = 1\nname = \"tg\"\nduration = \"1s\"\n[host]\ncpus = 2\nhz = 250\n");
    s += "[[cgroups]]\npath = \"/Q\"\nquota = \"2ms\"\nperiod = \"100ms\"\n";
    s += &hog("a0", "cgroup = \"/Q\"\naffinity = [0]\n");
    s += &hog("b1", "cgroup = \"/Q\"\naffinity = [1]\n");
    for (mode, weight) in [("task_based", NICE_0_LOAD / 2), ("cfs_rq", NICE_0_LOAD)] {
        let v = vec![("throttle".to_string(), mode.to_string())];
        let mut sim = schedlab_engine::load("t.toml", &s, &v).unwrap_or_else(|e| panic!("{e}")).1;
        let f = &mut sim.fair;
        let (q0, ge0) = (f.tgs[1].cfs_rq[0], f.tgs[1].se[0].expect("group entity"));
        f.enqueue_task(0, ENQUEUE_INITIAL);
        f.force_next(0, Some(0));
        assert_eq!(f.ents[ge0 as usize].load.weight, NICE_0_LOAD, "alone: the whole shares");
        f.enqueue_task(1, ENQUEUE_INITIAL);
        // Throttle /Q on CPU 0.
        f.tgs[1].bw.as_mut().expect("quota").runtime = 0;
        f.qs[q0 as usize].runtime_remaining = 0;
        assert!(f.throttle_cfs_rq(q0));
        f.now = 1_000_000;
        f.task_tick(0);
        assert_eq!(f.ents[ge0 as usize].load.weight, weight, "{mode}");
    }
}

/// `calc_group_shares()` under `group_shares = pelt`: the group's tasks ran 100 ms on CPU 0,
/// then its only runnable task is on CPU 1. CPU 0's group cfs_rq keeps that load as blocked
/// load in `tg->load_avg`, so the group entity on CPU 1 gets well below the group's shares
/// (load / (CPU 0's decaying contribution + load)) and recovers as CPU 0's average decays
/// (halving every 32 ms, aged by the blocked-load updates). Under `instant` (the default) a
/// sleeping CPU contributes nothing: the weight is the shares throughout.
#[test]
fn calc_group_shares_follows_another_cpus_decaying_load_under_pelt() {
    let mut s = String::from("version = 1\nname = \"pelt\"\nduration = \"500ms\"\n[host]\ncpus = 2\nhz = 1000\n");
    s += "[[cgroups]]\npath = \"/g\"\n";
    s += "[[tasks]]\nname = \"early\"\ncgroup = \"/g\"\naffinity = [0]\nprogram = [{ run = \"100ms\" }, { sleep = \"10s\" }]\n";
    s += &hog("late", "cgroup = \"/g\"\naffinity = [1]\nstart = \"100ms\"\n");
    s += &hog("rival", "affinity = [1]\n");
    let weights = |variants: &[(String, String)]| {
        let (_, mut sim) = schedlab_engine::load("t.toml", &s, variants).unwrap_or_else(|e| panic!("{e}"));
        sim.check_invariants = true;
        let se = sim.fair.tgs[1].se[1].expect("group entity on CPU 1") as usize;
        [103, 150, 200, 300, 450]
            .map(|ms| {
                sim.run_until(ms * 1_000_000);
                sim.fair.ents[se].load.weight
            })
            .to_vec()
    };
    let v = |k: &str, x: &str| vec![(k.to_string(), x.to_string())];
    let instant = weights(&[]);
    assert_eq!(instant, vec![NICE_0_LOAD; 5], "instant: CPU 0's sleeping group queue weighs nothing");
    assert_eq!(weights(&v("group_shares", "instant")), instant, "instant is the default");
    let pelt = weights(&v("group_shares", "pelt"));
    println!("pelt group weights on CPU 1 at 103/150/200/300/450 ms: {pelt:?}");
    // Right after the move: CPU 0's contribution is about as large as CPU 1's load.
    assert!(pelt[0] < NICE_0_LOAD * 6 / 10, "{pelt:?}");
    // Then it recovers monotonically as CPU 0's blocked load decays, back to the shares.
    assert!(pelt.windows(2).all(|w| w[0] <= w[1]), "{pelt:?}");
    // 100 ms later CPU 0 keeps about 2^(-100/32) of its load: the weight is near 1/1.12.
    assert!(pelt[2] > NICE_0_LOAD * 85 / 100, "{pelt:?}");
    assert!(pelt[4] >= NICE_0_LOAD * 99 / 100, "{pelt:?}");
}

#[test]
fn a_cgroup_step_moves_the_running_task_as_sched_move_task_does() {
    // `a` runs 100 ms beside `b` in the root, then writes itself into /q (cpu.shares 2048):
    // from there its group entity weighs twice b (2/3 of the CPU instead of 1/2), and the
    // move reschedules (sched_move_task() ends with resched_curr()).
    let base = "version = 1\nname = \"mv\"\nduration = \"1s\"\n[host]\ncpus = 1\nhz = 250\n\
                [[cgroups]]\npath = \"/q\"\nshares = 2048\n";
    let run = |a_program: &str| {
        let s = format!(
            "{base}[[tasks]]\nname = \"a\"\nprogram = {a_program}\n[[tasks]]\nname = \"b\"\nprogram = [{{ run = \"forever\" }}]\n"
        );
        let mut sim = loaded(&s);
        sim.check_invariants = true;
        sim.run();
        let sum = Summary::of(&sim);
        let a = sum.tasks.iter().find(|t| t.name == "a").expect("a").share_pct;
        (a, sim.tasks[0].cfg.tg)
    };
    let (stay, tg_stay) = run("[{ run = \"forever\" }]");
    let (moved, tg_moved) = run("[{ run = \"50ms\" }, { cgroup = \"/q\" }, { run = \"forever\" }]");
    println!("a: {stay:.2} % in the root, {moved:.2} % moved into /q after 50 ms of CPU");
    assert_eq!((tg_stay, tg_moved), (0, 1));
    assert!((49.0..51.0).contains(&stay), "{stay}");
    assert!((60.0..66.0).contains(&moved), "{moved}");
}
