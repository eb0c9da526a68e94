//! The `TrackEvent` part of a simulated run's Perfetto trace (sequence 2, after the ftrace
//! part): the thread groups, per task counter tracks of the EEVDF state, and per CPU instant
//! tracks of the decisions with their "why".
//!
//! * A `process_tree` with one process per cgroup (pid [`super::CGROUP_PID_BASE`]` + group`,
//!   named by its path) holding its tasks as threads, and each root-group task as a process
//!   of its own.
//! * Per task, a thread track (`ThreadDescriptor`) with four counter tracks under it:
//!   `vruntime`, `deadline`, `vlag` and `V` (the `avg_vruntime` of the cfs_rq it is queued
//!   on), in ns, from the log's samples; a value is written when it changed. Group entities'
//!   samples are not written.
//! * Per CPU, three instant tracks: `picks` (each pick decision, one per level, with
//!   `why::pick_words` and the reason, the queue's V and the candidate count), `placements`
//!   (`select_task_rq` rows and migrations, `why_cpu`'s words) and `balance` (the passes that
//!   found an imbalance, `why_cpu::balance_words`).

use super::Names;
use crate::import::perfetto::encode::append_packet;
use crate::import::perfetto::pb::debug_annotation::{NameField as AnnName, Value as AnnValue};
use crate::import::perfetto::pb::process_tree::{Process, Thread};
use crate::import::perfetto::pb::trace_packet::Data;
use crate::import::perfetto::pb::track_descriptor::StaticOrDynamicName;
use crate::import::perfetto::pb::track_event::{CounterValueField, NameField, Type};
use crate::import::perfetto::pb::{
    counter_descriptor, CounterDescriptor, DebugAnnotation, ProcessTree, ThreadDescriptor, TrackDescriptor, TrackEvent,
};
use crate::obs::explain::node_name;
use crate::obs::log::{EventKind, PickReason, NO_TASK};
use crate::obs::why::pick_words;
use crate::obs::why_cpu::{balance_words, migration_words, placement_words};
use crate::sched::group::GROUP_NODE;
use crate::sim::Simulation;
use std::collections::BTreeSet;

/// The track events' packet sequence (the ftrace part is sequence 1).
const SEQ: u32 = 2;
/// `TracePacket.sequence_flags`: `SEQ_INCREMENTAL_STATE_CLEARED`, `SEQ_NEEDS_INCREMENTAL_STATE`.
const CLEARED: u32 = 1;
const NEEDS: u32 = 2;

/// The counter tracks of a task, in uuid order.
pub const COUNTERS: [&str; 4] = ["vruntime", "deadline", "vlag", "V"];
/// The instant tracks of a CPU, in uuid order.
pub const DECISIONS: [&str; 3] = ["picks", "placements", "balance"];

fn thread_uuid(task: u32) -> u64 {
    0x1_0000_0000 + u64::from(task)
}
fn counter_uuid(task: u32, k: usize) -> u64 {
    0x2_0000_0000 + u64::from(task) * 4 + k as u64
}
fn cpu_uuid(cpu: u32, k: usize) -> u64 {
    0x3_0000_0000 + u64::from(cpu) * 4 + k as u64
}

fn ann(name: &str, value: AnnValue) -> DebugAnnotation {
    DebugAnnotation { name_field: Some(AnnName::Name(name.to_string())), value: Some(value), ..Default::default() }
}

fn text(name: &str, s: String) -> DebugAnnotation {
    ann(name, AnnValue::StringValue(s))
}

fn int(name: &str, v: i64) -> DebugAnnotation {
    ann(name, AnnValue::IntValue(v))
}

struct Out<'a> {
    out: &'a mut Vec<u8>,
    first: bool,
}

impl Out<'_> {
    fn descriptor(&mut self, d: TrackDescriptor) {
        let flags = std::mem::take(&mut self.first).then_some(CLEARED);
        append_packet(self.out, SEQ, None, flags, Data::TrackDescriptor(d));
    }
    fn event(&mut self, ts: u64, e: TrackEvent) {
        append_packet(self.out, SEQ, Some(ts), Some(NEEDS), Data::TrackEvent(e));
    }
    fn instant(&mut self, ts: u64, track: u64, name: String, args: Vec<DebugAnnotation>) {
        let e = TrackEvent {
            r#type: Some(Type::Instant as i32),
            track_uuid: Some(track),
            name_field: Some(NameField::Name(name)),
            debug_annotations: args,
            ..Default::default()
        };
        self.event(ts, e);
    }
}

/// Appends the thread groups, the counter tracks and the decision tracks of `sim`'s run.
pub fn append(sim: &Simulation, names: &Names, out: &mut Vec<u8>) {
    let ntasks = names.comm.len() as u32;
    // Thread groups.
    let used: BTreeSet<u32> = names.tg.iter().copied().filter(|&g| g != 0).collect();
    let mut processes: Vec<Process> = used
        .iter()
        .map(|&g| Process {
            pid: Some(super::CGROUP_PID_BASE + g as i32),
            ppid: Some(0),
            cmdline: vec![names.groups.get(g as usize).cloned().unwrap_or_default()],
            cmdline_is_comm: Some(true),
            ..Default::default()
        })
        .collect();
    processes.extend((0..ntasks).filter(|&t| names.tg[t as usize] == 0).map(|t| Process {
        pid: Some(names.pid(t)),
        ppid: Some(0),
        cmdline: vec![names.comm[t as usize].clone()],
        cmdline_is_comm: Some(true),
        ..Default::default()
    }));
    let threads = (0..ntasks)
        .map(|t| Thread {
            tid: Some(names.pid(t)),
            tgid: Some(names.tgid(t)),
            name: Some(names.comm[t as usize].clone()),
            ..Default::default()
        })
        .collect();
    append_packet(out, SEQ, None, None, Data::ProcessTree(ProcessTree { processes, threads, ..Default::default() }));

    let mut o = Out { out, first: true };
    // Tracks.
    for t in 0..ntasks {
        let thread = ThreadDescriptor {
            pid: Some(names.tgid(t)),
            tid: Some(i64::from(names.pid(t))),
            thread_name: Some(names.comm[t as usize].clone()),
            ..Default::default()
        };
        o.descriptor(TrackDescriptor { uuid: Some(thread_uuid(t)), thread: Some(thread), ..Default::default() });
        for (k, name) in COUNTERS.iter().enumerate() {
            o.descriptor(TrackDescriptor {
                uuid: Some(counter_uuid(t, k)),
                parent_uuid: Some(thread_uuid(t)),
                static_or_dynamic_name: Some(StaticOrDynamicName::Name(name.to_string())),
                counter: Some(CounterDescriptor {
                    unit: Some(counter_descriptor::Unit::TimeNs as i32),
                    ..Default::default()
                }),
                ..Default::default()
            });
        }
    }
    let ncpus = sim.cpus.len() as u32;
    for cpu in 0..ncpus {
        for (k, name) in DECISIONS.iter().enumerate() {
            o.descriptor(TrackDescriptor {
                uuid: Some(cpu_uuid(cpu, k)),
                static_or_dynamic_name: Some(StaticOrDynamicName::Name(format!("CPU {cpu} {name} (schedlab)"))),
                ..Default::default()
            });
        }
    }

    // Events, in time order: samples, picks and the event rows merged by time.
    let log = &sim.fair.log;
    let groups = &names.groups;
    let name = |n: u32| {
        node_name(n, &|k| names.comm.get(k as usize).cloned(), &|g| groups.get(g as usize).map(|p| p.to_string()))
    };
    let (s, p, e) = (&log.samples, &log.picks, &log.events);
    let mut last: Vec<[Option<i64>; 4]> = vec![[None; 4]; ntasks as usize];
    let (mut i, mut j, mut k) = (0, 0, 0);
    loop {
        let ts = [s.t.get(i), p.t.get(j), e.t.get(k)];
        let Some(which) = (0..3).filter(|&w| ts[w].is_some()).min_by_key(|&w| ts[w]) else { break };
        match which {
            0 => {
                let t = s.task[i];
                if t & GROUP_NODE == 0 && t < ntasks {
                    let v = [s.vruntime[i] as i64, s.deadline[i] as i64, s.vlag[i], s.avg_vruntime[i] as i64];
                    for (c, &val) in v.iter().enumerate() {
                        if last[t as usize][c] != Some(val) {
                            last[t as usize][c] = Some(val);
                            let ev = TrackEvent {
                                r#type: Some(Type::Counter as i32),
                                track_uuid: Some(counter_uuid(t, c)),
                                counter_value_field: Some(CounterValueField::CounterValue(val)),
                                ..Default::default()
                            };
                            o.event(s.t[i], ev);
                        }
                    }
                }
                i += 1;
            }
            1 => {
                let reason = PickReason::from_u8(p.reason[j]).map_or("?", |r| r.name());
                let args = vec![
                    text("why", pick_words(log, j, &name, &sim.fair.feat)),
                    text("reason", reason.to_string()),
                    int("V", p.avg_vruntime[j] as i64),
                    int("candidates", i64::from(p.cand_len[j])),
                ];
                o.instant(p.t[j], cpu_uuid(u32::from(p.cpu[j]), 0), format!("pick {}", name(p.task[j])), args);
                j += 1;
            }
            _ => {
                let cpu = u32::from(e.cpu[k]);
                match EventKind::from_u8(e.kind[k]) {
                    Some(EventKind::SelectRq) => {
                        let args = vec![text("why", placement_words(log, k, &name))];
                        let title = format!("place {} on CPU {cpu}", name(e.task[k]));
                        o.instant(e.t[k], cpu_uuid(cpu, 1), title, args);
                    }
                    Some(EventKind::Migrate) => {
                        let args = vec![text("why", migration_words(log, k, &name))];
                        let title = format!("migrate {} CPU {} → {cpu}", name(e.task[k]), e.val[k]);
                        o.instant(e.t[k], cpu_uuid(cpu, 1), title, args);
                    }
                    Some(EventKind::Balance) if e.task[k] == NO_TASK => {
                        let args = vec![text("why", balance_words(log, k))];
                        o.instant(e.t[k], cpu_uuid(cpu, 2), "load balance".to_string(), args);
                    }
                    _ => {}
                }
                k += 1;
            }
        }
    }
}
