//! `schedlab simulate`, `explain`, `state` and `variants`: one scenario run to its end (the
//! summary), or to an instant (each CPU's queue and last pick), the browser inspector's state
//! at a cursor, and the named variants. `simulate --perfetto OUT` also writes the run as a
//! Perfetto trace (`schedlab_engine::obs::perfetto::export`).

use crate::args::{ExplainArgs, Log, SimulateArgs, StateArgs};
use crate::read;
use schedlab_engine::obs::cursor::state_at;
use schedlab_engine::obs::explain::explain as explain_at;
use schedlab_engine::obs::summary::Summary;

/// The summary as golden text, or as JSON.
pub fn simulate(a: &SimulateArgs) -> Result<String, String> {
    let text = read(&a.scenario)?;
    let (_, mut sim) = schedlab_engine::load(&a.scenario, &text, &a.variants.variant)?;
    sim.fair.log.detailed = a.log == Log::Full;
    sim.run();
    if let Some(out) = &a.perfetto {
        let bytes = schedlab_engine::obs::perfetto::export(&sim);
        std::fs::write(out, &bytes).map_err(|e| format!("{out}: cannot write: {e}"))?;
        eprintln!("wrote {out}: Perfetto protobuf trace, {} bytes", bytes.len());
    }
    let s = Summary::of(&sim);
    Ok(if a.json {
        format!("{}\n", serde_json::to_string_pretty(&s.to_json()).expect("json"))
    } else {
        s.golden_text()
    })
}

/// The state and the last decisions at `--at`, as text or JSON.
pub fn explain(a: &ExplainArgs) -> Result<String, String> {
    let text = read(&a.scenario)?;
    let (_, mut sim) = schedlab_engine::load(&a.scenario, &text, &a.variants.variant)?;
    if a.at > sim.cfg.duration_ns {
        return Err(format!("--at {} ns is after the scenario's end ({} ns)", a.at, sim.cfg.duration_ns));
    }
    sim.run_until(a.at);
    let (json, text) = explain_at(&sim);
    Ok(if a.json { format!("{}\n", serde_json::to_string_pretty(&json).expect("json")) } else { text })
}

/// `obs::cursor::state_at` after the whole run, as the browser's inspector gets it.
pub fn state(a: &StateArgs) -> Result<String, String> {
    let text = read(&a.scenario)?;
    let (_, mut sim) = schedlab_engine::load(&a.scenario, &text, &a.variants.variant)?;
    if a.at > sim.cfg.duration_ns {
        return Err(format!("--at {} ns is after the scenario's end ({} ns)", a.at, sim.cfg.duration_ns));
    }
    sim.run();
    Ok(format!("{}\n", serde_json::to_string_pretty(&state_at(&sim, a.at)).expect("json")))
}

/// One line per named variant: name, overrides, what it is.
pub fn variants() -> String {
    let mut s = String::new();
    for v in schedlab_engine::scenario::variants::VARIANTS {
        let o: Vec<String> = v.overrides.iter().map(|(k, x)| format!("{k}={x}")).collect();
        s.push_str(&format!("{:<20} {:<32} {}\n", v.name, o.join(","), v.doc));
    }
    s
}
