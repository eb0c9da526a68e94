//! The A/B comparison in the web worker: the trace on screen (A) and a second capture (B), each
//! an [`ImportHandle`], compared by the engine's `import::diff` over their whole windows, with
//! each task row's wakeup latencies (for the replay view's CDFs) as typed-array columns.

use crate::columns::{Columns, DiffLatencyCols};
use crate::import::ImportHandle;
use crate::to_json;
use schedlab_engine::import::diff::{diff, DiffOptions, TaskDiff, TraceDiff};
use schedlab_engine::import::metrics::{window_metrics, MetricsWindow, WindowMetrics};
use serde::Serialize;
use std::collections::BTreeMap;
use ts_rs::TS;
use wasm_bindgen::prelude::*;

/// What `ImportHandle.diff` gives (JSON): the diff, or why there is none.
#[derive(Serialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum DiffOutcome {
    Diff { diff: TraceDiff },
    Error { message: String },
}

/// One comparison: its outcome as JSON and the task rows' latencies.
#[wasm_bindgen]
pub struct DiffRun {
    json: String,
    latencies: Option<Columns>,
}

#[wasm_bindgen]
impl DiffRun {
    /// `DiffOutcome` as JSON.
    pub fn json(&self) -> String {
        self.json.clone()
    }

    /// The `DiffLatencyCols` of the task rows (empty after the first call or on an error).
    pub fn latencies(&mut self) -> Columns {
        self.latencies.take().unwrap_or_default()
    }
}

/// Each comm's wakeup latencies, all its tasks merged, ascending.
fn latencies_by_comm(m: &WindowMetrics) -> BTreeMap<&str, Vec<u64>> {
    let mut out: BTreeMap<&str, Vec<u64>> = BTreeMap::new();
    for t in &m.tasks {
        out.entry(t.comm.as_str()).or_default().extend_from_slice(&t.latencies_ns);
    }
    for v in out.values_mut() {
        v.sort_unstable();
    }
    out
}

/// The latencies of each task row: A's under the row's comm, B's under its `comm_b` (a
/// `--match` rename) or the same comm; none for a side the comm is missing from.
fn row_latencies(rows: &[TaskDiff], a: &WindowMetrics, b: &WindowMetrics) -> DiffLatencyCols {
    let (la, lb) = (latencies_by_comm(a), latencies_by_comm(b));
    let mut c = DiffLatencyCols::default();
    for (i, r) in rows.iter().enumerate() {
        let sides = [
            (r.tasks_a > 0).then(|| la.get(r.comm.as_str())).flatten(),
            (r.tasks_b > 0).then(|| lb.get(r.comm_b.as_deref().unwrap_or(&r.comm))).flatten(),
        ];
        for (side, l) in sides.into_iter().enumerate() {
            for &ns in l.map(|v| v.as_slice()).unwrap_or(&[]) {
                c.row.push(i as u32);
                c.side.push(side as u32);
                c.ns.push(ns as f64);
            }
        }
    }
    c
}

#[wasm_bindgen]
impl ImportHandle {
    /// Compares this trace (A) with `b` over both whole traces (`schedlab diff A B --noise
    /// noise_pct% --match ...`): `matches_json` is `[[comm in A, comm in B], ...]`. A side
    /// still being imported, a trace without sched_switch records, or a bad `--match` is an
    /// error outcome.
    pub fn diff(&self, b: &ImportHandle, noise_pct: f64, matches_json: &str) -> DiffRun {
        let err = |message: String| DiffRun { json: to_json(&DiffOutcome::Error { message }), latencies: None };
        let matches: Vec<(String, String)> = match serde_json::from_str(matches_json) {
            Ok(m) => m,
            Err(e) => return err(format!("matches: expected [[comm in A, comm in B], ...]: {e}")),
        };
        if !(noise_pct.is_finite() && noise_pct >= 0.0) {
            return err(format!("noise level: expected a percentage ≥ 0, got {noise_pct}"));
        }
        let (Some(ia), Some(ib)) = (self.diff_input(), b.diff_input()) else {
            return err("both traces must be imported completely".to_string());
        };
        for (side, i) in [("A", &ia), ("B", &ib)] {
            if i.store.switches.ts.is_empty() {
                return err(format!("trace {side} has no sched_switch records; a diff needs them (capture: trace-cmd record -e sched_switch -e sched_waking -e sched_wakeup)"));
            }
        }
        let opt = DiffOptions { noise_pct, matches, window: MetricsWindow::all() };
        let (ma, mb) =
            (window_metrics(ia.store, ia.timeline, &opt.window), window_metrics(ib.store, ib.timeline, &opt.window));
        match diff(ia, ib, &opt) {
            Ok(d) => {
                let cols = row_latencies(&d.tasks, &ma, &mb);
                DiffRun { json: to_json(&DiffOutcome::Diff { diff: d }), latencies: Some(cols.into_columns()) }
            }
            Err(message) => err(message),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn import(folder: &str) -> ImportHandle {
        let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../traces/linux-6.18-ab")
            .join(folder)
            .join("trace.dat");
        crate::import::fed(&std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display())))
    }

    /// The worker's diff is the engine's (`schedlab diff`), and each row's latencies are its
    /// comm's wakeups in that trace: as many as the row's latency count, ascending.
    #[test]
    fn shares_doubled_flags_the_hogs_and_latencies_follow_the_rows() {
        let (a, b) = (import("base-1"), import("shares-2048"));
        let mut run = a.diff(&b, 5.0, "[]");
        let out: Value = serde_json::from_str(&run.json()).unwrap();
        assert_eq!(out["kind"], "diff", "{out}");
        let tasks = out["diff"]["tasks"].as_array().unwrap();
        let cpu = |comm: &str| {
            let t = tasks.iter().find(|t| t["comm"] == comm).unwrap();
            t["figures"].as_array().unwrap().iter().find(|f| f["name"] == "cpu").unwrap().clone()
        };
        assert_eq!(cpu("k_a")["flagged"], true);
        assert!(cpu("k_a")["delta"].as_f64().unwrap() > 0.0);
        assert_eq!(cpu("k_b")["flagged"], true);
        assert!(cpu("k_b")["delta"].as_f64().unwrap() < 0.0);
        let mut c = run.latencies();
        let (row, side, ns) = (c.take_u32("row"), c.take_u32("side"), c.take_f64("ns"));
        assert!(!ns.is_empty());
        for (i, t) in tasks.iter().enumerate() {
            for s in 0..2u32 {
                let l: Vec<f64> =
                    (0..ns.len()).filter(|&k| row[k] == i as u32 && side[k] == s).map(|k| ns[k]).collect();
                assert!(l.windows(2).all(|w| w[0] <= w[1]), "{} side {s} ascending", t["comm"]);
                let wakeups = t["figures"].as_array().unwrap().iter().find(|f| f["name"] == "wakeups").unwrap();
                assert_eq!(wakeups["counts"][s as usize].as_u64().unwrap(), l.len() as u64, "{} side {s}", t["comm"]);
                if t["comm"] == "k_s" {
                    assert!(l.len() > 500, "k_s wakes every ms: {}", l.len());
                }
            }
        }
        // A bad rename names the comm.
        let out: Value = serde_json::from_str(&a.diff(&b, 5.0, r#"[["nope","k_a"]]"#).json()).unwrap();
        assert_eq!(out["kind"], "error");
        assert!(out["message"].as_str().unwrap().contains("A has no task named \"nope\""), "{out}");
        let out: Value = serde_json::from_str(&a.diff(&b, 5.0, "{").json()).unwrap();
        assert!(out["message"].as_str().unwrap().starts_with("matches: expected"), "{out}");
    }
}
