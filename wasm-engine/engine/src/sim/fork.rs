//! Fork bursts, as the `fork` step uses them (`workers burst`: every GAP_US, fork N children
//! that run RUN_US, and wait for them). Models what the scheduler sees of kernel/fork.c and
//! kernel/exit.c:
//!
//! * `kernel_clone()` → `sched_fork()`: the child gets a fresh sched_entity (`__sched_fork()`:
//!   nothing of an earlier task but its weight and slice), on the parent's CPU
//!   (`__set_task_cpu(p, smp_processor_id())`), with the parent's cgroup, nice, policy, slice
//!   and affinity; then `wake_up_new_task()` (`Simulation::wake_up_new`: `select_task_rq()`
//!   with `WF_FORK`, `ENQUEUE_INITIAL` placement, `check_preempt_wakeup_fair()` with `WF_FORK`).
//! * `do_wait()`: the parent blocks (`DEQUEUE_SLEEP`) while a child has not exited, and looks
//!   again whenever it is woken.
//! * the child's `exit_notify()` → `do_notify_parent()` → `__wake_up_parent()` →
//!   `__wake_up_sync_key()`: a synchronous wakeup (`WF_SYNC`) from the exiting child's CPU.
//!
//! The children are task slots allocated when the scenario is loaded (`SimConfig`: entity
//! ids are task ids and group entities follow every task, so no task can be added later).
//! Each execution of a fork step starts the same slots again as new tasks: a fresh entity,
//! program and per-run state, while the task's counters and CPU time add up over all its
//! incarnations (`Task::exec_before`).
//!
//! Named shortcuts: no fork, exec, exit or wait system-call cost; the parent is woken once,
//! by the last child's exit (a real `wait()` loop is woken by every exit while it waits and
//! reaps each zombie; here reaping costs nothing and the earlier exits do not wake it).

use super::program::{Cursor, ForkStep};
use super::{task_entity, Simulation, TaskState};
use crate::sched::wakeup::WF_SYNC;

impl Simulation {
    /// The running `task` on `cpu` executes fork step `f`: every child is forked and woken
    /// as a new task; its program's next step (`Step::Wait`) waits for them.
    pub(crate) fn fork_children(&mut self, cpu: u32, task: u32, f: u32) {
        let ForkStep { first, children } = self.tasks[task as usize].cfg.program.forks[f as usize];
        self.tasks[task as usize].wait_children = children;
        for child in first..first + children {
            self.sched_fork(child, cpu);
            self.tasks[task as usize].stats.forks += 1;
            self.wake_up_new(child, Some(cpu));
        }
    }

    /// `sched_fork()` of a child slot on the parent's `cpu`: a fresh entity and program, the
    /// counters of earlier incarnations kept.
    fn sched_fork(&mut self, child: u32, cpu: u32) {
        let t = &self.tasks[child as usize];
        debug_assert!(matches!(t.state, TaskState::New | TaskState::Exited), "a forked slot is free");
        let se = t.se;
        let fresh = task_entity(child, &t.cfg, self.cfg.params.base_slice, cpu);
        // The earlier incarnation's PELT load leaves its cfs_rq (`task_dead_fair()`).
        self.fair.remove_entity_load_avg(se);
        let old = std::mem::replace(&mut self.fair.ents[se as usize], fresh);
        let now = self.fair.now;
        let t = &mut self.tasks[child as usize];
        t.exec_before += old.sum_exec_runtime;
        t.state = TaskState::New;
        t.cursor = Cursor::seeded(t.seed);
        t.seg_start = now;
        t.woken_at = None;
        t.syscall_pending = None;
        t.token = false;
        t.pp_left = None;
        t.pp_seg = None;
        t.pipe_bytes = 0;
        t.pipe_wait = None;
        t.wait_children = 0;
        self.move_to_cpu(child, cpu);
    }

    /// `do_notify_parent()` at the exit of `task` on `cpu`: the last child of a fork step to
    /// exit wakes its waiting parent, synchronously.
    pub(crate) fn notify_parent(&mut self, task: u32, cpu: u32) {
        let Some(parent) = self.tasks[task as usize].cfg.parent else { return };
        let p = &mut self.tasks[parent as usize];
        if p.wait_children == 0 {
            return;
        }
        p.wait_children -= 1;
        if p.wait_children == 0 && p.state == TaskState::Sleeping {
            self.wake_up_flags(parent, WF_SYNC, Some(cpu));
        }
    }
}
