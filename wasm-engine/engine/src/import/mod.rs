//! Trace importers (issue 7): streaming parsers from the kernel's trace formats into one record
//! type, [`record::TraceRecord`], delivered to a [`record::TraceSink`].
//!
//! Pure like the rest of the engine: the parsers take byte chunks (the CLI reads files, the web
//! worker reads `Blob` slices), never paths, and keep no wall clock.
//!
//! Formats and their modules:
//! * `/sys/kernel/tracing/trace` text and `trace-cmd report` (plugin, `-N`, `-R` forms): `ftrace.rs`
//!   (line prefix) and `payload.rs` (sched_switch / wakeup / migrate payloads, `name=value` pairs);
//! * `perf script` text: `perf.rs`;
//! * systrace HTML wrapping tracefs text: handled in `text.rs`;
//! * bpftrace EEVDF-state dumps (`tools/capture/schedlab-eevdf.bt`, and the older
//!   `tools/kernel-capture/eevdf-state.bt` of the `traces/linux-6.18` captures): `eevdf.rs`; whether a dump and
//!   the trace imported with it share a clock: `clock.rs`;
//! * trace-cmd `.dat` versions 6 and 7: a binary decoder using the event format files the file
//!   carries (`dat`, separate);
//! * Perfetto protobuf traces (ftrace bundles, `compact_sched`, process tree): `perfetto`, with
//!   prost types generated from the vendored upstream protos, and the encoder back to them.
//!
//! Use: [`text::TextImporter`] (`feed` chunks, then `finish`) into a [`store::TraceStore`], then
//! [`summary::ImportSummary::new`]. [`import_text`] does all three for bytes already in memory.
//!
//! For the replay view: [`timeline::TraceTimeline`] (per-CPU run spans with the state each ended
//! in, wakeup links, window queries, and [`depth::RunqueueDepth`]: each CPU's runqueue depth
//! over time and its idle time while another CPU was overloaded), [`inspect`] (the record nearest a time on a CPU) and
//! [`align`] (a bpftrace EEVDF dump moved onto the trace's clock).
//!
//! Figures over a window, and two traces compared: [`metrics`] (per task CPU time, wakeup
//! latency, switches, migrations, thread-state times; per CPU runqueue depth and
//! idle-while-overloaded time; CSV) and [`diff`] (two captures matched by comm, each figure with
//! its difference and a flag above the run-to-run noise: `schedlab diff`).

pub mod align;
pub mod balance;
mod bt_map;
mod buckets;
pub mod cgroups;
pub mod clock;
pub mod cpu_avg;
pub mod dat;
pub mod depth;
pub mod detect;
pub mod diff;
pub mod eevdf;
pub mod ftrace;
pub mod inspect;
pub mod intern;
pub mod lex;
pub mod lines;
pub mod metrics;
pub mod payload;
pub mod perf;
pub mod perfetto;
pub mod pids;
pub mod record;
pub mod report;
pub mod store;
pub mod summary;
pub mod text;
pub mod thread_states;
pub mod timeline;
pub mod view;

pub use detect::{binary_kind, Binary, Format};
pub use record::{
    CfsRqState, Curr, EevdfEntity, EevdfSample, EntityState, PrevState, SchedPayload, Skipped, TraceRecord, TraceSink,
    WakeKind,
};
pub use store::TraceStore;
pub use summary::ImportSummary;
pub use text::{ImportStats, TextImporter};
pub use view::{Fields, PayloadView, RecordView};

/// Imports a whole text trace held in memory: (store, stats).
pub fn import_text(bytes: &[u8]) -> (TraceStore, ImportStats) {
    let mut store = TraceStore::new();
    let mut imp = TextImporter::new();
    imp.feed(bytes, &mut store);
    imp.finish(&mut store);
    (store, imp.stats().clone())
}
