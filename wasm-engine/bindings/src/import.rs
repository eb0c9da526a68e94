//! `ImportHandle`: one imported trace in the web worker. The worker feeds the user's file in
//! chunks (progress and cancel between them), finishes, steps a `.dat` through its decoder,
//! then asks for the import summary (JSON), the tasks, and windows of the replay view as
//! typed-array columns. Times cross as f64 ns relative to the trace's first record (the
//! summary gives that origin in trace-clock ns).

use crate::columns::{Columns, EevdfWindowCols, ReplayWindowCols, ThreadStateCols};
use crate::protocol::{BalanceAttach, CpuAvgAttach};
use crate::reader::Reader;
use crate::{ns, to_json};
use schedlab_engine::import::align::{align, shifted, Alignment};
use schedlab_engine::import::balance::BalancePassRecord;
use schedlab_engine::import::cpu_avg::CpuAvgSample;
use schedlab_engine::import::diff::DiffInput;
use schedlab_engine::import::inspect::record_near;
use schedlab_engine::import::metrics::{window_metrics, MetricsWindow};
use schedlab_engine::import::record::EevdfEntity;
use schedlab_engine::import::report::{
    eevdf_tasks, record_view, span_info, timeline_report, trace_tasks, DatReport, EevdfReport, ImportReport,
};
use schedlab_engine::import::thread_states::ThreadStates;
use schedlab_engine::import::timeline::{wake_code, window_of, TraceTimeline};
use schedlab_engine::import::{EevdfSample, ImportSummary, TraceStore};
use wasm_bindgen::prelude::*;

/// One trace being imported, then viewed.
#[wasm_bindgen]
pub struct ImportHandle {
    reader: Reader,
    store: TraceStore,
    timeline: Option<TraceTimeline>,
    /// Each task's thread states, built with the timeline.
    states: Option<ThreadStates>,
    /// EEVDF samples in time order: the file's own (a dump imported alone) or an attached
    /// dump's, moved onto the trace clock.
    eevdf: Vec<EevdfSample>,
    alignment: Option<Alignment>,
    /// An attached dump of each CPU's PELT averages (`attach_cpu_avg`), for the replay.
    cpu_avg: Vec<CpuAvgSample>,
    /// An attached dump of the balance passes (`attach_balance`), for the replay.
    balance: Option<Vec<BalancePassRecord>>,
    error: Option<String>,
    /// Trace-clock ns of relative time 0.
    origin: u64,
    end: u64,
}

impl ImportHandle {
    /// The trace for `import::diff`, once its timeline is built.
    pub(crate) fn diff_input(&self) -> Option<DiffInput<'_>> {
        self.timeline.as_ref().map(|timeline| DiffInput { store: &self.store, timeline })
    }
}

#[wasm_bindgen]
impl ImportHandle {
    /// A handle for a file of `total_bytes` (0 if unknown: only sizes the `.dat` buffer).
    #[wasm_bindgen(constructor)]
    pub fn new(total_bytes: f64) -> ImportHandle {
        ImportHandle {
            reader: Reader::new(ns(total_bytes) as usize),
            store: TraceStore::new(),
            timeline: None,
            states: None,
            eevdf: Vec::new(),
            alignment: None,
            cpu_avg: Vec::new(),
            balance: None,
            error: None,
            origin: 0,
            end: 0,
        }
    }

    /// The next chunk of the file.
    pub fn feed(&mut self, chunk: &[u8]) {
        self.reader.feed(chunk, &mut self.store);
    }

    /// Ends the input. A damaged `.dat` header is an error (see `error()`).
    pub fn finish(&mut self) {
        if let Err(e) = self.reader.finish(&mut self.store) {
            self.error = Some(e);
        }
    }

    /// Decodes up to `max_records` more records of a `.dat` (nothing for text). Returns false
    /// once the trace is complete (or decoding stopped at damage: see `error()`); the replay
    /// view's spans are built then.
    pub fn step(&mut self, max_records: u32) -> bool {
        if self.error.is_none() {
            match self.reader.step(&mut self.store, max_records as usize) {
                Ok(true) => return true,
                Ok(false) => {}
                Err(e) => self.error = Some(e),
            }
        }
        if self.timeline.is_none() {
            self.build();
        }
        false
    }

    fn build(&mut self) {
        let tl = TraceTimeline::build(&self.store);
        // (A dump's own samples; an attached dump's replace them. Dumps are small.)
        self.eevdf = self.store.eevdf.clone();
        self.eevdf.sort_by_key(|s| s.ts_ns);
        (self.origin, self.end) = match (self.store.first_ts, self.eevdf.first(), self.eevdf.last()) {
            (Some(a), _, _) => (a, tl.t1),
            (None, Some(a), Some(b)) => (a.ts_ns, b.ts_ns),
            _ => (0, 0),
        };
        self.states = Some(ThreadStates::build(&self.store, &tl));
        self.timeline = Some(tl);
    }

    /// The last shadow run of `replay` as a trace (the records a kernel trace of it would hold:
    /// `obs::perfetto::records`), for the A/B view's "shadow as B"; None before a run.
    pub fn from_shadow(replay: &crate::replay::ReplayHandle) -> Option<ImportHandle> {
        let sim = replay.last.as_ref()?;
        let mut h = ImportHandle::new(0.0);
        schedlab_engine::obs::perfetto::records(sim, &schedlab_engine::obs::perfetto::Names::of(sim), &mut h.store);
        h.build();
        // The shadow's clock starts where the trace began: relative time is the model's.
        h.origin = 0;
        Some(h)
    }

    /// Why decoding stopped early, if it did.
    pub fn error(&self) -> Option<String> {
        self.error.clone()
    }

    /// Progress: bytes taken in (fed, or decoded for a `.dat`), lines, records and samples.
    pub fn bytes_done(&self) -> f64 {
        self.reader.bytes_done() as f64
    }
    pub fn lines(&self) -> f64 {
        self.reader.lines() as f64
    }
    pub fn records(&self) -> f64 {
        (self.store.records + self.store.eevdf.len() as u64) as f64
    }
    pub fn is_dat(&self) -> bool {
        self.reader.is_dat()
    }

    /// `ImportReport` as JSON: the import summary, the `.dat` header, the replay timeline and
    /// the EEVDF samples held.
    pub fn summary(&self) -> String {
        let mut summary = ImportSummary::new(self.reader.stats(), &self.store);
        if self.alignment.as_ref().is_some_and(|a| a.accepted) {
            // An attached dump provides the EEVDF state.
            summary.missing.retain(|m| !m.what.starts_with("EEVDF state"));
        }
        to_json(&ImportReport {
            summary,
            dat: self.reader.dat_info().map(DatReport::from),
            error: self.error.clone(),
            timeline: timeline_report(&self.store, self.timeline.as_ref(), self.origin, self.end),
            eevdf: EevdfReport {
                samples: self.eevdf.len() as u64,
                tasks: eevdf_tasks(&self.eevdf),
                alignment: self.alignment.clone(),
            },
        })
    }

    /// The task table (`TraceTask[]`) as JSON, indexed by the task ids of the columns.
    pub fn tasks(&self) -> String {
        to_json(&trace_tasks(&self.store, self.states.as_ref(), None))
    }

    /// The task table as [`Self::tasks`] gives it, with the cgroups a replay layout file's
    /// `[tasks]` names (comm or `comm-pid` → path) for the tasks the trace does not place;
    /// empty text: none. A layout that does not parse throws its located error
    /// (`layout:LINE:COL: …`).
    pub fn tasks_with_layout(&self, layout: &str) -> Result<String, String> {
        if layout.trim().is_empty() {
            return Ok(self.tasks());
        }
        let layout = schedlab_engine::replay::shadow::Layout::parse("layout", layout)?;
        Ok(to_json(&trace_tasks(&self.store, self.states.as_ref(), Some(&layout.tasks))))
    }

    /// Spans of `[t0, t1)` (relative ns) merged below `bucket`, each CPU's runqueue depth
    /// segments (merged likewise), and, when the window holds at most `limit` of them, its wakeups (with each wakee's next switch-in) and migrations.
    /// `omitted` = [wakeups, migrations] left out for density.
    pub fn window(&self, t0: f64, t1: f64, bucket: f64, limit: u32) -> Columns {
        let mut c = ReplayWindowCols::default();
        let Some(tl) = self.timeline.as_ref() else { return c.into_columns() };
        let o = self.origin;
        let (a, b) = (o + ns(t0), o + ns(t1));
        let rel = |t: u64| t.saturating_sub(o) as f64;
        let sp = tl.spans(a, b, ns(bucket).max(1));
        c.span_start = sp.start.iter().map(|&t| rel(t)).collect();
        c.span_end = sp.end.iter().map(|&t| rel(t)).collect();
        (c.span_cpu, c.span_task, c.span_state, c.span_count, c.span_index) =
            (sp.cpu, sp.task, sp.state, sp.count, sp.index);
        let w = &self.store.wakeups;
        let (lo, hi) = window_of(&w.ts, a, b);
        let keep_w = hi - lo <= limit as usize;
        for i in if keep_w { lo..hi } else { 0..0 } {
            c.wake_t.push(rel(w.ts[i]));
            c.wake_cpu.push(w.cpu[i]);
            c.wake_waker.push(w.waker[i]);
            c.wake_wakee.push(w.wakee[i]);
            c.wake_target.push(w.target_cpu[i]);
            c.wake_kind.push(wake_code(w.kind[i]));
            c.wake_run_t.push(if tl.wake_run_ts[i] == u64::MAX { -1.0 } else { rel(tl.wake_run_ts[i]) });
            c.wake_run_cpu.push(tl.wake_run_cpu[i]);
        }
        let m = &self.store.migrations;
        let (mlo, mhi) = window_of(&m.ts, a, b);
        let keep_m = mhi - mlo <= limit as usize;
        for i in if keep_m { mlo..mhi } else { 0..0 } {
            c.mig_t.push(rel(m.ts[i]));
            c.mig_cpu.push(m.cpu[i]);
            c.mig_task.push(m.task[i]);
            c.mig_orig.push(m.orig_cpu[i]);
            c.mig_dest.push(m.dest_cpu[i]);
        }
        let d = tl.depth.window(a, b, ns(bucket).max(1));
        c.depth_start = d.start.iter().map(|&t| rel(t)).collect();
        c.depth_end = d.end.iter().map(|&t| rel(t)).collect();
        (c.depth_cpu, c.depth_n, c.depth_count) = (d.cpu, d.depth, d.count);
        c.omitted = vec![if keep_w { 0 } else { (hi - lo) as u32 }, if keep_m { 0 } else { (mhi - mlo) as u32 }];
        c.into_columns()
    }

    /// Thread-state segments of `tasks` (task ids; row `r` of the result is `tasks[r]`) in
    /// `[t0, t1)` (relative ns), merged below `bucket`.
    pub fn thread_states(&self, tasks: &[u32], t0: f64, t1: f64, bucket: f64) -> Columns {
        let mut c = ThreadStateCols::default();
        let Some(st) = self.states.as_ref() else { return c.into_columns() };
        let o = self.origin;
        let w = st.window(tasks, o + ns(t0), o + ns(t1), ns(bucket).max(1));
        c.start = w.start.iter().map(|&t| t.saturating_sub(o) as f64).collect();
        c.end = w.end.iter().map(|&t| t.saturating_sub(o) as f64).collect();
        (c.row, c.state, c.cpu, c.count) = (w.row, w.state, w.cpu, w.count);
        c.into_columns()
    }

    /// The figures of `[t0, t1)` (relative ns) on `cpus` (empty: every CPU), of the tasks
    /// `tasks` (empty: all), for the area selection: `{ "metrics": WindowMetrics, "csv": its
    /// CSV }` as JSON, times relative.
    pub fn window_metrics(&self, t0: f64, t1: f64, cpus: Vec<u32>, tasks: Vec<u32>) -> String {
        let Some(tl) = self.timeline.as_ref() else { return to_json(&serde_json::Value::Null) };
        let o = self.origin;
        let w = MetricsWindow { t0: Some(o + ns(t0)), t1: Some(o + ns(t1)), cpus: (!cpus.is_empty()).then_some(cpus) };
        let mut m = window_metrics(&self.store, tl, &w);
        if !tasks.is_empty() {
            m.tasks.retain(|t| tasks.contains(&t.task));
        }
        let csv = m.csv();
        (m.t0, m.t1) = (m.t0.saturating_sub(o), m.t1.saturating_sub(o));
        to_json(&serde_json::json!({ "metrics": m, "csv": csv }))
    }

    /// EEVDF samples in `[t0, t1)` (relative ns), at most `limit` (none if more): per sample
    /// its pid, kind (0 `S` task line, 1 `G` group line), CPU, and the entity's vruntime and
    /// deadline relative to its cfs_rq's zero_vruntime (signed ns), the vlag/vprot union,
    /// slice, weight, the task's prev_state and the cfs_rq's nr_queued.
    pub fn eevdf_window(&self, t0: f64, t1: f64, limit: u32) -> Columns {
        let o = self.origin;
        let (a, b) = (o + ns(t0), o + ns(t1));
        let lo = self.eevdf.partition_point(|s| s.ts_ns < a);
        let hi = self.eevdf.partition_point(|s| s.ts_ns < b);
        let rows = if hi - lo <= limit as usize { &self.eevdf[lo..hi] } else { &[][..] };
        let rel = |v: u64, z: u64| v.wrapping_sub(z) as i64 as f64;
        let mut cols = EevdfWindowCols::default();
        for s in rows {
            cols.t.push(s.ts_ns.saturating_sub(o) as f64);
            cols.pid.push(s.pid);
            cols.cpu.push(s.cpu);
            let (se, q) = (s.entity.se(), s.entity.cfs_rq());
            let z = q.zero_vruntime;
            cols.v.push(rel(se.vruntime, z));
            cols.d.push(rel(se.deadline, z));
            cols.slice.push(se.slice as f64);
            cols.weight.push(se.weight as f64);
            cols.nr.push(q.nr_queued);
            match &s.entity {
                EevdfEntity::Task { prev_state, .. } => {
                    cols.kind.push(0);
                    cols.lag.push(se.vlag_or_vprot.unwrap_or(0) as f64);
                    cols.state.push(*prev_state as i32);
                }
                EevdfEntity::Group { .. } => {
                    cols.kind.push(1);
                    cols.lag.push(0.0);
                    cols.state.push(-1);
                }
            }
        }
        cols.omitted = vec![if rows.is_empty() { (hi - lo) as u32 } else { 0 }];
        cols.into_columns()
    }

    /// The record of `cpu` nearest `t` (relative ns) within `tol` ns: a `TraceRecordView` as
    /// JSON, or `null`.
    pub fn record_at(&self, cpu: u32, t: f64, tol: f64) -> String {
        let r = record_near(&self.store, cpu, self.origin + ns(t), ns(tol));
        to_json(&r.map(|r| record_view(&self.store, r, self.origin)))
    }

    /// Span `index` (from `span_index`) as a `SpanInfo` JSON, or `null`.
    pub fn span_info(&self, index: u32) -> String {
        let info = self.timeline.as_ref().and_then(|tl| span_info(&self.store, tl, index as usize, self.origin));
        to_json(&info)
    }

    /// Keeps a dump of each CPU's PELT averages (`tools/capture/schedlab-cpu-avg.bt`; `file` its
    /// name, `text` its contents) for the replay of this trace, as `schedlab replay --cpu-avg`
    /// reads it. Returns `CpuAvgAttach` as JSON: the samples read, or the first bad line
    /// (`file:line:column: expected …`). Whether the dump lines up with the trace is the
    /// replay's to decide (`replay::decisions::cpu_avg`), and its report says.
    pub fn attach_cpu_avg(&mut self, file: &str, text: &str) -> String {
        match schedlab_engine::import::cpu_avg::parse(file, text) {
            Ok(samples) => {
                let n = samples.len() as u64;
                self.cpu_avg = samples;
                to_json(&CpuAvgAttach::Attached { samples: n })
            }
            Err(message) => to_json(&CpuAvgAttach::Error { message }),
        }
    }

    /// Keeps a dump of the balance passes (`tools/capture/schedlab-balance.bt`; `file` its name,
    /// `text` its contents) for the replay of this trace, as `schedlab replay --balance` reads
    /// it. Returns `BalanceAttach` as JSON: the passes read, or the first bad line
    /// (`file:line:column: expected …`). Whether the dump lines up with the trace is the
    /// replay's to decide (`replay::decisions::passes`), and its report says.
    pub fn attach_balance(&mut self, file: &str, text: &str) -> String {
        match schedlab_engine::import::balance::parse(file, text) {
            Ok(records) => {
                let passes = schedlab_engine::import::balance::passes(&records);
                let n = passes.len() as u64;
                self.balance = Some(passes);
                to_json(&BalanceAttach::Attached { passes: n })
            }
            Err(message) => to_json(&BalanceAttach::Error { message }),
        }
    }

    /// Puts the EEVDF samples of `dump` (an imported bpftrace dump) on this trace's clock
    /// (`import::align`) and keeps them for `eevdf_window` when the fit is accepted. Returns
    /// the alignment as JSON.
    pub fn attach_eevdf(&mut self, dump: &ImportHandle) -> String {
        let a = align(&self.store, &dump.eevdf);
        if a.accepted {
            self.eevdf = shifted(&dump.eevdf, a.offset_ns);
            self.eevdf.sort_by_key(|s| s.ts_ns);
        }
        let j = to_json(&a);
        self.alignment = Some(a);
        j
    }
}

impl ImportHandle {
    /// The attached dump's samples, on the trace's clock (empty without one).
    pub(crate) fn eevdf_samples(&self) -> &[EevdfSample] {
        &self.eevdf
    }

    /// The attached CPU-averages dump's samples (empty without one).
    pub(crate) fn cpu_avg_samples(&self) -> &[CpuAvgSample] {
        &self.cpu_avg
    }

    /// The attached balance-pass dump's passes (`None` without one).
    pub(crate) fn balance_passes(&self) -> Option<&[BalancePassRecord]> {
        self.balance.as_deref()
    }
}

/// `bytes` imported as the worker does it (100 kB chunks, then steps), for tests.
#[cfg(test)]
pub(crate) fn fed(bytes: &[u8]) -> ImportHandle {
    let mut h = ImportHandle::new(bytes.len() as f64);
    for c in bytes.chunks(100_000) {
        h.feed(c);
    }
    h.finish();
    while h.step(1000) {}
    h
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    const TEXT: &str = "# tracer: nop\n\
        a-10 [000] d..2. 1.000000: sched_switch: prev_comm=a prev_pid=10 prev_prio=120 prev_state=R+ ==> next_comm=b next_pid=11 next_prio=122\n\
        b-11 [000] dNh2. 1.000100: sched_wakeup: comm=c pid=12 prio=120 target_cpu=001\n\
        b-11 [000] d..2. 1.000200: sched_switch: prev_comm=b prev_pid=11 prev_prio=122 prev_state=S ==> next_comm=a next_pid=10 next_prio=120\n\
        <idle>-0 [001] d..2. 1.000300: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=c next_pid=12 next_prio=120\n\
        x y z\n";

    fn import(bytes: &[u8], chunk: usize) -> ImportHandle {
        let mut h = ImportHandle::new(bytes.len() as f64);
        for c in bytes.chunks(chunk) {
            h.feed(c);
        }
        h.finish();
        while h.step(7) {}
        h
    }

    #[test]
    fn text_import_summary_window_and_records() {
        let h = import(TEXT.as_bytes(), 3);
        assert_eq!(h.error(), None);
        let s: Value = serde_json::from_str(&h.summary()).unwrap();
        assert_eq!(s["summary"]["events"]["sched_switch"], 3);
        assert_eq!(s["summary"]["lines_skipped"], 1);
        assert_eq!(s["summary"]["skipped"][0]["examples"][0], "6:1");
        assert_eq!(s["timeline"]["origin_ns"], 1_000_000_000u64);
        assert_eq!(s["timeline"]["cpus"], 2);
        let tasks: Value = serde_json::from_str(&h.tasks()).unwrap();
        let mut w = h.window(0.0, 1e6, 1.0, 100);
        let (task, start, state) = (w.take_u32("span_task"), w.take_f64("span_start"), w.take_u32("span_state"));
        // CPU 0: b (a's zero-length span before the first switch ends at the window's start),
        // then a, still running; CPU 1: c.
        assert_eq!(task.len(), 3);
        assert_eq!(tasks[task[0] as usize]["pid"], 11);
        assert_eq!(tasks[task[0] as usize]["prio"], 122);
        assert_eq!(start[0], 0.0);
        assert_eq!(state[0], 1, "b left in S");
        assert_eq!(state[1], u32::MAX, "a still running");
        assert_eq!(w.take_f64("wake_run_t"), vec![300_000.0]);
        assert_eq!(w.take_u32("wake_run_cpu"), vec![1]);
        // Depths: CPU 0 holds a (preempted, R+) and b from the first switch, then b sleeps;
        // c is counted on CPU 1 from its wakeup there.
        let (dc, dn) = (w.take_u32("depth_cpu"), w.take_u32("depth_n"));
        let ds = w.take_f64("depth_start");
        let got: Vec<_> = (0..dc.len()).map(|i| (dc[i], ds[i], dn[i])).collect();
        assert_eq!(got, vec![(0, 0.0, 2), (0, 200_000.0, 1), (1, 100_000.0, 1)]);
        let r: Value = serde_json::from_str(&h.record_at(0, 100_000.0, 1000.0)).unwrap();
        assert_eq!(r["event"], "sched_wakeup");
        assert_eq!(r["t"], 100_000);
        let sp: Value = serde_json::from_str(&h.span_info(w.take_u32("span_index")[0])).unwrap();
        assert_eq!(sp["state"], "S");
        assert_eq!(sp["switch_out"]["fields"][1][1], "11");
        // Too many markers for the limit: none sent, the count says how many.
        let mut w = h.window(0.0, 1e6, 1.0, 0);
        assert_eq!(w.take_u32("omitted"), vec![1, 0]);
    }

    #[test]
    fn dat_magic_goes_to_the_decoder() {
        let mut h = ImportHandle::new(0.0);
        h.feed(b"\x17\x08\x44tracing6\0garbage");
        h.finish();
        assert!(h.is_dat());
        let e = h.error().expect("a damaged .dat is an error");
        assert!(e.starts_with("trace-cmd .dat: "), "{e}");
        assert!(!h.step(10));
    }
}

#[cfg(test)]
mod capture_tests {
    use super::*;
    use schedlab_engine::import::dat::decode_all;
    use serde_json::Value;

    fn read(rel: &str) -> Vec<u8> {
        let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../traces/linux-6.18").join(rel);
        std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
    }

    fn import(bytes: &[u8]) -> ImportHandle {
        super::fed(bytes)
    }

    #[test]
    fn a_layout_file_names_the_tasks_cgroups() {
        let h = import(&read("cgroup-shares/trace.txt"));
        let layout = String::from_utf8(read("cgroup-shares.layout.toml")).unwrap();
        let cgroups = |json: &str| -> Vec<(String, Value)> {
            let v: Value = serde_json::from_str(json).unwrap();
            v.as_array()
                .unwrap()
                .iter()
                .map(|t| (t["comm"].as_str().unwrap().to_string(), t["cgroup"].clone()))
                .collect()
        };
        // The capture has no cgroup_attach_task records: no cgroup without the layout.
        assert!(cgroups(&h.tasks()).iter().all(|(_, c)| c.is_null()));
        let with = cgroups(&h.tasks_with_layout(&layout).unwrap());
        let of = |comm: &str| with.iter().filter(|(c, _)| c == comm).map(|(_, g)| g.as_str()).collect::<Vec<_>>();
        assert_eq!(of("k_a"), [Some("/sl_A")]);
        assert_eq!(of("k_b"), [Some("/sl_B")]);
        assert_eq!(of("k_c"), [Some("/sl_B")]);
        assert!(of("bash").iter().all(|g| g.is_none()));
        assert_eq!(h.tasks_with_layout("").unwrap(), h.tasks());
        let e = h.tasks_with_layout("[tasks]\nk_a = \"/nope\"\n").unwrap_err();
        assert_eq!(e, "layout:2:7: tasks.k_a: cgroup \"/nope\" is not declared in [[cgroups]]");
    }

    /// A `.dat` fed in chunks and decoded in steps gives what the whole-file decoder gives;
    /// the capture's EEVDF dump attaches to it.
    #[test]
    fn dat_in_steps_and_an_attached_dump() {
        let bytes = read("nice-0-vs-2/trace.dat");
        let h = import(&bytes);
        assert_eq!(h.error(), None);
        let mut whole = TraceStore::new();
        decode_all(&bytes, &mut whole).unwrap();
        let s: Value = serde_json::from_str(&h.summary()).unwrap();
        assert_eq!(s["summary"]["total_events"], whole.records);
        assert_eq!(s["summary"]["events"]["sched_switch"], whole.count("sched_switch"));
        assert_eq!(s["dat"]["version"], 7);
        assert_eq!(h.bytes_done(), bytes.len() as f64);
        let dump = import(&read("nice-0-vs-2/eevdf-state.txt"));
        let mut h = h;
        let a: Value = serde_json::from_str(&h.attach_eevdf(&dump)).unwrap();
        assert_eq!(a["accepted"], true, "{a}");
        // The S and G lines inside the trace's time (the dump began earlier).
        let mut w = h.eevdf_window(0.0, 1e12, 1_000_000);
        assert!(w.take_f64("t").len() > 300);
    }

    /// A Perfetto trace (the committed fixture) streams in the worker's way: the capture's
    /// counts, progress up to the file's size; files in no supported format are refused.
    #[test]
    fn perfetto_streams_and_unknown_files_are_refused() {
        let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../engine/tests/fixtures/perfetto/nice-0-vs-2.compact.pftrace");
        let bytes = std::fs::read(&p).unwrap();
        let h = import(&bytes);
        assert_eq!(h.error(), None);
        assert!(!h.is_dat());
        let s: Value = serde_json::from_str(&h.summary()).unwrap();
        assert_eq!(s["summary"]["format_name"], "Perfetto protobuf trace");
        assert_eq!(s["summary"]["events"]["sched_switch"], 1022);
        assert_eq!(h.bytes_done(), bytes.len() as f64);
        assert!(s["timeline"]["cpus"].as_u64().unwrap() >= 2);
        for (file, looks) in [
            (&[0x10u8, 0x05, 0x1a, 0x02, b'a', b'b', 0x10, 0x80, 0x01, 0x25, 1, 2, 3, 4][..], "not a Perfetto trace"),
            (&b"name = \"x\"\ncpus = 2\n"[..], "text of an unknown tool"),
        ] {
            let h = import(file);
            let e = h.error().expect("refused");
            assert!(e.starts_with("not a trace schedlab reads: it looks like") && e.contains(looks), "{e}");
        }
    }
}
