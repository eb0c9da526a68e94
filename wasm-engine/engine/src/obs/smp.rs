//! The SMP metrics of a run, from the event log alone: per task its migrations and its CPU
//! time on each CPU, per CPU the time it sat idle while another CPU had a fair task waiting.
//! They measure placement and load balancing; `summary` puts them in the `Summary`.
//!
//! How, in one pass over the log. Migrations and per-CPU CPU time are plain counts and sums
//! (a Switch row closes the previous task's stretch on that CPU). For the idle time, each
//! CPU has two flags, kept up to date only for the CPUs a row touches: *idle* (no task
//! running) and *overloaded* (a runnable task queued besides the running one). A global
//! count of overloaded CPUs gives two running integrals: the time with at least one
//! overloaded CPU, and with at least two. An idle CPU earns time while some *other* CPU is
//! overloaded: if it is not overloaded itself that is the first integral, if it is (its own
//! waiting task does not count) the second. So each CPU notes the right integral's value
//! when its flags change and, while idle, is credited the integral's growth since: O(1) a
//! row, instead of a look at every CPU at every timestamp. The result is the same, to the
//! nanosecond, as that plain reading (tests/smp_reference.rs keeps it and compares).

use super::log::{EventKind, EventLog, NO_TASK};
use std::collections::BTreeSet;

/// What the log does not say and the cfs_rq-based throttle (≤6.17) needs: there, the tasks
/// below a throttled cfs_rq stay queued but cannot run (`rq->nr_running` drops them), and the
/// log's Throttle/Unthrottle rows name the group, not its tasks. Under the task-based
/// throttle of 6.18 a throttled task leaves the queue (a Dequeue row), so none is needed.
#[derive(Debug, Clone, Default)]
pub struct LegacyThrottle {
    /// Task group of each task (0 = the root group).
    pub task_tg: Vec<u32>,
    /// Parent of each task group (None for the root).
    pub tg_parent: Vec<Option<u32>>,
}

impl LegacyThrottle {
    /// Whether `tg` or an ancestor is in `throttled` (task group, CPU) on `cpu`.
    fn throttled(&self, throttled: &BTreeSet<(u32, u16)>, tg: u32, cpu: u16) -> bool {
        let mut g = Some(tg);
        while let Some(x) = g {
            if throttled.contains(&(x, cpu)) {
                return true;
            }
            g = self.tg_parent.get(x as usize).copied().flatten();
        }
        false
    }
}

/// The SMP metrics of a run.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SmpMetrics {
    /// Per task: Migrate rows (`set_task_cpu()` to another CPU; a new task's first placement
    /// is not one).
    pub migrations: Vec<u64>,
    /// Per task, per CPU: time it ran there (ns); each row sums to the task's CPU time.
    pub cpu_time_ns_by_cpu: Vec<Vec<u64>>,
    /// Per CPU: time it was idle while another CPU had a fair task waiting, queued and
    /// runnable but not running, i.e. that CPU's runnable count, its running task included,
    /// was at least 2 (ns).
    pub idle_while_overloaded_ns: Vec<u64>,
}

/// The idle-while-overloaded time, settled lazily (see the module's doc).
struct IdleWhileOverloaded {
    /// Per CPU: no task running.
    idle: Vec<bool>,
    /// Per CPU: a task waiting (overloaded).
    over: Vec<bool>,
    /// Per CPU: the value of its integral (`others`) when its flags last changed.
    mark: Vec<u64>,
    /// Per CPU: the time settled so far.
    ns: Vec<u64>,
    /// Overloaded CPUs now.
    n_over: usize,
    /// Time up to which the integrals run (the latest row's).
    clock: u64,
    /// Time with at least one, and at least two, overloaded CPUs.
    one: u64,
    two: u64,
}

impl IdleWhileOverloaded {
    /// Every CPU idle, none overloaded, at time 0.
    fn new(ncpus: usize) -> Self {
        let v = vec![0; ncpus];
        Self {
            idle: vec![true; ncpus],
            over: vec![false; ncpus],
            mark: v.clone(),
            ns: v,
            n_over: 0,
            clock: 0,
            one: 0,
            two: 0,
        }
    }

    /// Runs the integrals on to `t` (a time before the clock changes nothing).
    fn advance(&mut self, t: u64) {
        if t > self.clock {
            let d = t - self.clock;
            self.one += if self.n_over >= 1 { d } else { 0 };
            self.two += if self.n_over >= 2 { d } else { 0 };
            self.clock = t;
        }
    }

    /// The integral that counts for a CPU: time another CPU was overloaded, given whether it
    /// is overloaded itself.
    fn others(&self, own: bool) -> u64 {
        if own {
            self.two
        } else {
            self.one
        }
    }

    /// Credits CPU `c`, if idle, with the time since its flags last changed.
    fn settle(&mut self, c: usize) {
        if self.idle[c] {
            self.ns[c] += self.others(self.over[c]) - self.mark[c];
        }
    }

    /// CPU `c`'s flags from now on.
    fn set(&mut self, c: usize, idle: bool, over: bool) {
        if (self.idle[c], self.over[c]) != (idle, over) {
            self.settle(c);
            self.n_over = self.n_over + usize::from(over) - usize::from(self.over[c]);
            (self.idle[c], self.over[c]) = (idle, over);
            self.mark[c] = self.others(over);
        }
    }

    /// The totals at `now`.
    fn finish(mut self, now: u64) -> Vec<u64> {
        self.advance(now);
        for c in 0..self.ns.len() {
            self.settle(c);
        }
        self.ns
    }
}

/// Computes the SMP metrics from a log of `ntasks` tasks on `ncpus` CPUs, closed at `now`.
///
/// A task is queued and runnable on a CPU from its Enqueue row (a new or woken task, a
/// delayed one requeued, an unthrottled one) to its next Dequeue (sleep, delayed dequeue,
/// throttle, exit): a delayed entity (DELAY_DEQUEUE) stays in the kernel's queue but is not
/// runnable, so it does not count as waiting. The running task is the one the CPU's last
/// Switch row put there. A CPU is overloaded when its runnable count exceeds the running
/// task (if that one is queued there and counts).
pub fn smp_metrics(log: &EventLog, ntasks: usize, ncpus: u32, now: u64, legacy: Option<&LegacyThrottle>) -> SmpMetrics {
    let nc = ncpus as usize;
    let mut migrations = vec![0u64; ntasks];
    let mut by_cpu = vec![vec![0u64; nc]; ntasks];
    let mut acc = IdleWhileOverloaded::new(nc);
    // (task, since) per CPU.
    let mut running: Vec<(u32, u64)> = vec![(NO_TASK, 0); nc];
    // The CPU each task is queued and runnable on.
    let mut queued: Vec<Option<u16>> = vec![None; ntasks];
    // Runnable tasks queued per CPU, running one included (legacy-throttled ones excluded).
    let mut nr: Vec<u32> = vec![0; nc];
    // Legacy only: the (task group, CPU) throttled, and the tasks queued on each CPU, with
    // each one's slot in its CPU's list, to recount a CPU when a group on it throttles.
    let mut throttled: BTreeSet<(u32, u16)> = BTreeSet::new();
    let mut on_cpu: Vec<Vec<u32>> = vec![Vec::new(); if legacy.is_some() { nc } else { 0 }];
    let mut slot: Vec<usize> = vec![0; if legacy.is_some() { ntasks } else { 0 }];
    let counts = |task: usize, cpu: u16, throttled: &BTreeSet<(u32, u16)>| {
        legacy.is_none_or(|l| !l.throttled(throttled, l.task_tg.get(task).copied().unwrap_or(0), cpu))
    };
    let e = &log.events;
    for r in e.rows() {
        let t = r.t;
        acc.advance(t);
        let (task, cpu) = (r.task as usize, r.cpu);
        // The CPUs whose flags this row may change.
        let mut touched = [None, None];
        match EventKind::from_u8(r.kind) {
            Some(EventKind::Switch) if (cpu as usize) < nc => {
                let c = cpu as usize;
                let (prev, since) = running[c];
                if prev != NO_TASK && (prev as usize) < ntasks {
                    by_cpu[prev as usize][c] += t - since;
                }
                running[c] = (r.task, t);
                touched[0] = Some(cpu);
            }
            Some(EventKind::Migrate) if task < ntasks => migrations[task] += 1,
            Some(EventKind::Enqueue) if task < ntasks && (cpu as usize) < nc => {
                touched = [queued[task].replace(cpu), Some(cpu)];
                if let Some(old) = touched[0] {
                    nr[old as usize] -= u32::from(counts(task, old, &throttled));
                    if legacy.is_some() {
                        remove(&mut on_cpu[old as usize], &mut slot, task);
                    }
                }
                nr[cpu as usize] += u32::from(counts(task, cpu, &throttled));
                if legacy.is_some() {
                    slot[task] = on_cpu[cpu as usize].len();
                    on_cpu[cpu as usize].push(task as u32);
                }
            }
            Some(EventKind::Dequeue | EventKind::DelayedDequeue | EventKind::Exit) if task < ntasks => {
                touched[0] = queued[task].take();
                if let Some(old) = touched[0] {
                    nr[old as usize] -= u32::from(counts(task, old, &throttled));
                    if legacy.is_some() {
                        remove(&mut on_cpu[old as usize], &mut slot, task);
                    }
                }
            }
            Some(k @ (EventKind::Throttle | EventKind::Unthrottle)) if legacy.is_some() => {
                let tg = r.task & !crate::sched::group::GROUP_NODE;
                if k == EventKind::Throttle {
                    throttled.insert((tg, cpu));
                } else {
                    throttled.remove(&(tg, cpu));
                }
                // Only this CPU's tasks can change: recount them.
                if let Some(tasks) = on_cpu.get(cpu as usize) {
                    nr[cpu as usize] = tasks.iter().filter(|&&k| counts(k as usize, cpu, &throttled)).count() as u32;
                    touched[0] = Some(cpu);
                }
            }
            _ => {}
        }
        for c in touched.into_iter().flatten() {
            let run = running[c as usize].0 as usize;
            let on_it = run < ntasks && queued[run] == Some(c) && counts(run, c, &throttled);
            acc.set(c as usize, run == NO_TASK as usize, nr[c as usize] > u32::from(on_it));
        }
    }
    for (c, &(task, since)) in running.iter().enumerate() {
        if task != NO_TASK && (task as usize) < ntasks {
            by_cpu[task as usize][c] += now - since;
        }
    }
    SmpMetrics { migrations, cpu_time_ns_by_cpu: by_cpu, idle_while_overloaded_ns: acc.finish(now) }
}

/// Takes `task` out of its CPU's list `tasks` (legacy only), keeping the slots right.
fn remove(tasks: &mut Vec<u32>, slot: &mut [usize], task: usize) {
    let s = slot[task];
    tasks.swap_remove(s);
    if let Some(&moved) = tasks.get(s) {
        slot[moved as usize] = s;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sched::group::GROUP_NODE;

    /// Tasks 0 and 1 (task group 1) on CPU 0 of 2: 0 runs, 1 waits; /1 is throttled from 10
    /// to 30 and CPU 0 idles; then 1 runs; 1 is dequeued delayed at 40 (not runnable).
    fn log() -> EventLog {
        let mut l = EventLog::new();
        l.event(0, EventKind::Enqueue, 0, 0, NO_TASK, 0);
        l.event(0, EventKind::Switch, 0, 0, NO_TASK, 5);
        l.event(0, EventKind::Enqueue, 0, 1, NO_TASK, 0);
        l.event(10, EventKind::Throttle, 0, GROUP_NODE | 1, NO_TASK, 0);
        l.event(10, EventKind::Switch, 0, NO_TASK, 0, 7);
        l.event(30, EventKind::Unthrottle, 0, GROUP_NODE | 1, NO_TASK, 0);
        l.event(30, EventKind::Switch, 0, 1, NO_TASK, 5);
        l.event(40, EventKind::Migrate, 0, 0, NO_TASK, 1);
        l.event(40, EventKind::Dequeue, 0, 0, NO_TASK, 1);
        l
    }

    #[test]
    fn per_cpu_time_and_migrations() {
        let m = smp_metrics(&log(), 2, 2, 50, None);
        assert_eq!(m.cpu_time_ns_by_cpu, vec![vec![10, 0], vec![20, 0]]);
        assert_eq!(m.migrations, vec![1, 0]);
    }

    #[test]
    fn waiting_means_queued_runnable_and_not_throttled() {
        // Task-based reading: both stay queued through the throttle, so CPU 0 has a task
        // waiting from 0 to 40, when task 0's delayed dequeue leaves 1 alone.
        assert_eq!(smp_metrics(&log(), 2, 2, 50, None).idle_while_overloaded_ns, vec![0, 40]);
        // cfs_rq-based: nothing of /1 can run from 10 to 30.
        let legacy = LegacyThrottle { task_tg: vec![1, 1], tg_parent: vec![None, Some(0)] };
        assert_eq!(smp_metrics(&log(), 2, 2, 50, Some(&legacy)).idle_while_overloaded_ns, vec![0, 20]);
        // A group below the throttled one is throttled with it.
        let legacy = LegacyThrottle { task_tg: vec![2, 2], tg_parent: vec![None, Some(0), Some(1)] };
        assert_eq!(smp_metrics(&log(), 2, 2, 50, Some(&legacy)).idle_while_overloaded_ns, vec![0, 20]);
    }
}
