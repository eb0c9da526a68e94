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

// Group weights in a throttled hierarchy, as Linux 6.18 computes them (kernel line numbers:
// 6.18.26 kernel/sched/fair.c), driving the fair class directly.

use schedlab_engine::sched::fair::ENQUEUE_INITIAL;
use schedlab_engine::sched::weight::NICE_0_LOAD;

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
