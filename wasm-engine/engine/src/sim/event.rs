//! The event queue: a min-heap ordered by (time, insertion sequence), so ties resolve in
//! the order events were scheduled and no other ordering can leak in.

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
}
