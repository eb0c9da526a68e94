//! schedlab-wasm: the wasm-bindgen face of `schedlab-engine`, and nothing else.
//!
//! One long-lived `SimHandle` per simulated variant. Calls are coarse: load a scenario, run
//! (in steps, so the worker can report progress and accept a cancel), then query a time
//! window at a resolution. Results cross as columns (`Vec<f64>`/`Vec<u32>` become typed
//! arrays) plus JSON metadata carrying the string table (task names) once. Times are f64
//! nanoseconds (exact below 2^53 ns ≈ 104 days); virtual times are sent as signed values
//! (exact below 2^53), as /proc/sched_debug prints them.

use schedlab_engine::obs::cursor::{latest_samples, latest_samples_of, pick_at, pick_json};
use schedlab_engine::obs::explain::{decision_levels, level_name};
use schedlab_engine::obs::log::{flag, EventKind};
use schedlab_engine::obs::query::cpu_slices;
use schedlab_engine::obs::summary::Summary;
use schedlab_engine::scenario::{self, ScenarioError};
use schedlab_engine::sched::group::GROUP_NODE;
use schedlab_engine::sim::config::SimConfig;
use schedlab_engine::sim::Simulation;
use serde_json::{json, Value};
use wasm_bindgen::prelude::*;

pub mod columns;
pub mod import;
mod reader;
pub mod replay;

fn error_json(e: &ScenarioError) -> String {
    json!({"ok": false, "error": {"file": e.file, "line": e.line, "column": e.column, "message": e.message}})
        .to_string()
}

fn plain_error(file: &str, message: String) -> String {
    json!({"ok": false, "error": {"file": file, "line": 0, "column": 0, "message": message}}).to_string()
}

fn ns(v: f64) -> u64 {
    if v.is_finite() && v > 0.0 {
        v.min(u64::MAX as f64) as u64
    } else {
        0
    }
}

/// Columns of CPU run slices in a window.
#[wasm_bindgen]
pub struct Slices {
    cpu: Vec<u32>,
    task: Vec<u32>,
    start: Vec<f64>,
    end: Vec<f64>,
    count: Vec<u32>,
}

#[wasm_bindgen]
impl Slices {
    /// CPU of each slice.
    #[wasm_bindgen(getter)]
    pub fn cpu(&self) -> Vec<u32> {
        self.cpu.clone()
    }
    /// Task id of each slice.
    #[wasm_bindgen(getter)]
    pub fn task(&self) -> Vec<u32> {
        self.task.clone()
    }
    /// Start (ns).
    #[wasm_bindgen(getter)]
    pub fn start(&self) -> Vec<f64> {
        self.start.clone()
    }
    /// End (ns).
    #[wasm_bindgen(getter)]
    pub fn end(&self) -> Vec<f64> {
        self.end.clone()
    }
    /// Runs merged into each slice.
    #[wasm_bindgen(getter)]
    pub fn count(&self) -> Vec<u32> {
        self.count.clone()
    }
}

/// Columns of entity samples in a window.
#[wasm_bindgen]
pub struct Samples {
    t: Vec<f64>,
    task: Vec<u32>,
    cpu: Vec<u32>,
    vruntime: Vec<f64>,
    deadline: Vec<f64>,
    vlag: Vec<f64>,
    vprot: Vec<f64>,
    avg: Vec<f64>,
    flags: Vec<u32>,
}

#[wasm_bindgen]
impl Samples {
    /// Time (ns).
    #[wasm_bindgen(getter)]
    pub fn t(&self) -> Vec<f64> {
        self.t.clone()
    }
    /// Task id.
    #[wasm_bindgen(getter)]
    pub fn task(&self) -> Vec<u32> {
        self.task.clone()
    }
    /// CPU of the task's queue.
    #[wasm_bindgen(getter)]
    pub fn cpu(&self) -> Vec<u32> {
        self.cpu.clone()
    }
    /// vruntime (signed).
    #[wasm_bindgen(getter)]
    pub fn vruntime(&self) -> Vec<f64> {
        self.vruntime.clone()
    }
    /// deadline (signed).
    #[wasm_bindgen(getter)]
    pub fn deadline(&self) -> Vec<f64> {
        self.deadline.clone()
    }
    /// Saved vlag.
    #[wasm_bindgen(getter)]
    pub fn vlag(&self) -> Vec<f64> {
        self.vlag.clone()
    }
    /// vprot (signed).
    #[wasm_bindgen(getter)]
    pub fn vprot(&self) -> Vec<f64> {
        self.vprot.clone()
    }
    /// V of the task's queue (signed).
    #[wasm_bindgen(getter)]
    pub fn avg(&self) -> Vec<f64> {
        self.avg.clone()
    }
    /// Flag bits (1 eligible, 2 on_rq, 4 delayed, 8 curr, 16 protected, 32 buddy).
    #[wasm_bindgen(getter)]
    pub fn flags(&self) -> Vec<u32> {
        self.flags.clone()
    }
}

/// Columns of marker events (wakeups, yields, preemptions, sleeps, exits) in a window.
#[wasm_bindgen]
pub struct Markers {
    t: Vec<f64>,
    kind: Vec<u32>,
    cpu: Vec<u32>,
    task: Vec<u32>,
    arg: Vec<u32>,
    val: Vec<f64>,
}

#[wasm_bindgen]
impl Markers {
    /// Time (ns).
    #[wasm_bindgen(getter)]
    pub fn t(&self) -> Vec<f64> {
        self.t.clone()
    }
    /// EventKind code.
    #[wasm_bindgen(getter)]
    pub fn kind(&self) -> Vec<u32> {
        self.kind.clone()
    }
    /// CPU.
    #[wasm_bindgen(getter)]
    pub fn cpu(&self) -> Vec<u32> {
        self.cpu.clone()
    }
    /// Task (next task for switches).
    #[wasm_bindgen(getter)]
    pub fn task(&self) -> Vec<u32> {
        self.task.clone()
    }
    /// Second task (prev task for switches).
    #[wasm_bindgen(getter)]
    pub fn arg(&self) -> Vec<u32> {
        self.arg.clone()
    }
    /// Kind-specific value (switch reason, sleep length, placement lag).
    #[wasm_bindgen(getter)]
    pub fn val(&self) -> Vec<f64> {
        self.val.clone()
    }
}

/// Columns of bandwidth counters.
#[wasm_bindgen]
pub struct Counters {
    t: Vec<f64>,
    kind: Vec<u32>,
    key: Vec<u32>,
    value: Vec<f64>,
}

#[wasm_bindgen]
impl Counters {
    /// Time (ns).
    #[wasm_bindgen(getter)]
    pub fn t(&self) -> Vec<f64> {
        self.t.clone()
    }
    /// 0: cfs_rq runtime_remaining, 1: group pool.
    #[wasm_bindgen(getter)]
    pub fn kind(&self) -> Vec<u32> {
        self.kind.clone()
    }
    /// cfs_rq id (kind 0) or task group id (kind 1).
    #[wasm_bindgen(getter)]
    pub fn key(&self) -> Vec<u32> {
        self.key.clone()
    }
    /// Value (ns).
    #[wasm_bindgen(getter)]
    pub fn value(&self) -> Vec<f64> {
        self.value.clone()
    }
}

/// One simulation of one scenario under one set of variants.
#[wasm_bindgen]
pub struct SimHandle {
    sim: Option<Simulation>,
    names: Vec<String>,
}

impl Default for SimHandle {
    fn default() -> Self {
        SimHandle::new()
    }
}

#[wasm_bindgen]
impl SimHandle {
    /// An empty handle.
    #[wasm_bindgen(constructor)]
    pub fn new() -> SimHandle {
        SimHandle { sim: None, names: Vec::new() }
    }

    /// Loads scenario text with variants (a JSON array of `[name, value]` pairs). Returns
    /// JSON: `{ok: true, meta}` or `{ok: false, error: {file, line, column, message}}`.
    pub fn load(&mut self, file: &str, text: &str, variants_json: &str) -> String {
        let variants: Vec<(String, String)> = match serde_json::from_str(variants_json) {
            Ok(v) => v,
            Err(e) => return plain_error(file, format!("variants: {e}")),
        };
        let mut sf = match scenario::parse_scenario(file, text) {
            Ok(s) => s,
            Err(e) => return error_json(&e),
        };
        for (k, v) in &variants {
            if let Err(e) = scenario::apply_variant(&mut sf, k, v) {
                return plain_error(file, format!("variant {e}"));
            }
        }
        if let Err(e) = scenario::validate(file, Some(text), &sf) {
            return error_json(&e);
        }
        let cfg = match SimConfig::from_scenario(&sf) {
            Ok(c) => c,
            Err(e) => return plain_error(file, e),
        };
        let features: Value = cfg.features.list().into_iter().map(|(n, on)| (n.to_string(), Value::Bool(on))).collect();
        let meta = json!({
            "name": cfg.name, "description": sf.description, "seed": cfg.seed, "duration_ns": cfg.duration_ns,
            "cpus": cfg.host.ncpus, "hz": cfg.host.hz,
            "base_slice_ns": cfg.params.base_slice, "tick_ns": cfg.params.tick_nsec,
            "yield": format!("{:?}", cfg.params.yield_flavour), "lag_clamp": format!("{:?}", cfg.params.lag_clamp),
            "features": features,
            "cgroups": cfg.cgroups.iter().map(|g| json!({"path": g.path, "parent": g.parent, "shares": g.shares >> 10,
                "quota_ns": g.quota_ns, "period_ns": g.period_ns})).collect::<Vec<_>>(),
            "tasks": cfg.tasks.iter().map(|t| json!({"name": t.name, "nice": t.nice, "policy": format!("{:?}", t.policy).to_lowercase(),
                "affinity": t.affinity, "slice_ns": t.slice_ns, "tg": t.tg, "vm": t.vm})).collect::<Vec<_>>(),
            "vms": cfg.vms,
        });
        let mut meta = meta;
        if sf.host.topology.is_some() {
            meta["topology"] = cfg
                .host
                .topology
                .iter()
                .map(|t| json!({"socket": t.socket, "core": t.core, "thread": t.thread}))
                .collect();
        }
        self.names = cfg.tasks.iter().map(|t| t.name.clone()).collect();
        let sim = Simulation::new(cfg);
        // Per group: its node id in samples/picks and its cfs_rq id on each CPU (counter keys).
        meta["groups"] = Value::Array(
            sim.fair
                .tgs
                .iter()
                .map(|g| json!({"tg": g.id, "path": g.path, "node": GROUP_NODE | g.id, "parent": g.parent, "cfs_rq": g.cfs_rq,
                    "quota_ns": g.bw.as_ref().map(|b| b.quota), "period_ns": g.bw.as_ref().map(|b| b.period)}))
                .collect(),
        );
        self.sim = Some(sim);
        json!({"ok": true, "meta": meta}).to_string()
    }

    /// Runs until `t_ns` (capped at the scenario's end); returns the new time.
    pub fn run_until(&mut self, t_ns: f64) -> f64 {
        match self.sim.as_mut() {
            Some(s) => {
                s.run_until(ns(t_ns));
                s.now() as f64
            }
            None => 0.0,
        }
    }

    /// Current simulated time (ns).
    pub fn now(&self) -> f64 {
        self.sim.as_ref().map(|s| s.now() as f64).unwrap_or(0.0)
    }

    /// Whether the run reached the scenario's end.
    pub fn done(&self) -> bool {
        self.sim.as_ref().is_some_and(|s| s.now() >= s.cfg.duration_ns)
    }

    /// Run slices of every CPU in `[t0, t1)`, runs shorter than `bucket` merged.
    pub fn cpu_slices(&self, t0: f64, t1: f64, bucket: f64) -> Slices {
        let Some(s) = self.sim.as_ref() else {
            return Slices { cpu: vec![], task: vec![], start: vec![], end: vec![], count: vec![] };
        };
        let c = cpu_slices(&s.fair.log, s.cpus.len() as u32, ns(t0), ns(t1), ns(bucket).max(1), s.now());
        Slices {
            cpu: c.cpu.iter().map(|&x| x as u32).collect(),
            task: c.task,
            start: c.start.iter().map(|&x| x as f64).collect(),
            end: c.end.iter().map(|&x| x as f64).collect(),
            count: c.count,
        }
    }

    /// Entity samples of `tasks` (all when empty) in `[t0, t1)` plus, for continuity, each
    /// such task's last sample before t0.
    pub fn samples(&self, t0: f64, t1: f64, tasks: &[u32]) -> Samples {
        let mut out = Samples {
            t: vec![],
            task: vec![],
            cpu: vec![],
            vruntime: vec![],
            deadline: vec![],
            vlag: vec![],
            vprot: vec![],
            avg: vec![],
            flags: vec![],
        };
        let Some(s) = self.sim.as_ref() else { return out };
        let log = &s.fair.log;
        let (t0, t1) = (ns(t0), ns(t1));
        // Which nodes: every task when `tasks` is empty, else exactly the listed task ids and
        // group node ids (GROUP_NODE | task group).
        let ntasks = self.names.len() as u32;
        let nodes: Vec<u32> = if tasks.is_empty() { (0..ntasks).collect() } else { tasks.to_vec() };
        let want = |n: u32| if tasks.is_empty() { n < ntasks } else { tasks.contains(&n) };
        let before = if tasks.is_empty() {
            latest_samples(log, self.names.len(), t0.saturating_sub(1))
        } else {
            latest_samples_of(log, &nodes, t0.saturating_sub(1))
        };
        let (lo, hi) = log.sample_window(t0, t1);
        let mut rows: Vec<usize> = before.into_iter().flatten().collect();
        rows.sort_unstable();
        rows.extend((lo..hi).filter(|&i| want(log.samples.task[i])));
        let smp = &log.samples;
        for i in rows {
            out.t.push(smp.t[i] as f64);
            out.task.push(smp.task[i]);
            out.cpu.push(smp.cpu[i] as u32);
            out.vruntime.push(smp.vruntime[i] as i64 as f64);
            out.deadline.push(smp.deadline[i] as i64 as f64);
            out.vlag.push(smp.vlag[i] as f64);
            out.vprot.push(smp.vprot[i] as i64 as f64);
            out.avg.push(smp.avg_vruntime[i] as i64 as f64);
            out.flags.push(smp.flags[i] as u32);
        }
        out
    }

    /// Marker events in `[t0, t1)`: switches, wakeups, yields, sleeps, exits, placements,
    /// throttling, and KVM (yield_to, pause-loop exits, IPI send and handling). At
    /// most `limit` rows: a window holding more returns none (markers are for zoomed-in views;
    /// the caller sees an empty set and the slices still show every run).
    pub fn markers(&self, t0: f64, t1: f64, limit: u32) -> Markers {
        let mut m = Markers { t: vec![], kind: vec![], cpu: vec![], task: vec![], arg: vec![], val: vec![] };
        let Some(s) = self.sim.as_ref() else { return m };
        let log = &s.fair.log;
        let (lo, hi) = log.event_window(ns(t0), ns(t1));
        if hi - lo > 4 * limit as usize {
            return m;
        }
        let e = &log.events;
        for i in lo..hi {
            let k = e.kind[i];
            let keep = [
                EventKind::Switch,
                EventKind::Wakeup,
                EventKind::WakeupNew,
                EventKind::Yield,
                EventKind::Sleep,
                EventKind::Exit,
                EventKind::Place,
                EventKind::Throttle,
                EventKind::Unthrottle,
                EventKind::TaskThrottled,
                EventKind::YieldTo,
                EventKind::GuestLock,
                EventKind::GuestUnlock,
                EventKind::PleExit,
                EventKind::IpiSend,
                EventKind::IpiHandled,
                EventKind::GuestSpin,
                EventKind::GuestSpinEnd,
            ]
            .iter()
            .any(|x| *x as u8 == k);
            if !keep {
                continue;
            }
            m.t.push(e.t[i] as f64);
            m.kind.push(k as u32);
            m.cpu.push(e.cpu[i] as u32);
            m.task.push(e.task[i]);
            m.arg.push(e.arg[i]);
            m.val.push(e.val[i] as f64);
        }
        m
    }

    /// CFS bandwidth counters in `[t0, t1)` (kind 0: a cfs_rq's runtime_remaining keyed by
    /// cfs_rq id; kind 1: a group's pool keyed by task group id), each series preceded by
    /// its last value before t0.
    pub fn counters(&self, t0: f64, t1: f64) -> Counters {
        let mut out = Counters { t: vec![], kind: vec![], key: vec![], value: vec![] };
        let Some(s) = self.sim.as_ref() else { return out };
        let c = &s.fair.log.counters;
        let (t0, t1) = (ns(t0), ns(t1));
        let lo = c.t.partition_point(|&x| x < t0);
        let hi = c.t.partition_point(|&x| x < t1);
        let mut seen: Vec<(u8, u32)> = Vec::new();
        let mut prior: Vec<usize> = Vec::new();
        for i in (0..lo).rev() {
            let k = (c.kind[i], c.key[i]);
            if !seen.contains(&k) {
                seen.push(k);
                prior.push(i);
            }
            if seen.len() > 4096 {
                break;
            }
        }
        prior.sort_unstable();
        for i in prior.into_iter().chain(lo..hi) {
            out.t.push(if i < lo { t0 as f64 } else { c.t[i] as f64 });
            out.kind.push(c.kind[i] as u32);
            out.key.push(c.key[i]);
            out.value.push(c.value[i] as f64);
        }
        out
    }

    /// The runqueue of every CPU at `t`, the latest pick on each, and every task's latest
    /// state (queued or not), as JSON.
    pub fn state_at(&self, t: f64) -> String {
        let Some(s) = self.sim.as_ref() else { return "null".to_string() };
        let log = &s.fair.log;
        let t = ns(t);
        let latest = latest_samples(log, self.names.len(), t);
        let smp = &log.samples;
        let entity = |task: usize, i: usize| {
            let f = smp.flags[i];
            json!({"task": task, "name": self.names[task], "t": smp.t[i], "cpu": smp.cpu[i],
                "vruntime": smp.vruntime[i] as i64, "deadline": smp.deadline[i] as i64,
                "vlag": smp.vlag[i], "vprot": smp.vprot[i] as i64, "avg_vruntime": smp.avg_vruntime[i] as i64,
                "lag": (smp.avg_vruntime[i] as i64).wrapping_sub(smp.vruntime[i] as i64),
                "on_rq": f & flag::ON_RQ != 0,
                "eligible": f & flag::ELIGIBLE != 0, "curr": f & flag::CURR != 0, "delayed": f & flag::DELAYED != 0,
                "protected": f & flag::PROTECTED != 0, "buddy": f & flag::BUDDY != 0})
        };
        let groups: Vec<String> = s.fair.tgs.iter().map(|g| g.path.clone()).collect();
        let mut cpus = Vec::new();
        for cpu in 0..s.cpus.len() as u32 {
            let queued: Vec<(usize, usize)> = latest
                .iter()
                .enumerate()
                .filter_map(|(task, row)| row.map(|i| (task, i)))
                .filter(|&(_, i)| smp.cpu[i] as u32 == cpu && smp.flags[i] & flag::ON_RQ != 0)
                .collect();
            // A queued entity's own sample may be older than its queue's V: read each lag
            // against the newest V sampled on the same cfs_rq (its task group on this CPU),
            // so the runqueue table agrees with the pick it sits beside.
            let tg = |task: usize| s.tasks[task].cfg.tg;
            let newest = |g: u32| queued.iter().filter(|&&(t, _)| tg(t) == g).map(|&(_, i)| i).max();
            let ents: Vec<Value> = queued
                .iter()
                .map(|&(task, i)| {
                    let mut e = entity(task, i);
                    if let Some(n) = newest(tg(task)).filter(|&n| n != i && smp.t[n] > smp.t[i]) {
                        let v = smp.avg_vruntime[n] as i64;
                        let lag = v.wrapping_sub(smp.vruntime[i] as i64);
                        e["avg_vruntime"] = json!(v);
                        e["lag"] = json!(lag);
                        e["eligible"] = json!(lag >= 0);
                        e["t"] = json!(smp.t[n]);
                    }
                    e
                })
                .collect();
            let pick = pick_at(log, cpu, t).map(|i| {
                // The task-level pick, with the picks of the same decision at every level.
                let levels: Vec<Value> = decision_levels(s, i)
                    .into_iter()
                    .map(|j| {
                        let mut v = pick_json(log, &self.names, &groups, &s.fair.feat, j);
                        v["level"] = Value::String(level_name(s, log.picks.task[j]));
                        v
                    })
                    .collect();
                let mut top = pick_json(log, &self.names, &groups, &s.fair.feat, i);
                top["level"] = Value::String(level_name(s, log.picks.task[i]));
                top["levels"] = Value::Array(levels);
                top
            });
            cpus.push(json!({"cpu": cpu, "entities": ents, "pick": pick}));
        }
        let tasks: Vec<Value> =
            latest.iter().enumerate().filter_map(|(task, row)| row.map(|i| entity(task, i))).collect();
        json!({"t": t, "cpus": cpus, "tasks": tasks}).to_string()
    }

    /// Per-task metrics (`schedlab simulate --json` fields) and the log digest, as JSON.
    pub fn summary(&self) -> String {
        match self.sim.as_ref() {
            Some(s) => Summary::of(s).to_json().to_string(),
            None => "null".to_string(),
        }
    }

    /// Wakeup latencies: pairs (task, ns) flattened, from the log.
    pub fn wakeup_latencies(&self) -> Vec<f64> {
        let Some(s) = self.sim.as_ref() else { return vec![] };
        let e = &s.fair.log.events;
        let mut woken: Vec<Option<u64>> = vec![None; self.names.len()];
        let mut out = Vec::new();
        for i in 0..e.t.len() {
            let task = e.task[i] as usize;
            match EventKind::from_u8(e.kind[i]) {
                Some(EventKind::Wakeup) | Some(EventKind::WakeupNew) if task < woken.len() => {
                    woken[task] = Some(e.t[i])
                }
                Some(EventKind::Switch) if task < woken.len() => {
                    if let Some(w) = woken[task].take() {
                        out.push(task as f64);
                        out.push((e.t[i] - w) as f64);
                    }
                }
                _ => {}
            }
        }
        out
    }

    /// Hex digest of the event log (determinism checks: equals the native CLI's).
    pub fn digest(&self) -> String {
        self.sim.as_ref().map(|s| format!("{:016x}", s.fair.log.digest())).unwrap_or_default()
    }

    /// Rows in the events table.
    pub fn event_count(&self) -> u32 {
        self.sim.as_ref().map(|s| s.fair.log.len() as u32).unwrap_or(0)
    }
}

/// The scenario JSON Schema (for the editor's hints).
#[wasm_bindgen]
pub fn scenario_schema() -> String {
    scenario::json_schema_string()
}

/// The engine's crate version.
#[wasm_bindgen]
pub fn engine_version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: &str = "version = 1\nname = \"t\"\nduration = \"20ms\"\n[host]\ncpus = 1\n[[tasks]]\nname = \"a\"\nprogram = [{ run = \"forever\" }]\n[[tasks]]\nname = \"b\"\nprogram = [{ loop = { body = [{ run = \"1ms\" }, { sleep = \"2ms\" }] } }]\n";

    #[test]
    fn load_run_query() {
        let mut h = SimHandle::new();
        let r: Value = serde_json::from_str(&h.load("t.toml", S, "[]")).unwrap();
        assert_eq!(r["ok"], true, "{r}");
        assert_eq!(r["meta"]["tasks"].as_array().unwrap().len(), 2);
        h.run_until(5e6);
        assert_eq!(h.now(), 5e6);
        h.run_until(1e12);
        assert!(h.done());
        let s = h.cpu_slices(0.0, 20e6, 1.0);
        assert!(!s.start().is_empty());
        assert!(s.end().iter().all(|&e| e <= 20e6));
        let smp = h.samples(5e6, 10e6, &[]);
        assert!(h.samples(5e6, 10e6, &[1]).task().iter().all(|&t| t == 1));
        assert!(smp.t().len() > 2);
        let st: Value = serde_json::from_str(&h.state_at(7e6)).unwrap();
        let why = st["cpus"][0]["pick"]["why"].as_str().unwrap();
        assert!(why.contains("Eligible (lag ≥ 0") || why.contains("only entity"), "{why}");
        assert_eq!(h.wakeup_latencies().len() % 2, 0);
        assert_eq!(h.digest().len(), 16);
    }

    #[test]
    fn runqueue_lags_share_the_newest_v_of_their_queue() {
        // Two equal hogs on one CPU: read against one V, their lags cancel at every instant,
        // although the waiting one was last sampled a tick earlier than the running one.
        let two = "version = 1\nname = \"t\"\nduration = \"40ms\"\n[host]\ncpus = 1\nhz = 1000\nbase_slice = \"3ms\"\n[[tasks]]\nname = \"a\"\nprogram = [{ run = \"forever\" }]\n[[tasks]]\nname = \"b\"\nprogram = [{ run = \"forever\" }]\n";
        let mut h = SimHandle::new();
        h.load("t.toml", two, "[]");
        h.run_until(1e12);
        let mut nonzero = 0;
        for t in [5.5e6, 9.5e6, 20.5e6, 33.5e6] {
            let st: Value = serde_json::from_str(&h.state_at(t)).unwrap();
            let e = st["cpus"][0]["entities"].as_array().unwrap();
            assert_eq!(e.len(), 2, "{st}");
            let (l0, l1) = (e[0]["lag"].as_i64().unwrap(), e[1]["lag"].as_i64().unwrap());
            assert!((l0 + l1).abs() <= 1, "at {t}: lags {l0} and {l1}");
            assert_eq!(e[0]["avg_vruntime"], e[1]["avg_vruntime"]);
            nonzero += (l0 != 0) as u32;
        }
        assert!(nonzero >= 2);
    }

    #[test]
    fn load_errors_are_located() {
        let mut h = SimHandle::new();
        let r: Value = serde_json::from_str(&h.load("bad.toml", "version = 1\nname = 3\n", "[]")).unwrap();
        assert_eq!(r["ok"], false);
        assert_eq!(r["error"]["line"], 2);
        let r: Value = serde_json::from_str(&h.load("t.toml", S, "[[\"NOPE\", \"1\"]]")).unwrap();
        assert_eq!(r["ok"], false);
    }
}
