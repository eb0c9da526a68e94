//! One `TracePacket`: decoded with the generated types, then by kind.
//!
//! * `ftrace_events` → `bundle.rs`: a packet holding them is split with prost's wire primitives
//!   (`bundle::Split`) and its events decoded one at a time; a packet that does not split that
//!   way, or holds another member of the `data` oneof beside its bundles, is decoded whole as
//!   before (prost's own rules and error messages);
//! * `process_tree` → thread groups (`TraceSink::tgid`: a process leads its own, a thread names
//!   its `tgid`) and task names: a thread's `name` (its comm), and for a process its comm when
//!   `cmdline_is_comm`, else the basename of `cmdline[0]` cut to 15 bytes as the kernel's
//!   `TASK_COMM_LEN` does at exec (a thread name wins over it);
//! * `system_info` → the kernel release (how `prev_state` numbers are read, `events.rs`) and the
//!   CPU count (`cpus` meta);
//! * `compressed_packets` (zlib, inflated with the pure-Rust `miniz_oxide`) and
//!   `zstd_compressed_packets` (`ruzstd`): a `Trace` fragment whose packets are read in turn,
//!   located at the container's offset;
//! * `track_event` and `track_descriptor` (counters and instants) are not read;
//! * anything else is skipped, as protobuf skips unknown fields.
//!
//! A packet that does not decode is a located skip (its byte offset and prost's reason); the
//! packets after it are read.

use super::bundle::{unknown_fields, BundleReader, Split, Staged};
use super::events::{unknown_event_field, StateLayout};
use super::frame::{split_all, MAX_PACKET};
use super::held::Name;
use super::merge::Merge;
use super::pb::trace_packet::Data;
use super::pb::{FtraceEvent, FtraceEventBundle, ProcessTree, TracePacket};
use super::tasks::Tasks;
use crate::import::record::{Skipped, TraceSink, MAX_CPU};
use prost::Message;
use std::io::Read;

/// What the packets held (beside the records).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct PerfettoStats {
    pub bytes: u64,
    pub packets: u64,
    pub ftrace_bundles: u64,
    pub compact_sched_bundles: u64,
    pub compact_switches: u64,
    pub compact_wakings: u64,
    pub compressed_containers: u64,
    pub process_trees: u64,
    pub skipped_packets: u64,
    /// `SystemInfo.utsname.release`.
    pub kernel: Option<String>,
    /// Records released to the sink.
    pub records: u64,
    /// Records released out of time order across CPUs (`merge.rs`).
    pub merge_inversions: u64,
    /// Where the framing was lost, if it was (`frame.rs`).
    pub error: Option<String>,
}

/// Packet-level state of one import.
#[derive(Debug)]
pub struct Decoder {
    pub tasks: Tasks,
    pub merge: Merge,
    pub layout: StateLayout,
    pub stats: PerfettoStats,
    clock_said: bool,
    split: Split,
    staged: Staged,
    table: Vec<Name>,
}

impl Default for Decoder {
    fn default() -> Self {
        Decoder {
            tasks: Tasks::default(),
            merge: Merge::default(),
            layout: StateLayout::Report414,
            stats: PerfettoStats::default(),
            clock_said: false,
            split: Split::default(),
            staged: Staged::default(),
            table: Vec::new(),
        }
    }
}

/// The comm the kernel gives a process at exec: the file's basename, at most 15 bytes.
fn exec_comm(cmdline0: &str) -> String {
    let base = cmdline0.rsplit('/').next().unwrap_or(cmdline0);
    let mut end = base.len().min(15);
    while !base.is_char_boundary(end) {
        end -= 1;
    }
    base[..end].to_string()
}

impl Decoder {
    fn skip(&mut self, sink: &mut (impl TraceSink + ?Sized), at: u64, reason: String) {
        self.stats.skipped_packets += 1;
        sink.skipped(Skipped { line: at, column: 0, reason });
    }

    /// Packet `bytes` found at byte `at`.
    pub fn packet(&mut self, at: u64, bytes: &[u8], sink: &mut (impl TraceSink + ?Sized)) {
        self.stats.packets += 1;
        if self.split_packet(at, bytes, sink) {
            return;
        }
        let p = match TracePacket::decode(bytes) {
            Ok(p) => p,
            Err(e) => {
                return self.skip(sink, at, format!("a TracePacket that decodes (prost: {})", e.to_string().trim()));
            }
        };
        match p.data {
            Some(Data::FtraceEvents(mut b)) => {
                let events = std::mem::take(&mut b.event);
                let unknown = if events.iter().any(|e| e.event.is_none()) { unknown_fields(bytes) } else { Vec::new() };
                if let Some(mut r) = self.reader(&b, at, sink) {
                    for (i, e) in events.into_iter().enumerate() {
                        r.event(e, unknown.get(i).copied().flatten());
                    }
                    self.commit(&b, at, sink);
                }
            }
            Some(Data::ProcessTree(t)) => {
                self.stats.process_trees += 1;
                self.process_tree(t, sink);
            }
            Some(Data::SystemInfo(s)) => {
                if let Some(rel) = s.utsname.and_then(|u| u.release) {
                    self.layout = StateLayout::from_release(&rel);
                    self.stats.kernel = Some(rel);
                }
                if let Some(n) = s.num_cpus {
                    sink.meta("cpus", &n.to_string(), at);
                }
            }
            Some(Data::CompressedPackets(z)) => {
                self.stats.compressed_containers += 1;
                match miniz_oxide::inflate::decompress_to_vec_zlib_with_limit(&z, MAX_PACKET as usize) {
                    Ok(inner) => self.fragment(at, &inner, "compressed_packets", sink),
                    Err(e) => self.skip(sink, at, format!("compressed_packets that inflate (zlib: {e:?})")),
                }
            }
            Some(Data::ZstdCompressedPackets(z)) => {
                self.stats.compressed_containers += 1;
                let mut inner = Vec::new();
                let r = ruzstd::decoding::StreamingDecoder::new(&z[..])
                    .map_err(|e| e.to_string())
                    .and_then(|d| d.take(MAX_PACKET).read_to_end(&mut inner).map_err(|e| e.to_string()));
                match r {
                    Ok(_) => self.fragment(at, &inner, "zstd_compressed_packets", sink),
                    Err(e) => self.skip(sink, at, format!("zstd_compressed_packets that decompress (zstd: {e})")),
                }
            }
            // Track events (the simulated-run export's counters and decisions) are Perfetto's
            // own; the importer reads the sched ftrace events beside them.
            Some(Data::TrackEvent(_) | Data::TrackDescriptor(_)) | None => {}
        }
    }

    /// A packet holding `ftrace_events`, its events decoded one at a time. False when the
    /// packet is to be decoded whole instead: it holds no bundle, does not split or decode this
    /// way (prost's error then comes from the whole decode), holds another `data` member beside
    /// its bundles, or names a CPU out of range.
    fn split_packet(&mut self, at: u64, bytes: &[u8], sink: &mut (impl TraceSink + ?Sized)) -> bool {
        if self.split.split(bytes) != Some(true) {
            return false;
        }
        match TracePacket::decode(&self.split.packet_rest[..]) {
            Ok(p) if p.data.is_none() => {}
            _ => return false,
        }
        let Ok(b) = FtraceEventBundle::decode(&self.split.bundle_rest[..]) else { return false };
        if b.cpu.unwrap_or(0) > MAX_CPU {
            return false;
        }
        let events = std::mem::take(&mut self.split.events);
        let Some(mut r) = self.reader(&b, at, sink) else { return false };
        let mut whole = true;
        for &(s, e) in &events {
            let ev = &bytes[s..e];
            let Ok(fe) = FtraceEvent::decode(ev) else {
                r.staged.discard(r.render);
                whole = false;
                break;
            };
            let unknown = if fe.event.is_none() { unknown_event_field(ev) } else { None };
            r.event(fe, unknown);
        }
        self.split.events = events;
        if whole {
            self.commit(&b, at, sink);
        }
        whole
    }

    /// A reader staging bundle `b`'s records; None (and a skip) for a CPU out of range.
    fn reader<'a>(
        &'a mut self,
        b: &FtraceEventBundle,
        at: u64,
        sink: &mut (impl TraceSink + ?Sized),
    ) -> Option<BundleReader<'a>> {
        let cpu = b.cpu.unwrap_or(0);
        if cpu > MAX_CPU {
            self.header(b, at, sink);
            sink.skipped(Skipped {
                line: at,
                column: 0,
                reason: format!("an FtraceEventBundle cpu of at most {MAX_CPU} (bundle skipped)"),
            });
            return None;
        }
        Some(BundleReader {
            names: &mut self.tasks.names,
            render: &mut self.merge.render,
            layout: self.layout,
            staged: &mut self.staged,
            cpu,
            table: &mut self.table,
        })
    }

    /// Bundle `b`, its regular events staged: its compact arrays, then everything to the sink
    /// and the merge.
    fn commit(&mut self, b: &FtraceEventBundle, at: u64, sink: &mut (impl TraceSink + ?Sized)) {
        self.header(b, at, sink);
        let cpu = b.cpu.unwrap_or(0);
        if let Some(cs) = &b.compact_sched {
            let mut r = BundleReader {
                names: &mut self.tasks.names,
                render: &mut self.merge.render,
                layout: self.layout,
                staged: &mut self.staged,
                cpu,
                table: &mut self.table,
            };
            let (sw, wk) = r.compact(cs);
            self.stats.compact_switches += sw;
            self.stats.compact_wakings += wk;
        }
        if b.lost_events == Some(true) {
            sink.lost(cpu, 0, at);
        }
        for reason in self.staged.skips.drain(..) {
            sink.skipped(Skipped { line: at, column: 0, reason });
        }
        // In time order (stable: equal times keep regular events, compact switches, compact
        // wakings), so that the merge appends rather than inserts a compact bundle's two runs.
        self.staged.held.sort_by_key(|h| h.ts);
        for h in self.staged.held.drain(..) {
            self.merge.push(cpu, h, &mut self.tasks, sink);
        }
    }

    /// A bundle counted; the trace's clock from the first.
    fn header(&mut self, b: &FtraceEventBundle, at: u64, sink: &mut (impl TraceSink + ?Sized)) {
        self.stats.ftrace_bundles += 1;
        if b.compact_sched.is_some() {
            self.stats.compact_sched_bundles += 1;
        }
        if !self.clock_said {
            self.clock_said = true;
            // FtraceClock: unset is the boot clock (Perfetto's default).
            let clock = match b.ftrace_clock.unwrap_or(0) {
                2 => "global",
                3 => "local",
                4 => "mono_raw",
                1 => "unknown",
                _ => "boot",
            };
            sink.meta("trace_clock", clock, at);
        }
    }

    /// The packets of a decompressed `Trace` fragment, located at the container's offset.
    fn fragment(&mut self, at: u64, inner: &[u8], what: &str, sink: &mut (impl TraceSink + ?Sized)) {
        self.stats.packets -= 1; // the container is not a packet of its own
        let mut packets = Vec::new();
        let r = split_all(inner, |p| packets.push(p.to_vec()));
        for p in packets {
            self.packet(at, &p, sink);
        }
        if let Err((pos, e)) = r {
            self.skip(sink, at, format!("{what} holding whole packets (at byte {pos} of the inflated data: {e})"));
        }
    }

    fn process_tree<S: TraceSink + ?Sized>(&mut self, t: ProcessTree, sink: &mut S) {
        // Thread groups: a process is its own group's leader, a thread names its group.
        for p in &t.processes {
            if let Some(pid) = p.pid {
                sink.tgid(pid, pid, 0);
            }
        }
        for th in &t.threads {
            if let (Some(tid), Some(tgid)) = (th.tid, th.tgid) {
                sink.tgid(tid, tgid, 0);
            }
        }
        for p in &t.processes {
            let (Some(pid), Some(c0)) = (p.pid, p.cmdline.first()) else { continue };
            if self.tasks.named(pid) {
                continue;
            }
            let comm = if p.cmdline_is_comm == Some(true) { c0.clone() } else { exec_comm(c0) };
            if !comm.is_empty() {
                self.tasks.set_comm(pid, &comm);
            }
        }
        for th in &t.threads {
            if let (Some(tid), Some(name)) = (th.tid, &th.name) {
                if !name.is_empty() {
                    self.tasks.set_comm(tid, name);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exec_comms_are_basenames_cut_to_15_bytes() {
        assert_eq!(exec_comm("/system/bin/surfaceflinger"), "surfaceflinger");
        assert_eq!(exec_comm("com.google.android.apps.nexuslauncher"), "com.google.andr");
        assert_eq!(exec_comm("/x/ééééééééé"), "ééééééé");
    }
}
