//! The scenario file parser (`scenario/load/`, TOML and JSON): never panics; an error is located
//! inside the text (line and column in characters); an accepted scenario builds a `Simulation`
//! that runs its first millisecond with the scheduler invariant checker after every event
//! (`check.rs`), so validation lets through nothing the model cannot run.
//! Seeds: every file under `scenarios/`.
#![no_main]
use libfuzzer_sys::fuzz_target;
use schedlab_engine::scenario::parse_scenario;
use schedlab_engine::sim::{config::SimConfig, Simulation};
use schedlab_fuzz::check_location;

/// Simulated time run per accepted scenario.
const RUN_NS: u64 = 1_000_000;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    match parse_scenario("f.toml", text) {
        Err(e) => {
            assert!(!e.message.is_empty(), "error without a message at {}:{}", e.line, e.column);
            check_location(text, e.line, e.column, true, &e.to_string());
        }
        Ok(sf) => {
            let Ok(cfg) = SimConfig::from_scenario(&sf) else { return };
            let mut sim = Simulation::new(cfg);
            sim.check_invariants = true;
            sim.run_until(RUN_NS);
        }
    }
});
