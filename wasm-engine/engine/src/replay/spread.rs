//! A trace's shadow run several times, differing in one knob, and each task's CPU time over the
//! runs (least, mean, most) beside the real one: `schedlab replay --seeds N` / `--tick-phases
//! N` and the browser's shadow panel. A workload such as three hogs on two CPUs runs on
//! whichever balance orbit its start, the late passes and the ticks' phase decide
//! (`docs/kernel-6.18.44-findings.md`, "The three-hog rotation is a neutral orbit", "The
//! shadow's tick phase"): one capture is one draw, and the model's answer is a range.

use super::compare::ReplayReport;
use super::shadow::Layout;
use serde::Serialize;

/// The most runs one spread makes.
pub const MAX_RUNS: u32 = 64;
/// Tasks below this share of a CPU, real and simulated in every run, are left out of the table.
pub const SHOWN_PCT: f64 = 1.0;

/// What differs between the runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spread {
    /// Seeds 1 to N (`seed`).
    Seeds(u32),
    /// `host.tick_phase` at 0, 1/N, ... (N-1)/N of the tick period.
    TickPhases(u32),
}

impl Spread {
    /// `kind` as the CLI flag or the browser names it (`seeds`, `tick_phases`), with its count
    /// checked.
    pub fn parse(kind: &str, n: u32) -> Result<Spread, String> {
        let s = match kind {
            "seeds" => Spread::Seeds(n),
            "tick_phases" => Spread::TickPhases(n),
            _ => return Err(format!("{kind}: expected seeds or tick_phases")),
        };
        if !(1..=MAX_RUNS).contains(&n) {
            return Err(format!("{} {n}: expected 1 to {MAX_RUNS}", s.flag()));
        }
        Ok(s)
    }

    /// The CLI flag.
    pub fn flag(self) -> &'static str {
        match self {
            Spread::Seeds(_) => "--seeds",
            Spread::TickPhases(_) => "--tick-phases",
        }
    }

    pub fn runs(self) -> u32 {
        match self {
            Spread::Seeds(n) | Spread::TickPhases(n) => n,
        }
    }

    /// The knob each run sets.
    pub fn knob(self) -> &'static str {
        match self {
            Spread::Seeds(_) => "seed",
            Spread::TickPhases(_) => "tick_phase",
        }
    }

    /// Run `k`'s value of the knob (0-based); `hz` is the shadow's.
    pub fn value(self, k: u32, hz: u64) -> String {
        match self {
            Spread::Seeds(_) => (k + 1).to_string(),
            Spread::TickPhases(n) => format!("{}ns", u64::from(k) * (1_000_000_000 / hz.max(1)) / u64::from(n.max(1))),
        }
    }

    /// Run `k`'s variants: `variants` without the knob, then the knob at its value.
    pub fn variants(self, variants: &[(String, String)], k: u32, hz: u64) -> Vec<(String, String)> {
        let mut v: Vec<(String, String)> = variants.iter().filter(|(name, _)| name != self.knob()).cloned().collect();
        v.push((self.knob().to_string(), self.value(k, hz)));
        v
    }

    fn under(self, hz: u64) -> String {
        match self {
            Spread::Seeds(n) => format!("under seeds 1 to {n}"),
            Spread::TickPhases(n) => format!("with its ticks at {n} phases of the {} ms period", 1000 / hz.max(1)),
        }
    }
}

/// The shadow's HZ: the last `hz` variant's, else the layout's, else the shadow's default.
pub fn shadow_hz(layout: &Layout, variants: &[(String, String)]) -> u64 {
    variants
        .iter()
        .rev()
        .find(|(k, _)| k == "hz")
        .and_then(|(_, v)| v.trim().parse::<u64>().ok())
        .or(layout.hz.map(u64::from))
        .unwrap_or(250)
}

/// One task's CPU time over the runs, % of one CPU over the window.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct SpreadRow {
    pub name: String,
    pub observed_cpu_pct: f64,
    pub least: f64,
    pub mean: f64,
    pub most: f64,
    /// The real figure lies within [least, most].
    pub inside: bool,
}

/// The spread's table (`schedlab replay --seeds N` / `--tick-phases N`).
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct SpreadTable {
    pub scenario: String,
    /// The variants given beside the knob that differs (`name=value`).
    pub given: Vec<String>,
    /// What differed, in words: "under seeds 1 to 8", "with its ticks at 8 phases of the 4 ms period".
    pub under: String,
    pub runs: u32,
    /// Tasks at 1 % of a CPU or more, real or in some run, in the first run's order.
    pub rows: Vec<SpreadRow>,
    /// Of the rows, how many have the real figure inside the model's range.
    pub inside: u32,
    /// Set when every run gave every task the same CPU time: what that means.
    pub same: Option<String>,
}

/// Gathers the runs' reports into a [`SpreadTable`].
pub struct SpreadAcc {
    spread: Spread,
    hz: u64,
    scenario: String,
    rows: Vec<(String, f64, Vec<f64>)>,
}

impl SpreadAcc {
    pub fn new(spread: Spread, hz: u64) -> SpreadAcc {
        SpreadAcc { spread, hz, scenario: String::new(), rows: Vec::new() }
    }

    pub fn add(&mut self, r: &ReplayReport) {
        self.scenario.clone_from(&r.scenario);
        for t in &r.tasks {
            match self.rows.iter_mut().find(|row| row.0 == t.name) {
                Some(row) => row.2.push(t.simulated_cpu_pct),
                None => self.rows.push((t.name.clone(), t.observed_cpu_pct, vec![t.simulated_cpu_pct])),
            }
        }
    }

    pub fn table(&self, variants: &[(String, String)]) -> SpreadTable {
        let mut rows = Vec::new();
        let mut differ = false;
        for (name, real, model) in &self.rows {
            if *real < SHOWN_PCT && model.iter().all(|&m| m < SHOWN_PCT) {
                continue;
            }
            let least = model.iter().copied().fold(f64::INFINITY, f64::min);
            let most = model.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let mean = model.iter().sum::<f64>() / model.len() as f64;
            differ |= most > least;
            rows.push(SpreadRow {
                name: name.clone(),
                observed_cpu_pct: *real,
                least,
                mean,
                most,
                inside: (least..=most).contains(real),
            });
        }
        let same = (!differ).then(|| match self.spread {
            Spread::Seeds(_) => "every seed gave the same run: no seeded behaviour decides this workload's course \
                                 (the late balance passes are off by default: --variant tick_ahead=11.4)"
                .to_string(),
            Spread::TickPhases(_) => {
                "every phase gave the same CPU times: where the ticks fall does not decide them".to_string()
            }
        });
        SpreadTable {
            scenario: self.scenario.clone(),
            given: variants.iter().filter(|(k, _)| k != self.spread.knob()).map(|(k, v)| format!("{k}={v}")).collect(),
            under: self.spread.under(self.hz),
            runs: self.spread.runs(),
            inside: rows.iter().filter(|r| r.inside).count() as u32,
            rows,
            same,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_run_sets_its_knob_over_the_given_one() {
        let s = Spread::parse("tick_phases", 4).unwrap();
        let given = vec![("tick_phase".to_string(), "1ms".to_string()), ("hz".to_string(), "250".to_string())];
        assert_eq!(
            s.variants(&given, 3, 250),
            vec![("hz".into(), "250".into()), ("tick_phase".into(), "3000000ns".into())]
        );
        assert_eq!(Spread::parse("seeds", 2).unwrap().value(1, 250), "2");
        assert_eq!(Spread::parse("seeds", 0).unwrap_err(), "--seeds 0: expected 1 to 64");
        assert_eq!(Spread::parse("tick_phases", 65).unwrap_err(), "--tick-phases 65: expected 1 to 64");
        assert_eq!(Spread::parse("phases", 2).unwrap_err(), "phases: expected seeds or tick_phases");
        let mut layout = Layout::default();
        layout.hz = Some(1000);
        assert_eq!(shadow_hz(&layout, &[]), 1000);
        assert_eq!(shadow_hz(&layout, &given), 250);
    }
}
