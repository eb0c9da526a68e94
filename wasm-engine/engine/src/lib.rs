//! schedlab-engine: a deterministic discrete-event model of the Linux 6.18.44 fair
//! scheduler (EEVDF).
//!
//! Layers, each depending only on those above it:
//! * `scenario`: the file format (serde + schemars DTOs), units, loading with located errors;
//! * `sched`: the fair class — weights, features, `sched_entity`, `cfs_rq`, and the EEVDF
//!   functions named as in kernel/sched/fair.c;
//! * `obs`: the columnar observation log, metrics, window queries and explanations;
//! * `sim`: tasks, behaviour programs, the event queue and `Simulation`, the long-lived handle;
//! * `check`: invariant checkers;
//! * `lesson`: lessons as data (`lessons/*.json`), validated and checked against runs;
//! * `import`: trace importers (tracefs text, trace-cmd report and `.dat`, perf script, bpftrace).
//!
//! **Architecture invariant:** pure Rust. No IO, no wall clock, no threads, no hash-order
//! dependence; integer nanoseconds and the kernel's fixed point throughout.

pub mod check;
pub mod cost;
pub mod import;
pub mod lesson;
pub mod obs;
pub mod replay;
pub mod rng;
pub mod scenario;
pub mod sched;
pub mod sim;

use scenario::schema::ScenarioFile;

/// Parses, validates and prepares a scenario, with any `NAME=VALUE` variant overrides.
pub fn load(file: &str, text: &str, variants: &[(String, String)]) -> Result<(ScenarioFile, sim::Simulation), String> {
    let mut sf = scenario::parse_scenario(file, text).map_err(|e| e.to_string())?;
    for (k, v) in variants {
        scenario::apply_variant(&mut sf, k, v).map_err(|e| format!("--variant {e}"))?;
    }
    if !variants.is_empty() {
        scenario::validate(file, Some(text), &sf).map_err(|e| e.to_string())?;
    }
    let cfg = sim::config::SimConfig::from_scenario(&sf)?;
    Ok((sf, sim::Simulation::new(cfg)))
}
