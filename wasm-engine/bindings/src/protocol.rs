//! The worker protocol: the messages between the UI thread (`web/src/engine/client.ts`) and the
//! engine worker (`engine.worker.ts`, `import_worker.ts`). The worker is TypeScript, so nothing
//! in Rust builds these; they are declared here, beside the data they carry, so that the
//! TypeScript types of the whole boundary come from one place (`contract.rs` writes them into
//! `web/src/engine/contract.gen.ts`). Every request gets exactly one final reply (`Response`
//! other than `progress`/`importProgress`), an `error` if nothing else.

// Declarations for the generated TypeScript: Rust never builds these messages, so their size
// does not matter.
#![allow(clippy::large_enum_variant)]

use crate::columns::{
    CounterCols, DiffLatencyCols, EevdfWindowCols, LatencyCols, MarkerCols, MigrationCols, ReplayWindowCols,
    SampleCols, SliceCols, ThreadStateCols,
};
use schedlab_engine::import::align::Alignment;
use schedlab_engine::import::diff::TraceDiff;
use schedlab_engine::import::metrics::WindowMetrics;
use schedlab_engine::import::report::{ImportReport, SpanInfo, TraceRecordView, TraceTask};
use schedlab_engine::obs::cursor::CursorState;
use schedlab_engine::obs::meta::ScenarioMeta;
use schedlab_engine::obs::summary::Summary;
use schedlab_engine::replay::compare::ReplayReport;
use schedlab_engine::replay::spread::SpreadTable;
use schedlab_engine::scenario::ScenarioError;
use serde::Serialize;
use ts_rs::TS;

/// One variant to simulate: a key and its NAME=VALUE overrides.
#[derive(Debug, Clone, TS)]
pub struct VariantSpec {
    pub key: String,
    pub overrides: Vec<(String, String)>,
}

/// Window data of one variant.
#[derive(TS)]
pub struct WindowData {
    pub variant: String,
    pub t0: f64,
    pub t1: f64,
    pub bucket: f64,
    pub slices: SliceCols,
    pub samples: SampleCols,
    pub markers: MarkerCols,
    pub counters: CounterCols,
    pub migrations: MigrationCols,
    /// Task ids (and group nodes) whose samples were requested (empty: every task).
    pub tasks: Vec<u32>,
}

/// One variant after its run.
#[derive(TS)]
pub struct LoadedVariant {
    pub key: String,
    pub digest: String,
    pub summary: Summary,
}

/// The replay view's columns of a window, with the window.
#[derive(TS)]
pub struct ReplayWindowData {
    pub t0: f64,
    pub t1: f64,
    pub bucket: f64,
    #[ts(flatten)]
    pub cols: ReplayWindowCols,
}

/// EEVDF samples of a window, with the window.
#[derive(TS)]
pub struct EevdfWindowData {
    pub t0: f64,
    pub t1: f64,
    #[ts(flatten)]
    pub cols: EevdfWindowCols,
}

/// Thread-state segments of some tasks in a window, with the window and the tasks asked for.
#[derive(TS)]
pub struct ThreadStateData {
    pub t0: f64,
    pub t1: f64,
    pub bucket: f64,
    /// The task ids of the rows.
    pub tasks: Vec<u32>,
    #[ts(flatten)]
    pub cols: ThreadStateCols,
}

/// Where a trace import is.
#[derive(TS)]
#[ts(rename_all = "lowercase")]
pub enum ImportPhase {
    Reading,
    Decoding,
    Building,
    /// A spread's shadow runs (`shadowSpread`): `bytes` runs done of `total`.
    Simulating,
}

#[derive(TS)]
pub struct ImportProgress {
    pub phase: ImportPhase,
    pub bytes: f64,
    pub total: f64,
    pub lines: f64,
    pub records: f64,
}

/// An imported trace as the app holds it.
#[derive(TS)]
pub struct ImportedTrace {
    pub file: String,
    pub size: f64,
    pub report: ImportReport,
    pub tasks: Vec<TraceTask>,
    /// Set when an EEVDF dump file was attached to this trace.
    #[ts(rename = "eevdfFile")]
    pub eevdf_file: Option<String>,
    /// Set when a dump of each CPU's PELT averages was attached to this trace (the replay reads it).
    #[ts(rename = "cpuAvgFile")]
    pub cpu_avg_file: Option<String>,
    /// Set when a dump of the balance passes was attached to this trace (the replay reads it).
    #[ts(rename = "balanceFile")]
    pub balance_file: Option<String>,
}

/// What the worker holds (for tests: a cancelled import frees its handle).
#[derive(TS)]
#[ts(rename_all = "camelCase")]
pub struct WorkerStats {
    pub import_handles: u32,
    pub sim_handles: u32,
    pub wasm_memory_bytes: f64,
}

/// A request without its id.
#[derive(TS)]
#[ts(tag = "type", rename_all = "camelCase")]
pub enum RequestBody {
    /// Loads and runs a scenario under every variant (progress, then `loaded`, `error` or
    /// `cancelled`). A bad scenario leaves the previous run in place.
    Load {
        file: String,
        text: String,
        variants: Vec<VariantSpec>,
    },
    /// Stops a load, import or shadow run in progress: that request answers `cancelled`, and
    /// so does this one.
    Cancel,
    /// Window data of one variant of run `run` (an `error` when that run is not the worker's
    /// current one: a newer load replaced it).
    Window {
        run: u32,
        variant: String,
        t0: f64,
        t1: f64,
        bucket: f64,
        tasks: Vec<u32>,
    },
    Cursor {
        run: u32,
        variant: String,
        t: f64,
    },
    Metrics {
        run: u32,
        variant: String,
    },
    /// The run of one variant as a Perfetto protobuf trace (`SimHandle.perfetto`).
    Perfetto {
        run: u32,
        variant: String,
    },
    Import {
        #[ts(type = "File")]
        file: (),
        attach: bool,
        #[ts(rename = "chunkBytes", optional)]
        chunk_bytes: Option<f64>,
    },
    ImportWindow {
        t0: f64,
        t1: f64,
        bucket: f64,
        limit: u32,
    },
    EevdfWindow {
        t0: f64,
        t1: f64,
        limit: u32,
    },
    ThreadStates {
        tasks: Vec<u32>,
        t0: f64,
        t1: f64,
        bucket: f64,
    },
    /// The area selection's figures: `[t0, t1)` (relative ns) on `cpus`, of `tasks` (empty:
    /// all).
    WindowMetrics {
        t0: f64,
        t1: f64,
        cpus: Vec<u32>,
        tasks: Vec<u32>,
    },
    Record {
        cpu: u32,
        t: f64,
        tol: f64,
    },
    Span {
        index: u32,
    },
    /// Imports a second capture as B beside the trace on screen (A), replacing a previous B
    /// (progress as for `import`; a cancel frees it). Answers `importedB`.
    ImportB {
        #[ts(type = "File")]
        file: (),
        #[ts(rename = "chunkBytes", optional)]
        chunk_bytes: Option<f64>,
    },
    /// B's replay window, as `importWindow` for A (answered `importWindow`).
    ImportBWindow {
        t0: f64,
        t1: f64,
        bucket: f64,
        limit: u32,
    },
    /// Compares A with B over both whole traces (`import::diff`, `schedlab diff`): the noise
    /// level in %, and `(comm in A, comm in B)` pairs for renamed tasks (`--match`).
    Diff {
        #[ts(rename = "noisePct")]
        noise_pct: f64,
        matches: Vec<(String, String)>,
    },
    /// Frees B (answers `closed`); `closeImport` frees it too (a new trace as A keeps it).
    CloseB,
    Shadow {
        layout: String,
        /// Where the shadow's tasks run: `"free"`, `"observed"` (`schedlab replay --pin`), or
        /// `""` for what the layout file says (default: free).
        pin: String,
        variants: Vec<(String, String)>,
    },
    /// The shadow re-simulation of the trace on screen, its run then opened as B (replying
    /// `importedB`), named `label`.
    ShadowAsB {
        layout: String,
        pin: String,
        variants: Vec<(String, String)>,
        label: String,
    },
    /// The shadow re-simulation of the trace on screen run `n` times, differing in `kind`
    /// (`"seeds"`: seeds 1 to n; `"tick_phases"`: n phases of the tick period), replying
    /// `shadowSpread` (`schedlab replay --seeds N` / `--tick-phases N`). Progress is posted
    /// after each run (`simulating`), and a cancel stops it between runs.
    ShadowSpread {
        layout: String,
        pin: String,
        variants: Vec<(String, String)>,
        kind: String,
        n: u32,
    },
    /// The trace on screen's task table with the cgroups a replay layout file names for the
    /// tasks the trace does not place (replying `tasks`; a layout that does not parse: `error`).
    LayoutTasks {
        layout: String,
    },
    CloseImport,
    Stats,
}

/// A request.
#[derive(TS)]
pub struct Request {
    pub id: u32,
    #[ts(flatten)]
    pub body: RequestBody,
}

/// A reply without its id.
#[derive(TS)]
#[ts(tag = "type", rename_all = "camelCase")]
pub enum ResponseBody {
    /// A load's progress: variants done (fractional) of `total`.
    Progress {
        done: f64,
        total: f64,
    },
    /// A load that succeeded: the worker's current run from now on (`run` numbers grow).
    Loaded {
        run: u32,
        meta: ScenarioMeta,
        variants: Vec<LoadedVariant>,
    },
    Error {
        error: ScenarioError,
    },
    Cancelled,
    Window {
        data: WindowData,
    },
    Cursor {
        state: CursorState,
    },
    Metrics {
        summary: Summary,
        latencies: LatencyCols,
    },
    /// The Perfetto trace's bytes (transferred, not copied).
    Perfetto {
        #[ts(type = "ArrayBuffer")]
        buffer: (),
    },
    ImportProgress {
        progress: ImportProgress,
    },
    Imported {
        trace: ImportedTrace,
        alignment: Option<Alignment>,
    },
    ImportWindow {
        data: ReplayWindowData,
    },
    EevdfWindow {
        data: EevdfWindowData,
    },
    ThreadStates {
        data: ThreadStateData,
    },
    /// The figures (times relative to the trace's origin) and the same as CSV.
    WindowMetrics {
        metrics: WindowMetrics,
        csv: String,
    },
    Record {
        record: Option<TraceRecordView>,
    },
    Span {
        span: Option<SpanInfo>,
    },
    ImportedB {
        trace: ImportedTrace,
    },
    /// The A/B diff, with each task row's wakeup latencies for its CDFs.
    Diff {
        diff: TraceDiff,
        latencies: DiffLatencyCols,
    },
    Shadow {
        report: ReplayReport,
    },
    ShadowSpread {
        table: SpreadTable,
    },
    Closed,
    Stats {
        stats: WorkerStats,
    },
    Tasks {
        tasks: Vec<TraceTask>,
    },
}

/// A reply.
#[derive(TS)]
pub struct Response {
    pub id: u32,
    #[ts(flatten)]
    pub body: ResponseBody,
}

/// What `SimHandle.load` returns (JSON).
#[derive(Serialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum LoadOutcome {
    Loaded { meta: ScenarioMeta },
    Error { error: ScenarioError },
}

/// What `ImportHandle.attach_cpu_avg` returns (JSON).
#[derive(Serialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum CpuAvgAttach {
    /// The dump was read: its samples, kept for the replay.
    Attached { samples: u64 },
    /// The dump's first bad line, `file:line:column: expected …`.
    Error { message: String },
}

/// What `ImportHandle.attach_balance` returns (JSON).
#[derive(Serialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum BalanceAttach {
    /// The dump was read: its passes, kept for the replay.
    Attached { passes: u64 },
    /// The dump's first bad line, `file:line:column: expected …`.
    Error { message: String },
}

/// What `ReplayHandle.run` returns (JSON).
#[derive(Serialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ShadowOutcome {
    Report { report: ReplayReport },
    Error { message: String },
}
