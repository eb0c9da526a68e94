//! `schedlab replay TRACE --seeds N`: the shadow re-simulation under seeds 1 to N, and each
//! task's CPU time over them (least, mean, most) beside the real one. A workload such as three
//! hogs on two CPUs runs on whichever balance orbit its start and the late passes decide
//! (`docs/kernel-6.18.44-findings.md`, "The three-hog rotation is a neutral orbit"): one
//! capture is one draw, and the model's answer is a range.

use schedlab_engine::replay::compare::replay;
use schedlab_engine::replay::observe::Observed;
use schedlab_engine::replay::shadow::Layout;
use std::fmt::Write as _;

/// The most seeds one call runs.
const MAX_SEEDS: u32 = 64;
/// Tasks below this share of a CPU, real and simulated, are left out of the table.
const SHOWN_PCT: f64 = 1.0;

/// Per task, in the first run's order: the real CPU time and the model's under each seed.
struct Row {
    name: String,
    real: f64,
    model: Vec<f64>,
}

pub fn table(
    obs: &Observed,
    layout: &Layout,
    name: &str,
    variants: &[(String, String)],
    n: u32,
) -> Result<String, String> {
    if !(1..=MAX_SEEDS).contains(&n) {
        return Err(format!("--seeds {n}: expected 1 to {MAX_SEEDS}"));
    }
    let mut rows: Vec<Row> = Vec::new();
    let mut scenario = String::new();
    for seed in 1..=n {
        let mut v: Vec<(String, String)> = variants.iter().filter(|(k, _)| k != "seed").cloned().collect();
        v.push(("seed".to_string(), seed.to_string()));
        let (_, r) = replay(obs, layout, name, &v)?;
        scenario.clone_from(&r.scenario);
        for t in &r.tasks {
            match rows.iter_mut().find(|row| row.name == t.name) {
                Some(row) => row.model.push(t.simulated_cpu_pct),
                None => {
                    rows.push(Row { name: t.name.clone(), real: t.observed_cpu_pct, model: vec![t.simulated_cpu_pct] })
                }
            }
        }
    }
    rows.retain(|r| r.real >= SHOWN_PCT || r.model.iter().any(|&m| m >= SHOWN_PCT));
    let given: Vec<String> = variants.iter().filter(|(k, _)| k != "seed").map(|(k, v)| format!("{k}={v}")).collect();
    let mut s = String::new();
    let _ = writeln!(
        s,
        "shadow re-simulation of {scenario} ({}) under seeds 1 to {n}: CPU time, % of one CPU",
        if given.is_empty() { "baseline".to_string() } else { given.join(" ") }
    );
    let _ = writeln!(s, "{:<24} {:>8} {:>8} {:>8} {:>8}  real inside", "task", "real %", "least", "mean", "most");
    let (mut inside, mut differ) = (0, false);
    for r in &rows {
        let least = r.model.iter().copied().fold(f64::INFINITY, f64::min);
        let most = r.model.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let mean = r.model.iter().sum::<f64>() / r.model.len() as f64;
        let ok = (least..=most).contains(&r.real);
        inside += ok as usize;
        differ |= most > least;
        let _ = writeln!(
            s,
            "{:<24} {:>8.2} {:>8.2} {:>8.2} {:>8.2}  {}",
            r.name,
            r.real,
            least,
            mean,
            most,
            if ok { "yes" } else { "no" }
        );
    }
    let _ = writeln!(s, "the real CPU time lies inside the model's range at {inside} of {} tasks", rows.len());
    if !differ {
        let _ = writeln!(
            s,
            "every seed gave the same run: no seeded behaviour decides this workload's course \
             (the late balance passes are off by default: --variant tick_ahead=11.4)"
        );
    }
    Ok(s)
}
