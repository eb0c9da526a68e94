//! `ReplayHandle`: shadow re-simulation of a trace in the web worker (`schedlab replay`). The
//! worker reads the file again in chunks into the replay's observed schedule (the import
//! handle's store is not what the replay reads), then runs the shadow scenario under the
//! baseline or a variant and gets the per-task comparison as JSON.

use crate::protocol::ShadowOutcome;
use crate::reader::Reader;
use crate::to_json;
use schedlab_engine::replay::compare::replay_run;
use schedlab_engine::replay::observe::Observed;
use schedlab_engine::replay::shadow::{Layout, Pin};
use schedlab_engine::replay::spread::{shadow_hz, Spread, SpreadAcc};
use schedlab_engine::sim::Simulation;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
pub struct ReplayHandle {
    reader: Reader,
    obs: Observed,
    error: Option<String>,
    done: bool,
    /// The last run of the shadow scenario (what `ImportHandle::from_shadow` reads).
    pub(crate) last: Option<Simulation>,
    /// The spread in progress (`run_spread`): its runs so far and the variants it was given.
    spread: Option<(SpreadAcc, Vec<(String, String)>)>,
}

#[wasm_bindgen]
impl ReplayHandle {
    #[wasm_bindgen(constructor)]
    pub fn new(total_bytes: f64) -> ReplayHandle {
        let total = if total_bytes.is_finite() && total_bytes > 0.0 { total_bytes as usize } else { 0 };
        ReplayHandle {
            reader: Reader::new(total),
            obs: Observed::default(),
            error: None,
            done: false,
            last: None,
            spread: None,
        }
    }

    pub fn feed(&mut self, chunk: &[u8]) {
        self.reader.feed(chunk, &mut self.obs);
    }

    pub fn finish(&mut self) {
        if let Err(e) = self.reader.finish(&mut self.obs) {
            self.error = Some(e);
        }
    }

    /// As `ImportHandle::step`; the observed schedule is closed at the end.
    pub fn step(&mut self, max_records: u32) -> bool {
        if self.error.is_none() && !self.done {
            match self.reader.step(&mut self.obs, max_records as usize) {
                Ok(true) => return true,
                Ok(false) => {}
                Err(e) => self.error = Some(e),
            }
        }
        if !self.done {
            self.obs.finish();
            self.done = true;
        }
        false
    }

    pub fn bytes_done(&self) -> f64 {
        self.reader.bytes_done() as f64
    }

    /// The dumps attached to the trace's import: the EEVDF dump (`ImportHandle::attach_eevdf`,
    /// already on the trace's clock), from which the per-decision replay seeds its queues
    /// (`replay::decisions::seed`, `schedlab replay --eevdf`), and the CPU-averages dump
    /// (`ImportHandle::attach_cpu_avg`), which sets its root cfs_rqs (`replay::decisions::cpu_avg`,
    /// `schedlab replay --cpu-avg`), and the balance-pass dump (`ImportHandle::attach_balance`),
    /// whose passes it asks of the model (`replay::decisions::passes`, `schedlab replay
    /// --balance`).
    pub fn seed_from(&mut self, trace: &crate::import::ImportHandle) {
        self.obs.eevdf = trace.eevdf_samples().to_vec();
        self.obs.cpu_avg = trace.cpu_avg_samples().to_vec();
        self.obs.balance = trace.balance_passes().map(<[_]>::to_vec);
    }

    /// Runs the shadow scenario named `name` with the layout file's text (empty: none) and
    /// variants (a JSON array of `[name, value]`). Returns a `ShadowOutcome` as JSON: the
    /// `schedlab replay --json` report, or what went wrong.
    pub fn run(&mut self, name: &str, layout: &str, pin: &str, variants_json: &str) -> String {
        let out = self.layout_and_variants(name, layout, pin, variants_json).and_then(|(layout, variants)| {
            let (_, report, sim) = replay_run(&self.obs, &layout, name, &variants)?;
            self.last = Some(sim);
            Ok(report)
        });
        outcome(out)
    }

    /// Run `k` (0-based) of a spread of `n` runs that differ in `kind` (`"seeds"`: seeds 1 to
    /// n; `"tick_phases"`: n phases of the tick period), over the variants given; run 0 starts
    /// a new spread. Returns that run's `ShadowOutcome` as JSON; `spread_table` gathers the
    /// runs so far (`schedlab replay --seeds N` / `--tick-phases N`). One run per call, so that
    /// the worker can post progress and stop between runs.
    #[allow(clippy::too_many_arguments)]
    pub fn run_spread(
        &mut self,
        name: &str,
        layout: &str,
        pin: &str,
        variants_json: &str,
        kind: &str,
        n: u32,
        k: u32,
    ) -> String {
        let out = self.layout_and_variants(name, layout, pin, variants_json).and_then(|(layout, variants)| {
            let spread = Spread::parse(kind, n)?;
            let hz = shadow_hz(&layout, &variants);
            if k == 0 || self.spread.is_none() {
                self.spread = Some((SpreadAcc::new(spread, hz), variants.clone()));
            }
            let (_, report, _) = replay_run(&self.obs, &layout, name, &spread.variants(&variants, k, hz))?;
            if let Some((acc, _)) = self.spread.as_mut() {
                acc.add(&report);
            }
            Ok(report)
        });
        outcome(out)
    }

    /// The spread's runs so far as a `SpreadTable` (JSON), or `null` before any.
    pub fn spread_table(&self) -> String {
        to_json(&self.spread.as_ref().map(|(acc, variants)| acc.table(variants)))
    }

    /// The layout (with `pin` over it, if given) and the variants, or what is wrong with them
    /// or with the trace. Errors at the trace name it by the scenario's name without its
    /// `replay/` prefix (the worker passes `replay/` and the file's name without its extension).
    fn layout_and_variants(
        &mut self,
        name: &str,
        layout: &str,
        pin: &str,
        variants_json: &str,
    ) -> Result<(Layout, Vec<(String, String)>), String> {
        self.obs.source = name.strip_prefix("replay/").unwrap_or(name).to_string();
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        let variants: Vec<(String, String)> =
            serde_json::from_str(variants_json).map_err(|e| format!("variants: {e}"))?;
        let mut layout = if layout.trim().is_empty() { Layout::default() } else { Layout::parse("layout", layout)? };
        if !pin.is_empty() {
            layout.pin = Pin::parse(pin)?;
        }
        Ok((layout, variants))
    }
}

fn outcome(out: Result<schedlab_engine::replay::compare::ReplayReport, String>) -> String {
    to_json(&match out {
        Ok(report) => ShadowOutcome::Report { report },
        Err(message) => ShadowOutcome::Error { message },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn handle(rel: &str) -> ReplayHandle {
        let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../traces/linux-6.18").join(rel);
        let bytes = std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        let mut h = ReplayHandle::new(bytes.len() as f64);
        for c in bytes.chunks(1 << 20) {
            h.feed(c);
        }
        h.finish();
        while h.step(5000) {}
        h
    }

    /// A spread run by run, as the worker does: each run's report, then the table over them
    /// (`schedlab replay --tick-phases 2`); a bad count is an error outcome.
    #[test]
    fn a_spread_run_by_run_then_its_table() {
        let mut h = handle("nice-0-vs-2/trace.dat");
        let pinned = "pin = \"observed\"\n";
        assert_eq!(h.spread_table(), "null");
        for k in 0..2 {
            let r: Value =
                serde_json::from_str(&h.run_spread("replay/n", pinned, "", "[]", "tick_phases", 2, k)).unwrap();
            assert_eq!(r["kind"], "report", "{r}");
        }
        let t: Value = serde_json::from_str(&h.spread_table()).unwrap();
        assert_eq!(t["runs"], 2);
        assert_eq!(t["under"], "with its ticks at 2 phases of the 4 ms period");
        let k_a = t["rows"].as_array().unwrap().iter().find(|r| r["name"] == "k_a").unwrap();
        assert!(k_a["least"].as_f64() <= k_a["mean"].as_f64() && k_a["mean"].as_f64() <= k_a["most"].as_f64(), "{k_a}");
        // Run 0 starts a new spread.
        h.run_spread("replay/n", pinned, "", "[]", "seeds", 1, 0);
        let t: Value = serde_json::from_str(&h.spread_table()).unwrap();
        assert_eq!((t["runs"].as_u64(), t["under"].as_str()), (Some(1), Some("under seeds 1 to 1")));
        let r: Value = serde_json::from_str(&h.run_spread("replay/n", pinned, "", "[]", "seeds", 0, 0)).unwrap();
        assert_eq!(r["message"], "--seeds 0: expected 1 to 64");
    }

    #[test]
    fn shadow_of_a_capture_with_a_variant_and_a_layout() {
        let mut h = handle("nice-0-vs-2/trace.dat");
        // The capture pinned its workload to CPU 1 (its layout file says `pin = "observed"`).
        let pinned = "pin = \"observed\"\n";
        let r: Value = serde_json::from_str(&h.run("replay/nice-0-vs-2", pinned, "", "[]")).unwrap();
        assert_eq!(r["kind"], "report", "{r}");
        assert_eq!(r["report"]["pin"], "observed", "{r}");
        let k_a = r["report"]["tasks"].as_array().unwrap().iter().find(|t| t["name"] == "k_a").unwrap().clone();
        let err = (k_a["simulated_share_pct"].as_f64().unwrap() - k_a["observed_share_pct"].as_f64().unwrap()).abs();
        assert!(err < 1.0, "{k_a}");
        let r: Value =
            serde_json::from_str(&h.run("replay/nice-0-vs-2", pinned, "", r#"[["RUN_TO_PARITY", "false"]]"#)).unwrap();
        assert_eq!(r["kind"], "report", "{r}");
        assert_eq!(r["report"]["variants"][0][0], "RUN_TO_PARITY");
        let r: Value = serde_json::from_str(&h.run("x", "hz = \"fast\"\n", "", "[]")).unwrap();
        assert_eq!(r["kind"], "error");
        assert!(r["message"].as_str().unwrap().starts_with("layout:1:"), "{r}");
        // Free by default: placed and balanced by the model, placement agreement reported.
        let r: Value = serde_json::from_str(&h.run("replay/nice-0-vs-2", "", "", "[]")).unwrap();
        assert_eq!(r["report"]["pin"], "free", "{r}");
        // The pin argument wins over the layout's.
        let r: Value = serde_json::from_str(&h.run("replay/nice-0-vs-2", pinned, "free", "[]")).unwrap();
        assert_eq!(r["report"]["pin"], "free", "{r}");
        assert!(r["report"]["placement_agreement_pct"].is_number(), "{r}");
    }

    /// With the capture's EEVDF dump attached to its import, the shadow's per-decision replay
    /// is seeded from the kernel's state, as `schedlab replay --eevdf` does: cgroup-shares'
    /// workload CPU from about half of its picks to nearly all.
    #[test]
    fn an_attached_dump_seeds_the_per_decision_replay() {
        let read = |rel: &str| {
            let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../traces/linux-6.18").join(rel);
            std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
        };
        let layout = String::from_utf8(read("../linux-6.18/cgroup-shares.layout.toml")).unwrap();
        let cpu1 = |r: &Value| {
            let c =
                r["report"]["decisions"]["per_cpu"].as_array().unwrap().iter().find(|c| c["cpu"] == 1).unwrap().clone();
            c["agreed"].as_f64().unwrap() / c["scored"].as_f64().unwrap()
        };
        let mut h = handle("cgroup-shares/trace.dat");
        let plain: Value = serde_json::from_str(&h.run("replay/cgroup-shares", &layout, "", "[]")).unwrap();
        assert!(plain["report"]["decisions"]["seed"].is_null(), "no dump, no seed");
        let mut trace = crate::import::fed(&read("cgroup-shares/trace.dat"));
        let dump = crate::import::fed(&read("cgroup-shares/eevdf-state.txt"));
        let a: Value = serde_json::from_str(&trace.attach_eevdf(&dump)).unwrap();
        assert_eq!(a["accepted"], true, "{a}");
        h.seed_from(&trace);
        let seeded: Value = serde_json::from_str(&h.run("replay/cgroup-shares", &layout, "", "[]")).unwrap();
        let seed = &seeded["report"]["decisions"]["seed"];
        assert!(seed["queues"].as_array().is_some_and(|q| !q.is_empty()), "{seed}");
        println!("cgroup-shares CPU 1: {:.3} unseeded, {:.3} seeded", cpu1(&plain), cpu1(&seeded));
        assert!(cpu1(&plain) < 0.6 && cpu1(&seeded) > 0.95);
    }

    /// A CPU-averages dump attached to the import sets the per-decision replay's root cfs_rqs,
    /// as `schedlab replay --cpu-avg` does (cgroup-shares-smp of `traces/linux-6.18-smp-cpuavg`:
    /// 70 placements as the kernel decided without it, 73 of 74 with it); a bad dump is refused
    /// at its line and column and changes nothing.
    #[test]
    fn an_attached_cpu_avg_dump_reaches_the_replay() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../traces/linux-6.18-smp-cpuavg");
        let read = |rel: &str| std::fs::read(dir.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"));
        let layout = String::from_utf8(read("cgroup-shares-smp.layout.toml")).unwrap();
        let bytes = read("cgroup-shares-smp/trace.dat");
        let mut h = ReplayHandle::new(bytes.len() as f64);
        h.feed(&bytes);
        h.finish();
        while h.step(5000) {}
        let agreed = |r: &Value| r["report"]["decisions"]["placements"]["agreed"].as_u64().unwrap();
        let plain: Value = serde_json::from_str(&h.run("replay/cgroup-shares-smp", &layout, "", "[]")).unwrap();
        assert!(plain["report"]["decisions"]["cpu_avg"].is_null(), "{}", plain["report"]["decisions"]["cpu_avg"]);
        let mut trace = crate::import::fed(&bytes);
        let bad: Value = serde_json::from_str(&trace.attach_cpu_avg("bad.txt", "@c[1, 0]: (1)")).unwrap();
        assert_eq!(bad["kind"], "error");
        assert!(bad["message"].as_str().unwrap().starts_with("bad.txt:1:"), "{bad}");
        let text = String::from_utf8(read("cgroup-shares-smp/cpu-avg.txt")).unwrap();
        let ok: Value = serde_json::from_str(&trace.attach_cpu_avg("cpu-avg.txt", &text)).unwrap();
        assert_eq!((ok["kind"].as_str(), ok["samples"].as_u64()), (Some("attached"), Some(690)), "{ok}");
        h.seed_from(&trace);
        let with: Value = serde_json::from_str(&h.run("replay/cgroup-shares-smp", &layout, "", "[]")).unwrap();
        assert_eq!(with["report"]["decisions"]["cpu_avg"]["used"], true);
        assert_eq!((agreed(&plain), agreed(&with)), (70, 73));
    }

    /// A balance-pass dump attached to the import reaches the per-decision replay, as
    /// `schedlab replay --balance` reads it (three-hogs-two-cpus-3 of
    /// `traces/linux-6.18-smp-balance`: 63 of its 65 passes decided as the kernel did); a bad
    /// dump is refused at its line and column.
    #[test]
    fn an_attached_balance_dump_reaches_the_replay() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../traces/linux-6.18-smp-balance");
        let read = |rel: &str| std::fs::read(dir.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"));
        let layout = String::from_utf8(read("three-hogs-two-cpus-3.layout.toml")).unwrap();
        let bytes = read("three-hogs-two-cpus-3/trace.dat");
        let mut h = ReplayHandle::new(bytes.len() as f64);
        h.feed(&bytes);
        h.finish();
        while h.step(5000) {}
        let mut trace = crate::import::fed(&bytes);
        let bad: Value =
            serde_json::from_str(&trace.attach_balance("bad.txt", "@s[1, 0, 3]: (0, 4, 1, 2, 1, 0)")).unwrap();
        assert_eq!(bad["kind"], "error");
        assert!(bad["message"].as_str().unwrap().starts_with("bad.txt:1:10:"), "{bad}");
        let text = String::from_utf8(read("three-hogs-two-cpus-3/balance.txt")).unwrap();
        let ok: Value = serde_json::from_str(&trace.attach_balance("balance.txt", &text)).unwrap();
        assert_eq!((ok["kind"].as_str(), ok["passes"].as_u64()), (Some("attached"), Some(134)), "{ok}");
        h.seed_from(&trace);
        let with: Value = serde_json::from_str(&h.run("replay/three-hogs-two-cpus-3", &layout, "", "[]")).unwrap();
        let b = &with["report"]["decisions"]["balance_passes"];
        assert_eq!(
            (b["used"].as_bool(), b["agreed"].as_u64(), b["scored"].as_u64()),
            (Some(true), Some(63), Some(65)),
            "{b}"
        );
        // A dump whose softirqs hold no pass (`last_balance` never moved) still reports, with 0.
        let header = schedlab_engine::import::balance::HEADER;
        let none = format!("{header}\n@s[5, 1, 0]: (0, 4, 100, 104, 1, 7)\n@s[9, 1, 1]: (0, 4, 100, 104, 1, 7)\n");
        let ok: Value = serde_json::from_str(&trace.attach_balance("idle.txt", &none)).unwrap();
        assert_eq!(ok["passes"].as_u64(), Some(0), "{ok}");
        h.seed_from(&trace);
        let with: Value = serde_json::from_str(&h.run("replay/three-hogs-two-cpus-3", &layout, "", "[]")).unwrap();
        let b = &with["report"]["decisions"]["balance_passes"];
        assert_eq!((b["used"].as_bool(), b["passes"].as_u64()), (Some(false), Some(0)), "{b}");
    }
}
