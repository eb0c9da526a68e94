//! Fidelity of the SMP model (`smp = "fair"`: wakeup placement and load balancing) against
//! the real Linux 6.18.44 kernel on our 2-CPU machine: the `scenarios/linux-6.18-smp/*`
//! mirrors of the captures in `traces/linux-6.18-smp` against the measured per-task figures
//! of `traces/linux-6.18-smp/oracle.json`.
//!
//! Nothing in the SMP model was fitted to these captures (no constant of `sched/select.rs`,
//! `sched/balance` or `sched/smp.rs` comes from them; the mirrors' run/sleep lengths are the
//! workloads' own arguments), so every figure here is a **prediction**:
//! * each `k_*` task's CPU time (`cpu_pct`, % of one CPU over the capture's window) within
//!   3 percentage points;
//! * the structure the README's table describes (who holds a CPU alone, who shares);
//! * migrations per task within a factor of 2 wherever the real count is at least 3.
//!
//! A migration count is a handful of events in 1.5 s, and a mirror's is chaotic in its
//! parameters: which tick a periodic balance lands on, and what it finds on the other CPU
//! then, moves with a few ns of any cost (a pipe pair's cycle against the 4 ms tick). One
//! seeded run is one draw, so the model's figure is the median over the scenario seeds
//! `SEEDS` (each seeds NI_RANDOM and any `work_jitter`); the CPU shares are the scenario's own
//! seed's, and the table prints every seed's count.
//!
//! Tasks with identical programs and attributes (`TWINS`: the hogs of a capture) are
//! interchangeable: which of them the kernel's early races pair with which neighbour is not
//! something a mirror can know, so their figures are compared as sorted lists (the largest
//! model share against the largest real one, and so on).
//!
//! A figure the model misses is printed as OPEN, with its measured reason, only where that
//! reason is written down in `OPEN`; everything else is asserted, and an OPEN figure that
//! comes within tolerance is reported so that it can be moved back to the checked ones.
//! `cargo test -p schedlab-engine --test fidelity_smp -- --nocapture` prints the table.

#![allow(clippy::disallowed_methods)] // tests read fixture files

mod common;

use schedlab_engine::obs::summary::{Summary, TaskSummary};
use serde_json::Value;

const CAPTURES: [&str; 5] =
    ["three-hogs-two-cpus", "nice-imbalance-smp", "pipe-pair-and-hog", "sleepers-and-hogs-smp", "cgroup-shares-smp"];

/// Interchangeable tasks per capture (same program, nice, cgroup, affinity).
const TWINS: [(&str, &[&str]); 5] = [
    ("three-hogs-two-cpus", &["k_a", "k_b", "k_c"]),
    ("nice-imbalance-smp", &["k_b", "k_c", "k_d"]),
    ("pipe-pair-and-hog", &[]),
    ("sleepers-and-hogs-smp", &["k_a", "k_b"]),
    ("cgroup-shares-smp", &["k_b", "k_c", "k_d"]),
];

/// Predictions the model misses, each with the measured reason (capture, task, figure).
const OPEN: [(&str, &str, &str, &str); 0] = [];

fn open_reason(capture: &str, task: &str, figure: &str) -> Option<&'static str> {
    OPEN.iter().find(|(c, t, f, _)| *c == capture && *t == task && *f == figure).map(|o| o.3)
}

fn oracle() -> Value {
    let text = std::fs::read_to_string(common::traces().join("linux-6.18-smp/oracle.json")).expect("oracle.json");
    serde_json::from_str(&text).expect("oracle.json parses")
}

/// The seeds whose median migration count is the model's figure (the first is the file's).
const SEEDS: [u64; 9] = [1, 2, 3, 4, 5, 6, 7, 8, 9];

fn run(name: &str) -> Summary {
    run_seeded(name, None)
}

fn run_seeded(name: &str, seed: Option<u64>) -> Summary {
    let path = common::repo_root().join(format!("scenarios/linux-6.18-smp/{name}.toml"));
    let seed = seed.map(|s| s.to_string());
    let variants: Vec<(&str, &str)> = seed.iter().map(|s| ("seed", s.as_str())).collect();
    let mut sim = common::load(&path, &variants);
    sim.check_invariants = true;
    sim.run();
    Summary::of(&sim)
}

fn task<'a>(s: &'a Summary, name: &str) -> &'a TaskSummary {
    s.tasks.iter().find(|t| t.name == name).unwrap_or_else(|| panic!("the mirror has no task {name}"))
}

/// The share of a task's CPU time spent on its busiest CPU, and that CPU.
fn home(t: &TaskSummary) -> (f64, usize) {
    let (cpu, most) = t.cpu_time_ns_by_cpu.iter().enumerate().max_by_key(|(_, &v)| v).expect("CPUs");
    (*most as f64 / t.cpu_time_ns.max(1) as f64, cpu)
}

/// Model and real figures of one capture, with the failures found.
struct Check {
    failures: Vec<String>,
}

impl Check {
    fn expect(&mut self, ok: bool, what: String) {
        println!("  {} {what}", if ok { "ok  " } else { "FAIL" });
        if !ok {
            self.failures.push(what);
        }
    }
}

#[test]
fn the_smp_mirrors_predict_the_real_kernel() {
    let oracle = oracle();
    let mut failures = Vec::new();
    for name in CAPTURES {
        let real = &oracle[name];
        let window_ns = real["window_ms"].as_f64().expect("window") * 1e6;
        let s = run(name);
        let duration = s.duration_ns as f64;
        // Each task's migrations under every seed of SEEDS, and their median.
        let runs: Vec<Summary> = SEEDS.iter().map(|&seed| run_seeded(name, Some(seed))).collect();
        let migrations = |tname: &str| -> (u64, Vec<u64>) {
            let per_seed: Vec<u64> = runs.iter().map(|r| task(r, tname).migrations).collect();
            let mut sorted = per_seed.clone();
            sorted.sort_unstable();
            (sorted[sorted.len() / 2], per_seed)
        };
        println!("{name} (window {:.1} ms real, {:.1} ms simulated)", window_ns / 1e6, duration / 1e6);
        println!(
            "  {:<18} {:>9} {:>9} {:>7} {:>9} {:>9}",
            "task", "real %", "model %", "Δ pp", "real mig", "model mig (median)"
        );
        let mut c = Check { failures: Vec::new() };
        let tasks = real["tasks"].as_object().expect("tasks");
        let twins: &[&str] = TWINS.iter().find(|(c, _)| *c == name).map(|t| t.1).unwrap_or(&[]);
        // (task, real %, model %, real migrations, model migrations), twins matched by rank.
        let mut rows: Vec<(String, f64, f64, u64, u64)> = tasks
            .iter()
            .map(|(tname, r)| {
                let m = task(&s, tname);
                let real_pct = r["cpu_pct"].as_f64().expect("cpu_pct");
                let model_pct = m.cpu_time_ns as f64 / duration * 100.0;
                let (median, per_seed) = migrations(tname);
                println!("  {tname}: migrations under seeds {SEEDS:?}: {per_seed:?} (median {median})");
                (tname.clone(), real_pct, model_pct, r["migrations"].as_u64().expect("migrations"), median)
            })
            .collect();
        let idx: Vec<usize> = (0..rows.len()).filter(|&i| twins.contains(&rows[i].0.as_str())).collect();
        let sorted = |mut v: Vec<f64>| {
            v.sort_by(f64::total_cmp);
            v
        };
        let (real_pcts, model_pcts) =
            (sorted(idx.iter().map(|&i| rows[i].1).collect()), sorted(idx.iter().map(|&i| rows[i].2).collect()));
        let (real_migs, model_migs) = (
            sorted(idx.iter().map(|&i| rows[i].3 as f64).collect()),
            sorted(idx.iter().map(|&i| rows[i].4 as f64).collect()),
        );
        let mut by_real: Vec<usize> = idx.clone();
        by_real.sort_by(|&a, &b| rows[a].1.total_cmp(&rows[b].1));
        for (rank, &i) in by_real.iter().enumerate() {
            let label = format!("{} (twin rank {})", rows[i].0, rank + 1);
            rows[i] = (label, real_pcts[rank], model_pcts[rank], real_migs[rank] as u64, model_migs[rank] as u64);
        }
        for (tname, real_pct, model_pct, real_mig, model_mig) in rows {
            println!(
                "  {tname:<18} {real_pct:>9.2} {model_pct:>9.2} {:>+7.2} {real_mig:>9} {model_mig:>9}",
                model_pct - real_pct
            );
            let base = tname.split(' ').next().expect("name");
            let within = (model_pct - real_pct).abs() <= 3.0;
            let what = format!("{name} {tname}: CPU {model_pct:.2} % vs real {real_pct:.2} % (3 pp)");
            match open_reason(name, base, "cpu") {
                Some(why) if !within => println!("  OPEN {what}: {why}"),
                Some(_) => println!("  NOW WITHIN (listed as open) {what}"),
                None => c.expect(within, what),
            }
            if real_mig >= 3 {
                let ok = model_mig * 2 >= real_mig && model_mig <= real_mig * 2;
                let what = format!("{name} {tname}: {model_mig} migrations vs real {real_mig} (within 2×)");
                match open_reason(name, base, "migrations") {
                    Some(why) if !ok => println!("  OPEN {what}: {why}"),
                    Some(_) => println!("  NOW WITHIN (listed as open) {what}"),
                    None => c.expect(ok, what),
                }
            }
        }
        structure(name, &s, &mut c);
        failures.extend(c.failures);
    }
    assert!(failures.is_empty(), "{} SMP predictions missed:\n{}", failures.len(), failures.join("\n"));
}

/// The structure of each capture (`traces/linux-6.18-smp/README.md`).
fn structure(name: &str, s: &Summary, c: &mut Check) {
    match name {
        "nice-imbalance-smp" | "cgroup-shares-smp" => {
            // The heavy task (nice 0 / the 2048-shares group's only task) holds one CPU alone;
            // the three others share the other CPU.
            let (share, cpu) = home(task(s, "k_a"));
            c.expect(
                share >= 0.90,
                format!("{name}: k_a runs {:.1} % of its time on CPU {cpu} (≥ 90 %)", share * 100.0),
            );
            for t in ["k_b", "k_c", "k_d"] {
                let (share, other) = home(task(s, t));
                c.expect(
                    other != cpu && share >= 0.90,
                    format!(
                        "{name}: {t} runs {:.1} % of its time on CPU {other}, not k_a's CPU {cpu} (≥ 90 %)",
                        share * 100.0
                    ),
                );
            }
        }
        "pipe-pair-and-hog" => {
            let (sp, cp) = home(task(s, "k_p"));
            let (sq, cq) = home(task(s, "k_q"));
            let (sh, ch) = home(task(s, "k_h"));
            c.expect(
                cp == cq && sp >= 0.90 && sq >= 0.90,
                format!(
                    "{name}: the pipe pair shares one CPU: k_p {:.1} % on CPU {cp}, k_q {:.1} % on CPU {cq} (≥ 90 %)",
                    sp * 100.0,
                    sq * 100.0
                ),
            );
            c.expect(
                ch != cp && sh >= 0.90,
                format!("{name}: the hog keeps the other CPU: {:.1} % on CPU {ch}", sh * 100.0),
            );
        }
        "sleepers-and-hogs-smp" => {
            let (sa, ca) = home(task(s, "k_a"));
            let (sb, cb) = home(task(s, "k_b"));
            c.expect(
                ca != cb && sa >= 0.95 && sb >= 0.95,
                format!(
                    "{name}: each hog on its own CPU: k_a {:.1} % on CPU {ca}, k_b {:.1} % on CPU {cb} (≥ 95 %)",
                    sa * 100.0,
                    sb * 100.0
                ),
            );
        }
        _ => {
            // Three hogs on two CPUs: none keeps a CPU; each runs on both.
            for t in ["k_a", "k_b", "k_c"] {
                let (share, cpu) = home(task(s, t));
                c.expect(
                    share < 0.90,
                    format!("{name}: {t} is not stuck on CPU {cpu} ({:.1} % there; real 52-77 %)", share * 100.0),
                );
            }
        }
    }
}
