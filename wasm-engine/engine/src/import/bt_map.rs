//! What the project's bpftrace dumps share (`tools/capture/schedlab-cpu-avg.bt`,
//! `schedlab-balance.bt`): bpftrace keeps the records in a map and prints it at exit, after its
//! banner and the script's header, one `@x[key, …]: (value, …)` line per record, the numbers
//! comma-separated. The dumps' own modules (`cpu_avg`, `balance`) read their lines.

use super::lex::{err, parse_u64, Located};

/// Comma-separated unsigned numbers between `open` and `close` starting at byte `from` of
/// `line`: their values and where each starts.
pub(super) fn numbers(
    line: &str,
    from: usize,
    open: u8,
    close: u8,
    what: &'static str,
) -> Result<(Vec<(u64, usize)>, usize), Located> {
    let b = line.as_bytes();
    if b.get(from) != Some(&open) {
        return err(from, what);
    }
    let Some(end) = line[from..].find(close as char).map(|e| from + e) else { return err(line.len(), what) };
    let mut out = Vec::new();
    let mut at = from + 1;
    for part in line[from + 1..end].split(',') {
        let lead = part.len() - part.trim_start().len();
        let v = part.trim();
        match parse_u64(v) {
            Some(n) => out.push((n, at + lead)),
            None => return err(at + lead, "an unsigned number"),
        }
        at += part.len() + 1;
    }
    Ok((out, end + 1))
}

/// The records of a dump: bpftrace's banner and blank lines skipped, the header (it starts
/// with `header`'s first word) required to be `header` itself, every other line read by
/// `parse_line`. Errors are `FILE:LINE:COLUMN: expected …`; a dump without a record is refused,
/// naming the `tool` and what its lines look like (`shape`).
pub(super) fn map_dump<T>(
    file: &str,
    text: &str,
    header: &str,
    tool: &str,
    shape: &str,
    parse_line: impl Fn(&str) -> Result<T, Located>,
) -> Result<Vec<T>, String> {
    let tag = header.split(' ').take(2).collect::<Vec<_>>().join(" ");
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim_end_matches('\r');
        let located = |l: Located| format!("{file}:{}:{}: expected {}", i + 1, l.at + 1, l.expected);
        if line.trim().is_empty() || super::eevdf::is_banner(line) {
            continue;
        }
        if line.starts_with(&tag) {
            if line != header {
                return Err(format!("{file}:{}:1: expected the version 1 header of {tool}", i + 1));
            }
            continue;
        }
        out.push(parse_line(line).map_err(located)?);
    }
    if out.is_empty() {
        return Err(format!("{file}: expected a {tool} dump ({shape} lines), found none"));
    }
    Ok(out)
}
