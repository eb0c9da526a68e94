//! Issue 16: the per-decision replay seeded from the kernel's own EEVDF state (each capture's
//! `eevdf-state.txt`, `replay::decisions::seed`). Unseeded, the three cgroup captures' workload
//! CPU agreed with the kernel at only 52–53 % of its picks; every disagreement was a choice
//! between two group entities at the root whose distance in virtual time the model had from the
//! unobservable start (tasks moved into their cgroups before the trace shows them, group weights
//! still climbing from PELT) and kept, since hogs never sleep. With the group weights the dump
//! records and each queue seeded once its whole population is recorded, the same model agrees
//! at 99 % there: the mechanisms hold, the start-up state and the weights were what differed.
//! Nothing is fitted: the dump is read, the picks after the seed are still the model's own.
#![allow(clippy::disallowed_methods)] // reads trace files

mod common;

use schedlab_engine::replay::compare::replay;
use schedlab_engine::replay::decisions::DecisionReport;
use schedlab_engine::replay::observe::Observed;
use schedlab_engine::replay::shadow::Layout;

/// The capture's `.dat` into the observed schedule.
fn observe(capture: &str) -> Observed {
    let path = common::traces().join("linux-6.18").join(capture).join("trace.dat");
    let bytes = std::fs::read(&path).unwrap();
    let mut obs = Observed::default();
    schedlab_engine::import::dat::decode_all(&bytes, &mut obs).unwrap();
    obs.finish();
    obs
}

/// Collects a dump's `S`/`G` lines.
fn dump(capture: &str) -> Vec<schedlab_engine::import::EevdfSample> {
    common::eevdf_dump(&common::traces().join("linux-6.18").join(capture).join("eevdf-state.txt"))
}

fn layout(capture: &str) -> Layout {
    let p = common::repo_root().join(format!("traces/linux-6.18/{capture}.layout.toml"));
    Layout::parse(&p.display().to_string(), &std::fs::read_to_string(&p).unwrap()).unwrap()
}

fn decisions(capture: &str, seeded: bool) -> DecisionReport {
    let mut obs = observe(capture);
    if seeded {
        obs.eevdf = dump(capture);
    }
    replay(&obs, &layout(capture), capture, &[]).unwrap().1.decisions
}

fn cpu(d: &DecisionReport, n: u32) -> (u64, u64, f64) {
    let c = d.per_cpu.iter().find(|c| c.cpu == n).unwrap();
    (c.agreed, c.scored, 100.0 * c.agreed as f64 / c.scored as f64)
}

/// (capture, CPU 1 % seeded as reached, rounded down): the workload ran on CPU 1. Measured
/// 2026-11-27 with the group weights taken from the dump too (before: late-nice7-hog 98.7,
/// bandwidth-30-of-100 85.8, yield-in-cgroup 97.9 %).
const SEEDED_CPU1: [(&str, f64); 8] = [
    ("nice-0-vs-2", 100.0),
    ("yield-vs-hog", 99.8),
    ("sleeper-vs-hog", 100.0),
    ("late-nice7-hog", 99.9),
    ("two-sleepers-and-hog", 99.8),
    ("cgroup-shares", 99.2),
    ("bandwidth-30-of-100", 98.9),
    ("yield-in-cgroup", 99.5),
];

#[test]
fn seeding_from_the_kernels_dump_takes_the_start_up_out_of_the_cgroup_captures() {
    let mut failures = Vec::new();
    println!("capture                 unseeded CPU 1        seeded CPU 1        all CPUs unseeded → seeded");
    for (capture, floor) in SEEDED_CPU1 {
        let (before, after) = (decisions(capture, false), decisions(capture, true));
        let seed = after.seed.as_ref().expect("a dump was given");
        let a = seed.alignment.as_ref().unwrap();
        // The S lines inside the trace lie on switch-outs of their tasks (two-sleepers-and-hog:
        // 2,553 of 2,554).
        assert!(a.accepted && a.matched * 1000 >= a.in_trace * 999, "{capture}: {a:?}");
        assert!(!seed.queues.is_empty(), "{capture}: nothing seeded");
        let (b1, a1) = (cpu(&before, 1), cpu(&after, 1));
        println!(
            "{capture:<22} {:>5}/{:<5} {:>5.1} %   {:>5}/{:<5} {:>5.1} %   {:.1} → {:.1} %  ({} queues, {} after an unthrottle; after the first seed {}/{})",
            b1.0,
            b1.1,
            b1.2,
            a1.0,
            a1.1,
            a1.2,
            before.agreement_pct,
            after.agreement_pct,
            seed.queues.len(),
            seed.unthrottle_reseeds,
            seed.agreed_after,
            seed.scored_after
        );
        if a1.2 < floor {
            failures.push(format!("{capture}: CPU 1 seeded {:.2} % < {floor}", a1.2));
        }
        // The seed reads the kernel's state; it never makes CPU 1 worse.
        if a1.0 < b1.0 {
            failures.push(format!("{capture}: seeded {} < unseeded {} agreed picks on CPU 1", a1.0, b1.0));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// Where the model's lags already agree with the kernel's, the seed moves nothing: the flat
/// captures' queues are seeded by at most the rounding of V's division, 2 ns (a wrong alignment of a periodic workload, one period
/// off, moved yield-vs-hog's by 18.7 µs before the alignment checked several candidates).
#[test]
fn the_seed_moves_nothing_where_the_model_already_agrees() {
    for capture in ["nice-0-vs-2", "yield-vs-hog", "sleeper-vs-hog"] {
        let d = decisions(capture, true);
        let seed = d.seed.unwrap();
        // The workload's queue (the root's autogroup entity, whose PELT weight is 0.4 % under the
        // model's, and the kworkers beside it are seeded too, by a few hundred ns).
        for q in seed.queues.iter().filter(|q| q.entities.iter().all(|e| e.starts_with("k_"))) {
            println!("{capture}: seeded at {} ns, depth {}: {:?} moved {:?}", q.at_ns, q.depth, q.entities, q.moved_ns);
            assert!(q.moved_ns.iter().all(|m| m.abs() <= 2), "{capture}: {:?}", q.moved_ns);
        }
    }
}

/// The cgroup captures' group entities start at 0.56–0.71 of their shares (PELT: the load the
/// tasks left on the other CPU is still in `tg->load_avg`), and every change of weight re-places
/// the running group entity. At the weights the dump records (taken at every `G` record), the
/// model's root queue of cgroup-shares is within 0.1 ms of the kernel's when it is first fully
/// recorded (29.5 ms: moved +79 µs and −93 µs; held here under 0.2 ms). At the weights the model computed itself it
/// was first seeded at 33.5 ms, moved by +0.78 and −1.56 ms: that distance was the weights'.
#[test]
fn the_cgroup_captures_root_queues_follow_the_kernels_group_weights() {
    let d = decisions("cgroup-shares", true);
    let seed = d.seed.as_ref().unwrap();
    let root = seed.queues.iter().find(|q| q.depth == 0).expect("the root queue is seeded");
    println!(
        "cgroup-shares root seeded at {} ns: {:?} moved {:?}; group weights from {} records, {} changed the model's",
        root.at_ns, root.entities, root.moved_ns, seed.group_weights, seed.group_reweights
    );
    assert!(seed.group_reweights > 0);
    assert!(root.moved_ns.iter().all(|m| m.unsigned_abs() < 200_000), "{:?}", root.moved_ns);
}
