//! Running a task's program: `dispatch` takes the running task's next step (run, spin,
//! sleep, sched_yield, yield_to, ping-pong, pipe, fork, guest lock and IPI steps, HLT) and
//! acts on it;
//! blocking, KVM's kick of a halted vCPU, and `yield_to()` with its return value.

use super::event::Ev;
use super::program::Step;
use super::{ipi, Simulation, TaskState};
use crate::obs::log::{EventKind, SwitchReason, NO_TASK};
use crate::sched::fair::DEQUEUE_SLEEP;

impl Simulation {
    /// Lets the running task on `cpu` execute its program until it needs time or gives up
    /// the CPU, then acts on that.
    pub(crate) fn dispatch(&mut self, cpu: u32) {
        let Some(task) = self.running_task(cpu) else { return };
        if self.cpus[cpu as usize].switch_due.is_some() {
            // A preempting wakeup's switch is due: the task's program waits (no progress).
            return;
        }
        self.charge_segment(task);
        let now = self.fair.now;
        let t = &mut self.tasks[task as usize];
        let step = t.cursor.next(&t.cfg.program, now);
        match step {
            Step::BusyUntil(until) => {
                if until != u64::MAX {
                    let gen = self.cpus[cpu as usize].work_gen;
                    self.queue.push(until, Ev::Work { cpu, gen });
                }
            }
            Step::SleepUntil(until) => self.block(cpu, task, until + self.cfg.host.timer_slack_ns),
            Step::HaltUntil(_) if !self.kvm.vcpu[task as usize].ipi.pending_from.is_empty() => {
                // HLT with an interrupt pending does not block (kvm_vcpu_has_events()): the
                // vCPU handles it first, then goes on with its program.
                let gen = self.cpus[cpu as usize].work_gen;
                self.queue.push(now + ipi::IPI_HANDLE_NS, Ev::Work { cpu, gen });
            }
            Step::HaltUntil(until) => {
                // kvm_vcpu_halt(): the guest's timer is an hrtimer in KVM (no slack).
                self.kvm.vcpu[task as usize].halted = true;
                self.block(cpu, task, until);
            }
            Step::Yield if self.cfg.host.profiling_timer && self.tasks[task as usize].syscall_pending.is_none() => {
                // With the contention model the call takes time: yield_task_fair() acts now,
                // the switch (if any) happens once the syscall and its atomic adds are done.
                self.tasks[task as usize].stats.yields += 1;
                let resched = self.fair.yield_task(cpu);
                self.fair.log.event(now, EventKind::Yield, cpu, task, NO_TASK, resched as i64);
                let (base, adds) =
                    if resched { (self.cputimer_cost.syscall_ns, 2) } else { (self.cputimer_cost.fast_syscall_ns, 0) };
                let atomic = self.cputimer.add(&self.cputimer_cost, cpu, now, adds);
                let t = &mut self.tasks[task as usize];
                t.syscall_pending = Some(resched);
                t.cursor.rewind();
                let gen = self.cpus[cpu as usize].work_gen;
                self.queue.push(now + base + atomic, Ev::Work { cpu, gen });
            }
            Step::Yield if self.tasks[task as usize].syscall_pending.is_some() => {
                let resched = self.tasks[task as usize].syscall_pending.take().expect("checked");
                if resched {
                    self.schedule(cpu, SwitchReason::Yield);
                } else if let Some(reason) = self.fair.rqs[cpu as usize].need_resched {
                    // A resched raised during the call takes effect at the return to user space.
                    self.schedule(cpu, reason);
                }
                self.resume_after_call(cpu, task);
            }
            Step::Yield => {
                self.tasks[task as usize].stats.yields += 1;
                let resched = self.fair.yield_task(cpu);
                self.fair.log.event(now, EventKind::Yield, cpu, task, NO_TASK, resched as i64);
                if resched {
                    self.schedule(cpu, SwitchReason::Yield);
                }
                self.resume_after_call(cpu, task);
            }
            Step::YieldTo(target) => {
                let yielded = self.yield_to(cpu, task, target);
                self.fair.log.event(now, EventKind::YieldTo, cpu, task, target, yielded as i64);
                if yielded {
                    self.schedule(cpu, SwitchReason::Yield);
                }
                self.resume_after_call(cpu, task);
            }
            Step::PingPong(pp) => match self.ping_pong(cpu, task, pp) {
                Some(u64::MAX) => {}
                Some(until) => {
                    let gen = self.cpus[cpu as usize].work_gen;
                    self.queue.push(until, Ev::Work { cpu, gen });
                }
                None => {
                    if self.running_task(cpu) == Some(task) {
                        self.dispatch(cpu);
                    }
                }
            },
            Step::Lock(lock) => {
                let r = self.guest_lock(cpu, task, lock);
                self.after_guest_wait(cpu, task, r);
            }
            Step::IpiWait(set) => {
                let r = self.guest_ipi_wait(cpu, task, set);
                self.after_guest_wait(cpu, task, r);
            }
            Step::Unlock(lock) => {
                if !self.guest_unlock(cpu, task, lock) {
                    self.dispatch(cpu);
                }
            }
            Step::PipeWrite { peer, end } => {
                if !self.pipe_write(cpu, task, peer) {
                    self.tasks[task as usize].cursor.break_loop(end);
                }
                self.return_to_user(cpu, task);
            }
            Step::PipeRead { peer, end, block_cost } => {
                // None: blocked, or spending its block cost first; the read is tried again
                // when the task runs again.
                if let Some(read) = self.pipe_read(cpu, task, peer, block_cost) {
                    let c = &mut self.tasks[task as usize].cursor;
                    if read {
                        c.finish_step();
                    } else {
                        c.break_loop(end);
                    }
                    self.dispatch(cpu);
                }
            }
            Step::Fork(f) => {
                self.fork_children(cpu, task, f);
                self.dispatch(cpu);
            }
            Step::Wait(_) => {
                if self.tasks[task as usize].wait_children == 0 {
                    self.tasks[task as usize].cursor.finish_step();
                    self.dispatch(cpu);
                } else {
                    // do_wait(): no child to reap yet; the last one's exit wakes the parent.
                    self.block(cpu, task, u64::MAX);
                }
            }
            Step::Wake { task: wakee, sync } => {
                self.wake_step(cpu, wakee, sync);
                self.return_to_user(cpu, task);
            }
            Step::WaitWakeup => {
                if self.wait_wakeup(cpu, task) {
                    self.dispatch(cpu);
                }
            }
            Step::Cgroup(tg) => {
                self.cgroup_step(cpu, task, tg);
                self.return_to_user(cpu, task);
            }
            Step::Exit => self.exit_running(cpu, task),
        }
    }

    /// Acts on a guest spin-wait step's outcome: `Some(u64::MAX)` the vCPU lost its CPU,
    /// `Some(t)` it spins until `t`, `None` the wait is over and the program moves on.
    fn after_guest_wait(&mut self, cpu: u32, task: u32, r: Option<u64>) {
        match r {
            Some(u64::MAX) => {}
            Some(until) => {
                let gen = self.cpus[cpu as usize].work_gen;
                self.queue.push(until, Ev::Work { cpu, gen });
            }
            None => {
                self.tasks[task as usize].cursor.finish_step();
                if self.running_task(cpu) == Some(task) {
                    self.dispatch(cpu);
                }
            }
        }
    }

    /// The running `task` blocks until `wake_at` (or an earlier wakeup).
    pub(crate) fn block(&mut self, cpu: u32, task: u32, wake_at: u64) {
        let now = self.fair.now;
        let t = &mut self.tasks[task as usize];
        t.state = TaskState::Sleeping;
        t.wake_gen += 1;
        t.stats.sleeps += 1;
        let gen = t.wake_gen;
        self.fair.log.event(now, EventKind::Sleep, cpu, task, NO_TASK, (wake_at - now) as i64);
        // u64::MAX: until woken (a PV qspinlock's pv_wait() halt, kicked or interrupted).
        if wake_at != u64::MAX {
            self.queue.push(wake_at, Ev::Wake { task, gen });
        }
        // `__schedule()` reads the runqueue clock before it dequeues the task
        // (`host.schedule_clock_lead`).
        let lead = self.cfg.host.cpu_switch_gaps[cpu as usize].1;
        let clock = (lead > 0).then(|| self.clock_floor(cpu, now.saturating_sub(lead)));
        let se = self.tasks[task as usize].se;
        self.fair.now = clock.unwrap_or(now);
        self.fair.dequeue_task(se, DEQUEUE_SLEEP);
        self.fair.now = now;
        self.schedule_at(cpu, SwitchReason::Sleep, clock);
    }

    /// `kvm_vcpu_kick()` of a halted vCPU by the vCPU running on `waker_cpu` (its IPI or PV
    /// kick exit): the halted thread is woken now from that CPU (the HLT timer is dropped).
    pub(crate) fn kick_halted(&mut self, task: u32, waker_cpu: u32) {
        let v = &mut self.kvm.vcpu[task as usize];
        if !v.halted || self.tasks[task as usize].state != TaskState::Sleeping {
            return;
        }
        v.halted = false;
        self.tasks[task as usize].wake_gen += 1;
        self.wake_up_flags(task, 0, Some(waker_cpu));
    }

    /// The return to user space of a system call that woke another task (a pipe write, a
    /// futex wake): under PREEMPT_NONE it is the caller's preemption point. When the wakeup
    /// set TIF_NEED_RESCHED on the caller's CPU (`check_preempt_wakeup_fair()` let the wakee
    /// preempt), the caller is switched out still runnable (`R`) before its next system call,
    /// and its program goes on when it runs again; otherwise it carries on at once.
    pub(crate) fn return_to_user(&mut self, cpu: u32, task: u32) {
        if let Some(reason) = self.fair.rqs[cpu as usize].need_resched {
            self.schedule(cpu, reason);
        }
        self.resume_after_call(cpu, task);
    }

    /// After a system call returns: if the same task still runs, it carries on with its program.
    pub(crate) fn resume_after_call(&mut self, cpu: u32, task: u32) {
        if self.running_task(cpu) == Some(task) {
            self.cpus[cpu as usize].work_gen += 1;
            self.dispatch(cpu);
        }
    }

    /// Models `yield_to(p, preempt=true)` (kernel/sched/syscalls.c) from `task` on `cpu`.
    /// Returns whether it yielded.
    pub(crate) fn yield_to(&mut self, cpu: u32, task: u32, target: u32) -> bool {
        self.yield_to_ret(cpu, task, target) > 0
    }

    /// `yield_to()`'s return value: −1 (−ESRCH: both runqueues hold a single task), 0 (the
    /// target runs, sleeps, or yield_to_task_fair declined), 1 (yielded).
    pub(crate) fn yield_to_ret(&mut self, cpu: u32, task: u32, target: u32) -> i32 {
        let t = &self.tasks[target as usize];
        let p_cpu = t.cpu;
        if self.fair.rqs[cpu as usize].nr_running == 1 && self.fair.rqs[p_cpu as usize].nr_running == 1 {
            return -1;
        }
        // A running or sleeping target: nothing to yield to.
        if t.state != TaskState::Runnable {
            return 0;
        }
        let se = t.se;
        let yielded = self.fair.yield_to_task_fair(cpu, se);
        if yielded {
            self.tasks[task as usize].stats.yields_to += 1;
            if p_cpu != cpu {
                self.fair.resched(p_cpu, SwitchReason::WakeupPreempt);
            }
        }
        i32::from(yielded)
    }
}
