//! schedlab-engine: a deterministic discrete-event model of the Linux 6.18.44 fair
//! scheduler (EEVDF).
//!
//! Modules, leaves first (ARCHITECTURE.md has the exact edges):
//! * `obs::codes`, `obs::log`: the columnar observation log and the codes in its columns (leaves);
//! * `sched`: the fair class — weights, features, `sched_entity`, `cfs_rq`, and the EEVDF
//!   functions named as in kernel/sched/fair.c; it records into `obs::log`;
//! * `scenario`: the file format (serde + schemars DTOs), units, loading with located errors
//!   (it names `sched::features` to validate feature flags);
//! * `sim`: tasks, behaviour programs, the event queue and `Simulation`, the long-lived handle;
//! * `check`: invariant checkers over a `Simulation` (which runs them after each event when
//!   asked: the one cycle);
//! * `obs::summary`, `obs::query`, `obs::cursor`, `obs::meta`, `obs::explain`, `obs::why`:
//!   metrics, window queries, the state at a cursor and explanations, read from a
//!   `Simulation` and its log;
//! * `lesson`: lessons as data (`lessons/*.json`), validated and checked against runs;
//! * `import`: trace importers (tracefs text, trace-cmd report and `.dat`, perf script, bpftrace);
//! * `replay`: shadow re-simulation and per-decision replay of imported traces.
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
