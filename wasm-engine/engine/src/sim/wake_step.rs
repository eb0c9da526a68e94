//! The `wake` and `wait_wakeup` steps: one task wakes another, as a futex wake, a condition
//! variable's signal or a write to a pipe the other reads does. What the scheduler sees is a
//! `try_to_wake_up()` run on the waker's CPU (with `WF_SYNC` when the step says so), so that
//! `select_task_rq_fair()` and `wake_affine()` see the real waker. The trace replay's shadow
//! writes each `sched_wakeup` a modeled task raised in task context as a `wake` step of that
//! task, and the wakee's sleep as a `wait_wakeup` (`replay/shadow.rs`).
//!
//! A wakeup is counted: one sent while the wakee is not waiting is kept, and its next
//! `wait_wakeup` consumes it without blocking (a semaphore; a pipe's byte, a futex word
//! changed before the wait). Named shortcut: no system-call cost; a wakeup of a task that has
//! exited is lost.

use super::{Simulation, TaskState};
use crate::sched::wakeup::WF_SYNC;

impl Simulation {
    /// A `wake` step of the task running on `cpu`: wakes `wakee` if it is blocked in a
    /// `wait_wakeup` step (that step ends), else counts the wakeup for its next one.
    pub(crate) fn wake_step(&mut self, cpu: u32, wakee: u32, sync: bool) {
        let w = &mut self.tasks[wakee as usize];
        if w.state == TaskState::Exited {
            return;
        }
        if w.wakeup_wait && w.state == TaskState::Sleeping {
            w.wakeup_wait = false;
            w.cursor.finish_step();
            self.wake_up_flags(wakee, if sync { WF_SYNC } else { 0 }, Some(cpu));
        } else {
            w.wakeups_pending += 1;
        }
    }

    /// A `cgroup` step of the task running on `cpu`: `sched_move_task()` into task group
    /// `tg` (a write of its pid to the cgroup's `tasks`), which ends with `resched_curr()`:
    /// the running task may have joined a group that should not run now.
    pub(crate) fn cgroup_step(&mut self, cpu: u32, task: u32, tg: u32) {
        let t = &mut self.tasks[task as usize];
        if t.cfg.tg == tg {
            return;
        }
        t.cfg.tg = tg;
        let se = t.se;
        self.fair.sched_move_task(se, tg);
        self.fair.resched(cpu, crate::obs::log::SwitchReason::Preempt);
    }

    /// A `wait_wakeup` step of the task running on `cpu`: true when a pending wakeup is
    /// consumed (the program goes on), false when the task blocks until a `wake` step.
    pub(crate) fn wait_wakeup(&mut self, cpu: u32, task: u32) -> bool {
        let t = &mut self.tasks[task as usize];
        if t.wakeups_pending > 0 {
            t.wakeups_pending -= 1;
            t.cursor.finish_step();
            return true;
        }
        t.wakeup_wait = true;
        self.block(cpu, task, u64::MAX);
        false
    }
}
