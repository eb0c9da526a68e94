//! Trace importers (issue 7): streaming parsers from the kernel's trace formats into one record
//! type, [`record::TraceRecord`], delivered to a [`record::TraceSink`].
//!
//! Pure like the rest of the engine: the parsers take byte chunks (the CLI reads files, the web
//! worker reads `Blob` slices), never paths, and keep no wall clock.
//!
//! Formats and their modules:
//! * `/sys/kernel/tracing/trace` text, `trace-cmd report` (plugin, `-N`, `-R` forms) and
//!   `perf script` text: line parsers;
//! * trace-cmd `.dat` versions 6 and 7: a binary decoder using the event format files the file
//!   carries (`dat`);
//! * the project's bpftrace EEVDF-state capture (`tools/capture/eevdf-state.bt`).

pub mod dat;
pub mod record;
