//! A task's end: killed at its stop time in whatever state it is, or exiting while it runs.

use super::{Simulation, TaskState};
use crate::obs::log::{EventKind, SwitchReason, NO_TASK};
use crate::sched::fair::{DEQUEUE_DELAYED, DEQUEUE_SLEEP, DEQUEUE_SPECIAL};

impl Simulation {
    /// Kills a task at its stop time.
    pub(super) fn kill(&mut self, task: u32) {
        let state = self.tasks[task as usize].state;
        let se = self.tasks[task as usize].se;
        if !matches!(state, TaskState::Exited | TaskState::Running) {
            self.exit_notify(task);
        }
        match state {
            TaskState::Exited => {}
            TaskState::New => self.tasks[task as usize].state = TaskState::Exited,
            TaskState::Running => {
                let cpu = self.tasks[task as usize].cpu;
                self.exit_running(cpu, task);
            }
            TaskState::Runnable => {
                self.fair.dequeue_task(se, DEQUEUE_SPECIAL);
                self.finish_exit(task);
            }
            TaskState::Throttled => {
                let q = self.fair.ents[se as usize].cfs_rq;
                self.fair.qs[q as usize].limbo.retain(|&x| x != se);
                self.finish_exit(task);
            }
            TaskState::Sleeping => {
                if self.fair.ents[se as usize].on_rq {
                    self.fair.dequeue_task(se, DEQUEUE_SLEEP | DEQUEUE_DELAYED);
                }
                self.finish_exit(task);
            }
        }
    }

    pub(super) fn finish_exit(&mut self, task: u32) {
        // A vCPU stopped while queued on a PV qspinlock leaves the queue (the next waiter
        // finds the lock at its next look, or at an interrupt if it has halted).
        for q in &mut self.kvm.pv.queue {
            q.retain(|&t| t != task);
        }
        let t = &mut self.tasks[task as usize];
        t.state = TaskState::Exited;
        t.wake_gen += 1;
        t.pipe_wait = None;
        t.wakeup_wait = false;
        self.fair.log.event(self.fair.now, EventKind::Exit, t.cpu, task, NO_TASK, 0);
    }

    /// Exit of the running task. Model shortcut: the exit dequeue is DEQUEUE_SPECIAL (never
    /// delayed), so a dead task does not linger as a delayed entity.
    pub(super) fn exit_running(&mut self, cpu: u32, task: u32) {
        self.charge_segment(task);
        self.exit_notify(task);
        let se = self.tasks[task as usize].se;
        self.fair.dequeue_task(se, DEQUEUE_SPECIAL);
        self.finish_exit(task);
        self.schedule(cpu, SwitchReason::Exit);
    }
}
