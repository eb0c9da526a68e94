//! The SMP metrics of a run, from the event log alone: per task its migrations and its CPU
//! time on each CPU, per CPU the time it sat idle while another CPU had a fair task waiting.
//! They measure placement and load balancing; `summary` puts them in the `Summary`.

use super::log::{EventKind, EventLog, NO_TASK};

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
    /// Whether `tg` or an ancestor is in `throttled` on `cpu`.
    fn throttled(&self, throttled: &[(u32, u16)], tg: u32, cpu: u16) -> bool {
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

/// Computes the SMP metrics from a log of `ntasks` tasks on `ncpus` CPUs, closed at `now`.
///
/// A task is queued and runnable on a CPU from its Enqueue row (a new or woken task, a
/// delayed one requeued, an unthrottled one) to its next Dequeue (sleep, delayed dequeue,
/// throttle, exit): a delayed entity (DELAY_DEQUEUE) stays in the kernel's queue but is not
/// runnable, so it does not count as waiting. The running task is the one the CPU's last
/// Switch row put there.
pub fn smp_metrics(log: &EventLog, ntasks: usize, ncpus: u32, now: u64, legacy: Option<&LegacyThrottle>) -> SmpMetrics {
    let nc = ncpus as usize;
    let mut migrations = vec![0u64; ntasks];
    let mut by_cpu = vec![vec![0u64; nc]; ntasks];
    let mut overloaded_idle = vec![0u64; nc];
    // (task, since) per CPU.
    let mut running: Vec<(u32, u64)> = vec![(NO_TASK, 0); nc];
    // The CPU each task is queued and runnable on.
    let mut queued: Vec<Option<u16>> = vec![None; ntasks];
    // Runnable tasks queued per CPU, running one included (legacy-throttled ones excluded).
    let mut nr: Vec<u32> = vec![0; nc];
    let mut throttled: Vec<(u32, u16)> = Vec::new();
    let counts = |task: usize, cpu: u16, throttled: &[(u32, u16)]| {
        legacy.is_none_or(|l| !l.throttled(throttled, l.task_tg.get(task).copied().unwrap_or(0), cpu))
    };
    let mut last = 0u64;
    let e = &log.events;
    for i in 0..=e.t.len() {
        let t = if i < e.t.len() { e.t[i] } else { now.max(last) };
        if t > last {
            // The CPUs with a task waiting: how many, and the first (enough to leave out an
            // idle CPU's own queue).
            let (mut over, mut first) = (0usize, usize::MAX);
            for c in 0..nc {
                let run = running[c].0 as usize;
                let on_it = run < ntasks && queued[run] == Some(c as u16) && counts(run, c as u16, &throttled);
                if nr[c] > u32::from(on_it) {
                    over += 1;
                    first = first.min(c);
                }
            }
            if over > 0 {
                for (c, idle) in overloaded_idle.iter_mut().enumerate() {
                    if running[c].0 == NO_TASK && (over > 1 || first != c) {
                        *idle += t - last;
                    }
                }
            }
            last = t;
        }
        if i == e.t.len() {
            break;
        }
        let (task, cpu) = (e.task[i] as usize, e.cpu[i]);
        match EventKind::from_u8(e.kind[i]) {
            Some(EventKind::Switch) => {
                let c = cpu as usize;
                if c >= nc {
                    continue;
                }
                let (prev, since) = running[c];
                if prev != NO_TASK && (prev as usize) < ntasks {
                    by_cpu[prev as usize][c] += t - since;
                }
                running[c] = (e.task[i], t);
            }
            Some(EventKind::Migrate) if task < ntasks => migrations[task] += 1,
            Some(EventKind::Enqueue) if task < ntasks && (cpu as usize) < nc => {
                if let Some(old) = queued[task].replace(cpu) {
                    if counts(task, old, &throttled) {
                        nr[old as usize] -= 1;
                    }
                }
                if counts(task, cpu, &throttled) {
                    nr[cpu as usize] += 1;
                }
            }
            Some(EventKind::Dequeue | EventKind::DelayedDequeue | EventKind::Exit) if task < ntasks => {
                if let Some(old) = queued[task].take() {
                    if counts(task, old, &throttled) {
                        nr[old as usize] -= 1;
                    }
                }
            }
            Some(k @ (EventKind::Throttle | EventKind::Unthrottle)) if legacy.is_some() => {
                let tg = e.task[i] & !crate::sched::group::GROUP_NODE;
                if k == EventKind::Throttle {
                    throttled.push((tg, cpu));
                } else {
                    throttled.retain(|&x| x != (tg, cpu));
                }
                if (cpu as usize) < nc {
                    nr[cpu as usize] =
                        (0..ntasks).filter(|&k| queued[k] == Some(cpu) && counts(k, cpu, &throttled)).count() as u32;
                }
            }
            _ => {}
        }
    }
    for (c, &(task, since)) in running.iter().enumerate() {
        if task != NO_TASK && (task as usize) < ntasks {
            by_cpu[task as usize][c] += now - since;
        }
    }
    SmpMetrics { migrations, cpu_time_ns_by_cpu: by_cpu, idle_while_overloaded_ns: overloaded_idle }
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
