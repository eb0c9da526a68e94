//! Enqueue and dequeue across the group hierarchy: `enqueue_task_fair()` and
//! `dequeue_entities()` (kernel/sched/fair.c, Linux 6.18.44).
//!
//! A task's chain is its own entity, then the group entities of its cgroup and the cgroup's
//! ancestors on the same CPU. Enqueue queues every level that is not queued yet; dequeue
//! stops at the first level whose queue keeps other entities. Group entities get the smallest
//! slice queued below them; `h_nr_queued`/`h_nr_runnable` count tasks at every level.

use super::entity::EntityId;
use super::fair::{Fair, DEQUEUE_DELAYED, DEQUEUE_SLEEP, DEQUEUE_SPECIAL, DEQUEUE_THROTTLE, ENQUEUE_WAKEUP};
use crate::obs::log::{BuddySource, EventKind, NO_TASK};

impl Fair {
    /// Models `enqueue_task_fair()` for a task entity. A delayed task (woken before it was
    /// picked) is requeued in place (ENQUEUE_DELAYED).
    pub fn enqueue_task(&mut self, se: EntityId, mut flags: u32) -> bool {
        let cpu = self.qs[self.ents[se as usize].cfs_rq as usize].cpu;
        let task = self.task_of(se);
        if self.ents[se as usize].sched_delayed {
            self.requeue_delayed_entity(se);
            self.log.event(self.now, EventKind::Enqueue, cpu, task, NO_TASK, 1);
            self.sample(se);
            return true;
        }
        let mut slice: Option<u64> = None;
        let mut cur = Some(se);
        // Levels that were not queued yet.
        while let Some(s) = cur {
            if self.ents[s as usize].on_rq {
                if self.ents[s as usize].sched_delayed {
                    self.requeue_delayed_entity(s);
                }
                break;
            }
            let q = self.ents[s as usize].cfs_rq;
            if let Some(sl) = slice {
                let e = &mut self.ents[s as usize];
                e.slice = sl;
                e.custom_slice = true;
            }
            self.enqueue_entity(q, s, flags);
            slice = Some(self.qs[q as usize].min_slice(&self.ents));
            let cq = &mut self.qs[q as usize];
            cq.h_nr_queued += 1;
            cq.h_nr_runnable += 1;
            if self.legacy_throttled(q) {
                self.log.event(self.now, EventKind::Enqueue, cpu, task, NO_TASK, 0);
                self.sample_chain(se);
                return true;
            }
            flags = ENQUEUE_WAKEUP;
            cur = self.ents[s as usize].parent;
        }
        // Levels already queued: refresh the group weight, the slice and the counters.
        while let Some(s) = cur {
            let q = self.ents[s as usize].cfs_rq;
            self.update_load_avg(q, s, super::group_pelt::UPDATE_TG);
            self.update_cfs_group(s);
            if let Some(sl) = slice {
                let e = &mut self.ents[s as usize];
                e.slice = sl;
                e.custom_slice = true;
            }
            slice = Some(self.qs[q as usize].min_slice(&self.ents));
            let cq = &mut self.qs[q as usize];
            cq.h_nr_queued += 1;
            cq.h_nr_runnable += 1;
            if self.legacy_throttled(q) {
                self.log.event(self.now, EventKind::Enqueue, cpu, task, NO_TASK, 0);
                self.sample_chain(se);
                return true;
            }
            cur = self.ents[s as usize].parent;
        }
        self.rqs[cpu as usize].nr_running += 1;
        self.touch_cpu_counters(cpu);
        self.note_nr_running(cpu);
        self.log.event(self.now, EventKind::Enqueue, cpu, task, NO_TASK, 0);
        // place_entity() sampled the entity before it was queued; sample it (and the levels
        // above) queued, so the timeline and the inspector see it waiting from now on.
        self.sample_chain(se);
        true
    }

    /// Dequeues a task entity; false when DELAY_DEQUEUE kept it queued.
    pub fn dequeue_task(&mut self, se: EntityId, flags: u32) -> bool {
        self.dequeue_entities(se, flags) >= 0
    }

    /// Models `dequeue_entities()` (6.18) for a task or a (delayed) group entity: returns −1
    /// when the task itself was delayed, 1 otherwise. A sleeping task that leaves a group
    /// queue with other entities sets the group entity above as next buddy, in a throttled
    /// hierarchy too (the throttle's own dequeue is a sleep). Above the first level only
    /// `DEQUEUE_DELAYED` and `DEQUEUE_SPECIAL` are dropped: `DEQUEUE_THROTTLE` stays, so the
    /// group entities a throttled task empties are dequeued, never delayed.
    pub fn dequeue_entities(&mut self, se: EntityId, mut flags: u32) -> i32 {
        let is_task = self.ents[se as usize].task.is_some();
        let task_sleep = flags & DEQUEUE_SLEEP != 0;
        let task_throttled = flags & DEQUEUE_THROTTLE != 0;
        let finishing_delay = flags & DEQUEUE_DELAYED != 0;
        let q0 = self.ents[se as usize].cfs_rq;
        let cpu = self.qs[q0 as usize].cpu;
        let node = self.node_of(se);
        let h_nr: u32 = u32::from(is_task);
        let mut slice: Option<u64> = None;
        let mut cur = Some(se);
        while let Some(s) = cur {
            let q = self.ents[s as usize].cfs_rq;
            if !self.dequeue_entity(q, s, flags) {
                if s == se && is_task {
                    self.log.event(self.now, EventKind::Dequeue, cpu, node, NO_TASK, 1);
                    self.sample(se);
                    return -1;
                }
                slice = Some(self.qs[q as usize].min_slice(&self.ents));
                break;
            }
            let cq = &mut self.qs[q as usize];
            cq.h_nr_queued -= h_nr;
            // A finished delayed dequeue restored h_nr_runnable in clear_delayed().
            cq.h_nr_runnable -= h_nr;
            if self.legacy_throttled(q) {
                return self.finish_dequeue_log(se, cpu, node, finishing_delay, is_task);
            }
            if task_throttled {
                self.record_throttle_clock(q);
            }
            if self.qs[q as usize].load_weight != 0 {
                slice = Some(self.qs[q as usize].min_slice(&self.ents));
                cur = self.ents[s as usize].parent;
                // Bias the next pick towards this group: p was its last runnable task here.
                // 6.18 does so in a throttled hierarchy too; ≤6.17 (the cfs_rq-based throttle)
                // did not.
                if let Some(parent) = cur {
                    if task_sleep && !self.legacy_throttled_hierarchy(q) {
                        self.set_next_buddy(parent, BuddySource::Sleep);
                    }
                }
                break;
            }
            flags |= DEQUEUE_SLEEP;
            flags &= !(DEQUEUE_DELAYED | DEQUEUE_SPECIAL);
            cur = self.ents[s as usize].parent;
        }
        while let Some(s) = cur {
            let q = self.ents[s as usize].cfs_rq;
            self.update_load_avg(q, s, super::group_pelt::UPDATE_TG);
            self.update_cfs_group(s);
            if let Some(sl) = slice {
                self.ents[s as usize].slice = sl;
            }
            slice = Some(self.qs[q as usize].min_slice(&self.ents));
            let cq = &mut self.qs[q as usize];
            cq.h_nr_queued -= h_nr;
            cq.h_nr_runnable -= h_nr;
            if self.legacy_throttled(q) {
                return self.finish_dequeue_log(se, cpu, node, finishing_delay, is_task);
            }
            if task_throttled {
                self.record_throttle_clock(q);
            }
            cur = self.ents[s as usize].parent;
        }
        self.rqs[cpu as usize].nr_running -= h_nr;
        self.touch_cpu_counters(cpu);
        self.finish_dequeue_log(se, cpu, node, finishing_delay, is_task)
    }

    /// Whether `q` is throttled under the cfs_rq-based throttle, where counts stop there.
    fn legacy_throttled(&self, q: super::entity::CfsRqId) -> bool {
        self.throttle_mode == super::bandwidth::ThrottleMode::CfsRq && self.qs[q as usize].throttled
    }

    /// Whether `q` is in a throttled hierarchy under the cfs_rq-based throttle (≤6.17), which
    /// skipped the sleep buddy, `update_cfs_group()` and yield_to targets there. The
    /// task-based throttle of 6.18 dropped those checks.
    pub(crate) fn legacy_throttled_hierarchy(&self, q: super::entity::CfsRqId) -> bool {
        self.throttle_mode == super::bandwidth::ThrottleMode::CfsRq && self.qs[q as usize].throttle_count > 0
    }

    fn finish_dequeue_log(&mut self, se: EntityId, cpu: u32, node: u32, finishing_delay: bool, is_task: bool) -> i32 {
        if is_task {
            let kind = if finishing_delay { EventKind::DelayedDequeue } else { EventKind::Dequeue };
            self.log.event(self.now, kind, cpu, node, NO_TASK, 0);
            self.sample(se);
        } else {
            self.log.event(self.now, EventKind::DelayedDequeue, cpu, node, NO_TASK, 0);
        }
        1
    }
}
