//! `schedlab replay TRACE --seeds N` or `--tick-phases N`: the shadow run N times, differing in
//! the seed or in where its ticks fall, and each task's CPU time over the runs beside the real
//! one (`schedlab_engine::replay::spread`).

use schedlab_engine::replay::compare::replay;
use schedlab_engine::replay::observe::Observed;
use schedlab_engine::replay::shadow::Layout;
use schedlab_engine::replay::spread::{shadow_hz, Spread, SpreadAcc};
use std::fmt::Write as _;

pub fn table(
    obs: &Observed,
    layout: &Layout,
    name: &str,
    variants: &[(String, String)],
    kind: &str,
    n: u32,
    json: bool,
) -> Result<String, String> {
    let spread = Spread::parse(kind, n)?;
    let hz = shadow_hz(layout, variants);
    let mut acc = SpreadAcc::new(spread, hz);
    for k in 0..spread.runs() {
        let (_, r) = replay(obs, layout, name, &spread.variants(variants, k, hz))?;
        acc.add(&r);
    }
    let t = acc.table(variants);
    if json {
        return Ok(format!("{}\n", serde_json::to_string_pretty(&t).expect("the table serialises")));
    }
    let mut s = String::new();
    let _ = writeln!(
        s,
        "shadow re-simulation of {} ({}) {}: CPU time, % of one CPU",
        t.scenario,
        if t.given.is_empty() { "baseline".to_string() } else { t.given.join(" ") },
        t.under
    );
    let _ = writeln!(s, "{:<24} {:>8} {:>8} {:>8} {:>8}  real inside", "task", "real %", "least", "mean", "most");
    for r in &t.rows {
        let _ = writeln!(
            s,
            "{:<24} {:>8.2} {:>8.2} {:>8.2} {:>8.2}  {}",
            r.name,
            r.observed_cpu_pct,
            r.least,
            r.mean,
            r.most,
            if r.inside { "yes" } else { "no" }
        );
    }
    let _ = writeln!(s, "the real CPU time lies inside the model's range at {} of {} tasks", t.inside, t.rows.len());
    if let Some(same) = &t.same {
        let _ = writeln!(s, "{same}");
    }
    Ok(s)
}
