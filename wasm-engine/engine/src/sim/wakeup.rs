//! Waking tasks up (`try_to_wake_up()`, `wake_up_new_task()`): where each goes
//! (`select_task_rq`), its enqueue with a wakeup's placement, and the preemption check.

use super::{Simulation, TaskState};
use crate::obs::codes::MigrateClass;
use crate::obs::log::{EventKind, NO_TASK};
use crate::scenario::schema::PolicySpec;
use crate::sched::fair::{ENQUEUE_INITIAL, ENQUEUE_WAKEUP};
use crate::sched::wakeup::{WF_FORK, WF_RQ_SELECTED, WF_TTWU};

impl Simulation {
    /// `wake_up_new_task()`: place with ENQUEUE_INITIAL, then check wakeup preemption.
    /// `parent_cpu`: the CPU of the parent whose fork step created the task (None: a
    /// scenario task's start).
    pub(super) fn wake_up_new(&mut self, task: u32, parent_cpu: Option<u32>) {
        let cpu = self.select_task_rq(task, None, WF_FORK, parent_cpu);
        self.move_to_cpu(task, cpu);
        let se = self.tasks[task as usize].se;
        self.fair.post_init_entity_util_avg(se);
        let waker = parent_cpu.unwrap_or(NO_TASK);
        self.fair.log.event(self.fair.now, EventKind::WakeupNew, cpu, task, waker, 0);
        self.fair.enqueue_task(se, ENQUEUE_INITIAL);
        let t = &mut self.tasks[task as usize];
        t.state = TaskState::Runnable;
        t.woken_at = Some(self.fair.now);
        let normal = t.cfg.policy == PolicySpec::Normal;
        let selected = if t.cfg.affinity.len() > 1 { WF_RQ_SELECTED } else { 0 };
        self.fair.check_preempt_wakeup_fair(cpu, se, WF_FORK | selected, normal);
    }

    /// The first wakeup of a task that existed before the run (scenario `existing`): it was
    /// asleep on the CPU it last ran on and wakes as any sleeper does (`try_to_wake_up()`,
    /// `select_task_rq()` from that `prev_cpu`, a wakeup's placement and preemption check),
    /// bringing its PELT averages (`task_entity`); a new task's path (`wake_up_new_task()`: fork balancing,
    /// ENQUEUE_INITIAL, WF_FORK, a new task's full load) would misstate a long-lived sleeper.
    pub(super) fn wake_up_existing(&mut self, task: u32, ex: crate::scenario::schema::ExistingSpec) {
        let t = &self.tasks[task as usize];
        let prev = ex.cpu.filter(|c| t.cfg.affinity.contains(c)).unwrap_or(t.cfg.affinity[0]);
        self.move_to_cpu(task, prev);
        self.tasks[task as usize].state = TaskState::Sleeping;
        self.wake_up(task);
    }

    /// `try_to_wake_up(p, state, 0)` from a timer or a kick: no waker flags, no waker CPU.
    pub(super) fn wake_up(&mut self, task: u32) {
        self.wake_up_flags(task, 0, None);
    }

    /// `try_to_wake_up()` with the waker's `wake_flags` (`WF_SYNC` from `__wake_up_sync_key()`:
    /// a pipe write, a child's exit waking its parent) and the CPU the wakeup runs on. A
    /// delayed task is requeued where it is (ttwu_runnable); others are placed by
    /// `select_task_rq` and enqueued with their saved lag. Both paths pass `WF_TTWU |
    /// wake_flags` on (to `select_task_rq` with `waker_cpu`, and to
    /// `check_preempt_wakeup_fair`), as `try_to_wake_up()` does, and the log's Wakeup row
    /// records `wake_flags` and `waker_cpu`. Public for tests that compare wake flags on a
    /// cloned simulation: a sleeping task's wait is then over (a pipe read or a fork's wait
    /// looks again and blocks again; other steps move on). A task that is not asleep is left
    /// alone.
    pub fn wake_up_flags(&mut self, task: u32, wake_flags: u32, waker_cpu: Option<u32>) {
        if self.tasks[task as usize].state != TaskState::Sleeping {
            return; // try_to_wake_up() of a task that is not asleep does nothing
        }
        let wake_flags = WF_TTWU | wake_flags;
        let se = self.tasks[task as usize].se;
        // select_task_rq() runs (WF_RQ_SELECTED) only for a task off the queue that may run
        // on more than one CPU.
        let runnable = self.fair.ents[se as usize].on_rq;
        let selected = !runnable && self.tasks[task as usize].cfg.affinity.len() > 1;
        let cpu = if runnable {
            self.tasks[task as usize].cpu
        } else {
            let prev = self.tasks[task as usize].cpu;
            let cpu = self.select_task_rq(task, Some(prev), wake_flags, waker_cpu);
            if cpu != prev {
                // set_task_cpu()'s sched_migrate_task, before the wakeup is traced.
                self.fair.log.event(
                    self.fair.now,
                    EventKind::Migrate,
                    cpu,
                    task,
                    MigrateClass::Wake as u32,
                    prev as i64,
                );
            }
            self.move_to_cpu(task, cpu);
            cpu
        };
        let waker = waker_cpu.unwrap_or(NO_TASK);
        self.fair.log.event(self.fair.now, EventKind::Wakeup, cpu, task, waker, (wake_flags & !WF_TTWU) as i64);
        self.fair.enqueue_task(se, ENQUEUE_WAKEUP);
        self.fair.ttwu_update_avg_idle(cpu);
        let t = &mut self.tasks[task as usize];
        t.state = TaskState::Runnable;
        t.woken_at = Some(self.fair.now);
        t.stats.wakeups += 1;
        let normal = t.cfg.policy == PolicySpec::Normal;
        let flags = wake_flags | if selected { WF_RQ_SELECTED } else { 0 };
        self.fair.check_preempt_wakeup_fair(cpu, se, flags, normal);
    }
}
