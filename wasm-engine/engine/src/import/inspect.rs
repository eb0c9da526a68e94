//! The record under the pointer: the stored record of one CPU nearest a time, rendered back to
//! its event name and fields (for the replay view's inspector). Works on the columns of a
//! [`TraceStore`]; each column set is in arrival order, which is time order but for the rare
//! out-of-order record, so the search looks outward from the time's position.

use super::record::{PrevState, WakeKind};
use super::store::{Task, TraceStore};
use serde::Serialize;

/// Records looked at on each side of the time's position before giving up (a dense window
/// where the CPU has no record near the time).
const SCAN: usize = 4096;

/// One record, as the inspector shows it.
#[derive(Clone, Debug, Serialize, PartialEq, Eq, ts_rs::TS)]
pub struct RecordView {
    pub event: String,
    pub ts_ns: u64,
    pub cpu: u32,
    /// Source line (text) or record number (`.dat`).
    pub line: u64,
    /// The task current when it fired, when the store keeps it.
    pub pid: Option<i32>,
    pub comm: Option<String>,
    /// Fields in the kernel's order.
    pub fields: Vec<(String, String)>,
}

/// Which column set and row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordRef {
    Switch(usize),
    Wakeup(usize),
    Migration(usize),
    Other(usize),
}

/// The row of `ts` (with `cpu[i] == want`) nearest `t` within `tol`, with its distance.
fn nearest(ts: &[u64], cpu: &[u32], want: u32, t: u64, tol: u64) -> Option<(u64, usize)> {
    let p = ts.partition_point(|&x| x < t);
    let mut best: Option<(u64, usize)> = None;
    let mut consider = |i: usize| {
        if cpu[i] != want {
            return;
        }
        let d = ts[i].abs_diff(t);
        if d <= tol && best.is_none_or(|(b, _)| d < b) {
            best = Some((d, i));
        }
    };
    for i in (p.saturating_sub(SCAN)..p).rev() {
        if t.saturating_sub(ts[i]) > tol {
            break;
        }
        consider(i);
    }
    for (i, &x) in ts.iter().enumerate().skip(p).take(SCAN) {
        if x.saturating_sub(t) > tol {
            break;
        }
        consider(i);
    }
    best
}

/// The record of `cpu` nearest `t` (absolute ns) within `tol` ns.
pub fn record_near(store: &TraceStore, cpu: u32, t: u64, tol: u64) -> Option<RecordRef> {
    let cands = [
        nearest(&store.switches.ts, &store.switches.cpu, cpu, t, tol).map(|(d, i)| (d, 0, RecordRef::Switch(i))),
        nearest(&store.wakeups.ts, &store.wakeups.cpu, cpu, t, tol).map(|(d, i)| (d, 1, RecordRef::Wakeup(i))),
        nearest(&store.migrations.ts, &store.migrations.cpu, cpu, t, tol).map(|(d, i)| (d, 2, RecordRef::Migration(i))),
        nearest(&store.others.ts, &store.others.cpu, cpu, t, tol).map(|(d, i)| (d, 3, RecordRef::Other(i))),
    ];
    // Nearest first; on a tie the scheduler events win over the others.
    cands.into_iter().flatten().min_by_key(|&(d, k, _)| (d, k)).map(|(_, _, r)| r)
}

fn comm(store: &TraceStore, t: &Task) -> String {
    t.comms.last().map_or_else(|| "<...>".to_string(), |&c| store.comms.get(c).to_string())
}

fn kv(k: &str, v: impl ToString) -> (String, String) {
    (k.to_string(), v.to_string())
}

/// Renders a record back to its event and fields.
pub fn view(store: &TraceStore, r: RecordRef) -> RecordView {
    let task = |i: u32| &store.tasks[i as usize];
    match r {
        RecordRef::Switch(i) => {
            let s = &store.switches;
            let (p, n) = (task(s.prev[i]), task(s.next[i]));
            RecordView {
                event: "sched_switch".into(),
                ts_ns: s.ts[i],
                cpu: s.cpu[i],
                line: s.line[i],
                pid: Some(p.pid),
                comm: Some(comm(store, p)),
                fields: vec![
                    kv("prev_comm", comm(store, p)),
                    kv("prev_pid", p.pid),
                    kv("prev_state", s.prev_state[i].kernel_text()),
                    kv("next_comm", comm(store, n)),
                    kv("next_pid", n.pid),
                ],
            }
        }
        RecordRef::Wakeup(i) => {
            let w = &store.wakeups;
            let (waker, wakee) = (task(w.waker[i]), task(w.wakee[i]));
            let event = match w.kind[i] {
                WakeKind::Waking => "sched_waking",
                WakeKind::Wakeup => "sched_wakeup",
                WakeKind::WakeupNew => "sched_wakeup_new",
            };
            RecordView {
                event: event.into(),
                ts_ns: w.ts[i],
                cpu: w.cpu[i],
                line: w.line[i],
                pid: Some(waker.pid),
                comm: Some(comm(store, waker)),
                fields: vec![
                    kv("comm", comm(store, wakee)),
                    kv("pid", wakee.pid),
                    kv("target_cpu", format!("{:03}", w.target_cpu[i])),
                ],
            }
        }
        RecordRef::Migration(i) => {
            let m = &store.migrations;
            let t = task(m.task[i]);
            RecordView {
                event: "sched_migrate_task".into(),
                ts_ns: m.ts[i],
                cpu: m.cpu[i],
                line: m.line[i],
                pid: None,
                comm: None,
                fields: vec![
                    kv("comm", comm(store, t)),
                    kv("pid", t.pid),
                    kv("orig_cpu", m.orig_cpu[i]),
                    kv("dest_cpu", m.dest_cpu[i]),
                ],
            }
        }
        RecordRef::Other(i) => {
            let o = &store.others;
            let cur = task(o.task[i]);
            RecordView {
                event: store.events.get(o.event[i]).to_string(),
                ts_ns: o.ts[i],
                cpu: o.cpu[i],
                line: o.line[i],
                pid: Some(cur.pid),
                comm: Some(comm(store, cur)),
                fields: store.other_fields(i).into_iter().map(|(k, v)| kv(k, v)).collect(),
            }
        }
    }
}

/// The state letters of a [`PrevState::code`] (`R`, `R+`, `S`, `D|S`, ...), `running` for a
/// span still on the CPU when the trace ended, `?` for one whose switch-out is missing.
pub fn state_text(code: u32) -> String {
    if code == super::timeline::OPEN {
        return "running".to_string();
    }
    if code == super::timeline::LOST {
        return "?".to_string();
    }
    PrevState::from_code(code).kernel_text()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::import_text;

    #[test]
    fn nearest_record_of_the_cpu() {
        let text = "# tracer: nop\n\
            a-10 [000] d..2. 1.000000: sched_switch: prev_comm=a prev_pid=10 prev_prio=120 prev_state=S ==> next_comm=b next_pid=11 next_prio=120\n\
            b-11 [001] d..2. 1.000010: sched_stat_runtime: comm=b pid=11 runtime=500 [ns]\n\
            b-11 [000] dNh2. 1.000050: sched_wakeup: comm=a pid=10 prio=120 target_cpu=001\n";
        let (store, _) = import_text(text.as_bytes());
        // Nearest on CPU 0 to 1.000040 s: the wakeup (10 µs away), not CPU 1's record.
        let r = record_near(&store, 0, 1_000_040_000, 20_000).unwrap();
        let v = view(&store, r);
        assert_eq!(v.event, "sched_wakeup");
        assert_eq!(v.line, 4);
        assert_eq!(v.comm.as_deref(), Some("b"));
        assert_eq!(v.fields[0], ("comm".to_string(), "a".to_string()));
        let v = view(&store, record_near(&store, 1, 1_000_000_000, 20_000).unwrap());
        assert_eq!(v.event, "sched_stat_runtime");
        assert_eq!(v.fields[2], ("runtime".to_string(), "500 [ns]".to_string()));
        let v = view(&store, record_near(&store, 0, 1_000_000_000, 0).unwrap());
        assert_eq!(v.fields[2], ("prev_state".to_string(), "S".to_string()));
        assert!(record_near(&store, 0, 1_000_020_000, 5_000).is_none());
        assert_eq!(state_text(PrevState::Preempted.code()), "R+");
    }
}
