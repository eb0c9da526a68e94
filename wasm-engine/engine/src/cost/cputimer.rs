//! Cache-line contention on the process-wide CPU-time counter (seed 000).
//!
//! While a process has a profiling timer armed (`setitimer(ITIMER_PROF)`), every
//! `update_curr()` of its threads does `account_group_exec_runtime()`: an atomic add on one
//! cache line shared by all of them (`signal->cputimer->cputime_atomic.sum_exec_runtime`). The
//! model: one add costs `atomic_ns` when no other CPU is adding to that line, plus
//! `per_contender_ns` for every other CPU adding at the same time (each such CPU takes the
//! line once before us). A `sched_yield()` costs `syscall_ns` plus its adds; one that yield
//! throttling turns back before `schedule()` costs `fast_syscall_ns` and does no add.
//!
//! Constants (all named assumptions, order-of-magnitude figures for a 2-socket Intel Emerald
//! Rapids server, the seed's machine):
//! * `atomic_ns` = 20: an uncontended `lock add` on a line in the local L1/L2.
//! * `per_contender_ns` = 25: how long each other adder holds the line before it reaches us
//!   (the line's hand-off time between cores under saturation). Calibrated: it is the one
//!   constant fitted so that seed 000's unthrottled figure (~80 % of CPU time in the add)
//!   comes out; the throttled figures (atomic share, yields reaching schedule()) are then
//!   predictions of the model, not fits. A plain core-to-core latency (50–80 ns on
//!   Sapphire/Emerald Rapids) would overstate it, since hand-offs pipeline.
//! * `syscall_ns` = 400: a `sched_yield()` round trip that switches between two threads of one
//!   process (no address-space switch).
//! * `fast_syscall_ns` = 150: a `sched_yield()` that returns without scheduling.
//!
//! Number of adds per yield: `yield_task_fair()` calls `update_curr()` (one add) unless it
//! returns early, and `schedule()` charges the yielder again when it puts it back (a second).

/// The constants of the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CputimerCost {
    /// Uncontended atomic add (ns).
    pub atomic_ns: u64,
    /// Extra per other CPU adding at the same time (ns).
    pub per_contender_ns: u64,
    /// A sched_yield() that reaches schedule() (ns, atomics excluded).
    pub syscall_ns: u64,
    /// A sched_yield() turned back by yield throttling (ns).
    pub fast_syscall_ns: u64,
}

impl Default for CputimerCost {
    fn default() -> Self {
        CputimerCost { atomic_ns: 20, per_contender_ns: 25, syscall_ns: 400, fast_syscall_ns: 150 }
    }
}

/// The shared line: which CPUs are inside an add until when, and the totals.
#[derive(Debug, Clone, Default)]
pub struct CputimerLine {
    /// Per CPU: end of its current add (0 when none).
    pub busy_until: Vec<u64>,
    /// Total time spent in adds (ns).
    pub atomic_ns: u64,
    /// Adds done.
    pub adds: u64,
}

impl CputimerLine {
    /// A line shared by `ncpus` CPUs.
    pub fn new(ncpus: u32) -> Self {
        CputimerLine { busy_until: vec![0; ncpus as usize], ..Default::default() }
    }

    /// `adds` atomic adds by `cpu` starting at `now`: returns their total duration, with the
    /// contention of the CPUs adding at that moment.
    pub fn add(&mut self, cost: &CputimerCost, cpu: u32, now: u64, adds: u64) -> u64 {
        if adds == 0 {
            return 0;
        }
        let others = self.busy_until.iter().enumerate().filter(|&(c, &u)| c != cpu as usize && u > now).count() as u64;
        let each = cost.atomic_ns + cost.per_contender_ns * others;
        let total = each * adds;
        self.busy_until[cpu as usize] = now + total;
        self.atomic_ns += total;
        self.adds += adds;
        total
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contention_grows_with_concurrent_adders() {
        let c = CputimerCost::default();
        let mut l = CputimerLine::new(4);
        assert_eq!(l.add(&c, 0, 0, 1), 20);
        // CPU 1 adds while CPU 0 is still inside its add: one contender.
        assert_eq!(l.add(&c, 1, 10, 1), 45);
        // CPU 2 at 15: CPUs 0 and 1 still busy.
        assert_eq!(l.add(&c, 2, 15, 2), 2 * 70);
        assert_eq!(l.adds, 4);
        assert_eq!(l.add(&c, 3, 1_000, 0), 0);
    }
}
