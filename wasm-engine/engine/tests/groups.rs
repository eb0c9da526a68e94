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
