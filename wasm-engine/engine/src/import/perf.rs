//! The tracepoint lines of `perf script` (tools/perf/builtin-script.c, default fields for
//! tracepoint events):
//!
//! ```text
//!             perf  112408 [000] 457541.580856:       sched:sched_switch: prev_comm=perf ...
//!             perf 13322 [002]   233.835807:                     sched:sched_switch: perf:13322 [120] R ==> ...
//!      migration/2  27/27 [002]   233.835811:  1  sched:sched_migrate_task: comm=perf pid=13322 ...
//! ```
//!
//! `comm` right-aligned in 16 columns (may contain spaces), then `tid` or `pid/tid` (`-F pid,tid`),
//! `[cpu]`, `secs.usecs:` (6 decimals, 9 with `--ns`), an optional sample period, then
//! `system:event:` and the payload, which is the kernel `TP_printk` form or, when perf is linked
//! with the libtraceevent plugins, the plugin form (see `payload.rs`). Callchains (`-g`) follow on
//! indented lines starting with an address; [`is_callchain`] recognises them.

use super::ftrace::EventLine;
use super::lex::{bracket_numbers, err, parse_i32, parse_ts_ns, skip_ws, token_end, Located};

/// Parses one perf script sample line.
pub fn parse_perf_line(line: &str) -> Result<EventLine<'_>, Located> {
    let b = line.as_bytes();
    let first = skip_ws(b, 0);
    for (open, after, cpu) in bracket_numbers(line) {
        let Some((comm, pid, tgid)) = comm_tid(&line[..open]) else { continue };
        let t = skip_ws(b, after);
        let e = token_end(b, t);
        if e == t || b[e - 1] != b':' {
            return err(t, "a timestamp `secs.usecs:`");
        }
        let Some(ts_ns) = parse_ts_ns(&line[t..e - 1]) else {
            return err(t, "a timestamp `secs.usecs:` (0 to 9 decimals)");
        };
        let mut s = skip_ws(b, e);
        let mut end = token_end(b, s);
        // An optional sample period (`perf script -F period`).
        if end > s && b[s..end].iter().all(u8::is_ascii_digit) {
            s = skip_ws(b, end);
            end = token_end(b, s);
        }
        if end == s || b[end - 1] != b':' || end - s < 2 {
            return err(s, "an event `system:event:`");
        }
        let event = event_name(&line[s..end - 1]);
        if event.is_empty() {
            return err(s, "an event `system:event:`");
        }
        let p = skip_ws(b, end);
        return Ok(EventLine {
            comm,
            pid,
            tgid,
            cpu,
            flags: "",
            ts_ns,
            event,
            payload: line[p..].trim_end(),
            payload_at: p,
        });
    }
    err(first, "`comm tid [cpu]` (perf script)")
}

/// `sched:sched_switch` → `sched_switch`; `cycles:u` (a modifier, not a system) → `cycles`.
/// Empty for tokens without a name (`s::`, `:`): the caller rejects those.
fn event_name(tok: &str) -> &str {
    match tok.split_once(':') {
        Some((_, ev)) if !ev.is_empty() && !ev.bytes().all(|c| b"ukhHGIpPSDW".contains(&c)) => ev.trim_end_matches(':'),
        Some((name, _)) => name,
        None => tok,
    }
}

/// `comm tid` or `comm pid/tid` → (comm, tid, pid).
fn comm_tid(prefix: &str) -> Option<(&str, i32, Option<i32>)> {
    let p = prefix.trim_end();
    let sp = p.rfind([' ', '\t'])?;
    let ids = &p[sp + 1..];
    let comm = p[..sp].trim();
    if comm.is_empty() {
        return None;
    }
    match ids.split_once('/') {
        Some((pid, tid)) => Some((comm, parse_i32(tid)?, Some(parse_i32(pid)?))),
        None => Some((comm, parse_i32(ids)?, None)),
    }
}

/// A callchain line of `perf script -g` (`\t    ffffffff81234567 __schedule+0x2e1 ([kernel.kallsyms])`):
/// indented, starting with a hex address.
pub fn is_callchain(line: &str) -> bool {
    let t = line.trim_start();
    if t.len() == line.len() {
        return false;
    }
    let hex = t.bytes().take_while(u8::is_ascii_hexdigit).count();
    hex >= 4 && t.as_bytes().get(hex).is_none_or(|&c| c == b' ' || c == b'\t')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_fields() {
        let l =
            "            perf  112408 [000] 457541.580856:       sched:sched_switch: prev_comm=perf prev_pid=112408";
        let e = parse_perf_line(l).unwrap();
        assert_eq!((e.comm, e.pid, e.cpu, e.ts_ns), ("perf", 112_408, 0, 457_541_580_856_000));
        assert_eq!((e.event, e.payload), ("sched_switch", "prev_comm=perf prev_pid=112408"));
    }

    #[test]
    fn pid_tid_ns_period_and_spaces() {
        let l = "  Web Content  27/29 [002]   233.835811123:  1  sched:sched_migrate_task: comm=perf";
        let e = parse_perf_line(l).unwrap();
        assert_eq!((e.comm, e.pid, e.tgid, e.cpu, e.ts_ns), ("Web Content", 29, Some(27), 2, 233_835_811_123));
        assert_eq!(e.event, "sched_migrate_task");
        let l = "perf 1 [000] 1.000000: 250000 cpu-clock:u: ffffffff8100 foo";
        assert_eq!(parse_perf_line(l).unwrap().event, "cpu-clock");
    }

    #[test]
    fn callchains() {
        assert!(is_callchain("\t    ffffffff81234567 __schedule+0x2e1 ([kernel.kallsyms])"));
        assert!(is_callchain("            7f1234abcd00 [unknown] (/usr/lib/libc.so.6)"));
        assert!(!is_callchain("            perf  112408 [000] 457541.580856: sched:sched_switch: x"));
        assert!(!is_callchain("ffffffff81234567 foo"));
    }
}
