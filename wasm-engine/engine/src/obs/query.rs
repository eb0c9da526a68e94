//! Window queries over the log: what ran on each CPU in `[t0, t1)`, merged to a resolution,
//! the samples, markers and counters of a window. The UI (through `schedlab-wasm`) and the
//! CLI read the log only through these; the bindings just copy the rows they name into
//! typed-array columns.

use super::cursor::{latest_samples, latest_samples_of};
use super::log::{EventKind, EventLog, NO_TASK};

/// Columns of CPU run slices. A slice with `count > 1` merges several runs shorter than the
/// query's bucket; its `task` is the one that ran longest inside it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SliceCols {
    /// CPU.
    pub cpu: Vec<u16>,
    /// Task id (never NO_TASK: idle time is the gaps).
    pub task: Vec<u32>,
    /// Start (ns).
    pub start: Vec<u64>,
    /// End (ns).
    pub end: Vec<u64>,
    /// Runs merged into this slice.
    pub count: Vec<u32>,
}

impl SliceCols {
    fn push(&mut self, cpu: u16, task: u32, start: u64, end: u64, count: u32) {
        self.cpu.push(cpu);
        self.task.push(task);
        self.start.push(start);
        self.end.push(end);
        self.count.push(count);
    }

    /// Number of slices.
    pub fn len(&self) -> usize {
        self.cpu.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.cpu.is_empty()
    }
}

/// Runs on every CPU overlapping `[t0, t1)`, clipped to the window, with consecutive runs
/// shorter than `bucket_ns` merged. `now` closes runs still going on.
pub fn cpu_slices(log: &EventLog, ncpus: u32, t0: u64, t1: u64, bucket_ns: u64, now: u64) -> SliceCols {
    let e = &log.events;
    let (lo, hi) = log.event_window(t0, t1);
    // The task on each CPU at t0: the last switch before the window.
    let mut current: Vec<(u32, u64)> = vec![(NO_TASK, t0); ncpus as usize];
    let mut found = vec![false; ncpus as usize];
    let mut left = ncpus as usize;
    for i in (0..lo).rev() {
        if left == 0 {
            break;
        }
        if e.kind[i] == EventKind::Switch as u8 {
            let c = e.cpu[i] as usize;
            if c < found.len() && !found[c] {
                found[c] = true;
                current[c] = (e.task[i], t0);
                left -= 1;
            }
        }
    }
    let mut raw: Vec<Vec<(u32, u64, u64)>> = vec![Vec::new(); ncpus as usize];
    for i in lo..hi {
        if e.kind[i] != EventKind::Switch as u8 {
            continue;
        }
        let c = e.cpu[i] as usize;
        if c >= current.len() {
            continue;
        }
        let (task, since) = current[c];
        if task != NO_TASK && e.t[i] > since {
            raw[c].push((task, since, e.t[i]));
        }
        current[c] = (e.task[i], e.t[i]);
    }
    let close = t1.min(now);
    for (c, &(task, since)) in current.iter().enumerate() {
        if task != NO_TASK && close > since {
            raw[c].push((task, since, close));
        }
    }
    let mut out = SliceCols::default();
    for (c, runs) in raw.into_iter().enumerate() {
        let mut i = 0;
        while i < runs.len() {
            let (task, s, mut end) = runs[i];
            if end - s >= bucket_ns {
                out.push(c as u16, task, s, end, 1);
                i += 1;
                continue;
            }
            // Merge a run of short slices that stay within one bucket's reach.
            let mut best = (task, end - s);
            let mut count = 1;
            let mut j = i + 1;
            while j < runs.len() && runs[j].1 - s < bucket_ns && runs[j].2 - runs[j].1 < bucket_ns {
                let (tj, sj, ej) = runs[j];
                if ej - sj > best.1 {
                    best = (tj, ej - sj);
                }
                end = ej;
                count += 1;
                j += 1;
            }
            out.push(c as u16, best.0, s, end, count);
            i = j;
        }
    }
    out
}

/// Sample rows for a timeline window: every sample of `nodes` in `[t0, t1)` and, first, for
/// continuity, each node's last sample before `t0`. `nodes` are task ids and group node ids
/// (GROUP_NODE | task group); empty means every task (`0..ntasks`, no groups).
pub fn window_samples(log: &EventLog, ntasks: usize, nodes: &[u32], t0: u64, t1: u64) -> Vec<usize> {
    let before = if nodes.is_empty() {
        latest_samples(log, ntasks, t0.saturating_sub(1))
    } else {
        latest_samples_of(log, nodes, t0.saturating_sub(1))
    };
    let want = |n: u32| if nodes.is_empty() { (n as usize) < ntasks } else { nodes.contains(&n) };
    let mut rows: Vec<usize> = before.into_iter().flatten().collect();
    rows.sort_unstable();
    let (lo, hi) = log.sample_window(t0, t1);
    rows.extend((lo..hi).filter(|&i| want(log.samples.task[i])));
    rows
}

/// Event rows drawn as markers (`EventKind::is_marker`) in `[t0, t1)`. A window with more
/// than `4 × limit` events of any kind gives none: markers are for zoomed-in views, and the
/// slices still show every run.
pub fn markers(log: &EventLog, t0: u64, t1: u64, limit: usize) -> Vec<usize> {
    let (lo, hi) = log.event_window(t0, t1);
    if hi - lo > limit.saturating_mul(4) {
        return Vec::new();
    }
    let kind = &log.events.kind;
    (lo..hi).filter(|&i| EventKind::from_u8(kind[i]).is_some_and(EventKind::is_marker)).collect()
}

/// Migrate rows in `[t0, t1)` (the simulated view's migration arrows). A window with more
/// than `limit` of them gives none (a lane of overlapping arrows says nothing; zoom in).
pub fn migrations(log: &EventLog, t0: u64, t1: u64, limit: usize) -> Vec<usize> {
    let (lo, hi) = log.event_window(t0, t1);
    let mut rows = Vec::new();
    for (i, kind) in log.events.kind.iter_range(lo, hi).enumerate() {
        let i = lo + i;
        if kind == EventKind::Migrate as u8 {
            if rows.len() == limit {
                return Vec::new();
            }
            rows.push(i);
        }
    }
    rows
}

/// At most this many counter series are looked up before a window (their last value).
pub const MAX_PRIOR_SERIES: usize = 4096;

/// Counter rows for a window: each series' (kind, key) last value before `t0` (`prior`, to be
/// drawn from `t0`), then every row in `[t0, t1)`.
pub fn counters(log: &EventLog, t0: u64, t1: u64) -> Vec<(usize, bool)> {
    let c = &log.counters;
    let lo = c.t.partition_point(|&x| x < t0);
    let hi = c.t.partition_point(|&x| x < t1);
    let mut seen: Vec<(u8, u32)> = Vec::new();
    let mut prior: Vec<usize> = Vec::new();
    for i in (0..lo).rev() {
        let k = (c.kind[i], c.key[i]);
        if !seen.contains(&k) {
            seen.push(k);
            prior.push(i);
        }
        if seen.len() > MAX_PRIOR_SERIES {
            break;
        }
    }
    prior.sort_unstable();
    prior.into_iter().map(|i| (i, true)).chain((lo..hi).map(|i| (i, false))).collect()
}

/// Sample rows of `task` in `[t0, t1)`.
pub fn task_samples(log: &EventLog, task: u32, t0: u64, t1: u64) -> Vec<usize> {
    let (lo, hi) = log.sample_window(t0, t1);
    (lo..hi).filter(|&i| log.samples.task[i] == task).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::obs::log::SwitchReason;

    #[test]
    fn slices_clip_and_merge() {
        let mut log = EventLog::new();
        let sw = |log: &mut EventLog, t, next, prev| {
            log.event(t, EventKind::Switch, 0, next, prev, SwitchReason::Tick as i64)
        };
        sw(&mut log, 0, 1, NO_TASK);
        sw(&mut log, 100, 2, 1);
        sw(&mut log, 105, 1, 2);
        sw(&mut log, 110, 2, 1);
        sw(&mut log, 300, NO_TASK, 2);
        let s = cpu_slices(&log, 1, 50, 400, 1, 1000);
        assert_eq!(s.start, vec![50, 100, 105, 110]);
        assert_eq!(s.end, vec![100, 105, 110, 300]);
        let m = cpu_slices(&log, 1, 0, 400, 20, 1000);
        assert_eq!(m.len(), 3);
        assert_eq!((m.start[1], m.end[1], m.count[1]), (100, 110, 2));
    }

    #[test]
    fn migrations_in_window_up_to_the_limit() {
        let mut log = EventLog::new();
        log.event(5, EventKind::Migrate, 1, 3, 0, 0);
        log.event(6, EventKind::Wakeup, 1, 3, 0, 0);
        log.event(10, EventKind::Migrate, 0, 3, 1, 1);
        log.event(20, EventKind::Migrate, 1, 4, 2, 0);
        assert_eq!(migrations(&log, 0, 15, 10), vec![0, 2]);
        assert_eq!(migrations(&log, 6, 30, 10), vec![2, 3]);
        assert_eq!(migrations(&log, 0, 30, 3), vec![0, 2, 3]);
        assert!(migrations(&log, 0, 30, 2).is_empty());
    }
}
