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
//! Files starting with the trace-cmd `.dat` magic (`17 08 44 "tracing"`) or gzip's `1f 8b` are
//! recognised from their first bytes ([`binary_kind`]) and not parsed as text.

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
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    }
}
