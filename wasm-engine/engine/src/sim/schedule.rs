//! `__schedule()`: the running task's CPU time charged to its program, the pick (with a newidle
//! balance when nothing is left), the switch and what follows it (the tick, HRTICK, the
//! throttle task_work at the return to user space).

use super::event::Ev;
use super::{Simulation, TaskState};
use crate::obs::log::{EventKind, SwitchReason, NO_TASK};
use crate::sched::bandwidth::RETURN_TO_USER_NS;

impl Simulation {
    /// Charges the CPU time of the current on-CPU segment to the task's program.
    pub(crate) fn charge_segment(&mut self, task: u32) {
        let now = self.fair.now;
        let t = &mut self.tasks[task as usize];
        if t.state == TaskState::Running && self.cpus[t.cpu as usize].switch_due.is_some() {
            // A preempting wakeup's switch is due: the gap is the kernel's, not the program's.
            t.seg_start = now;
            return;
        }
        let ran = now - t.seg_start;
        t.cursor.charge(ran);
        if let Some((_, left)) = t.pp_seg.as_mut() {
            *left = left.saturating_sub(ran);
        }
        t.seg_start = now;
        if let Some(v) = self.kvm.vcpu.get_mut(task as usize) {
            if let Some((_, left)) = v.spin.as_mut() {
                *left = left.saturating_sub(ran);
                v.spun += ran;
            }
        }
    }

    /// `__schedule()` with the runqueue clock at `rq_clock` when its update was skipped
    /// (`rq_clock_skip_update()`: a delayed wakeup switch), else at now.
    pub(super) fn schedule_at(&mut self, cpu: u32, reason: SwitchReason, rq_clock: Option<u64>) {
        self.fair.rqs[cpu as usize].need_resched = Some(reason);
        self.cpus[cpu as usize].switch_due = None;
        let prev = self.running_task(cpu);
        if let Some(p) = prev {
            self.charge_segment(p);
        }
        let now = self.fair.now;
        self.fair.now = rq_clock.unwrap_or(now);
        let mut next_se = self.fair.pick_next_task(cpu);
        if next_se.is_none() && self.fair.sched_balance_newidle(cpu) {
            // The CPU pulled a task instead of going idle.
            self.sync_migrations();
            next_se = self.fair.pick_next_task(cpu);
        }
        self.fair.now = now;
        let next = next_se.map(|se| self.fair.task_of(se));
        if next == prev {
            self.arm_throttle_work(cpu);
            return;
        }
        let now = self.fair.now;
        self.fair.log.event(
            now,
            EventKind::Switch,
            cpu,
            next.unwrap_or(NO_TASK),
            prev.unwrap_or(NO_TASK),
            reason as i64,
        );
        self.cpus[cpu as usize].work_gen += 1;
        if let Some(p) = prev {
            let still_runnable = self.tasks[p as usize].state == TaskState::Running;
            self.kvm_sched_out(p, still_runnable);
            let t = &mut self.tasks[p as usize];
            t.stats.switches_out += 1;
            if t.state == TaskState::Running {
                t.state = TaskState::Runnable;
                t.stats.switches_out_runnable += 1;
            } else if t.state == TaskState::Throttled {
                // Still TASK_RUNNING, as the trace's `R+` shows; only off the queue.
                t.stats.switches_out_runnable += 1;
            }
        }
        match next {
            Some(n) => {
                if let Some(since) = self.cpus[cpu as usize].idle_since.take() {
                    self.cpus[cpu as usize].idle_ns += now - since;
                }
                let t = &mut self.tasks[n as usize];
                t.state = TaskState::Running;
                t.cpu = cpu;
                t.seg_start = now;
                if let Some(w) = t.woken_at.take() {
                    t.stats.wakeup_latencies.push(now - w);
                }
                self.kvm_sched_in(n);
                self.ipi_on_sched_in(n);
                self.arm_tick(cpu);
                self.arm_hrtick(cpu);
                self.arm_throttle_work(cpu);
                if self.tasks[n as usize].exec_pending {
                    self.tasks[n as usize].exec_pending = false;
                    if self.sched_exec(cpu, n) {
                        return;
                    }
                }
                self.dispatch(cpu);
            }
            None => {
                if self.cpus[cpu as usize].idle_since.is_none() {
                    // Idle from the clock `__schedule()` read: prev was charged up to it.
                    self.cpus[cpu as usize].idle_since = Some(rq_clock.unwrap_or(now).min(now));
                }
            }
        }
    }

    /// Arms the throttle task_work of the task just picked on `cpu`, if it was picked through
    /// a throttled hierarchy (task-based throttle): it runs at the return to user space.
    pub(super) fn arm_throttle_work(&mut self, cpu: u32) {
        let pending = std::mem::take(&mut self.fair.throttle_work);
        let Some(curr) = self.fair.rqs[cpu as usize].curr else { return };
        if pending.contains(&curr) {
            let gen = self.cpus[cpu as usize].work_gen;
            self.queue.push(self.fair.now + RETURN_TO_USER_NS, Ev::ThrottleWork { cpu, gen });
        }
    }

    /// The throttle task_work: the running task leaves for its cfs_rq's limbo list.
    pub(super) fn on_throttle_work(&mut self, cpu: u32) {
        let Some(se) = self.fair.rqs[cpu as usize].curr else { return };
        let task = self.fair.task_of(se);
        self.charge_segment(task);
        if self.fair.throttle_task(se) {
            self.tasks[task as usize].state = TaskState::Throttled;
            self.schedule(cpu, SwitchReason::Throttle);
        }
    }

    /// HRTICK: program a precise slice-end event (`hrtick_start_fair`).
    pub(super) fn arm_hrtick(&mut self, cpu: u32) {
        if !self.cfg.features.hrtick || self.fair.rqs[cpu as usize].nr_running <= 1 {
            return;
        }
        let Some(se) = self.fair.rqs[cpu as usize].curr else { return };
        let e = &self.fair.ents[se as usize];
        let ran = e.sum_exec_runtime - e.prev_sum_exec_runtime;
        let left = e.slice.saturating_sub(ran).max(10_000);
        let gen = self.cpus[cpu as usize].work_gen;
        self.queue.push(self.fair.now + left, Ev::HrTick { cpu, gen });
    }
}
