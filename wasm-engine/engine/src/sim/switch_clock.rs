//! When `__schedule()` reads the runqueue clock, and who pays for the time up to the switch
//! (`host.wakeup_switch_latency`, `host.schedule_clock_lead`; docs/kernel-6.18.44-findings.md,
//! "Who pays for the switch").
//!
//! A task's CPU time as a trace shows it runs from one `sched_switch` to the next; what it is
//! charged (`update_curr()`) runs between two readings of the runqueue clock. The two differ by
//! the kernel's work around the switch:
//! * a wakeup that preempts: `wakeup_preempt()` (core.c) calls `rq_clock_skip_update()`, so the
//!   `__schedule()` at the interrupt's return reads the clock of the wakeup. The running task
//!   holds the CPU until the switch but is charged only up to the wakeup; the wakee is
//!   charged from it, and its own program starts at the switch;
//! * any other switch: `__schedule()` reads the clock before it dequeues or puts the running
//!   task, a little before the switch; the next task is charged from that reading.
//!
//! With both at 0 (the default) the switch takes no time and the two accounts agree.
//!
//! Named shortcut: the whole `__schedule()` runs at the earlier clock, a newidle balance's pulls
//! included; a PELT average another event updated later than that clock (an enqueue into a group
//! in the gap) restarts from it, the kernel's rule for a clock read behind the last update,
//! which its runqueue clock never is. The log stamps those rows at the time the simulation has
//! reached (`EventLog::stamp`), and a bandwidth timer armed then is never in the past. In practice
//! the lead changes the charge at a block only: a tick, a yield or an exit has just updated the
//! running task at the current time, and the clock never reads behind that.

use super::event::Ev;
use super::Simulation;
use crate::obs::log::SwitchReason;

impl Simulation {
    /// `__schedule()`: pick the next task on `cpu` and switch to it, with the runqueue clock
    /// read `host.schedule_clock_lead` before the switch (no earlier than the running
    /// entities' last update).
    pub(crate) fn schedule(&mut self, cpu: u32, reason: SwitchReason) {
        let lead = self.cfg.host.cpu_switch_gaps[cpu as usize].1;
        let running = self.running_task(cpu).is_some();
        let clock = (lead > 0 && running).then(|| self.clock_floor(cpu, self.fair.now.saturating_sub(lead)));
        self.schedule_at(cpu, reason, clock);
    }

    /// `clock`, or the last update of the running entities' accounting on `cpu` if later: the
    /// runqueue clock never reads earlier than an update already made.
    pub(super) fn clock_floor(&self, cpu: u32, mut clock: u64) -> u64 {
        let mut se = self.fair.rqs[cpu as usize].curr;
        while let Some(e) = se {
            clock = clock.max(self.fair.ents[e as usize].exec_start);
            se = self.fair.ents[e as usize].parent;
        }
        clock
    }

    /// Models the gap between a preempting wakeup and its switch (`host.wakeup_switch_latency`):
    /// the interrupt returns, `__schedule()` runs, and the running task's program does not go
    /// on meanwhile. `wakeup_preempt()` (core.c) skipped the next runqueue clock update
    /// (`rq_clock_skip_update()`), so `__schedule()` reads the clock of the wakeup: the
    /// running task is not charged for the gap, the wakee's `exec_start` is the wakeup's time
    /// and it pays for the gap. False when there is no gap to model.
    pub(super) fn delay_wakeup_switch(&mut self, cpu: u32) -> bool {
        let latency = self.cfg.host.cpu_switch_gaps[cpu as usize].0;
        let Some(task) = self.running_task(cpu).filter(|_| latency > 0) else { return false };
        self.charge_segment(task);
        let now = self.fair.now;
        let c = &mut self.cpus[cpu as usize];
        // Its pending work (the end of its step) waits for the switch.
        c.work_gen += 1;
        c.switch_due = Some(now);
        c.switch_at = now + latency;
        self.queue.push(now + latency, Ev::Resched { cpu, at: now + latency });
        true
    }

    /// The delayed switch of a preempting wakeup (`delay_wakeup_switch`): `__schedule()` at
    /// the clock of the last update.
    pub(super) fn on_resched(&mut self, cpu: u32) {
        let Some(clock) = self.cpus[cpu as usize].switch_due else { return };
        // Another wakeup or an enqueue on this runqueue in the gap updated the clock too: it is
        // where the running entities' accounting stands.
        let clock = self.clock_floor(cpu, clock);
        let reason = self.fair.rqs[cpu as usize].need_resched.unwrap_or(SwitchReason::WakeupPreempt);
        let prev = self.running_task(cpu);
        if let Some(p) = prev {
            // The gap was the kernel's: no progress of the task's own program.
            self.tasks[p as usize].seg_start = self.fair.now;
        }
        self.schedule_at(cpu, reason, Some(clock));
        if self.running_task(cpu) == prev && prev.is_some() {
            // The same task again: its step's end and HRTICK were cancelled with the gap.
            self.arm_hrtick(cpu);
            self.dispatch(cpu);
        }
    }
}
