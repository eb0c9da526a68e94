//! [`TraceDiff`] as the text table of `schedlab diff`: the rule, the two windows, then one block
//! per comm and per CPU, one line per figure (`A`, `B`, `B − A`, the relative difference, `*`
//! when flagged).

use super::{Figure, TraceDiff, Unit};
use std::fmt::Write as _;

/// A value in its unit: shares with two decimals, latencies in µs, rates per second.
fn value(unit: Unit, v: Option<f64>, signed: bool) -> String {
    let Some(v) = v else { return "-".to_string() };
    let sign = if signed && v >= 0.0 { "+" } else { "" };
    match unit {
        Unit::Percent => format!("{sign}{v:.2}"),
        Unit::Ns => format!("{sign}{:.1}", v / 1000.0),
        Unit::PerSecond => format!("{sign}{v:.1}"),
        Unit::Depth => format!("{sign}{v:.3}"),
    }
}

fn unit_name(f: &Figure) -> &'static str {
    match f.unit {
        Unit::Percent => "%",
        Unit::Ns => "µs",
        Unit::PerSecond => "/s",
        Unit::Depth => "tasks",
    }
}

/// Zero or missing on both sides (the text leaves it out).
fn empty(f: &Figure) -> bool {
    f.a.unwrap_or(0.0) == 0.0 && f.b.unwrap_or(0.0) == 0.0
}

fn line(out: &mut String, head: &str, f: &Figure) {
    let rel = f.relative_pct.map_or_else(|| "-".to_string(), |r| format!("{r:+.1} %"));
    let counts = f.counts.map_or_else(String::new, |(a, b)| format!("  ({a} → {b})"));
    let _ = writeln!(
        out,
        "{head:<22} {:<22} {:>10} {:>10} {:>10} {:>9} {}{counts}",
        format!("{} {}", f.name, unit_name(f)),
        value(f.unit, f.a, false),
        value(f.unit, f.b, false),
        value(f.unit, f.delta, true),
        rel,
        if f.flagged { "*" } else { " " },
    );
}

pub(super) fn render(d: &TraceDiff) -> String {
    let r = &d.rule;
    let mut out = String::new();
    let ms = |ns: u64| ns as f64 / 1e6;
    let _ = writeln!(
        out,
        "A: {:.3} ms, {} tasks; B: {:.3} ms, {} tasks (CPU time as % of each trace's window, counts per second)",
        ms(d.a.window_ns),
        d.a.tasks,
        ms(d.b.window_ns),
        d.b.tasks
    );
    let _ = writeln!(
        out,
        "flag (*): |B − A| / A > {} % and |B − A| above the floor: {} pp for shares; {:.0} µs for latency \
         percentiles with ≥ {} samples above them on both sides and disjoint {} σ confidence bands (max never); \
         {} σ of a Poisson count and {} /s for rates; {} for mean depth",
        r.noise_pct,
        r.floor_pct_points,
        r.floor_latency_ns / 1000.0,
        r.tail_samples,
        r.quantile_sigmas,
        r.poisson_sigmas,
        r.floor_rate_per_s,
        r.floor_depth
    );
    let _ = writeln!(out, "{} flagged\n", d.flagged);
    let _ = writeln!(
        out,
        "{:<22} {:<22} {:>10} {:>10} {:>10} {:>9}",
        "task (tasks A/B)", "figure", "A", "B", "B − A", "B/A − 1"
    );
    let mut quiet = 0;
    for t in &d.tasks {
        if t.cpu_ns_a == 0 && t.cpu_ns_b == 0 && t.figures.iter().all(empty) {
            quiet += 1;
            continue;
        }
        let name = match &t.comm_b {
            Some(b) => format!("{} = {b}", t.comm),
            None => t.comm.clone(),
        };
        let mut head = format!("{name} ({}/{})", t.tasks_a, t.tasks_b);
        for f in t.figures.iter().filter(|f| f.name == "cpu" || !empty(f)) {
            line(&mut out, &head, f);
            head.clear();
        }
    }
    if quiet > 0 {
        let _ = writeln!(out, "({quiet} more comms with no CPU time and no event in either trace: in --json)");
    }
    out.push('\n');
    for c in &d.cpus {
        let mut head = format!("cpu {}", c.cpu);
        for f in &c.figures {
            line(&mut out, &head, f);
            head.clear();
        }
    }
    out
}
