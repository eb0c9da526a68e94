//! Format detection from the first lines that decide it (comments and blank lines do not):
//!
//! * systrace/catapult HTML (`<!DOCTYPE html>`), whose `<script class="trace-data">` block holds
//!   tracefs text;
//! * tracefs text: the `# tracer:` header of `/sys/kernel/tracing/trace`, or (`trace_pipe`, no
//!   header) an event line with latency flags;
//! * `trace-cmd report`: `version = 6`, `cpus=N`, `CPU 3 is empty`, or an event line without flags;
//! * `perf script`: `comm tid [cpu] secs.usecs: system:event:`;
//! * the bpftrace EEVDF-state dump: `Attaching 1 probe...` or `S <ns> cpu=.. pid=..` lines.
//!
//! Files starting with the trace-cmd `.dat` magic (`17 08 44 "tracing"`), a Perfetto `Trace`
//! (field 1 `packet`, a length, a `TracePacket` key, and bytes that are not text) or gzip's
//! `1f 8b` are recognised from their first bytes ([`binary_kind`]) and not parsed as text. A file
//! in no supported format is described by [`describe_unknown`] (binary, compressed, protobuf
//! that is not a Perfetto trace, text of an unknown tool) for the refusal message.

use super::eevdf;
use super::ftrace::parse_event_line;
use super::perf::parse_perf_line;

/// A text trace format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, ts_rs::TS)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    Tracefs,
    TraceCmdReport,
    PerfScript,
    EevdfState,
    SystraceHtml,
}

impl Format {
    pub fn name(self) -> &'static str {
        match self {
            Format::Tracefs => "tracefs text (/sys/kernel/tracing/trace)",
            Format::TraceCmdReport => "trace-cmd report text",
            Format::PerfScript => "perf script text",
            Format::EevdfState => "bpftrace EEVDF-state dump",
            Format::SystraceHtml => "systrace HTML (tracefs text inside)",
        }
    }
}

/// What one line says about the format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Clue {
    Decided(Format),
    /// Blank, a comment, or a line every text format may hold (`CPU:1 [LOST 3 EVENTS]`).
    Neutral,
    Unknown,
}

/// Classifies one line.
pub fn clue(line: &str) -> Clue {
    let t = line.trim_start();
    if t.is_empty() {
        return Clue::Neutral;
    }
    let lower_start = t.get(..14).map(str::to_ascii_lowercase);
    if lower_start.as_deref() == Some("<!doctype html") || t.starts_with("<html") {
        return Clue::Decided(Format::SystraceHtml);
    }
    if t.starts_with("# tracer:") {
        return Clue::Decided(Format::Tracefs);
    }
    if t.starts_with('#') || super::ftrace::parse_lost(t).is_some() {
        return Clue::Neutral;
    }
    if is_report_header(t) {
        return Clue::Decided(Format::TraceCmdReport);
    }
    if eevdf::is_banner(t) || eevdf::looks_like_sample(t) {
        return Clue::Decided(Format::EevdfState);
    }
    if let Ok(e) = parse_event_line(line) {
        return Clue::Decided(if e.flags.is_empty() { Format::TraceCmdReport } else { Format::Tracefs });
    }
    if parse_perf_line(line).is_ok() {
        return Clue::Decided(Format::PerfScript);
    }
    Clue::Unknown
}

/// `version = 6`, `cpus=6`, `CPU 3 is empty` (trace-cmd report's header lines).
pub fn is_report_header(t: &str) -> bool {
    t.starts_with("version = ")
        || t.strip_prefix("cpus=").is_some_and(|n| n.trim().parse::<u32>().is_ok())
        || cpu_empty(t).is_some()
}

/// `CPU 3 is empty` → 3.
pub fn cpu_empty(t: &str) -> Option<u32> {
    t.strip_prefix("CPU ")?.strip_suffix(" is empty")?.parse().ok()
}

/// Binary inputs recognised by their first bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Binary {
    /// trace-cmd `.dat`: `17 08 44` `tracing`, then the version string.
    TraceDat,
    /// A Perfetto protobuf trace (`import::perfetto`).
    Perfetto,
    Gzip,
}

/// Bytes needed by [`binary_kind`].
pub const MAGIC_LEN: usize = 10;

/// The binary kind of a file from its first [`MAGIC_LEN`] bytes (fewer when the file is shorter).
pub fn binary_kind(head: &[u8]) -> Option<Binary> {
    if head.starts_with(b"\x17\x08\x44tracing") {
        Some(Binary::TraceDat)
    } else if head.starts_with(&[0x1f, 0x8b]) {
        Some(Binary::Gzip)
    } else if !is_text(head) && super::perfetto::looks_like_perfetto(head) {
        Some(Binary::Perfetto)
    } else {
        None
    }
}

/// Whether `head` reads as text: UTF-8 (a character cut at the end allowed) without control
/// characters other than tab, newline, carriage return and form feed.
pub fn is_text(head: &[u8]) -> bool {
    let valid = match std::str::from_utf8(head) {
        Ok(s) => s,
        Err(e) if e.error_len().is_none() => std::str::from_utf8(&head[..e.valid_up_to()]).unwrap_or(""),
        Err(_) => return false,
    };
    !valid.chars().any(|c| c.is_control() && !matches!(c, '\t' | '\n' | '\r' | '\x0c'))
}

/// What a file that no importer reads looks like, from its first bytes (a few KiB): for the
/// message that refuses it.
pub fn describe_unknown(head: &[u8]) -> String {
    use prost::encoding::{decode_key, skip_field, DecodeContext};
    if head.is_empty() {
        return "an empty file".to_string();
    }
    let magic: [(&[u8], &str); 6] = [
        (&[0x1f, 0x8b], "gzip-compressed data (decompress it first)"),
        (&[0x28, 0xb5, 0x2f, 0xfd], "zstd-compressed data (decompress it first)"),
        (b"BZh", "bzip2-compressed data (decompress it first)"),
        (&[0xfd, b'7', b'z', b'X', b'Z', 0], "xz-compressed data (decompress it first)"),
        (b"PK\x03\x04", "a zip archive (extract the trace first)"),
        (b"\x7fELF", "an ELF executable, not a trace"),
    ];
    if let Some((_, what)) = magic.iter().find(|(m, _)| head.starts_with(m)) {
        return what.to_string();
    }
    if is_text(head) {
        let first = String::from_utf8_lossy(head);
        if first.lines().take(4).any(|l| l.starts_with("# schedlab-cpu-avg") || l.starts_with("@c[")) {
            return "a dump of each CPU's PELT averages (tools/capture/schedlab-cpu-avg.bt), not a trace: the \
                    command line reads it with its trace, `schedlab replay TRACE --cpu-avg THIS-FILE`"
                .to_string();
        }
        if first.lines().take(4).any(|l| l.starts_with("# schedlab-balance") || l.starts_with("@s[")) {
            return "a dump of each CPU's balance passes (tools/capture/schedlab-balance.bt), not a trace: the \
                    command line reads it with its trace, `schedlab replay TRACE --balance THIS-FILE`"
                .to_string();
        }
        let line = first.lines().find(|l| !l.trim().is_empty()).unwrap_or("").trim();
        let line: String = line.chars().take(80).collect();
        return format!("text of an unknown tool (first line: `{line}`)");
    }
    // Binary: does it parse as protobuf fields for a while?
    let mut b = head;
    let mut fields = 0;
    while !b.is_empty() && fields < 64 {
        let Ok((tag, wt)) = decode_key(&mut b) else { break };
        if skip_field(wt, tag, &mut b, DecodeContext::default()).is_err() {
            break;
        }
        fields += 1;
    }
    if fields >= 2 && (b.is_empty() || fields >= 64) || fields >= 1 && head.len() < 64 && b.is_empty() {
        return "binary protobuf data, but not a Perfetto trace (one starts with field 1, `packet`, holding a TracePacket)".to_string();
    }
    "binary data of no format schedlab reads (not text, not a Perfetto or trace-cmd .dat trace)".to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cpu_averages_dump_is_named() {
        let head = b"Attaching 3 probes...\n# schedlab-cpu-avg version=1 fields=lut\n";
        assert!(describe_unknown(head).contains("--cpu-avg"), "{}", describe_unknown(head));
        let head = b"Attaching 3 probes...\n# schedlab-balance version=1 fields=nr_balance_failed\n";
        assert!(describe_unknown(head).contains("--balance THIS-FILE"), "{}", describe_unknown(head));
    }

    #[test]
    fn clues() {
        assert_eq!(clue("# tracer: nop"), Clue::Decided(Format::Tracefs));
        assert_eq!(clue("#"), Clue::Neutral);
        assert_eq!(clue("version = 6"), Clue::Decided(Format::TraceCmdReport));
        assert_eq!(clue("cpus=2"), Clue::Decided(Format::TraceCmdReport));
        assert_eq!(clue("CPU 3 is empty"), Clue::Decided(Format::TraceCmdReport));
        assert_eq!(clue("CPU:3 [LOST 12 EVENTS]"), Clue::Neutral);
        assert_eq!(clue("<!DOCTYPE html>"), Clue::Decided(Format::SystraceHtml));
        assert_eq!(clue("Attaching 1 probe..."), Clue::Decided(Format::EevdfState));
        assert_eq!(clue("  bash-1 [000] d..2.  1.000001: sched_switch: prev_comm=a"), Clue::Decided(Format::Tracefs));
        assert_eq!(
            clue("  bash-1 [000]  1.000001: sched_switch: a:1 [1] R ==> b:2 [1]"),
            Clue::Decided(Format::TraceCmdReport)
        );
        assert_eq!(clue("  perf 13322 [002]   233.835807: sched:sched_switch: x"), Clue::Decided(Format::PerfScript));
        assert_eq!(clue("hello"), Clue::Unknown);
    }

    #[test]
    fn magic() {
        assert_eq!(binary_kind(b"\x17\x08\x44tracing6\0"), Some(Binary::TraceDat));
        assert_eq!(binary_kind(&[0x1f, 0x8b, 8]), Some(Binary::Gzip));
        assert_eq!(binary_kind(b"# tracer"), None);
        // systing's trace starts so; a text file starting with a blank line is text.
        assert_eq!(binary_kind(&[0x0a, 0x53, 0x32, 0x4f, 0x0a, 0x0a, 0x08, 0x03, 0x10, 0xb9]), Some(Binary::Perfetto));
        assert_eq!(binary_kind(b"\n# tracer: nop\n"), None);
    }

    #[test]
    fn unknown_files_are_described() {
        assert!(
            describe_unknown(b"hello world\nmore").starts_with("text of an unknown tool (first line: `hello world`)")
        );
        assert!(describe_unknown(&[0x28, 0xb5, 0x2f, 0xfd, 0]).starts_with("zstd"));
        // Field 2 varint 5, field 3 length 2 "ab": protobuf, not a Trace.
        assert!(describe_unknown(&[0x10, 0x05, 0x1a, 0x02, b'a', b'b', 0x10, 0x80, 0x01]).contains("not a Perfetto"));
        assert!(describe_unknown(&[0xff, 0xff, 0xff, 0x00, 0x07]).starts_with("binary data"));
        assert_eq!(describe_unknown(b""), "an empty file");
    }
}
