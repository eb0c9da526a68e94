//! [`TextImporter`]: the streaming entry point for every text format. Bytes in (any chunking),
//! [`TraceRecord`]s, lost-event counts, EEVDF samples and located skip reasons out to a
//! [`TraceSink`].
//!
//! The format is decided by the first line that decides it (`detect.rs`); later lines are parsed
//! with that grammar. tracefs and `trace-cmd report` share the line grammar (`ftrace.rs`), so their
//! header lines are accepted in either. A systrace HTML file is read line by line too: only the
//! text inside its `<script class="trace-data">` block is parsed.

use super::detect::{binary_kind, clue, cpu_empty, Binary, Clue, Format, MAGIC_LEN};
use super::eevdf;
use super::ftrace::{parse_event_line, parse_lost, EventLine};
use super::lex::Located;
use super::lines::{LineSink, LineSplitter};
use super::payload::parse_payload;
use super::perf::{is_callchain, parse_perf_line};
use super::record::{Skipped, TraceRecord, TraceSink};

/// What the importer saw, apart from the records themselves.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct ImportStats {
    /// The file's format (`None` until a line decided it).
    pub format: Option<Format>,
    /// The grammar of the event lines (differs from `format` for systrace HTML).
    pub grammar: Option<Format>,
    pub bytes: u64,
    pub lines: u64,
    pub records: u64,
    pub eevdf_samples: u64,
    pub lost_lines: u64,
    pub skipped_lines: u64,
    /// Headers, comments, blank lines, perf callchains, HTML outside the trace block.
    pub ignored_lines: u64,
    /// Set when the input was a binary file (`.dat`, gzip) and was not parsed.
    pub binary: Option<&'static str>,
}

/// The streaming text importer.
#[derive(Debug, Default)]
pub struct TextImporter {
    split: LineSplitter,
    head: Vec<u8>,
    head_done: bool,
    p: Parser,
}

#[derive(Debug, Default)]
struct Parser {
    stats: ImportStats,
    in_trace_block: bool,
    /// Byte offset of the text being parsed inside its line (the trace text after
    /// `<script class="trace-data">` on the same line), added to skip columns.
    col_base: usize,
    /// Bit per `SwitchForm` already announced through `meta`.
    forms_seen: u8,
}

impl TextImporter {
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds one chunk of the file.
    pub fn feed<S: TraceSink + ?Sized>(&mut self, mut chunk: &[u8], sink: &mut S) {
        if !self.head_done {
            let take = (MAGIC_LEN - self.head.len()).min(chunk.len());
            self.head.extend_from_slice(&chunk[..take]);
            chunk = &chunk[take..];
            if self.head.len() < MAGIC_LEN {
                return;
            }
            self.release_head(sink);
        }
        if self.p.stats.binary.is_some() {
            self.p.stats.bytes += chunk.len() as u64;
            return;
        }
        self.split.feed(chunk, &mut Adapter { p: &mut self.p, sink });
        self.p.stats.bytes = self.split.bytes();
    }

    /// Ends the input (emits a last line without a newline).
    pub fn finish<S: TraceSink + ?Sized>(&mut self, sink: &mut S) {
        if !self.head_done {
            self.release_head(sink);
        }
        if self.p.stats.binary.is_none() {
            self.split.finish(&mut Adapter { p: &mut self.p, sink });
            self.p.stats.bytes = self.split.bytes();
        }
    }

    /// Counters and the detected format so far.
    pub fn stats(&self) -> &ImportStats {
        &self.p.stats
    }

    /// Bytes consumed so far (for progress).
    pub fn bytes_read(&self) -> u64 {
        self.p.stats.bytes.max(self.split.bytes())
    }

    fn release_head<S: TraceSink + ?Sized>(&mut self, sink: &mut S) {
        self.head_done = true;
        let head = std::mem::take(&mut self.head);
        if let Some(kind) = binary_kind(&head) {
            let (name, reason) = match kind {
                Binary::TraceDat => ("trace-cmd .dat", "a text trace; this is a binary trace-cmd .dat file"),
                Binary::Gzip => ("gzip", "a text trace; this file is gzip-compressed (decompress it first)"),
                Binary::Perfetto => (super::perfetto::NAME, "a text trace; this is a Perfetto protobuf trace"),
            };
            self.p.stats.binary = Some(name);
            self.p.stats.bytes = head.len() as u64;
            self.p.stats.skipped_lines += 1;
            sink.skipped(Skipped { line: 1, column: 1, reason: reason.to_string() });
            return;
        }
        self.split.feed(&head, &mut Adapter { p: &mut self.p, sink });
    }
}

struct Adapter<'a, S: ?Sized> {
    p: &'a mut Parser,
    sink: &'a mut S,
}

impl<S: TraceSink + ?Sized> LineSink for Adapter<'_, S> {
    fn line(&mut self, no: u64, _offset: u64, text: &str) {
        self.p.stats.lines = no;
        self.p.line(no, text, self.sink);
    }

    fn bad_line(&mut self, no: u64, column: u32, reason: &'static str) {
        self.p.stats.lines = no;
        self.p.stats.skipped_lines += 1;
        self.sink.skipped(Skipped { line: no, column, reason: format!("expected {reason}") });
    }
}

const UNKNOWN_LINE: &str = "a trace line (tracefs or trace-cmd report `TASK-PID [CPU] TS: event:`, perf script `comm tid [cpu] TS: sys:event:`, or a bpftrace `S`/`G` EEVDF-state line)";

impl Parser {
    fn skip<S: TraceSink + ?Sized>(&mut self, no: u64, e: Located, sink: &mut S) {
        self.stats.skipped_lines += 1;
        let column = (self.col_base + e.at) as u32 + 1;
        sink.skipped(Skipped { line: no, column, reason: format!("expected {}", e.expected) });
    }

    fn line<S: TraceSink + ?Sized>(&mut self, no: u64, text: &str, sink: &mut S) {
        if self.stats.format == Some(Format::SystraceHtml) {
            return self.html_line(no, text, sink);
        }
        self.text_line(no, text, sink);
    }

    /// Only the `<script class="trace-data">` block of a systrace file is trace text.
    fn html_line<S: TraceSink + ?Sized>(&mut self, no: u64, text: &str, sink: &mut S) {
        if !self.in_trace_block {
            self.stats.ignored_lines += 1;
            if let Some(i) = text.find("<script class=\"trace-data\"") {
                self.in_trace_block = true;
                if let Some(gt) = text[i..].find('>') {
                    let rest = &text[i + gt + 1..];
                    if !rest.trim().is_empty() {
                        self.stats.ignored_lines -= 1;
                        self.col_base = i + gt + 1;
                        self.html_line(no, rest, sink);
                        self.col_base = 0;
                    }
                }
            }
            return;
        }
        match text.find("</script>") {
            Some(end) => {
                self.in_trace_block = false;
                if text[..end].trim().is_empty() {
                    self.stats.ignored_lines += 1;
                } else {
                    self.text_line(no, &text[..end], sink);
                }
            }
            None => self.text_line(no, text, sink),
        }
    }

    fn text_line<S: TraceSink + ?Sized>(&mut self, no: u64, text: &str, sink: &mut S) {
        let grammar = match self.stats.grammar {
            Some(g) => g,
            None => match clue(text) {
                Clue::Decided(Format::SystraceHtml) if self.stats.format.is_none() => {
                    self.stats.format = Some(Format::SystraceHtml);
                    self.stats.ignored_lines += 1;
                    return;
                }
                Clue::Decided(Format::SystraceHtml) | Clue::Neutral => {
                    if !self.header_line(no, text, sink) {
                        self.stats.ignored_lines += 1;
                    }
                    return;
                }
                Clue::Decided(f) => {
                    self.stats.grammar = Some(f);
                    self.stats.format.get_or_insert(f);
                    f
                }
                Clue::Unknown => {
                    let at = text.len() - text.trim_start().len();
                    return self.skip(no, Located { at, expected: UNKNOWN_LINE }, sink);
                }
            },
        };
        match grammar {
            Format::Tracefs | Format::TraceCmdReport | Format::SystraceHtml => self.ftrace_line(no, text, sink),
            Format::PerfScript => self.perf_line(no, text, sink),
            Format::EevdfState => self.eevdf_line(no, text, sink),
        }
    }

    /// Comments, headers and LOST lines (any grammar). Returns true when the line was one.
    fn header_line<S: TraceSink + ?Sized>(&mut self, no: u64, text: &str, sink: &mut S) -> bool {
        let t = text.trim();
        if let Some((cpu, count)) = parse_lost(t) {
            self.stats.lost_lines += 1;
            sink.lost(cpu, count, no);
            return true;
        }
        if t.is_empty() || t.starts_with('#') {
            self.stats.ignored_lines += 1;
            if let Some(tracer) = t.strip_prefix("# tracer:") {
                sink.meta("tracer", tracer.trim(), no);
            } else if let Some(clock) = t.strip_prefix("# trace_clock:") {
                // Written by tools/capture/schedlab-capture.sh (tracefs itself does not print it).
                sink.meta("trace_clock", clock.trim(), no);
            } else if let Some(h) = eevdf::parse_header(t) {
                for (k, v) in h {
                    sink.meta(&format!("eevdf_{k}"), v, no);
                }
            } else if let Some(p) = t.find("#P:") {
                sink.meta("cpus", t[p + 3..].trim(), no);
            }
            return true;
        }
        if let Some(v) = t.strip_prefix("version = ") {
            self.stats.ignored_lines += 1;
            sink.meta("version", v.trim(), no);
            return true;
        }
        if let Some(n) = t.strip_prefix("cpus=") {
            self.stats.ignored_lines += 1;
            sink.meta("cpus", n.trim(), no);
            return true;
        }
        if let Some(cpu) = cpu_empty(t) {
            self.stats.ignored_lines += 1;
            sink.meta("cpu_empty", &cpu.to_string(), no);
            return true;
        }
        false
    }

    fn ftrace_line<S: TraceSink + ?Sized>(&mut self, no: u64, text: &str, sink: &mut S) {
        match parse_event_line(text) {
            Ok(e) => self.event(no, e, sink),
            Err(e) => {
                if !self.header_line(no, text, sink) {
                    self.skip(no, e, sink);
                }
            }
        }
    }

    fn perf_line<S: TraceSink + ?Sized>(&mut self, no: u64, text: &str, sink: &mut S) {
        match parse_perf_line(text) {
            Ok(e) => self.event(no, e, sink),
            Err(_) if is_callchain(text) => self.stats.ignored_lines += 1,
            Err(e) => {
                if !self.header_line(no, text, sink) {
                    self.skip(no, e, sink);
                }
            }
        }
    }

    fn eevdf_line<S: TraceSink + ?Sized>(&mut self, no: u64, text: &str, sink: &mut S) {
        if eevdf::is_banner(text) || self.header_line(no, text, sink) {
            self.stats.ignored_lines += u64::from(eevdf::is_banner(text));
            return;
        }
        match eevdf::parse_sample(text, no) {
            Ok(s) => {
                self.stats.eevdf_samples += 1;
                sink.eevdf(s);
            }
            Err(e) => self.skip(no, e, sink),
        }
    }

    fn event<S: TraceSink + ?Sized>(&mut self, no: u64, e: EventLine<'_>, sink: &mut S) {
        match parse_payload(e.event, e.payload) {
            Ok((payload, form)) => {
                if let Some(f) = form {
                    let bit = 1u8 << (f as u8);
                    if self.forms_seen & bit == 0 {
                        self.forms_seen |= bit;
                        sink.meta("switch_form", f.name(), no);
                    }
                }
                self.stats.records += 1;
                if let Some(tgid) = e.tgid.filter(|_| e.pid != 0) {
                    sink.tgid(e.pid, tgid, e.ts_ns);
                }
                sink.record(TraceRecord {
                    ts_ns: e.ts_ns,
                    cpu: e.cpu,
                    pid: e.pid,
                    comm: e.comm.to_string(),
                    event: e.event.to_string(),
                    line: no,
                    flags: super::record::trace_flags::from_text(e.flags),
                    payload,
                });
            }
            Err(l) => self.skip(no, Located { at: l.at + e.payload_at, expected: l.expected }, sink),
        }
    }
}
