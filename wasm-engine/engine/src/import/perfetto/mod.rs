//! Perfetto protobuf traces (`Trace`: a stream of `TracePacket`s), decoded with `prost` types
//! generated from the upstream `.proto` files (vendored and trimmed in
//! `wasm-engine/engine/proto/perfetto`; `pb.rs` and `names.rs` are generated, see its README).
//!
//! Streaming like the text importers: [`PerfettoImporter::feed`] takes chunks of any size
//! (`frame.rs` splits the packets, buffering one split across chunks), [`PerfettoImporter::finish`]
//! ends the input. What is read:
//! * `ftrace_events` bundles: regular `sched_switch`, `sched_waking`, `sched_wakeup`,
//!   `sched_wakeup_new`, `sched_migrate_task` as typed records; `sched_process_exit/free/fork/exec`,
//!   `task_newtask`, `task_rename`, `cpu_frequency`, `cpu_idle`, irq and softirq events, and every
//!   other ftrace event as other events (`events.rs`); `compact_sched` switch and waking arrays
//!   (`bundle.rs`);
//! * task names from `process_tree` packets, `task_rename`, `task_newtask` and fork;
//! * `system_info`'s kernel release (how `prev_state` numbers read);
//! * `compressed_packets` (zlib) and `zstd_compressed_packets`, inflated and read in turn.
//!
//! Records are released in time order across CPUs (`merge.rs`); a record's `line` is its 1-based
//! position in that order (as for `.dat`), and a skip's `line` is the byte offset of the packet it
//! concerns. Damage is never a panic: an undecodable packet is a located skip and the next packet
//! is read; lost framing (or an input ending inside a packet) stops the import there with a
//! located error ([`PerfettoStats::error`], also reported as a skip).

pub mod bundle;
pub mod encode;
pub mod events;
pub mod frame;
pub mod held;
pub mod merge;
#[allow(clippy::all)]
pub mod names;
pub mod packet;
#[rustfmt::skip]
pub mod pb;
pub mod tasks;

pub use packet::PerfettoStats;

use crate::import::record::{Skipped, TraceSink};
use crate::import::text::ImportStats;
use frame::Framer;
use packet::Decoder;

/// The format's name in summaries.
pub const NAME: &str = "Perfetto protobuf trace";

/// Streaming Perfetto importer.
#[derive(Debug, Default)]
pub struct PerfettoImporter {
    framer: Framer,
    dec: Decoder,
}

impl PerfettoImporter {
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds the next chunk of the file.
    pub fn feed<S: TraceSink + ?Sized>(&mut self, chunk: &[u8], sink: &mut S) {
        let dec = &mut self.dec;
        self.framer.feed(chunk, |at, b| dec.packet(at, b, sink));
        dec.stats.bytes = self.framer.bytes_done();
    }

    /// Ends the input: releases the records still held, reports lost framing.
    pub fn finish<S: TraceSink + ?Sized>(&mut self, sink: &mut S) {
        if let Err(e) = self.framer.finish() {
            sink.skipped(Skipped {
                line: e.offset,
                column: 0,
                reason: format!("{} (the rest of the file is not read)", e.expected),
            });
            self.dec.stats.error = Some(e.to_string());
        }
        self.dec.merge.finish(&mut self.dec.tasks, sink);
        let s = &mut self.dec.stats;
        s.records = self.dec.merge.released();
        s.merge_inversions = self.dec.merge.inversions;
        s.bytes = self.framer.bytes_done();
    }

    pub fn stats(&self) -> &PerfettoStats {
        &self.dec.stats
    }

    /// Bytes taken in whole (for progress).
    pub fn bytes_read(&self) -> u64 {
        self.framer.bytes_done()
    }

    /// The counters the import summary reads.
    pub fn import_stats(&self) -> ImportStats {
        let s = &self.dec.stats;
        ImportStats { bytes: s.bytes, records: s.records, binary: Some(NAME), ..Default::default() }
    }
}

/// Whether `head` (the first bytes of a file) starts like a Perfetto trace: field 1
/// (`Trace.packet`) length-delimited, a length, and a valid `TracePacket` field key (read with
/// prost's decoders).
pub fn looks_like_perfetto(head: &[u8]) -> bool {
    use prost::encoding::{decode_key, decode_varint, WireType};
    let mut b = head;
    if !matches!(decode_key(&mut b), Ok((1, WireType::LengthDelimited))) {
        return false;
    }
    let Ok(len) = decode_varint(&mut b) else { return false };
    if len == 0 || len > frame::MAX_PACKET {
        return false;
    }
    matches!(decode_key(&mut b), Ok((tag, wt)) if tag < 1 << 20 && !matches!(wt, WireType::StartGroup | WireType::EndGroup))
}

/// Imports a whole Perfetto trace held in memory into `sink`.
pub fn import_perfetto<S: TraceSink + ?Sized>(bytes: &[u8], sink: &mut S) -> PerfettoStats {
    let mut imp = PerfettoImporter::new();
    imp.feed(bytes, sink);
    imp.finish(sink);
    imp.stats().clone()
}
