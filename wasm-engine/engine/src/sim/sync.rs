//! Synchronisation between tasks beyond the scheduler: the token ping-pong of Christian
//! Borntraeger's test (spin, then directed yield to the peer, until the token comes back).

use super::event::Ev;
use super::program::PingPongStep;
use super::{PpPhase, Simulation, TaskState};
use crate::obs::log::{EventKind, SwitchReason};

impl Simulation {
    /// Drives a token ping-pong step of the running `task` on `cpu`: returns the time its
    /// current segment ends, or None when the step is finished (the program moves on).
    pub(crate) fn ping_pong(&mut self, cpu: u32, task: u32, pp: PingPongStep) -> Option<u64> {
        let PingPongStep { peer, rounds, work, spin, first } = pp;
        let now = self.fair.now;
        loop {
            let t = &mut self.tasks[task as usize];
            if t.pp_left.is_none() {
                t.pp_left = Some(rounds);
                t.token |= first;
            }
            if t.token {
                match t.pp_seg {
                    Some((PpPhase::Work, 0)) => {}
                    Some((PpPhase::Work, left)) => return Some(now + left),
                    _ => {
                        t.pp_seg = Some((PpPhase::Work, work));
                        return Some(now + work);
                    }
                }
                // Work done: hand the token over.
                t.pp_seg = None;
                t.token = false;
                t.stats.handoffs += 1;
                let left = t.pp_left.expect("in ping-pong") - 1;
                t.pp_left = Some(left);
                self.tasks[peer as usize].token = true;
                self.notify_token(peer);
                if left == 0 {
                    self.tasks[task as usize].pp_left = None;
                    self.tasks[task as usize].cursor.finish_step();
                    return None;
                }
                continue;
            }
            match t.pp_seg {
                Some((PpPhase::Spin, 0)) => {}
                Some((PpPhase::Spin, left)) => return Some(now + left),
                _ => {
                    t.pp_seg = Some((PpPhase::Spin, spin));
                    return Some(now + spin);
                }
            }
            // Spun long enough: directed yield to the peer (diag 0x9c), then spin again.
            t.pp_seg = None;
            t.stats.hypercalls += 1;
            let yielded = self.yield_to(cpu, task, peer);
            self.fair.log.event(now, EventKind::YieldTo, cpu, task, peer, yielded as i64);
            if yielded {
                self.schedule(cpu, SwitchReason::Yield);
                if self.running_task(cpu) != Some(task) {
                    return Some(u64::MAX); // off the CPU; it resumes when picked again
                }
                self.cpus[cpu as usize].work_gen += 1;
            }
        }
    }

    /// The token reached `peer`: if it is spinning on a CPU, it notices at once.
    pub(crate) fn notify_token(&mut self, peer: u32) {
        let p = &self.tasks[peer as usize];
        if p.state == TaskState::Running && matches!(p.pp_seg, Some((PpPhase::Spin, _))) {
            let cpu = p.cpu;
            self.charge_segment(peer);
            self.tasks[peer as usize].pp_seg = None;
            self.cpus[cpu as usize].work_gen += 1;
            let gen = self.cpus[cpu as usize].work_gen;
            self.queue.push(self.fair.now, Ev::Work { cpu, gen });
        }
    }
}
