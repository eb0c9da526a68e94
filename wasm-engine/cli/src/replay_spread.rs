//! `schedlab replay TRACE --seeds N` or `--tick-phases N`: the shadow re-simulation under seeds
//! 1 to N, or with its ticks at N phases spread over the tick period, and each task's CPU time
//! over them (least, mean, most) beside the real one. A workload such as three hogs on two CPUs
//! runs on whichever balance orbit its start and the late passes decide
//! (`docs/kernel-6.18.44-findings.md`, "The three-hog rotation is a neutral orbit"): one
//! capture is one draw, and the model's answer is a range. Where the ticks fall moves a shadow
//! as much ("The shadow's tick phase"): the phases show how far a figure depends on it.

use schedlab_engine::replay::compare::replay;
use schedlab_engine::replay::observe::Observed;
use schedlab_engine::replay::shadow::Layout;
use std::fmt::Write as _;

/// The most runs one call makes.
const MAX_RUNS: u32 = 64;

/// What differs between the runs.
#[derive(Clone, Copy, Debug)]
pub enum Spread {
    /// `--seeds N`: seeds 1 to N.
    Seeds(u32),
    /// `--tick-phases N`: `host.tick_phase` at 0, 1/N, ... (N-1)/N of the tick period.
    TickPhases(u32),
}

impl Spread {
    fn flag(self) -> (&'static str, u32) {
        match self {
            Spread::Seeds(n) => ("--seeds", n),
            Spread::TickPhases(n) => ("--tick-phases", n),
        }
    }

    /// The knob each run sets.
    fn knob(self) -> &'static str {
        match self {
            Spread::Seeds(_) => "seed",
            Spread::TickPhases(_) => "tick_phase",
        }
    }

    /// Each run's value of that knob; `hz` is the shadow's.
    fn values(self, hz: u64) -> Vec<String> {
        match self {
            Spread::Seeds(n) => (1..=n).map(|s| s.to_string()).collect(),
            Spread::TickPhases(n) => {
                let period = 1_000_000_000 / hz.max(1);
                (0..u64::from(n)).map(|k| format!("{}ns", k * period / u64::from(n))).collect()
            }
        }
    }

    fn under(self, hz: u64) -> String {
        match self {
            Spread::Seeds(n) => format!("under seeds 1 to {n}"),
            Spread::TickPhases(n) => format!("with its ticks at {n} phases of the {} ms period", 1000 / hz.max(1)),
        }
    }
}
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
    spread: Spread,
) -> Result<String, String> {
    let (flag, n) = spread.flag();
    if !(1..=MAX_RUNS).contains(&n) {
        return Err(format!("{flag} {n}: expected 1 to {MAX_RUNS}"));
    }
    let knob = spread.knob();
    // The shadow's HZ: a variant's, else the layout's, else the shadow's default.
    let hz = variants
        .iter()
        .rev()
        .find(|(k, _)| k == "hz")
        .and_then(|(_, v)| v.trim().parse::<u64>().ok())
        .or(layout.hz.map(u64::from))
        .unwrap_or(250);
    let mut rows: Vec<Row> = Vec::new();
    let mut scenario = String::new();
    for value in spread.values(hz) {
        let mut v: Vec<(String, String)> = variants.iter().filter(|(k, _)| k != knob).cloned().collect();
        v.push((knob.to_string(), value));
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
    let given: Vec<String> = variants.iter().filter(|(k, _)| k != knob).map(|(k, v)| format!("{k}={v}")).collect();
    let mut s = String::new();
    let _ = writeln!(
        s,
        "shadow re-simulation of {scenario} ({}) {}: CPU time, % of one CPU",
        if given.is_empty() { "baseline".to_string() } else { given.join(" ") },
        spread.under(hz)
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
            "{}",
            match spread {
                Spread::Seeds(_) =>
                    "every seed gave the same run: no seeded behaviour decides this workload's course \
                                     (the late balance passes are off by default: --variant tick_ahead=11.4)",
                Spread::TickPhases(_) =>
                    "every phase gave the same CPU times: where the ticks fall does not decide them",
            }
        );
    }
    Ok(s)
}
