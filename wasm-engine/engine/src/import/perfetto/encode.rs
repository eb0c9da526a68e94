//! An imported trace ([`TraceStore`]) written as a Perfetto `Trace`, with the generated prost
//! types: the start of the Perfetto export (issue 19), and how the repository makes its own
//! Perfetto fixtures from its captures.
//!
//! Written: a `process_tree` packet naming every task (`Thread { tid, name }` with the comm the
//! task had last), then `ftrace_events` bundles per CPU, each CPU's records in file order, a
//! bundle closed every [`BUNDLE`] records of its CPU (so bundles of different CPUs overlap in
//! time, as Perfetto's per-CPU readers write them). Records: `sched_switch`, `sched_waking`,
//! `sched_wakeup`, `sched_wakeup_new`, `sched_migrate_task`, the `sched_process_exit`,
//! `sched_process_fork`, `sched_process_free` other events (their `pid`, `comm`, `child_pid`,
//! `child_comm` fields), and every other event as a `GenericFtraceEvent` (Perfetto's form for
//! events it has no typed proto for, such as `sched_stat_runtime`), its fields as strings. [`Form::Compact`] puts switches and
//! wakings in `compact_sched` arrays instead (timestamps delta-encoded, comms interned per
//! bundle), as `traced_probes` does with `compact_sched` enabled.
//!
//! Shortcuts, named: the store keeps one prio per task (its last), so every record of a task
//! carries that prio (120 when none was printed); a switch's `prev_state` is the kernel 4.14+
//! report value (`R` 0, `R+` 0x100, the `S`… bits; raw numbers as they were).

use super::pb::ftrace_event::Event;
use super::pb::ftrace_event_bundle::CompactSched;
use super::pb::process_tree::Thread;
use super::pb::trace_packet::Data;
use super::pb::*;
use crate::import::record::{PrevState, WakeKind};
use crate::import::TraceStore;
use prost::Message;
use std::collections::BTreeMap;

/// Records of one CPU per bundle.
pub const BUNDLE: usize = 512;

/// How switches and wakings are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// Every event a regular `FtraceEvent`.
    Regular,
    /// `sched_switch` and `sched_waking` in `compact_sched` arrays.
    Compact,
}

/// Appends one `TracePacket` to a serialised `Trace` (a `Trace` is its packets, each a
/// length-delimited field 1, so appending is concatenating): on sequence `seq`, at `ts` (the
/// default, boot, clock) when given, with `sequence_flags` when given.
pub fn append_packet(out: &mut Vec<u8>, seq: u32, ts: Option<u64>, flags: Option<u32>, data: Data) {
    let seq = Some(trace_packet::OptionalTrustedPacketSequenceId::TrustedPacketSequenceId(seq));
    let p = TracePacket {
        timestamp: ts,
        sequence_flags: flags,
        data: Some(data),
        optional_trusted_packet_sequence_id: seq,
        ..Default::default()
    };
    Trace { packet: vec![p] }.encode(out).expect("a Vec grows");
}

/// The kernel 4.14+ raw `prev_state` of a decoded one.
pub fn raw_state(s: PrevState) -> i64 {
    match s {
        PrevState::Runnable => 0,
        PrevState::Preempted => 0x100,
        PrevState::Blocked(bits) => i64::from(bits),
        PrevState::Raw(n) => n,
    }
}

/// One CPU's bundle being filled.
#[derive(Default)]
struct Pending {
    events: Vec<FtraceEvent>,
    compact: CompactSched,
    intern: BTreeMap<String, u32>,
    last_switch_ts: u64,
    last_waking_ts: u64,
    n: usize,
}

impl Pending {
    fn intern(&mut self, comm: &str) -> u32 {
        if let Some(&i) = self.intern.get(comm) {
            return i;
        }
        let i = self.compact.intern_table.len() as u32;
        self.compact.intern_table.push(comm.to_string());
        self.intern.insert(comm.to_string(), i);
        i
    }
}

struct Writer<'a> {
    store: &'a TraceStore,
    form: Form,
    cpus: Vec<Pending>,
    out: Vec<u8>,
}

impl Writer<'_> {
    fn packet(&mut self, data: Data) {
        append_packet(&mut self.out, 1, None, None, data);
    }

    fn comm(&self, task: u32) -> String {
        let t = &self.store.tasks[task as usize];
        match t.comms.last() {
            Some(&c) => self.store.comms.get(c).to_string(),
            None if t.pid == 0 => "swapper".to_string(),
            None => String::new(),
        }
    }
    fn pid(&self, task: u32) -> i32 {
        self.store.tasks[task as usize].pid
    }
    fn prio(&self, task: u32) -> i32 {
        self.store.tasks[task as usize].prio.unwrap_or(120)
    }

    fn pending(&mut self, cpu: u32) -> &mut Pending {
        let c = cpu as usize;
        if self.cpus.len() <= c {
            self.cpus.resize_with(c + 1, Pending::default);
        }
        &mut self.cpus[c]
    }

    fn regular(&mut self, cpu: u32, ts: u64, current: u32, event: Event) {
        let pid = self.pid(current) as u32;
        let ev = FtraceEvent { timestamp: Some(ts), pid: Some(pid), common_flags: None, event: Some(event) };
        let p = self.pending(cpu);
        p.events.push(ev);
        self.counted(cpu);
    }

    fn counted(&mut self, cpu: u32) {
        let p = self.pending(cpu);
        p.n += 1;
        if p.n >= BUNDLE {
            self.flush(cpu);
        }
    }

    fn flush(&mut self, cpu: u32) {
        let p = std::mem::take(self.pending(cpu));
        if p.n == 0 {
            return;
        }
        let compact =
            (!p.compact.switch_timestamp.is_empty() || !p.compact.waking_timestamp.is_empty()).then_some(p.compact);
        let b = FtraceEventBundle { cpu: Some(cpu), event: p.events, compact_sched: compact, ..Default::default() };
        self.packet(Data::FtraceEvents(b));
    }

    fn switch(&mut self, i: usize) {
        let s = &self.store.switches;
        let (ts, cpu, prev, next, state) = (s.ts[i], s.cpu[i], s.prev[i], s.next[i], s.prev_state[i]);
        if self.form == Form::Compact {
            let (next_pid, next_prio, next_comm) = (self.pid(next), self.prio(next), self.comm(next));
            let p = self.pending(cpu);
            let idx = p.intern(&next_comm);
            let c = &mut p.compact;
            c.switch_timestamp.push(ts.wrapping_sub(p.last_switch_ts));
            p.last_switch_ts = ts;
            c.switch_prev_state.push(raw_state(state));
            c.switch_next_pid.push(next_pid);
            c.switch_next_prio.push(next_prio);
            c.switch_next_comm_index.push(idx);
            return self.counted(cpu);
        }
        let e = SchedSwitchFtraceEvent {
            prev_comm: Some(self.comm(prev)),
            prev_pid: Some(self.pid(prev)),
            prev_prio: Some(self.prio(prev)),
            prev_state: Some(raw_state(state)),
            next_comm: Some(self.comm(next)),
            next_pid: Some(self.pid(next)),
            next_prio: Some(self.prio(next)),
        };
        self.regular(cpu, ts, prev, Event::SchedSwitch(e));
    }

    fn wakeup(&mut self, i: usize) {
        let w = &self.store.wakeups;
        let (ts, cpu, waker, wakee, target, kind) =
            (w.ts[i], w.cpu[i], w.waker[i], w.wakee[i], w.target_cpu[i], w.kind[i]);
        let (comm, pid, prio) = (self.comm(wakee), self.pid(wakee), self.prio(wakee));
        if self.form == Form::Compact && kind == WakeKind::Waking {
            let p = self.pending(cpu);
            let idx = p.intern(&comm);
            let c = &mut p.compact;
            c.waking_timestamp.push(ts.wrapping_sub(p.last_waking_ts));
            p.last_waking_ts = ts;
            c.waking_pid.push(pid);
            c.waking_target_cpu.push(target);
            c.waking_prio.push(prio);
            c.waking_comm_index.push(idx);
            return self.counted(cpu);
        }
        let (comm, pid, prio, success, target_cpu) = (Some(comm), Some(pid), Some(prio), None, Some(target));
        let ev = match kind {
            WakeKind::Waking => Event::SchedWaking(SchedWakingFtraceEvent { comm, pid, prio, success, target_cpu }),
            WakeKind::Wakeup => Event::SchedWakeup(SchedWakeupFtraceEvent { comm, pid, prio, success, target_cpu }),
            WakeKind::WakeupNew => {
                Event::SchedWakeupNew(SchedWakeupNewFtraceEvent { comm, pid, prio, success, target_cpu })
            }
        };
        self.regular(cpu, ts, waker, ev);
    }

    fn migration(&mut self, i: usize) {
        let m = &self.store.migrations;
        let (ts, cpu, cur, task) = (m.ts[i], m.cpu[i], m.current[i], m.task[i]);
        let e = SchedMigrateTaskFtraceEvent {
            comm: Some(self.comm(task)),
            pid: Some(self.pid(task)),
            prio: Some(self.prio(task)),
            orig_cpu: Some(m.orig_cpu[i]),
            dest_cpu: Some(m.dest_cpu[i]),
            running: None,
            load: None,
        };
        self.regular(cpu, ts, cur, Event::SchedMigrateTask(e));
    }

    /// Other event `i`: the process lifecycle ones typed, every other one as a
    /// `GenericFtraceEvent` (name and fields as strings).
    fn other(&mut self, i: usize) {
        let o = &self.store.others;
        let name = self.store.events.get(o.event[i]);
        let fields = self.store.other_fields(i);
        let get = |k: &str| fields.iter().find(|(n, _)| *n == k).map(|(_, v)| v.to_string());
        let num = |k: &str| get(k).and_then(|v| v.parse::<i32>().ok());
        let ev = match name {
            "sched_process_exit" => Event::SchedProcessExit(SchedProcessExitFtraceEvent {
                comm: get("comm"),
                pid: num("pid"),
                tgid: num("tgid"),
                prio: num("prio"),
            }),
            "sched_process_free" => Event::SchedProcessFree(SchedProcessFreeFtraceEvent {
                comm: get("comm"),
                pid: num("pid"),
                prio: num("prio"),
            }),
            "sched_process_fork" => Event::SchedProcessFork(SchedProcessForkFtraceEvent {
                parent_comm: get("comm"),
                parent_pid: num("pid"),
                child_comm: get("child_comm"),
                child_pid: num("child_pid"),
            }),
            _ => Event::Generic(GenericFtraceEvent {
                event_name: Some(name.to_string()),
                field: fields
                    .iter()
                    .map(|(k, v)| generic_ftrace_event::Field {
                        name: Some(k.to_string()),
                        value: Some(generic_ftrace_event::field::Value::StrValue(v.to_string())),
                    })
                    .collect(),
            }),
        };
        self.regular(o.cpu[i], o.ts[i], o.task[i], ev);
    }
}

/// `store` as a serialised Perfetto `Trace`.
pub fn encode(store: &TraceStore, form: Form) -> Vec<u8> {
    let mut w = Writer { store, form, cpus: Vec::new(), out: Vec::new() };
    let mut threads: BTreeMap<i32, String> = BTreeMap::new();
    for (i, t) in store.tasks.iter().enumerate() {
        let c = w.comm(i as u32);
        if !c.is_empty() {
            threads.insert(t.pid, c);
        }
    }
    let threads =
        threads.into_iter().map(|(tid, name)| Thread { tid: Some(tid), name: Some(name), ..Default::default() });
    w.packet(Data::ProcessTree(ProcessTree { threads: threads.collect(), ..Default::default() }));
    let lines = [&store.switches.line, &store.wakeups.line, &store.migrations.line, &store.others.line];
    let mut next = [0usize; 4];
    while let Some(k) = (0..4).filter(|&k| next[k] < lines[k].len()).min_by_key(|&k| lines[k][next[k]]) {
        let i = next[k];
        next[k] += 1;
        match k {
            0 => w.switch(i),
            1 => w.wakeup(i),
            2 => w.migration(i),
            _ => w.other(i),
        }
    }
    for cpu in 0..w.cpus.len() as u32 {
        w.flush(cpu);
    }
    w.out
}
