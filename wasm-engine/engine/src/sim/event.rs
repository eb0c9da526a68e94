//! The event queue: a min-heap ordered by (time, insertion sequence), so ties resolve in
//! the order events were scheduled and no other ordering can leak in. One exception, made by
//! the simulation: the CPUs' ticks of one instant are taken together (`pop_ticks_at`) and
//! handled in CPU order.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// What happens at an instant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Ev {
    /// The periodic scheduler tick of a CPU.
    Tick { cpu: u32 },
    /// HRTICK: the running task's slice ends (only with the HRTICK feature).
    HrTick { cpu: u32, gen: u64 },
    /// The running task's current step ends (CPU burst done or spin deadline reached).
    Work { cpu: u32, gen: u64 },
    /// A sleeping task's timer fires.
    Wake { task: u32, gen: u32 },
    /// A task is created.
    Start { task: u32 },
    /// A task is killed.
    Stop { task: u32 },
    /// A task picked through a throttled hierarchy returns to user space: the throttle
    /// task_work runs.
    ThrottleWork { cpu: u32, gen: u64 },
    /// The CFS bandwidth period timer of a task group.
    BwPeriod { tg: u32 },
    /// The CFS bandwidth slack timer of a task group.
    BwSlack { tg: u32 },
    /// A running vCPU finishes handling its pending IPIs (EOI).
    IpiHandle { task: u32 },
    /// The switch a preempting wakeup asked for, `host.wakeup_switch_latency` after it, due
    /// at `at` (`Cpu::switch_at`; a switch made meanwhile cancels it).
    Resched { cpu: u32, at: u64 },
}

/// A min-heap of `(time_ns, seq, Ev)`.
#[derive(Debug, Clone, Default)]
pub struct EventQueue {
    heap: BinaryHeap<Reverse<(u64, u64, Ev)>>,
    seq: u64,
    /// Events popped so far.
    pub processed: u64,
}

impl EventQueue {
    /// Schedules `ev` at `t`.
    #[inline]
    pub fn push(&mut self, t: u64, ev: Ev) {
        self.seq += 1;
        self.heap.push(Reverse((t, self.seq, ev)));
    }

    /// Time of the earliest event.
    #[inline]
    pub fn peek_time(&self) -> Option<u64> {
        self.heap.peek().map(|Reverse((t, _, _))| *t)
    }

    /// Removes the earliest event.
    #[inline]
    pub fn pop(&mut self) -> Option<(u64, Ev)> {
        let Reverse((t, _, ev)) = self.heap.pop()?;
        self.processed += 1;
        Some((t, ev))
    }

    /// Pops every Tick at `t` that follows at the top of the queue (the CPUs' ticks of one
    /// jiffy, queued one after another), appending their CPUs to `cpus`.
    ///
    /// The simulation handles them in CPU order, whichever CPU armed its tick first. On this
    /// machine the CPUs' ticks fire at the same jiffy a few µs apart, CPU 0's first in 56–61 %
    /// of the jiffies where both ticked (the four SMP captures with aligned ticks, median
    /// 3–5 µs apart); and of three-hogs-two-cpus' 12 balance pulls, 8 are what CPU 0's tick
    /// first gives (`docs/kernel-6.18.44-findings.md`, "Simultaneous ticks"). Named shortcut:
    /// the majority order, always. Insertion order alone kept whichever CPU's tick was armed
    /// first ahead for the rest of the run, a history the kernel does not have.
    pub fn pop_ticks_at(&mut self, t: u64, cpus: &mut Vec<u32>) {
        while let Some(&Reverse((et, _, Ev::Tick { cpu }))) = self.heap.peek() {
            if et != t {
                break;
            }
            self.heap.pop();
            self.processed += 1;
            cpus.push(cpu);
        }
    }

    /// Number of pending events.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// Whether nothing is pending.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_pop_in_insertion_order() {
        let mut q = EventQueue::default();
        q.push(10, Ev::Stop { task: 2 });
        q.push(5, Ev::Start { task: 9 });
        q.push(10, Ev::Start { task: 1 });
        assert_eq!(q.pop(), Some((5, Ev::Start { task: 9 })));
        assert_eq!(q.pop(), Some((10, Ev::Stop { task: 2 })));
        assert_eq!(q.pop(), Some((10, Ev::Start { task: 1 })));
        assert_eq!(q.pop(), None);
    }

    #[test]
    fn pop_ticks_at_takes_the_run_of_ticks_at_that_instant_only() {
        let mut q = EventQueue::default();
        q.push(4, Ev::Tick { cpu: 1 });
        q.push(4, Ev::Tick { cpu: 0 });
        q.push(4, Ev::Stop { task: 3 });
        q.push(4, Ev::Tick { cpu: 2 });
        q.push(8, Ev::Tick { cpu: 1 });
        assert_eq!(q.pop(), Some((4, Ev::Tick { cpu: 1 })));
        let mut cpus = vec![1];
        q.pop_ticks_at(4, &mut cpus);
        assert_eq!(cpus, [1, 0], "stops at the first event that is not a tick");
        assert_eq!(q.pop(), Some((4, Ev::Stop { task: 3 })));
        assert_eq!(q.processed, 3);
    }
}
