//! `import::diff` on the A/B captures of `traces/linux-6.18-ab`: the same workload twice flags
//! nothing at 5 % noise; k_a's cgroup at twice the shares flags k_a's CPU time up, k_b's and
//! k_s's down, k_a's and k_b's switches with the same signs, CPU 1's runqueue depth mix, and
//! nothing else. Then the rule's parts on their own: the per-unit floors, `--match`, a trace
//! against itself.

#![allow(clippy::disallowed_methods)] // reads trace files

mod common;

use schedlab_engine::import::dat::decode_all;
use schedlab_engine::import::diff::{diff, quantile_band, DiffInput, DiffOptions, Figure, TraceDiff};
use schedlab_engine::import::metrics::MetricsWindow;
use schedlab_engine::import::timeline::TraceTimeline;
use schedlab_engine::import::TraceStore;

fn load(name: &str) -> (TraceStore, TraceTimeline) {
    let bytes = std::fs::read(common::traces().join("linux-6.18-ab").join(name).join("trace.dat")).expect("read");
    let mut store = TraceStore::new();
    decode_all(&bytes, &mut store).expect("decode");
    let tl = TraceTimeline::build(&store);
    (store, tl)
}

fn run(a: &str, b: &str, opt: &DiffOptions) -> TraceDiff {
    let (sa, ta) = load(a);
    let (sb, tb) = load(b);
    diff(DiffInput { store: &sa, timeline: &ta }, DiffInput { store: &sb, timeline: &tb }, opt).expect("diff")
}

fn noise(pct: f64) -> DiffOptions {
    DiffOptions { noise_pct: pct, ..DiffOptions::default() }
}

/// Every flagged figure as (row, figure, sign of B − A).
fn flags(d: &TraceDiff) -> Vec<(String, String, i8)> {
    let sign = |f: &Figure| if f.delta.unwrap_or(0.0) > 0.0 { 1 } else { -1 };
    let mut out = Vec::new();
    for t in &d.tasks {
        out.extend(t.figures.iter().filter(|f| f.flagged).map(|f| (t.comm.clone(), f.name.clone(), sign(f))));
    }
    for c in &d.cpus {
        out.extend(c.figures.iter().filter(|f| f.flagged).map(|f| (format!("cpu {}", c.cpu), f.name.clone(), sign(f))));
    }
    out
}

fn figure<'a>(d: &'a TraceDiff, comm: &str, name: &str) -> &'a Figure {
    let t = d.tasks.iter().find(|t| t.comm == comm).unwrap_or_else(|| panic!("no row {comm}"));
    t.figures.iter().find(|f| f.name == name).unwrap_or_else(|| panic!("no figure {name}"))
}

#[test]
fn the_same_workload_twice_flags_nothing_at_5_percent() {
    let d = run("base-1", "base-2", &noise(5.0));
    assert_eq!(flags(&d), vec![], "{}", d.text());
    assert_eq!(d.flagged, 0);
    // The rows are there, matched: the three workload tasks with their CPU shares close.
    for comm in ["k_a", "k_b", "k_s"] {
        let f = figure(&d, comm, "cpu");
        assert!(f.a.unwrap() > 10.0 && f.relative_pct.unwrap().abs() < 3.0, "{comm}: {f:?}");
    }
    assert_eq!(figure(&d, "k_s", "latency_p50").a.map(|v| (v / 1000.0).round()), Some(7.0));
    assert_eq!(d.cpus.iter().map(|c| c.cpu).collect::<Vec<_>>(), [1], "only CPU 1 was recorded");
    // At 1 % noise, below this pair's own run-to-run noise, k_b's CPU time (43.04 → 42.34 %,
    // −1.6 %, 0.7 pp) and CPU 1's busy time (−1.1 %, 1.1 pp) are flagged: the noise level is the
    // user's to give; the floors keep the smaller figures out.
    let s = |r: &str, f: &str| (r.to_string(), f.to_string(), -1);
    assert_eq!(flags(&run("base-1", "base-2", &noise(1.0))), vec![s("k_b", "cpu"), s("cpu 1", "busy")]);
}

#[test]
fn doubled_shares_flag_the_expected_figures() {
    let d = run("base-1", "shares-2048", &noise(5.0));
    let got = flags(&d);
    let s = |r: &str, f: &str, sign: i8| (r.to_string(), f.to_string(), sign);
    for want in [
        s("k_a", "cpu", 1),
        s("k_a", "switches", 1),
        s("k_a", "involuntary", 1),
        s("k_b", "cpu", -1),
        s("k_b", "switches", -1),
        s("k_b", "involuntary", -1),
        s("k_s", "cpu", -1),
    ] {
        assert!(got.contains(&want), "{want:?} not flagged:\n{}", d.text());
    }
    // Nothing else but CPU 1's depth mix and switch rate (k_s waits more, beside two hogs).
    for f in &got {
        let expected = matches!(f.0.as_str(), "k_a" | "k_b")
            && ["cpu", "switches", "involuntary"].contains(&f.1.as_str())
            || f.0 == "k_s" && f.1 == "cpu"
            || f.0 == "cpu 1" && (f.1.starts_with("depth_") || f.1 == "switches");
        assert!(expected, "unexpected flag {f:?}:\n{}", d.text());
    }
    // The weights' prediction: k_a and k_b share what k_s leaves 1:1, then 2:1.
    let share = |comm: &str, side: fn(&Figure) -> Option<f64>| side(figure(&d, comm, "cpu")).unwrap();
    let ratio_a = share("k_a", |f| f.a) / share("k_b", |f| f.a);
    let ratio_b = share("k_a", |f| f.b) / share("k_b", |f| f.b);
    assert!((0.9..1.1).contains(&ratio_a) && (1.8..2.2).contains(&ratio_b), "{ratio_a} {ratio_b}");
}

#[test]
fn a_trace_against_itself_is_all_zero() {
    let d = run("base-1", "base-1", &noise(0.0));
    assert_eq!(d.flagged, 0);
    for t in &d.tasks {
        for f in &t.figures {
            assert!(f.delta.is_none_or(|x| x == 0.0), "{} {f:?}", t.comm);
        }
    }
}

#[test]
fn match_pairs_renamed_comms_and_names_a_missing_one() {
    let opt = DiffOptions { matches: vec![("k_a".into(), "k_b".into())], ..noise(5.0) };
    let d = run("base-1", "base-2", &opt);
    let row = d.tasks.iter().find(|t| t.comm == "k_a").unwrap();
    assert_eq!(row.comm_b.as_deref(), Some("k_b"));
    assert_eq!((row.tasks_a, row.tasks_b), (1, 1));
    // B's k_b is taken by the match; A's k_b meets nothing and B's k_a has its own row.
    let kb = d.tasks.iter().find(|t| t.comm == "k_b").unwrap();
    assert_eq!((kb.tasks_a, kb.tasks_b), (1, 0));
    assert!(d.tasks.iter().any(|t| t.comm == "k_a" && t.tasks_a == 0 && t.tasks_b == 1));
    let (sa, ta) = load("base-1");
    let bad = DiffOptions { matches: vec![("k_z".into(), "k_a".into())], ..noise(5.0) };
    let e = diff(DiffInput { store: &sa, timeline: &ta }, DiffInput { store: &sa, timeline: &ta }, &bad).unwrap_err();
    assert_eq!(e, "--match k_z=k_a: A has no task named \"k_z\"");
}

#[test]
fn a_cpu_selection_limits_the_rows() {
    let opt = DiffOptions { window: MetricsWindow { cpus: Some(vec![0]), ..MetricsWindow::all() }, ..noise(5.0) };
    let d = run("base-1", "shares-2048", &opt);
    // CPU 0 was not recorded: no CPU row and no CPU time.
    assert!(d.cpus.is_empty());
    assert!(d.tasks.iter().all(|t| t.cpu_ns_a == 0 && t.cpu_ns_b == 0));
}

#[test]
fn quantile_bands() {
    let v: Vec<u64> = (1..=100).collect();
    // p50 of 100: ranks 50 ± 15.
    assert_eq!(quantile_band(&v, 50), (35, 65));
    // p99: the band reaches the maximum.
    assert_eq!(quantile_band(&v, 99).1, 100);
    assert_eq!(quantile_band(&[4], 90), (4, 4));
}
