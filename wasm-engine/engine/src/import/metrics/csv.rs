//! [`WindowMetrics`] as CSV (RFC 4180: comma-separated, CRLF-free, a field with a comma, quote
//! or line break quoted with its quotes doubled): the task table, an empty line, the CPU table.
//! Times in ns; an empty field where a figure has no value (no wakeup in the window).

use super::WindowMetrics;
use std::fmt::Write as _;

const TASK_HEADER: &str = "pid,generation,comm,cpu_ns,switches,involuntary,preempted,migrations,wakeups,\
latency_p50_ns,latency_p90_ns,latency_p99_ns,latency_max_ns,latency_mean_ns,running_ns,runnable_ns,\
preempted_ns,sleeping_ns,uninterruptible_ns,other_ns,unknown_ns";

/// A field, quoted when it must be.
fn field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn opt(v: Option<u64>) -> String {
    v.map_or_else(String::new, |v| v.to_string())
}

pub(super) fn render(m: &WindowMetrics) -> String {
    let mut out = String::new();
    out.push_str(TASK_HEADER);
    out.push('\n');
    for t in &m.tasks {
        let l = &t.wakeup_latency;
        let s = &t.states;
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            t.pid,
            t.generation,
            field(&t.comm),
            t.cpu_ns,
            t.switches,
            t.involuntary,
            t.preempted,
            t.migrations,
            l.count,
            opt(l.p50_ns),
            opt(l.p90_ns),
            opt(l.p99_ns),
            opt(l.max_ns),
            opt(l.mean_ns),
            s.running_ns,
            s.runnable_ns,
            s.preempted_ns,
            s.sleeping_ns,
            s.uninterruptible_ns,
            s.other_ns,
            s.unknown_ns
        );
    }
    out.push('\n');
    let depths = m.cpus.iter().map(|c| c.depth_ns.len()).max().unwrap_or(0);
    out.push_str("cpu,busy_ns,switches,known_ns,idle_ns,idle_while_overloaded_ns,max_depth,mean_depth");
    for d in 0..depths {
        let _ = write!(out, ",depth_{d}_ns");
    }
    out.push('\n');
    for c in &m.cpus {
        let _ = write!(
            out,
            "{},{},{},{},{},{},{},{}.{:03}",
            c.cpu,
            c.busy_ns,
            c.switches,
            c.known_ns,
            c.idle_ns,
            c.idle_while_overloaded_ns,
            c.max_depth,
            c.mean_depth_milli / 1000,
            c.mean_depth_milli % 1000
        );
        for d in 0..depths {
            let _ = write!(out, ",{}", c.depth_ns.get(d).copied().unwrap_or(0));
        }
        out.push('\n');
    }
    out
}
