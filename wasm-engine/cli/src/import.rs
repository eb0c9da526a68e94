//! `schedlab import <trace> [--eevdf DUMP] [--json]`: reads a text trace (tracefs, `trace-cmd
//! report`, `perf script`, systrace HTML, the bpftrace EEVDF-state dump) in 1 MiB chunks through
//! the engine's streaming importer, or a `.dat`, and prints the import summary. `--eevdf` reads a
//! bpftrace dump taken alongside into the same store (its skipped lines are named by its file), so
//! the summary says whether the two share a clock.
//!
//! `schedlab bench-import [--mb N]`: the importer's throughput on a synthetic tracefs trace built in
//! memory (deterministic: sched_switch, sched_wakeup, sched_stat_runtime over 8 CPUs and 600 tasks;
//! `schedlab gen trace --seed N` prints another draw of the same shape).

use crate::args::ImportArgs;
use schedlab_engine::import::dat::{self, DatInfo};
use schedlab_engine::import::detect::{describe_unknown, is_text};
use schedlab_engine::import::perfetto::{PerfettoImporter, PerfettoStats};
use schedlab_engine::import::record::{EevdfSample, Skipped, TraceRecord, TraceSink};
use schedlab_engine::import::{binary_kind, Binary, ImportStats, ImportSummary, TextImporter, TraceStore};
use std::fmt::Write as _;
use std::io::Read;
use std::time::Instant;

pub const CHUNK: usize = 1 << 20;

/// What a trace file turned out to be.
pub enum Source {
    Text(ImportStats),
    Dat { info: DatInfo, bytes: u64 },
    Perfetto(Box<(PerfettoStats, ImportStats)>),
}

/// Bytes of a file's start that a refusal describes.
const HEAD: usize = 4096;

/// Reads a trace file into `sink`: text and Perfetto protobuf in 1 MiB chunks through their
/// streaming importers, a trace-cmd `.dat` whole through the decoder (which keeps one
/// decompressed chunk per CPU). A file in no supported format (binary that is neither, text in
/// which no line decided a format, or text none of whose lines is an event while some were
/// refused) is refused with what it looks like.
pub fn read_trace<S: TraceSink>(file: &str, sink: &mut S) -> Result<Source, String> {
    let refuse = |head: &[u8]| format!("{file}: not a trace schedlab reads: it looks like {}", describe_unknown(head));
    let mut f = std::fs::File::open(file).map_err(|e| format!("{file}: cannot read: {e}"))?;
    let mut buf = vec![0u8; CHUNK];
    let mut imp = TextImporter::new();
    let mut first = true;
    let mut head: Vec<u8> = Vec::new();
    let mut perfetto: Option<PerfettoImporter> = None;
    loop {
        let n = f.read(&mut buf).map_err(|e| format!("{file}: read error: {e}"))?;
        if n == 0 {
            break;
        }
        if std::mem::take(&mut first) {
            match binary_kind(&buf[..n]) {
                Some(Binary::TraceDat) => {
                    let bytes = std::fs::read(file).map_err(|e| format!("{file}: cannot read: {e}"))?;
                    let info = dat::decode_all(&bytes, sink).map_err(|e| format!("{file}: {e}"))?;
                    return Ok(Source::Dat { info, bytes: bytes.len() as u64 });
                }
                Some(Binary::Gzip) => return Err(format!("{file}: gzip-compressed; decompress it first (gunzip)")),
                Some(Binary::Perfetto) => perfetto = Some(PerfettoImporter::new()),
                None => {
                    head = buf[..n.min(HEAD)].to_vec();
                    if !is_text(&head) {
                        return Err(refuse(&head));
                    }
                }
            }
        }
        match perfetto.as_mut() {
            Some(p) => p.feed(&buf[..n], sink),
            None => imp.feed(&buf[..n], sink),
        }
    }
    if let Some(mut p) = perfetto {
        p.finish(sink);
        return Ok(Source::Perfetto(Box::new((p.stats().clone(), p.import_stats()))));
    }
    imp.finish(sink);
    let st = imp.stats();
    // No line decided a format, or none of its lines was an event while some were refused
    // (a header-like line decided a format of a file that is something else).
    if st.format.is_none() || (st.records == 0 && st.eevdf_samples == 0 && st.skipped_lines > 0) {
        return Err(refuse(&head));
    }
    Ok(Source::Text(imp.stats().clone()))
}

/// Names the dump's file in its skip reasons (the trace's own skips keep theirs).
struct DumpSink<'a> {
    file: &'a str,
    store: &'a mut TraceStore,
}

impl TraceSink for DumpSink<'_> {
    fn record(&mut self, rec: TraceRecord) {
        self.store.record(rec);
    }
    fn lost(&mut self, cpu: u32, count: u64, line: u64) {
        self.store.lost(cpu, count, line);
    }
    fn skipped(&mut self, s: Skipped) {
        self.store.skipped(Skipped { reason: format!("{}: {}", self.file, s.reason), ..s });
    }
    fn eevdf(&mut self, s: EevdfSample) {
        self.store.eevdf(s);
    }
    fn meta(&mut self, key: &str, value: &str, line: u64) {
        self.store.meta(key, value, line);
    }
}

pub fn run(a: &ImportArgs) -> Result<String, String> {
    let (file, eevdf, json) = (a.trace.as_str(), a.eevdf.as_deref(), a.json);
    let mut store = TraceStore::new();
    if let Some(dump) = eevdf {
        match read_trace(dump, &mut DumpSink { file: dump, store: &mut store })? {
            Source::Text(st) if st.eevdf_samples > 0 => {}
            Source::Perfetto(_) => return Err(format!("{dump}: a Perfetto trace, not a bpftrace EEVDF-state dump")),
            _ => return Err(format!("{dump}: expected a bpftrace EEVDF-state dump (`S`/`G` lines), found none")),
        }
    }
    let (stats, header) = match read_trace(file, &mut store)? {
        Source::Text(stats) => (stats, String::new()),
        Source::Dat { info, bytes } => (
            ImportStats { bytes, records: info.records, binary: Some("trace-cmd .dat"), ..Default::default() },
            format!(
                "trace-cmd .dat version {}, {} CPUs, clock {}, compression {}\n",
                info.version, info.cpus, info.clock, info.compression
            ),
        ),
        Source::Perfetto(b) => {
            let (p, stats) = *b;
            let header = format!(
                "Perfetto protobuf trace: {} packets, {} ftrace bundles ({} compact_sched), {} compressed containers, kernel {}{}\n",
                p.packets,
                p.ftrace_bundles,
                p.compact_sched_bundles,
                p.compressed_containers,
                p.kernel.as_deref().unwrap_or("not recorded"),
                if p.merge_inversions > 0 {
                    format!(", {} records out of time order across CPUs", p.merge_inversions)
                } else {
                    String::new()
                }
            );
            (stats, header)
        }
    };
    let summary = ImportSummary::new(&stats, &store);
    if json {
        Ok(format!("{}\n", serde_json::to_string_pretty(&summary).expect("summary serialises")))
    } else {
        Ok(format!("{header}{}", summary.text()))
    }
}

/// Deterministic xorshift.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A synthetic `/sys/kernel/tracing/trace` of at least `bytes` bytes (seed 1).
pub fn synthetic_trace(bytes: usize) -> String {
    synthetic_trace_seeded(bytes, 1)
}

/// The synthetic trace from another seed: the same shape, other draws (seed 1 is the one
/// `bench-import` has always used).
pub fn synthetic_trace_seeded(bytes: usize, seed: u64) -> String {
    const CPUS: usize = 8;
    const TASKS: usize = 600;
    let comms: Vec<String> = (0..TASKS)
        .map(|i| match i % 6 {
            0 => format!("worker-{i}"),
            1 => format!("kworker/u16:{}", i % 13),
            2 => "Web Content".to_string(),
            3 => format!("irq/{}-mmc1", i % 90),
            4 => format!("postgres: w{i}"),
            _ => format!("k_{i}"),
        })
        .collect();
    let mut s = String::with_capacity(bytes + 4096);
    s.push_str("# tracer: nop\n#\n# entries-in-buffer/entries-written: 0/0   #P:8\n#\n");
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ seed.wrapping_sub(1).wrapping_mul(0xbf58_476d_1ce4_e5b9));
    if rng.0 == 0 {
        rng.0 = 1;
    }
    let mut cur: Vec<usize> = (0..CPUS).map(|c| c * 7 % TASKS).collect();
    let mut ts: u64 = 1_000_000_000_000;
    let states = ["S", "R+", "D", "R", "S", "S", "I"];
    while s.len() < bytes {
        ts += 200 + rng.below(3000);
        let cpu = rng.below(CPUS as u64) as usize;
        let prev = cur[cpu];
        let (secs, us) = (ts / 1_000_000_000, (ts / 1000) % 1_000_000);
        let head = |s: &mut String, t: usize, flags: &str| {
            let task = format!("{}-{}", comms[t], 1000 + t);
            let _ = write!(s, "{task:>22} [{cpu:03}] {flags} {secs:>6}.{us:06}: ");
        };
        match rng.below(10) {
            0..=3 => {
                head(&mut s, prev, "d..2.");
                let _ = writeln!(
                    s,
                    "sched_stat_runtime: comm={} pid={} runtime={} [ns]",
                    comms[prev],
                    1000 + prev,
                    rng.below(4_000_000)
                );
            }
            4..=6 => {
                let next = rng.below(TASKS as u64) as usize;
                head(&mut s, prev, "d..2.");
                let st = states[rng.below(states.len() as u64) as usize];
                let _ = writeln!(
                    s,
                    "sched_switch: prev_comm={} prev_pid={} prev_prio=120 prev_state={st} ==> next_comm={} next_pid={} next_prio={}",
                    comms[prev],
                    1000 + prev,
                    comms[next],
                    1000 + next,
                    100 + next % 40
                );
                cur[cpu] = next;
            }
            _ => {
                let wakee = rng.below(TASKS as u64) as usize;
                head(&mut s, prev, "dNh5.");
                let _ = writeln!(
                    s,
                    "sched_wakeup: comm={} pid={} prio=120 target_cpu={:03}",
                    comms[wakee],
                    1000 + wakee,
                    rng.below(CPUS as u64)
                );
            }
        }
    }
    s
}

/// Drops everything: the parser alone.
pub struct Discard(pub u64);
impl TraceSink for Discard {
    fn record(&mut self, _rec: TraceRecord) {
        self.0 += 1;
    }
    fn record_view(&mut self, _rec: &schedlab_engine::import::RecordView<'_>) {
        self.0 += 1;
    }
    fn lost(&mut self, _cpu: u32, _count: u64, _line: u64) {}
    fn skipped(&mut self, _s: Skipped) {}
    fn eevdf(&mut self, _s: EevdfSample) {}
}

/// `schedlab gen trace`: the synthetic trace on stdout.
pub fn print_synthetic(mb: u64, seed: u64) -> Result<(), String> {
    let text = synthetic_trace_seeded((mb as usize) << 20, seed);
    match std::io::Write::write_all(&mut std::io::stdout().lock(), text.as_bytes()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(format!("writing the trace: {e}")),
        _ => Ok(()),
    }
}

pub fn bench(mb: u64) -> Result<(), String> {
    let t0 = Instant::now();
    let text = synthetic_trace((mb as usize) << 20);
    let gen = t0.elapsed().as_secs_f64();
    let size = text.len() as f64 / (1 << 20) as f64;
    println!("synthetic tracefs trace: {size:.1} MiB, {} lines, generated in {gen:.2} s", text.lines().count());
    let bytes = text.as_bytes();

    let t = Instant::now();
    let mut d = Discard(0);
    let mut imp = TextImporter::new();
    for c in bytes.chunks(CHUNK) {
        imp.feed(c, &mut d);
    }
    imp.finish(&mut d);
    let parse = t.elapsed().as_secs_f64();
    println!("parse only (records dropped): {:.3} s, {:.0} MiB/s, {} records", parse, size / parse, d.0);

    let t = Instant::now();
    let mut store = TraceStore::new();
    let mut imp = TextImporter::new();
    for c in bytes.chunks(CHUNK) {
        imp.feed(c, &mut store);
    }
    imp.finish(&mut store);
    let into = t.elapsed().as_secs_f64();
    let s = ImportSummary::new(imp.stats(), &store);
    println!(
        "parse into the store:         {:.3} s, {:.0} MiB/s, {} records, {} tasks, {} skipped lines",
        into,
        size / into,
        s.total_events,
        s.tasks.len(),
        s.lines_skipped
    );
    if s.lines_skipped > 0 {
        return Err(format!("the synthetic trace has skipped lines: {:?}", s.skipped));
    }
    Ok(())
}
