//! trace-cmd `.dat` files, versions 6 and 7 (trace-cmd.dat.v6(5), trace-cmd.dat.v7(5)).
//!
//! A `.dat` is the kernel's ring buffer copied page by page, preceded by everything needed to
//! read it: the page and event header layouts (`header_page`, `header_event`), the `format`
//! file of every event (field offsets, sizes, signedness, and the `print fmt`), kallsyms, the
//! trace_printk formats, the saved command lines (pid → comm) and options (clock, CPU count,
//! uname, where each CPU's data lies). Version 6 stores these in a fixed order; version 7 stores
//! them as sections found through chained options sections, optionally compressed, with the
//! trace data compressed in chunks of whole pages. [`header`] describes both layouts, [`page`]
//! the ring-buffer page and event headers.
//!
//! Decoding: [`DatDecoder::new`] reads the metadata; [`DatDecoder::step`] walks each CPU's
//! pages (one decompressed chunk per CPU held at a time) and merges the CPUs by timestamp, as
//! `trace-cmd report` orders them. Each record becomes a [`TraceRecord`]:
//! * `ts_ns` is the ring-buffer time (plus the file's OFFSET option) in the trace clock's units:
//!   nanoseconds for the default `local` clock, which the text forms print as µs with 6
//!   decimals; TSC clocks are left in cycles;
//! * `pid`/`comm` are `common_pid` and its saved cmdline (`<idle>` for 0, `<...>` if unknown);
//! * `line` is the record's 1-based position in the merged stream;
//! * `sched_switch`, `sched_waking`/`sched_wakeup`/`sched_wakeup_new` and `sched_migrate_task`
//!   get typed payloads (`prev_state` decoded with the file's own `__print_flags` table and
//!   `TASK_REPORT_MAX` bit), others `name=value` pairs in format order with numbers rendered by
//!   the print fmt's conversion (`bprint` gets its formatted message as `text`).
//!
//! Lost events (a page flagged as following a loss) go to [`TraceSink::lost`] before that
//! page's first record; a count of 0 means the kernel flagged the loss without storing how
//! many. Records whose event id is unknown or that are too short for their format go to
//! [`TraceSink::skipped`]. Structural damage (headers, sections, compressed chunks, page
//! headers, event headers) stops decoding with a [`DatError`] naming the byte offset and what
//! was expected. Nothing panics on any input.
//!
//! [`TraceRecord`]: crate::import::record::TraceRecord

pub mod bytes;
pub mod cmdlines;
pub mod compress;
pub mod events;
pub mod fields;
pub mod format;
pub mod header;
pub mod kallsyms;
pub mod page;
pub mod printfmt;
pub mod stream;

pub use bytes::DatError;
pub use stream::DatDecoder;

use crate::import::record::TraceSink;

/// What a file says about itself, and what decoding it gave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DatInfo {
    /// 6 or 7.
    pub version: u32,
    pub big_endian: bool,
    /// The traced user space's long size (4 or 8).
    pub long_size: u8,
    pub page_size: u32,
    /// `"none"`, `"zstd 1.5.4"`.
    pub compression: String,
    pub cpus: u32,
    /// Trace clock (`local`, `global`, `x86-tsc`, ...).
    pub clock: String,
    /// OFFSET option added to every timestamp.
    pub ts_offset: i64,
    pub uname: String,
    /// The trace-cmd that wrote the file (VERSION option).
    pub tracer_version: String,
    pub event_formats: usize,
    pub format_failures: usize,
    pub cmdlines: usize,
    /// Records delivered to the sink.
    pub records: u64,
    /// Sum of the lost-event counts reported.
    pub lost_events: u64,
    /// Records reported as skipped.
    pub skipped: u64,
}

/// Decodes a whole file into `sink`. Never panics: damaged input gives a [`DatError`] (records
/// before the damage have already been delivered).
pub fn decode_all(bytes: &[u8], sink: &mut impl TraceSink) -> Result<DatInfo, DatError> {
    let mut d = DatDecoder::new(bytes)?;
    while d.step(sink, 4096)? {}
    Ok(d.info())
}

/// Whether `bytes` starts like a `.dat` file (for format sniffing).
pub fn looks_like_dat(bytes: &[u8]) -> bool {
    bytes.starts_with(b"\x17\x08\x44tracing")
}
