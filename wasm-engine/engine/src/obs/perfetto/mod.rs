//! A simulated run as a Perfetto trace (issue 19, "Perfetto in and out": the export of
//! simulated runs), so that Perfetto shows its CPU tracks and thread states natively.
//!
//! The run's observation log is read into the records a kernel trace of it would hold, those go
//! into a [`TraceStore`] as any imported trace's do, and the importer's encoder
//! ([`crate::import::perfetto::encode`]) writes them after a `system_info` packet (the model's
//! kernel release, its CPU count and HZ): per-CPU `ftrace_events` bundles with
//! `sched_switch`, `sched_waking` + `sched_wakeup` (one pair per model wakeup),
//! `sched_wakeup_new`, `sched_migrate_task` and `sched_process_exit`, and a `process_tree`
//! naming every task. Then `tracks.rs` appends a second `process_tree` with the thread groups
//! and the `TrackEvent`s: per task counter tracks of vruntime, deadline, vlag and its queue's V,
//! and per CPU instant tracks of the picks, placements, migrations and balance passes with their
//! "why" in the `debug_annotations`.
//!
//! Identities: task `i` is pid (= tid) [`TASK_PID_BASE`]` + i` with its scenario name as comm;
//! idle is pid 0 (`swapper/N`); prio is `120 + nice`. Processes: one per cgroup (the tasks of
//! a task group are threads of a process pid [`CGROUP_PID_BASE`]` + group id`, named after the
//! cgroup path), and each task of the root group its own process.
//!
//! Clock: the model's ns, as the packets' default (boot) clock, for ftrace and track events
//! alike. `prev_state` of a switch from the model's reason: `R+` for a tick, a wakeup
//! preemption, an accounting point's preemption or a throttle; `R` for a yield; `S` for a
//! sleep; `X` for an exit (a thread's exit, autoreaped); idle leaves with `R`.
//!
//! Shortcuts, named: a wakeup's `sched_waking` and `sched_wakeup` are both written on the CPU
//! the wakeup ran on (the waker's; the wakee's own CPU for a timer), at the same instant (the
//! model has no IPI-queued wakeups); a migration is written on the CPU of the wakeup that
//! follows it, else (a balance pass) on the destination CPU.

mod tracks;

use crate::import::perfetto::encode::{append_packet, encode, Form};
use crate::import::perfetto::pb::trace_packet::Data;
use crate::import::perfetto::pb::{SystemInfo, Utsname};
use crate::import::record::{state_bits, PrevState, SchedPayload, TraceRecord, TraceSink, WakeKind};
use crate::import::TraceStore;
use crate::obs::log::{EventKind, SwitchReason, NO_TASK};
use crate::sim::Simulation;

/// The kernel release the trace's `system_info` names: the model's (so `prev_state` numbers
/// are read with the 4.14+ layout by any reader).
pub const MODEL_RELEASE: &str = "6.18.44";

/// pid of task 0.
pub const TASK_PID_BASE: i32 = 10_000;
/// pid of the process standing for task group 0 (the root group has none).
pub const CGROUP_PID_BASE: i32 = 1_000;

/// Who is who in the exported trace.
pub struct Names {
    /// Per task: comm.
    pub comm: Vec<String>,
    /// Per task: prio (`120 + nice`).
    pub prio: Vec<i32>,
    /// Per task: task group.
    pub tg: Vec<u32>,
    /// Per task group: cgroup path.
    pub groups: Vec<String>,
}

impl Names {
    /// The names of `sim`'s tasks and groups.
    pub fn of(sim: &Simulation) -> Names {
        Names {
            comm: sim.tasks.iter().map(|t| t.cfg.name.clone()).collect(),
            prio: sim.tasks.iter().map(|t| 120 + t.cfg.nice).collect(),
            tg: sim.tasks.iter().map(|t| t.cfg.tg).collect(),
            groups: sim.fair.tgs.iter().map(|g| g.path.clone()).collect(),
        }
    }
    /// pid of a task (0 for idle).
    pub fn pid(&self, task: u32) -> i32 {
        if task == NO_TASK {
            0
        } else {
            TASK_PID_BASE + task as i32
        }
    }
    /// The thread group of a task: its cgroup's process, or itself in the root group.
    pub fn tgid(&self, task: u32) -> i32 {
        match self.tg[task as usize] {
            0 => self.pid(task),
            g => CGROUP_PID_BASE + g as i32,
        }
    }
    fn comm_of(&self, task: u32, cpu: u32) -> String {
        if task == NO_TASK {
            format!("swapper/{cpu}")
        } else {
            self.comm[task as usize].clone()
        }
    }
    fn prio_of(&self, task: u32) -> i32 {
        if task == NO_TASK {
            120
        } else {
            self.prio[task as usize]
        }
    }
}

/// The `prev_state` a kernel trace shows for a switch of this model reason.
pub fn prev_state(reason: Option<SwitchReason>, prev: u32) -> PrevState {
    if prev == NO_TASK {
        return PrevState::Runnable;
    }
    match reason {
        Some(SwitchReason::Yield) => PrevState::Runnable,
        Some(SwitchReason::Sleep) => PrevState::Blocked(state_bits::S),
        Some(SwitchReason::Exit) => PrevState::Blocked(state_bits::X),
        Some(SwitchReason::FromIdle) => PrevState::Runnable,
        Some(SwitchReason::Tick | SwitchReason::WakeupPreempt | SwitchReason::Preempt | SwitchReason::Throttle)
        | None => PrevState::Preempted,
    }
}

/// The records a kernel trace of the run would hold, in time order, into `sink`: switches,
/// wakings and wakeups, new-task wakeups, migrations and exits, each naming the task current
/// on its CPU.
pub fn records(sim: &Simulation, names: &Names, sink: &mut impl TraceSink) {
    let e = &sim.fair.log.events;
    let mut current = vec![NO_TASK; sim.cpus.len()];
    let mut line = 0u64;
    let mut emit = |ts: u64, cpu: u32, cur: u32, event: &str, payload: SchedPayload| {
        line += 1;
        let (pid, comm) = (names.pid(cur), names.comm_of(cur, cpu));
        sink.record(TraceRecord { ts_ns: ts, cpu, pid, comm, event: event.to_string(), line, flags: None, payload });
    };
    for (i, r) in e.rows().enumerate() {
        let (t, cpu, task, arg, val) = (r.t, r.cpu as u32, r.task, r.arg, r.val);
        let cur_of = |current: &[u32], c: u32| current.get(c as usize).copied().unwrap_or(NO_TASK);
        match EventKind::from_u8(r.kind) {
            Some(EventKind::Switch) => {
                let prev = cur_of(&current, cpu);
                let payload = SchedPayload::Switch {
                    prev_comm: names.comm_of(prev, cpu),
                    prev_pid: names.pid(prev),
                    prev_prio: names.prio_of(prev),
                    prev_state: prev_state(SwitchReason::from_i64(val), prev),
                    next_comm: names.comm_of(task, cpu),
                    next_pid: names.pid(task),
                    next_prio: names.prio_of(task),
                    extra: Vec::new(),
                };
                emit(t, cpu, prev, "sched_switch", payload);
                current[cpu as usize] = task;
            }
            Some(k @ (EventKind::Wakeup | EventKind::WakeupNew)) => {
                let on = if arg == NO_TASK { cpu } else { arg };
                let cur = cur_of(&current, on);
                let wake = |kind| SchedPayload::Wakeup {
                    kind,
                    comm: names.comm_of(task, cpu),
                    pid: names.pid(task),
                    prio: names.prio_of(task),
                    target_cpu: cpu as i32,
                    success: None,
                    extra: Vec::new(),
                };
                if k == EventKind::Wakeup {
                    emit(t, on, cur, "sched_waking", wake(WakeKind::Waking));
                    emit(t, on, cur, "sched_wakeup", wake(WakeKind::Wakeup));
                } else {
                    emit(t, on, cur, "sched_wakeup_new", wake(WakeKind::WakeupNew));
                }
            }
            Some(EventKind::Migrate) => {
                let next_wake = (i + 1..e.t.len()).take_while(|&j| e.t[j] == t).find(|&j| {
                    e.task[j] == task
                        && (e.kind[j] == EventKind::Wakeup as u8 || e.kind[j] == EventKind::WakeupNew as u8)
                });
                let on = match next_wake {
                    Some(j) if e.arg[j] != NO_TASK => e.arg[j],
                    _ => cpu,
                };
                let payload = SchedPayload::MigrateTask {
                    comm: names.comm_of(task, cpu),
                    pid: names.pid(task),
                    prio: names.prio_of(task),
                    orig_cpu: val as i32,
                    dest_cpu: cpu as i32,
                    extra: Vec::new(),
                };
                emit(t, on, cur_of(&current, on), "sched_migrate_task", payload);
            }
            Some(EventKind::Exit) if task != NO_TASK => {
                let fields = vec![
                    ("comm".to_string(), names.comm_of(task, cpu)),
                    ("pid".to_string(), names.pid(task).to_string()),
                    ("prio".to_string(), names.prio_of(task).to_string()),
                    ("tgid".to_string(), names.tgid(task).to_string()),
                ];
                let payload = SchedPayload::Other { fields, text: None };
                emit(t, cpu, cur_of(&current, cpu), "sched_process_exit", payload);
            }
            _ => {}
        }
    }
}

/// The run of `sim` (run to where it stands) as a serialised Perfetto `Trace`.
pub fn export(sim: &Simulation) -> Vec<u8> {
    let names = Names::of(sim);
    let mut store = TraceStore::new();
    records(sim, &names, &mut store);
    let mut out = Vec::new();
    let info = SystemInfo {
        utsname: Some(Utsname {
            sysname: Some("Linux".to_string()),
            release: Some(MODEL_RELEASE.to_string()),
            version: Some("schedlab model".to_string()),
            machine: None,
        }),
        num_cpus: Some(sim.cpus.len() as u32),
        hz: Some(i64::from(sim.cfg.host.hz)),
        ..Default::default()
    };
    append_packet(&mut out, 1, None, None, Data::SystemInfo(info));
    out.extend(encode(&store, Form::Regular));
    tracks::append(sim, &names, &mut out);
    out
}
