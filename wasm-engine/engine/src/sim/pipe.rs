//! Pipes between two tasks, as the `pipe` step uses them (`workers pipe`: two processes pass
//! a byte back and forth over two pipes). Models what the scheduler sees of fs/pipe.c:
//!
//! * `pipe_write()`: the byte lands in the peer's pipe; if that pipe was empty, the readers
//!   blocked on it are woken by `wake_up_interruptible_sync_poll()` → `__wake_up_sync_key()`,
//!   a synchronous wakeup: `try_to_wake_up()` gets `WF_SYNC` (the waker says it is about to
//!   sleep) and runs on the writer's CPU. A write to a peer that is not blocked leaves the
//!   byte in the pipe; its next read finds it and does not block.
//! * `pipe_read()`: an empty pipe blocks the reader (`wait_event_interruptible_exclusive()`,
//!   then `schedule()`: the dequeue is `DEQUEUE_SLEEP`); a byte is taken at once.
//! * `pipe_release()` at the peer's exit: a blocked reader is woken (`wake_up_interruptible_all()`,
//!   no WF_SYNC); a read of the empty pipe then returns 0 (end of file) and a write fails
//!   (EPIPE). Either ends the `pipe` step and the program goes on.
//!
//! Named shortcut: no system-call cost. The read and write take no CPU time; the scenario's
//! per-message `work` is all the CPU time a message costs (a mirror of a real capture states
//! what it adds for the kernel's share), except a read that finds the pipe empty: it spends
//! the step's `block_cost` before it blocks. On the machine the run that ends in that block
//! is ~1 µs longer than the writer's run that ends preempted (the blocking read, and the
//! writer's tail after `try_to_wake_up()`, which `rq_clock_skip_update()` charges to the next
//! task). That difference decides whether the writer is ahead of V when its next write wakes
//! the reader, and so whether the wakee preempts it (`docs/kernel-6.18.44-findings.md`, "A
//! pipe write preempts its writer").

use super::event::Ev;
use super::{Simulation, TaskState};
use crate::sched::wakeup::WF_SYNC;

impl Simulation {
    /// `pipe_write()` of one byte by the running `task` on `cpu` into `peer`'s pipe. False
    /// when the peer has exited (EPIPE): the step ends.
    pub(crate) fn pipe_write(&mut self, cpu: u32, task: u32, peer: u32) -> bool {
        let p = &mut self.tasks[peer as usize];
        if p.state == TaskState::Exited {
            return false;
        }
        let was_empty = p.pipe_bytes == 0;
        p.pipe_bytes += 1;
        self.tasks[task as usize].stats.pipe_writes += 1;
        let p = &mut self.tasks[peer as usize];
        if was_empty && p.pipe_wait.is_some() && p.state == TaskState::Sleeping {
            p.pipe_wait = None;
            self.wake_up_flags(peer, WF_SYNC, Some(cpu));
        }
        true
    }

    /// `pipe_read()` of one byte by the running `task` on `cpu` from its pipe, written by
    /// `peer`: takes a waiting byte (true: the program goes on), or returns end of file when
    /// the peer has exited (false: the step ends), or blocks until the peer writes (None).
    /// A read that finds the pipe empty first spends `block_cost` on the CPU (None: the task
    /// still runs and tries again then).
    pub(crate) fn pipe_read(&mut self, cpu: u32, task: u32, peer: u32, block_cost: u64) -> Option<bool> {
        let t = &mut self.tasks[task as usize];
        if t.pipe_bytes > 0 {
            t.pipe_bytes -= 1;
            t.pipe_block_started = false;
            return Some(true);
        }
        if self.tasks[peer as usize].state == TaskState::Exited {
            self.tasks[task as usize].pipe_block_started = false;
            return Some(false);
        }
        let t = &mut self.tasks[task as usize];
        if block_cost > 0 && !t.pipe_block_started {
            t.pipe_block_started = true;
            let gen = self.cpus[cpu as usize].work_gen;
            self.queue.push(self.fair.now + block_cost, Ev::Work { cpu, gen });
            return None;
        }
        t.pipe_block_started = false;
        self.tasks[task as usize].pipe_wait = Some(peer);
        self.block(cpu, task, u64::MAX);
        None
    }

    /// What an exiting `task` does to the tasks it shares pipes with and to its parent
    /// (`exit_files()` → `pipe_release()`, `exit_notify()` → `do_notify_parent()`), before it
    /// leaves its runqueue.
    pub(crate) fn exit_notify(&mut self, task: u32) {
        let cpu = self.tasks[task as usize].cpu;
        for r in 0..self.tasks.len() as u32 {
            let t = &mut self.tasks[r as usize];
            if t.pipe_wait == Some(task) && t.state == TaskState::Sleeping {
                t.pipe_wait = None;
                self.wake_up_flags(r, 0, Some(cpu));
            }
        }
        self.notify_parent(task, cpu);
    }
}
