//! The event-line prefix of `/sys/kernel/tracing/trace` (and `trace_pipe`) and of
//! `trace-cmd report`, both printed by the kernel's / libtraceevent's `TASK-PID [CPU] flags TS:`
//! grammar (kernel/trace/trace_output.c `trace_print_context()`; trace-cmd `trace-cmd report`):
//!
//! ```text
//!           <idle>-0     [000] d..2.  3912.084183: sched_switch: prev_comm=swapper/0 ...
//! RenderThread-1143  (  611) [004] ...1 514769.085985: tracing_mark_write: E
//!       capture.sh-22673 [000]   544.830864: sched_process_fork:   comm=capture.sh ...
//! ```
//!
//! `TASK-PID` is right-aligned and split at the **last** `-` (comms contain `-`, spaces, `:`, `/`);
//! an optional TGID column `(  611)` / `(-----)` (the `record-tgid` option) follows; `[CPU]`; latency
//! flags of 4 (older kernels), 5 (6.x: irqs, need-resched, hard/softirq, preempt depth,
//! migrate-disable) or no characters (`trace-cmd report` without `-l`); the timestamp with 6 or 9
//! decimals (or none for counter clocks) and a colon; then `event:` and the payload.
//! Also the ring-buffer overflow lines `CPU:%d [LOST %lu EVENTS]` (tracefs) and
//! `CPU:%d [%lld EVENTS DROPPED]` (`trace-cmd report`).

use super::lex::{bracket_numbers, err, parse_i32, parse_ts_ns, skip_ws, token_end, Located};

/// The common part of a tracepoint line, borrowed from the line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EventLine<'a> {
    pub comm: &'a str,
    pub pid: i32,
    pub tgid: Option<i32>,
    pub cpu: u32,
    /// Latency flags as printed (`d..2.`), empty when the column is absent.
    pub flags: &'a str,
    pub ts_ns: u64,
    /// Event name without the system.
    pub event: &'a str,
    /// Payload (leading padding removed, trailing whitespace kept out).
    pub payload: &'a str,
    /// Byte offset of the payload in the line.
    pub payload_at: usize,
}

/// Parses `TASK-PID [(TGID)] [CPU] [flags] TS: event: payload`.
pub fn parse_event_line(line: &str) -> Result<EventLine<'_>, Located> {
    let b = line.as_bytes();
    let first = skip_ws(b, 0);
    for (open, after, cpu) in bracket_numbers(line) {
        let Some((comm, pid, tgid)) = task_pid(&line[..open]) else { continue };
        let (flags, ts_ns, at) = flags_and_ts(line, after)?;
        let (event, payload, payload_at) = event_and_payload(line, at)?;
        return Ok(EventLine { comm, pid, tgid, cpu, flags, ts_ns, event, payload, payload_at });
    }
    err(first, "`TASK-PID [CPU]` (task, last `-`, pid, then the CPU in brackets)")
}

/// `comm-pid` with an optional `(tgid)` column after it.
fn task_pid(prefix: &str) -> Option<(&str, i32, Option<i32>)> {
    let mut p = prefix.trim_end();
    let mut tgid = None;
    if let Some(inner) = p.strip_suffix(')') {
        let open = inner.rfind('(')?;
        let t = inner[open + 1..].trim();
        tgid = if t.bytes().all(|c| c == b'-') { None } else { Some(parse_i32(t)?) };
        p = inner[..open].trim_end();
    }
    let dash = p.rfind('-')?;
    let pid = parse_i32(&p[dash + 1..])?;
    let comm = p[..dash].trim_start();
    if comm.is_empty() {
        return None;
    }
    Some((comm, pid, tgid))
}

/// After `[CPU]`: optional flags, then `TS:`. Returns (flags, ns, index after the colon).
fn flags_and_ts(line: &str, from: usize) -> Result<(&str, u64, usize), Located> {
    let b = line.as_bytes();
    let t1 = skip_ws(b, from);
    let e1 = token_end(b, t1);
    if e1 > t1 && b[e1 - 1] == b':' {
        if let Some(ts) = parse_ts_ns(&line[t1..e1 - 1]) {
            return Ok(("", ts, e1));
        }
    }
    if e1 == t1 || e1 - t1 > 8 {
        return err(t1, "latency flags or a timestamp `secs.usecs:`");
    }
    let t2 = skip_ws(b, e1);
    let e2 = token_end(b, t2);
    if e2 > t2 && b[e2 - 1] == b':' {
        if let Some(ts) = parse_ts_ns(&line[t2..e2 - 1]) {
            return Ok((&line[t1..e1], ts, e2));
        }
    }
    err(t2, "a timestamp `secs.usecs:` (0 to 9 decimals)")
}

/// `event: payload` (`event:` may be padded, as `trace-cmd report` pads it to 20 columns).
fn event_and_payload(line: &str, from: usize) -> Result<(&str, &str, usize), Located> {
    let b = line.as_bytes();
    let s = skip_ws(b, from);
    let mut i = s;
    while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
        i += 1;
    }
    if i == s || i >= b.len() || b[i] != b':' || (i + 1 < b.len() && b[i + 1] != b' ' && b[i + 1] != b'\t') {
        return err(s, "an event name and a colon (`sched_switch:`)");
    }
    let p = skip_ws(b, i + 1);
    Ok((&line[s..i], line[p..].trim_end(), p))
}

/// `CPU:%d [LOST %lu EVENTS]`, `CPU:%d [%lld EVENTS DROPPED]` or `CPU:%d [EVENTS DROPPED]`
/// → (cpu, count; 0 when not printed).
pub fn parse_lost(line: &str) -> Option<(u32, u64)> {
    let rest = line.trim().strip_prefix("CPU:")?;
    let (cpu, rest) = rest.split_once(' ')?;
    let cpu: u32 = cpu.parse().ok().filter(|&c| c <= super::record::MAX_CPU)?;
    let inner = rest.trim().strip_prefix('[')?.strip_suffix(']')?;
    if let Some(n) = inner.strip_prefix("LOST ").and_then(|r| r.strip_suffix(" EVENTS")) {
        return Some((cpu, n.trim().parse().ok()?));
    }
    if inner == "EVENTS DROPPED" {
        return Some((cpu, 0));
    }
    let n = inner.strip_suffix(" EVENTS DROPPED")?;
    Some((cpu, n.trim().parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tracefs_line() {
        let l = "          <idle>-0     [000] d..2.  3912.084183: sched_switch: prev_comm=swapper/0 prev_pid=0";
        let e = parse_event_line(l).unwrap();
        assert_eq!((e.comm, e.pid, e.cpu, e.flags, e.ts_ns), ("<idle>", 0, 0, "d..2.", 3_912_084_183_000));
        assert_eq!(e.event, "sched_switch");
        assert_eq!(e.payload, "prev_comm=swapper/0 prev_pid=0");
        assert_eq!(&l[e.payload_at..e.payload_at + 4], "prev");
    }

    #[test]
    fn tgid_column_and_four_flags() {
        let l = "com.android.systemui-611   (  611) [001] d..5 514769.086090: sched_wakeup: comm=Binder_5";
        let e = parse_event_line(l).unwrap();
        assert_eq!((e.comm, e.pid, e.tgid, e.cpu, e.flags), ("com.android.systemui", 611, Some(611), 1, "d..5"));
        let l = "          <idle>-0     (-----) [002] d..3 514769.086339: sched_switch: x=1";
        let e = parse_event_line(l).unwrap();
        assert_eq!((e.comm, e.pid, e.tgid), ("<idle>", 0, None));
    }

    #[test]
    fn report_line_without_flags_and_odd_comms() {
        let l = "  Web Content-my-1234 [003]   544.830864123: sched_stat_runtime:   comm=x pid=1";
        let e = parse_event_line(l).unwrap();
        assert_eq!((e.comm, e.pid, e.cpu, e.flags, e.ts_ns), ("Web Content-my", 1234, 3, "", 544_830_864_123));
        assert_eq!(e.event, "sched_stat_runtime");
        // A comm containing `[1] ` is passed over: the first bracket is not followed by a valid TASK-PID.
        let l = "a [1] b-7 [002] 1.000001: x: y";
        let e = parse_event_line(l).unwrap();
        assert_eq!((e.comm, e.pid, e.cpu), ("a [1] b", 7, 2));
    }

    #[test]
    fn garbage_is_located() {
        assert_eq!(parse_event_line("  hello world").unwrap_err().at, 2);
        let l = "bash-1 [000] d..2. notatime: x: y";
        assert_eq!(parse_event_line(l).unwrap_err().at, 19);
        let l = "bash-1 [000] d..2. 1.5: : y";
        assert_eq!(parse_event_line(l).unwrap_err().expected, "an event name and a colon (`sched_switch:`)");
    }

    #[test]
    fn lost_lines() {
        assert_eq!(parse_lost("CPU:3 [LOST 1234 EVENTS]"), Some((3, 1234)));
        assert_eq!(parse_lost("CPU:7 [204600 EVENTS DROPPED]"), Some((7, 204_600)));
        assert_eq!(parse_lost("CPU:1 [EVENTS DROPPED]"), Some((1, 0)));
        assert_eq!(parse_lost("CPU 3 is empty"), None);
    }
}
