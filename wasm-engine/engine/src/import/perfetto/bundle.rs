//! One `FtraceEventBundle` (one CPU's ftrace events for a stretch of time) as records.
//!
//! * Regular `FtraceEvent`s: `timestamp`, `pid` (the current task: the kernel's `common_pid`),
//!   `common_flags` (the kernel's `trace_flag_type` bits) and the event (`events.rs`). The comm of
//!   the current task comes from the names learnt so far (process tree, `task_rename`,
//!   `task_newtask`, fork, and every comm a sched event printed); `<...>` when none is known.
//! * `compact_sched`: the switch and waking arrays, whose timestamps are delta-encoded (the
//!   first absolute, each next relative to the one before, separately for each array) and whose
//!   comms are indices into the bundle's `intern_table`. A compact switch omits the previous
//!   task, which is the CPU's current task: the last switch's next, or the `pid` of a later
//!   regular event on that CPU; pid −1 (`<...>`) for a CPU's first switch when no record named
//!   one. Its `prev_prio` is that task's last known prio (120 when
//!   unknown). A compact waking omits the waker: it is the CPU's current task, likewise.
//! * The records go to the time-ordered merge (`merge.rs`); who was current, the compact
//!   switch's previous task and the comms are resolved when a record leaves it, in time order
//!   ([`Tasks::release`]), so a CPU's stretches written out of order still chain correctly.
//! * `lost_events` → [`TraceSink::lost`] with count 0 (Perfetto flags the loss, not its size).
//!
//! Damage (unequal compact arrays, a CPU number above [`MAX_CPU`], an event without timestamp or
//! without an event) is a located skip: the byte offset of the packet.

use super::events::{event_name, payload, unknown_event_field, StateLayout};
use super::merge::Merge;
use super::pb::ftrace_event_bundle::CompactSched;
use super::pb::{FtraceEvent, FtraceEventBundle};
use crate::import::record::{SchedPayload, Skipped, TraceRecord, TraceSink, WakeKind, MAX_CPU};
use prost::encoding::{decode_key, decode_varint, skip_field, DecodeContext, WireType};
use std::collections::BTreeMap;

/// Task names and per-CPU current tasks, carried from bundle to bundle.
#[derive(Debug, Default)]
pub struct Tasks {
    pub comms: BTreeMap<i32, String>,
    prios: BTreeMap<i32, i32>,
    /// Per CPU: the current task's pid (a switch's next, or the `pid` of any other record).
    cur: Vec<Option<i32>>,
}

impl Tasks {
    pub fn comm(&self, pid: i32) -> String {
        match self.comms.get(&pid) {
            Some(c) => c.clone(),
            None if pid == 0 => "<idle>".to_string(),
            None => "<...>".to_string(),
        }
    }
    fn name(&mut self, pid: i32, comm: &str) {
        if comm.is_empty() || comm.starts_with('<') {
            return;
        }
        if self.comms.get(&pid).map(String::as_str) != Some(comm) {
            self.comms.insert(pid, comm.to_string());
        }
    }
    fn cur(&mut self, cpu: u32) -> &mut Option<i32> {
        let c = cpu as usize;
        if self.cur.len() <= c {
            self.cur.resize(c + 1, None);
        }
        &mut self.cur[c]
    }
    /// Completes a record leaving the merge, in time order: a compact switch's previous task
    /// ([`UNRESOLVED`] `prev_pid`) and a compact waking's waker ([`UNRESOLVED`] `pid`) are the
    /// CPU's current task; the comm of the current task is filled in; then the record teaches
    /// names, prios and who runs.
    pub fn release(&mut self, rec: &mut TraceRecord) {
        let cpu = rec.cpu;
        if let SchedPayload::Switch { prev_pid, prev_comm, prev_prio, .. } = &mut rec.payload {
            if *prev_pid == UNRESOLVED {
                *prev_pid = self.cur(cpu).unwrap_or(-1);
                *prev_comm = self.comm(*prev_pid);
                *prev_prio = self.prios.get(prev_pid).copied().unwrap_or(120);
                rec.pid = *prev_pid;
            }
        }
        if rec.pid == UNRESOLVED {
            rec.pid = self.cur(cpu).unwrap_or(-1);
        }
        self.learn(cpu, rec.pid, &rec.event, &rec.payload);
        rec.comm = match &rec.payload {
            SchedPayload::Switch { prev_pid, prev_comm, .. } if *prev_pid == rec.pid && !prev_comm.is_empty() => {
                prev_comm.clone()
            }
            _ => self.comm(rec.pid),
        };
    }

    /// What a record teaches: names, prios, who runs.
    fn learn(&mut self, cpu: u32, pid: i32, event: &str, p: &SchedPayload) {
        match p {
            SchedPayload::Switch { prev_comm, prev_pid, prev_prio, next_comm, next_pid, next_prio, .. } => {
                self.name(*prev_pid, prev_comm);
                self.name(*next_pid, next_comm);
                self.prios.insert(*prev_pid, *prev_prio);
                self.prios.insert(*next_pid, *next_prio);
                *self.cur(cpu) = Some(*next_pid);
            }
            SchedPayload::Wakeup { comm, pid: p, prio, .. } | SchedPayload::MigrateTask { comm, pid: p, prio, .. } => {
                self.name(*p, comm);
                self.prios.insert(*p, *prio);
            }
            SchedPayload::Other { fields, .. }
                if matches!(event, "task_rename" | "task_newtask" | "sched_process_fork" | "sched_process_free") =>
            {
                let get = |k: &str| fields.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
                let num = |k: &str| get(k).and_then(|v| v.parse::<i32>().ok());
                if let (Some(p), Some(c)) = (num("pid"), get("newcomm")) {
                    self.name(p, c); // task_rename
                } else if let (Some(p), Some(c)) = (num("child_pid"), get("child_comm")) {
                    self.name(p, c); // sched_process_fork
                } else if let (Some(p), Some(c)) = (num("pid"), get("comm")) {
                    self.name(p, c); // task_newtask, sched_process_free
                }
            }
            SchedPayload::Other { .. } => {}
        }
        if pid >= 0 && !matches!(p, SchedPayload::Switch { .. }) {
            *self.cur(cpu) = Some(pid);
        }
    }
}

/// For each regular event of the bundle in `packet` (a serialised `TracePacket`), the oneof field
/// number the generated type did not know (read with prost's key decoder). Only called for a
/// bundle holding such events.
fn unknown_fields(packet: &[u8]) -> Vec<Option<u32>> {
    let mut out = Vec::new();
    let mut b = packet;
    let ctx = DecodeContext::default;
    let field = |b: &mut &[u8]| -> Option<(u32, WireType)> { decode_key(b).ok() };
    while let Some((tag, wt)) = field(&mut b) {
        if tag == 1 && wt == WireType::LengthDelimited {
            let Ok(len) = decode_varint(&mut b) else { break };
            let Some((mut bundle, rest)) = b.split_at_checked(len as usize) else { break };
            b = rest;
            while let Some((t, w)) = field(&mut bundle) {
                if t == 2 && w == WireType::LengthDelimited {
                    let Ok(l) = decode_varint(&mut bundle) else { break };
                    let Some((ev, rest)) = bundle.split_at_checked(l as usize) else { break };
                    out.push(unknown_event_field(ev));
                    bundle = rest;
                } else if skip_field(w, t, &mut bundle, ctx()).is_err() {
                    break;
                }
            }
        } else if skip_field(wt, tag, &mut b, ctx()).is_err() {
            break;
        }
    }
    out
}

/// A pid the merge resolves at release ([`Tasks::release`]).
pub const UNRESOLVED: i32 = i32::MIN;

/// Decodes bundles into the merge.
pub struct BundleReader<'a, S: ?Sized> {
    pub tasks: &'a mut Tasks,
    pub merge: &'a mut Merge,
    pub layout: StateLayout,
    pub sink: &'a mut S,
    /// Byte offset of the packet (for skips).
    pub at: u64,
}

enum Item {
    Switch(usize),
    Waking(usize),
}

impl<S: TraceSink + ?Sized> BundleReader<'_, S> {
    fn skip(&mut self, reason: String) {
        self.sink.skipped(Skipped { line: self.at, column: 0, reason });
    }

    /// Returns (compact switches, compact wakings) read.
    pub fn bundle(&mut self, b: FtraceEventBundle, packet: &[u8]) -> (u64, u64) {
        let cpu = b.cpu.unwrap_or(0);
        if cpu > MAX_CPU {
            self.skip(format!("an FtraceEventBundle cpu of at most {MAX_CPU} (bundle skipped)"));
            return (0, 0);
        }
        if b.lost_events == Some(true) {
            self.sink.lost(cpu, 0, self.at);
        }
        let unknown = if b.event.iter().any(|e| e.event.is_none()) { unknown_fields(packet) } else { Vec::new() };
        // The merge orders by time; equal times keep this order (regular events, then compact
        // switches, then compact wakings).
        for (i, e) in b.event.into_iter().enumerate() {
            let Some(ts) = e.timestamp else {
                self.skip("an FtraceEvent timestamp (event skipped)".to_string());
                continue;
            };
            if let Some(rec) = self.regular(cpu, ts, e, unknown.get(i).copied().flatten()) {
                self.merge.push(rec, self.tasks, self.sink);
            }
        }
        let Some(cs) = b.compact_sched else { return (0, 0) };
        let mut items = Vec::new();
        let (nsw, nwk) = self.compact_items(&cs, &mut items);
        for (ts, item) in items {
            let rec = match item {
                Item::Switch(j) => self.compact_switch(cpu, ts, &cs, j),
                Item::Waking(j) => self.compact_waking(cpu, ts, &cs, j),
            };
            self.merge.push(rec, self.tasks, self.sink);
        }
        (nsw as u64, nwk as u64)
    }

    /// The compact entries as items with absolute timestamps; arrays of unequal lengths are
    /// skipped whole.
    fn compact_items(&mut self, cs: &CompactSched, items: &mut Vec<(u64, Item)>) -> (usize, usize) {
        let n = cs.switch_timestamp.len();
        let sw_ok = [
            cs.switch_prev_state.len(),
            cs.switch_next_pid.len(),
            cs.switch_next_prio.len(),
            cs.switch_next_comm_index.len(),
        ]
        .iter()
        .all(|&l| l == n);
        let m = cs.waking_timestamp.len();
        let wk_ok = [cs.waking_pid.len(), cs.waking_target_cpu.len(), cs.waking_prio.len(), cs.waking_comm_index.len()]
            .iter()
            .all(|&l| l == m)
            && (cs.waking_common_flags.is_empty() || cs.waking_common_flags.len() == m);
        let mut push = |arr: &[u64], mk: fn(usize) -> Item| {
            let mut t = 0u64;
            for (j, d) in arr.iter().enumerate() {
                t = t.wrapping_add(*d);
                items.push((t, mk(j)));
            }
        };
        if sw_ok {
            push(&cs.switch_timestamp, Item::Switch);
        }
        if wk_ok {
            push(&cs.waking_timestamp, Item::Waking);
        }
        if !sw_ok {
            self.skip(
                "compact_sched switch arrays of equal lengths (the bundle's compact switches skipped)".to_string(),
            );
        }
        if !wk_ok {
            self.skip(
                "compact_sched waking arrays of equal lengths (the bundle's compact wakings skipped)".to_string(),
            );
        }
        (if sw_ok { n } else { 0 }, if wk_ok { m } else { 0 })
    }

    fn regular(&mut self, cpu: u32, ts: u64, e: FtraceEvent, unknown: Option<u32>) -> Option<TraceRecord> {
        let pid = e.pid.unwrap_or(0) as i32;
        let flags = e.common_flags.map(|f| (f & 0x1f) as u8);
        let (event, payload) = match e.event {
            Some(ev) => payload(ev, self.layout),
            None => match unknown {
                Some(num) => (event_name(num), SchedPayload::Other { fields: Vec::new(), text: None }),
                None => {
                    self.skip("an FtraceEvent with an event (none found; event skipped)".to_string());
                    return None;
                }
            },
        };
        Some(TraceRecord { ts_ns: ts, cpu, pid, comm: String::new(), event, line: 0, flags, payload })
    }

    fn compact_switch(&mut self, cpu: u32, ts: u64, cs: &CompactSched, j: usize) -> TraceRecord {
        let payload = SchedPayload::Switch {
            prev_comm: String::new(),
            prev_pid: UNRESOLVED,
            prev_prio: 0,
            prev_state: self.layout.decode(cs.switch_prev_state[j]),
            next_comm: intern(cs, cs.switch_next_comm_index[j]),
            next_pid: cs.switch_next_pid[j],
            next_prio: cs.switch_next_prio[j],
            extra: Vec::new(),
        };
        let event = "sched_switch".to_string();
        TraceRecord { ts_ns: ts, cpu, pid: UNRESOLVED, comm: String::new(), event, line: 0, flags: None, payload }
    }

    fn compact_waking(&mut self, cpu: u32, ts: u64, cs: &CompactSched, j: usize) -> TraceRecord {
        let payload = SchedPayload::Wakeup {
            kind: WakeKind::Waking,
            comm: intern(cs, cs.waking_comm_index[j]),
            pid: cs.waking_pid[j],
            prio: cs.waking_prio[j],
            target_cpu: cs.waking_target_cpu[j],
            success: None,
            extra: Vec::new(),
        };
        TraceRecord {
            ts_ns: ts,
            cpu,
            pid: UNRESOLVED,
            comm: String::new(),
            event: "sched_waking".to_string(),
            line: 0,
            flags: cs.waking_common_flags.get(j).map(|f| (f & 0x1f) as u8),
            payload,
        }
    }
}

/// The interned comm `i` of a compact bundle (`<...>` when out of the table).
fn intern(cs: &CompactSched, i: u32) -> String {
    cs.intern_table.get(i as usize).cloned().unwrap_or_else(|| "<...>".to_string())
}
