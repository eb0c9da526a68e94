//! Task names, prios and each CPU's current task, learnt from the records in time order as they
//! leave the merge (`merge.rs`), and what a compact record leaves out resolved from them.
//!
//! The comm of the current task comes from the names learnt so far (process tree,
//! `task_rename`, `task_newtask`, fork, and every comm a sched event printed); `<...>` when none
//! is known (`<idle>` for pid 0). A compact `sched_switch` omits the previous task, which is the
//! CPU's current task: the last switch's next, or the `pid` of a later regular event on that
//! CPU; pid −1 (`<...>`) for a CPU's first switch when no record named one. Its `prev_prio` is
//! that task's last known prio (120 when unknown). A compact waking omits the waker: it is the
//! CPU's current task, likewise.

use super::held::{Body, Held, Name, Names, IDLE, UNKNOWN};
use super::held::{PROCESS_FORK, PROCESS_FREE, TASK_NEWTASK, TASK_RENAME};
use crate::import::pids::PidTable;

/// A pid the merge resolves at release ([`Tasks::release`]).
pub const UNRESOLVED: i32 = i32::MIN;

/// Task names and per-CPU current tasks, carried from bundle to bundle.
#[derive(Debug, Default)]
pub struct Tasks {
    pub names: Names,
    comms: PidTable<Name>,
    prios: PidTable<i32>,
    /// Per CPU: the current task's pid (a switch's next, or the `pid` of any other record).
    cur: Vec<Option<i32>>,
}

impl Tasks {
    /// Whether a name is known for `pid`.
    pub fn named(&self, pid: i32) -> bool {
        self.comms.get(pid).is_some()
    }

    /// Names `pid` (a process tree's name: any non-empty string).
    pub fn set_comm(&mut self, pid: i32, comm: &str) {
        let n = self.names.intern(comm);
        self.comms.insert(pid, n);
    }

    pub fn comm(&self, pid: i32) -> Name {
        match self.comms.get(pid) {
            Some(c) => c,
            None if pid == 0 => IDLE,
            None => UNKNOWN,
        }
    }

    fn name(&mut self, pid: i32, comm: Name) {
        if self.names.is_comm(comm) {
            self.comms.insert(pid, comm);
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
    /// CPU's current task; then the record teaches names, prios and who runs. Returns the comm of
    /// the record's current task.
    pub fn release(&mut self, cpu: u32, h: &mut Held) -> Name {
        if let Body::Switch { prev_pid, prev_comm, prev_prio, .. } = &mut h.body {
            if *prev_pid == UNRESOLVED {
                *prev_pid = self.cur(cpu).unwrap_or(-1);
                *prev_comm = self.comm(*prev_pid);
                *prev_prio = self.prios.get(*prev_pid).unwrap_or(120);
                h.pid = *prev_pid;
            }
        }
        if h.pid == UNRESOLVED {
            h.pid = self.cur(cpu).unwrap_or(-1);
        }
        self.learn(cpu, h.pid, &h.body);
        match h.body {
            Body::Switch { prev_pid, prev_comm, .. } if prev_pid == h.pid && !self.names.get(prev_comm).is_empty() => {
                prev_comm
            }
            _ => self.comm(h.pid),
        }
    }

    /// What a record teaches: names, prios, who runs.
    fn learn(&mut self, cpu: u32, pid: i32, b: &Body) {
        match *b {
            Body::Switch { prev_comm, prev_pid, prev_prio, next_comm, next_pid, next_prio, .. } => {
                self.name(prev_pid, prev_comm);
                self.name(next_pid, next_comm);
                self.prios.insert(prev_pid, prev_prio);
                self.prios.insert(next_pid, next_prio);
                *self.cur(cpu) = Some(next_pid);
            }
            Body::Wakeup { comm, pid: p, prio, .. } | Body::Migrate { comm, pid: p, prio, .. } => {
                self.name(p, comm);
                self.prios.insert(p, prio);
            }
            Body::Other { event: TASK_RENAME | TASK_NEWTASK | PROCESS_FORK | PROCESS_FREE, ref fields } => {
                let f = fields.view();
                let num = |k: &str| f.get(k).and_then(|v| v.parse::<i32>().ok());
                let found = if let (Some(p), Some(c)) = (num("pid"), f.get("newcomm")) {
                    Some((p, c)) // task_rename
                } else if let (Some(p), Some(c)) = (num("child_pid"), f.get("child_comm")) {
                    Some((p, c)) // sched_process_fork
                } else {
                    num("pid").zip(f.get("comm")) // task_newtask, sched_process_free
                };
                if let Some((p, c)) = found {
                    let c = self.names.intern(c);
                    self.name(p, c);
                }
            }
            Body::Other { .. } => {}
        }
        if pid >= 0 && !matches!(b, Body::Switch { .. }) {
            *self.cur(cpu) = Some(pid);
        }
    }
}
