//! `schedlab compare`: one scenario under several named variants, with per-task metrics and
//! their differences against the first variant.

use crate::args::CompareArgs;
use schedlab_engine::obs::summary::{Summary, TaskSummary};
use schedlab_engine::scenario::variants;
use serde_json::{json, Value};

fn task_diff(a: &TaskSummary, b: &TaskSummary) -> Value {
    json!({
        "name": b.name,
        "share_pct": ((b.share_pct - a.share_pct) * 1000.0).round() / 1000.0,
        "cpu_time_ns": b.cpu_time_ns as i64 - a.cpu_time_ns as i64,
        "switches_out": b.switches_out as i64 - a.switches_out as i64,
        "mean_run_ns": b.mean_run_ns as i64 - a.mean_run_ns as i64,
        "yields": b.yields as i64 - a.yields as i64,
        "yields_to": b.yields_to as i64 - a.yields_to as i64,
        "wakeup_latency_p99_ns": b.wakeup_latency_ns.p99 as i64 - a.wakeup_latency_ns.p99 as i64,
    })
}

/// One variant's run: its name, the overrides applied and the summary.
type Run = (String, Vec<(String, String)>, Summary);

/// Runs the scenario under each variant of `--variants`, plus the `--variant` overrides for all.
pub fn run(a: &CompareArgs) -> Result<String, String> {
    let (file, extra, as_json) = (a.scenario.as_str(), &a.variants.variant, a.json);
    let text = crate::read(file)?;
    let mut runs: Vec<Run> = Vec::new();
    for name in a.names.0.iter().filter(|n| !n.is_empty()) {
        let v = variants::find(name).ok_or_else(|| {
            let known: Vec<&str> = variants::VARIANTS.iter().map(|v| v.name).collect();
            format!("unknown variant {name:?} (known: {})", known.join(", "))
        })?;
        let mut o: Vec<(String, String)> = v.overrides.iter().map(|(k, x)| (k.to_string(), x.to_string())).collect();
        o.extend(extra.iter().cloned());
        let (_, mut sim) = schedlab_engine::load(file, &text, &o)?;
        sim.run();
        runs.push((name.to_string(), o, Summary::of(&sim)));
    }
    if runs.is_empty() {
        return Err("--variants names no variant".to_string());
    }
    let base = &runs[0].2;
    if as_json {
        let variants: Vec<Value> = runs
            .iter()
            .map(|(n, o, s)| {
                json!({"name": n, "overrides": o.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>(), "summary": s.to_json(),
                    "diff": s.tasks.iter().zip(&base.tasks).map(|(b, a)| task_diff(a, b)).collect::<Vec<_>>()})
            })
            .collect();
        return Ok(format!(
            "{}\n",
            serde_json::to_string_pretty(&json!({"scenario": base.scenario, "base": runs[0].0, "variants": variants}))
                .expect("json")
        ));
    }
    let mut s = format!("scenario {} — differences against {}\n", base.scenario, runs[0].0);
    s.push_str(&format!("{:<22}", "task"));
    for (n, _, _) in &runs {
        s.push_str(&format!(" {n:>20}"));
    }
    s.push('\n');
    for (i, t) in base.tasks.iter().enumerate() {
        s.push_str(&format!("{:<22}", format!("{} share %", t.name)));
        for (_, _, r) in &runs {
            let v = r.tasks[i].share_pct;
            s.push_str(&format!(" {:>20}", format!("{v:.2} ({:+.2})", v - t.share_pct)));
        }
        s.push('\n');
        if runs.iter().any(|(_, _, r)| r.tasks[i].yields_to > 0) {
            s.push_str(&format!("{:<22}", format!("{} picks→target", t.name)));
            for (_, _, r) in &runs {
                s.push_str(&format!(" {:>20.3}", r.tasks[i].yield_to_picks_mean));
            }
            s.push('\n');
        }
    }
    if runs.iter().any(|(_, _, r)| r.cputimer.is_some()) {
        s.push_str(&format!("{:<22}", "cputimer atomic %"));
        for (_, _, r) in &runs {
            s.push_str(&format!(" {:>20.2}", r.cputimer_pct()));
        }
        s.push('\n');
    }
    if runs.iter().any(|(_, _, r)| r.tasks.iter().any(|t| t.yields > 0)) {
        for (label, f) in [
            ("sched_yield() calls", (|t: &TaskSummary| t.yields) as fn(&TaskSummary) -> u64),
            ("…reaching schedule()", |t: &TaskSummary| t.yields_scheduled),
        ] {
            s.push_str(&format!("{label:<22}"));
            for (_, _, r) in &runs {
                s.push_str(&format!(" {:>20}", r.tasks.iter().map(f).sum::<u64>()));
            }
            s.push('\n');
        }
    }
    // vCPU rows: guest progress, IPI latency and pause-loop exits, for what the scenario has.
    let any = |f: fn(&TaskSummary) -> u64| runs.iter().any(|(_, _, r)| r.tasks.iter().any(|t| f(t) > 0));
    let (locks, ipis) = (any(|t| t.guest_locks), any(|t| t.ipis_answered));
    let mut row = |label: &str, cell: &dyn Fn(&Summary) -> String| {
        s.push_str(&format!("{label:<22}"));
        for (_, _, r) in &runs {
            s.push_str(&format!(" {:>20}", cell(r)));
        }
        s.push('\n');
    };
    let sum = |r: &Summary, f: fn(&TaskSummary) -> u64| r.tasks.iter().map(f).sum::<u64>();
    if locks {
        row("guest lock acquisitions", &|r| sum(r, |t| t.guest_locks).to_string());
    }
    if ipis {
        row("IPIs answered", &|r| sum(r, |t| t.ipis_answered).to_string());
        row("IPI latency mean µs", &|r| {
            let n = sum(r, |t| t.ipis_answered);
            let total = sum(r, |t| t.ipis_answered * t.ipi_latency_ns_mean);
            format!("{:.1}", total as f64 / n.max(1) as f64 / 1000.0)
        });
    }
    if locks || ipis {
        row("pause-loop exits", &|r| sum(r, |t| t.ple_exits).to_string());
        if any(|t| t.sleeps) {
            // vCPU threads block only in HLT (halt steps, PV qspinlock waits).
            row("vCPU halts", &|r| sum(r, |t| t.sleeps).to_string());
        }
    }
    if runs.iter().any(|(_, _, r)| r.tasks.iter().any(|t| t.yield_to_calls > 0)) {
        s.push_str(&format!("{:<22}", "yield_to calls"));
        for (_, _, r) in &runs {
            s.push_str(&format!(" {:>20}", r.tasks.iter().map(|t| t.yield_to_calls).sum::<u64>()));
        }
        s.push('\n');
    }
    s.push_str(&format!("{:<22}", "yield_to penalties"));
    for (_, _, r) in &runs {
        s.push_str(&format!(" {:>20}", format!("{}/{}", r.yield_to.penalties, r.yield_to.calls)));
    }
    s.push('\n');
    Ok(s)
}
