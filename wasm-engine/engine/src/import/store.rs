//! [`TraceStore`]: a [`TraceSink`] that keeps an imported trace as columns, ready for the replay
//! and the timeline.
//!
//! * comms, event names and field names are interned (`Interner`);
//! * tasks are `(pid, generation)`: a pid starts a new generation when `sched_process_fork` names
//!   it as `child_pid` while an earlier task with that pid is known, or when it shows up again after
//!   its `sched_process_exit` and the switch-out that followed. A comm change alone does not (exec
//!   renames a task; `sched_process_exec` is not required): the generation keeps every comm it had.
//!   Without fork/exit events PID reuse is not detected; the summary says so;
//! * switches, wakeups and migrations are columns of task indices; every other event is kept in a
//!   compact form (event id, fields as interned keys and spans of one text arena);
//! * per CPU: records, the last timestamp, out-of-order records (a timestamp earlier than the
//!   CPU's previous one; the record is kept), lost events;
//! * skipped lines grouped by reason with the first few `line:column` examples.

pub use super::intern::Interner;
use super::pids::PidTable;
use super::record::{EevdfSample, PrevState, Skipped, TraceRecord, TraceSink, WakeKind};
use super::view::{Fields, PayloadView, RecordView};
use std::collections::BTreeMap;

/// Examples kept per skip reason.
pub const SKIP_EXAMPLES: usize = 5;

/// One task generation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Task {
    pub pid: i32,
    /// 0 for the first task seen with this pid, then 1, 2, ... on reuse.
    pub generation: u32,
    /// Comm ids in the order seen (exec renames add one). `<...>` and `<idle>` are not comms.
    pub comms: Vec<u32>,
    pub switches_in: u64,
    /// Times it was `prev` of a sched_switch.
    pub switches_out: u64,
    /// ... of which with `R` (still runnable, e.g. `sched_yield()`) and `R+` (preempted).
    pub out_runnable: u64,
    pub out_preempted: u64,
    pub wakeups: u64,
    pub first_ts: u64,
    pub last_ts: u64,
    /// `sched_process_exit` seen.
    pub exited: bool,
    /// Switched out after exiting: the pid is free for a new generation.
    pub dead: bool,
    /// The last `prio` printed for it (sched_switch, wakeup, migrate; 100..=139 fair).
    pub prio: Option<i32>,
    /// Its thread group (process id), when the trace gives it ([`TraceSink::tgid`]).
    pub tgid: Option<i32>,
}

/// sched_switch columns.
#[derive(Clone, Debug, Default)]
pub struct Switches {
    pub ts: Vec<u64>,
    pub cpu: Vec<u32>,
    pub prev: Vec<u32>,
    pub prev_state: Vec<PrevState>,
    pub next: Vec<u32>,
    /// Source line (text) or record number (`.dat`).
    pub line: Vec<u64>,
}

/// sched_waking / sched_wakeup / sched_wakeup_new columns.
#[derive(Clone, Debug, Default)]
pub struct Wakeups {
    pub ts: Vec<u64>,
    pub cpu: Vec<u32>,
    /// The current task when the event fired (the waker for sched_waking; for sched_wakeup it may
    /// be the target CPU's current task when the wakeup went through the wake list).
    pub waker: Vec<u32>,
    pub wakee: Vec<u32>,
    pub target_cpu: Vec<i32>,
    pub kind: Vec<WakeKind>,
    pub line: Vec<u64>,
}

/// sched_migrate_task columns.
#[derive(Clone, Debug, Default)]
pub struct Migrations {
    pub ts: Vec<u64>,
    pub cpu: Vec<u32>,
    /// The current task when the event fired (not the migrated one).
    pub current: Vec<u32>,
    pub task: Vec<u32>,
    pub orig_cpu: Vec<i32>,
    pub dest_cpu: Vec<i32>,
    pub line: Vec<u64>,
}

/// Every other event, compactly: fields `field_start[i]..field_start[i+1]` of `field_key` /
/// `field_value` (spans of `arena`); a free-text payload is one field with key `""`.
#[derive(Clone, Debug, Default)]
pub struct Others {
    pub ts: Vec<u64>,
    pub cpu: Vec<u32>,
    pub task: Vec<u32>,
    pub event: Vec<u32>,
    pub line: Vec<u64>,
    pub field_start: Vec<u64>,
    pub field_key: Vec<u32>,
    pub field_value: Vec<(u64, u64)>,
    pub arena: String,
}

/// Per-CPU counters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CpuInfo {
    pub records: u64,
    pub last_ts: u64,
    pub out_of_order: u64,
    pub lost: u64,
}

/// Skipped lines of one reason.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SkipGroup {
    pub count: u64,
    /// (line, column) of the first [`SKIP_EXAMPLES`].
    pub examples: Vec<(u64, u32)>,
}

#[derive(Clone, Debug, Default)]
pub struct TraceStore {
    pub comms: Interner,
    pub events: Interner,
    pub keys: Interner,
    /// Records per event id.
    pub event_counts: Vec<u64>,
    pub tasks: Vec<Task>,
    /// pid → index in `tasks` of its latest generation.
    pub live: PidTable<u32>,
    /// Indexed by CPU number.
    pub cpus: Vec<CpuInfo>,
    pub records: u64,
    pub first_ts: Option<u64>,
    pub last_ts: u64,
    pub out_of_order: u64,
    pub switches: Switches,
    pub wakeups: Wakeups,
    pub migrations: Migrations,
    pub others: Others,
    pub eevdf: Vec<EevdfSample>,
    /// `CPU:n [LOST m EVENTS]`: (cpu, count, line).
    pub lost: Vec<(u32, u64, u64)>,
    pub skipped: BTreeMap<String, SkipGroup>,
    /// File-level facts from `TraceSink::meta` (first value per key; `cpu_empty` joins CPUs).
    pub meta: BTreeMap<String, String>,
    /// Thread groups told for pids no record has named yet (a Perfetto process tree lists
    /// threads the trace may never show): given to the task when it appears.
    pub pending_tgid: BTreeMap<i32, i32>,
}

impl TraceStore {
    pub fn new() -> Self {
        Self::default()
    }

    fn cpu(&mut self, cpu: u32) -> &mut CpuInfo {
        let i = cpu as usize;
        if self.cpus.len() <= i {
            self.cpus.resize(i + 1, CpuInfo::default());
        }
        &mut self.cpus[i]
    }

    /// The task generation `pid` refers to now (created if needed), with `comm` noted.
    pub fn task_for(&mut self, pid: i32, comm: &str, ts: u64) -> u32 {
        let idx = match self.live.get(pid) {
            Some(i) if !self.tasks[i as usize].dead => i,
            prev => {
                let generation = prev.map_or(0, |i| self.tasks[i as usize].generation + 1);
                self.new_task(pid, generation, ts)
            }
        };
        let t = &mut self.tasks[idx as usize];
        t.last_ts = t.last_ts.max(ts);
        t.first_ts = t.first_ts.min(ts);
        if comm.starts_with('<') && (comm == "<...>" || comm == "<idle>") {
            return idx;
        }
        let known = t.comms.last().is_some_and(|&c| self.comms.get(c) == comm);
        if !known {
            let id = self.comms.intern(comm);
            let t = &mut self.tasks[idx as usize];
            if !t.comms.contains(&id) {
                t.comms.push(id);
            } else {
                // Back to an earlier comm: move it last so the fast path above hits.
                t.comms.retain(|&c| c != id);
                t.comms.push(id);
            }
        }
        idx
    }

    fn new_task(&mut self, pid: i32, generation: u32, ts: u64) -> u32 {
        let idx = self.tasks.len() as u32;
        self.tasks.push(Task {
            pid,
            generation,
            comms: Vec::new(),
            switches_in: 0,
            switches_out: 0,
            out_runnable: 0,
            out_preempted: 0,
            wakeups: 0,
            first_ts: ts,
            last_ts: ts,
            exited: false,
            dead: false,
            prio: None,
            tgid: self.pending_tgid.get(&pid).copied(),
        });
        self.live.insert(pid, idx);
        idx
    }

    /// The task's comms joined with `→` (`<...>` when none was seen).
    pub fn task_comm(&self, t: &Task) -> String {
        if t.comms.is_empty() {
            return "<...>".to_string();
        }
        t.comms.iter().map(|&c| self.comms.get(c)).collect::<Vec<_>>().join(" → ")
    }

    /// Records of event `name`.
    pub fn count(&self, name: &str) -> u64 {
        self.events.id(name).map_or(0, |id| self.event_counts[id as usize])
    }

    /// The fields of other-event `i` as (key, value); a free-text payload has key `""`.
    pub fn other_fields(&self, i: usize) -> Vec<(&str, &str)> {
        let o = &self.others;
        let start = o.field_start[i] as usize;
        let end = o.field_start.get(i + 1).map_or(o.field_key.len(), |&e| e as usize);
        (start..end)
            .map(|f| {
                let (a, b) = o.field_value[f];
                (self.keys.get(o.field_key[f]), &o.arena[a as usize..b as usize])
            })
            .collect()
    }

    fn push_other(&mut self, rec: &RecordView<'_>, task: u32, event: u32, fields: Fields<'_>, text: Option<&str>) {
        let o = &mut self.others;
        o.ts.push(rec.ts_ns);
        o.cpu.push(rec.cpu);
        o.task.push(task);
        o.event.push(event);
        o.line.push(rec.line);
        o.field_start.push(o.field_key.len() as u64);
        for (k, v) in fields.iter() {
            let key = self.keys.intern(k);
            Self::put_field(&mut self.others, key, v);
        }
        if let Some(t) = text {
            let key = self.keys.intern("");
            Self::put_field(&mut self.others, key, t);
        }
    }

    fn put_field(o: &mut Others, key: u32, v: &str) {
        let a = o.arena.len() as u64;
        o.arena.push_str(v);
        o.field_key.push(key);
        o.field_value.push((a, o.arena.len() as u64));
    }

    fn lifecycle(&mut self, event: &str, fields: Fields<'_>, ts: u64) {
        let get = |k: &str| fields.get(k);
        match event {
            "sched_process_exit" => {
                if let Some(pid) = get("pid").and_then(|p| p.parse::<i32>().ok()) {
                    let idx = self.task_for(pid, get("comm").unwrap_or("<...>"), ts);
                    self.tasks[idx as usize].exited = true;
                }
            }
            "sched_process_fork" => {
                if let Some(child) = get("child_pid").and_then(|p| p.parse::<i32>().ok()) {
                    if let Some(old) = self.live.get(child) {
                        self.tasks[old as usize].dead = true;
                    }
                    self.task_for(child, get("child_comm").unwrap_or("<...>"), ts);
                }
            }
            _ => {}
        }
    }
}

impl TraceSink for TraceStore {
    fn tgid(&mut self, pid: i32, tgid: i32, _ts: u64) {
        match self.live.get(pid) {
            Some(i) if !self.tasks[i as usize].dead => self.tasks[i as usize].tgid = Some(tgid),
            _ => {
                self.pending_tgid.insert(pid, tgid);
            }
        }
    }

    fn record(&mut self, rec: TraceRecord) {
        self.record_view(&rec.view());
    }

    fn record_view(&mut self, rec: &RecordView<'_>) {
        self.records += 1;
        let ev = self.events.intern(rec.event);
        if self.event_counts.len() <= ev as usize {
            self.event_counts.resize(ev as usize + 1, 0);
        }
        self.event_counts[ev as usize] += 1;
        let ts = rec.ts_ns;
        self.first_ts = Some(self.first_ts.map_or(ts, |f| f.min(ts)));
        self.last_ts = self.last_ts.max(ts);
        let c = self.cpu(rec.cpu);
        c.records += 1;
        if ts < c.last_ts {
            c.out_of_order += 1;
            self.out_of_order += 1;
        } else {
            c.last_ts = ts;
        }
        let current = self.task_for(rec.pid, rec.comm, ts);
        match rec.payload {
            PayloadView::Switch {
                prev_comm, prev_pid, prev_prio, prev_state, next_comm, next_pid, next_prio, ..
            } => {
                let prev = self.task_for(prev_pid, prev_comm, ts);
                let next = self.task_for(next_pid, next_comm, ts);
                let s = &mut self.switches;
                s.ts.push(ts);
                s.cpu.push(rec.cpu);
                s.prev.push(prev);
                s.prev_state.push(prev_state);
                s.next.push(next);
                s.line.push(rec.line);
                self.tasks[next as usize].prio = Some(next_prio);
                let p = &mut self.tasks[prev as usize];
                p.prio = Some(prev_prio);
                p.switches_out += 1;
                match prev_state {
                    PrevState::Runnable => p.out_runnable += 1,
                    PrevState::Preempted => p.out_preempted += 1,
                    _ => {}
                }
                if p.exited {
                    p.dead = true;
                }
                self.tasks[next as usize].switches_in += 1;
            }
            PayloadView::Wakeup { kind, comm, pid, prio, target_cpu, .. } => {
                let wakee = self.task_for(pid, comm, ts);
                self.tasks[wakee as usize].wakeups += 1;
                self.tasks[wakee as usize].prio = Some(prio);
                let w = &mut self.wakeups;
                w.ts.push(ts);
                w.cpu.push(rec.cpu);
                w.waker.push(current);
                w.wakee.push(wakee);
                w.target_cpu.push(target_cpu);
                w.kind.push(kind);
                w.line.push(rec.line);
            }
            PayloadView::MigrateTask { comm, pid, prio, orig_cpu, dest_cpu, .. } => {
                let task = self.task_for(pid, comm, ts);
                self.tasks[task as usize].prio = Some(prio);
                let m = &mut self.migrations;
                m.ts.push(ts);
                m.cpu.push(rec.cpu);
                m.current.push(current);
                m.task.push(task);
                m.orig_cpu.push(orig_cpu);
                m.dest_cpu.push(dest_cpu);
                m.line.push(rec.line);
            }
            PayloadView::Other { fields, text } => {
                self.push_other(rec, current, ev, fields, text);
                self.lifecycle(rec.event, fields, ts);
            }
        }
    }

    fn lost(&mut self, cpu: u32, count: u64, line: u64) {
        // Counts are as printed (any u64): a sum can only saturate.
        let c = self.cpu(cpu);
        c.lost = c.lost.saturating_add(count);
        self.lost.push((cpu, count, line));
    }

    fn skipped(&mut self, s: Skipped) {
        let g = self.skipped.entry(s.reason).or_default();
        g.count += 1;
        if g.examples.len() < SKIP_EXAMPLES {
            g.examples.push((s.line, s.column));
        }
    }

    fn eevdf(&mut self, s: EevdfSample) {
        self.eevdf.push(s);
    }

    fn meta(&mut self, key: &str, value: &str, _line: u64) {
        match self.meta.get_mut(key) {
            Some(v) if key == "cpu_empty" || key == "switch_form" => {
                v.push(',');
                v.push_str(value);
            }
            Some(_) => {}
            None => {
                self.meta.insert(key.to_string(), value.to_string());
            }
        }
    }
}
