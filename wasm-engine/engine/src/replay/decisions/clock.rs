//! The replay's clock: each CPU's task clock as its `sched_stat_runtime` records show it (what
//! `update_curr()` charged), the clock reading a switch or a wakeup shares with the record of
//! its own `update_curr()`, and the kernel sections the records were written in, which tell
//! when two records come from one critical section.

use super::{ObsEvent, Replayer, Timed};
use crate::import::record::trace_flags;
use crate::sched::entity::EntityId;

/// The kernel section a record was written in (`ObsEvent::Wake`, `Runtime`): its hard/soft
/// irq flags and preempt depth. Two records of one CPU in the same section, microseconds
/// apart, come from one critical section (one `try_to_wake_up()`).
pub fn section(flags: Option<u8>) -> u8 {
    let keep = trace_flags::HARDIRQ | trace_flags::SOFTIRQ | !((1u8 << trace_flags::PREEMPT_SHIFT) - 1);
    flags.map_or(UNKNOWN_SECTION, |f| f & keep)
}

/// `section()` of a record without latency flags.
pub const UNKNOWN_SECTION: u8 = 0x02;

/// Whether two records were written in the same kernel section (or cannot be told apart).
fn same_section(a: u8, b: u8) -> bool {
    a == b || a == UNKNOWN_SECTION || b == UNKNOWN_SECTION
}

/// One CPU's task clock (`rq_clock_task()`: what `update_curr()` charges from, interrupt time
/// left out) as its `sched_stat_runtime` records show it. Without such records it is the
/// trace's clock.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct TaskClock {
    /// The clock read `clk` at `wall` (both ns since the trace's first record) and runs with
    /// the trace's clock from there.
    wall: u64,
    clk: u64,
    /// The clock at the running task's last accounting point: its switch-in, or its last
    /// `sched_stat_runtime` (None before the CPU's first switch).
    task: Option<u64>,
    /// That task (an index into `Observed::tasks`).
    who: Option<u32>,
    /// The running task has had a `sched_stat_runtime` since it was switched in.
    charged: bool,
    /// The CPU's last event was that `sched_stat_runtime` (at `wall`, reading `clk`), written
    /// in kernel section `section`.
    after_runtime: bool,
    section: u8,
}

impl TaskClock {
    fn at(&self, t: u64) -> u64 {
        self.clk.saturating_add(t.saturating_sub(self.wall))
    }
}

impl Replayer<'_> {
    /// When `events[i]` is the `sched_stat_runtime` of `wakeup_preempt()` after a delayed task
    /// was requeued on its CPU (`ttwu_runnable()`: `requeue_delayed_entity()` reads V without
    /// an `update_curr()`, then `wakeup_preempt()` calls one, then `sched_wakeup` is
    /// recorded), the index of that wakeup: it is applied first. The wakeup is the next event
    /// on that CPU, within 20 µs.
    pub(super) fn requeue_before(&self, events: &[Timed], i: usize) -> Option<usize> {
        let ObsEvent::Runtime { cpu, ctx, .. } = events[i].ev else { return None };
        for (j, e) in events.iter().enumerate().skip(i + 1) {
            if e.ts > events[i].ts.saturating_add(20_000) {
                return None;
            }
            match e.ev {
                ObsEvent::Wake { task, cpu: c, ctx: w, .. } if c == cpu => {
                    let se = self.se(task)?;
                    let d = &self.f.ents[se as usize];
                    return (d.sched_delayed && self.cpu_of(se) == cpu && same_section(ctx, w)).then_some(j);
                }
                ObsEvent::Wake { .. } | ObsEvent::Migrate { .. } | ObsEvent::Nice { .. } => {}
                ObsEvent::Runtime { cpu: c, .. } | ObsEvent::Switch { cpu: c, .. } if c != cpu => {}
                _ => return None,
            }
        }
        None
    }

    /// The clock of `cpu` at `t` becomes the model's.
    pub(super) fn clock_at(&mut self, cpu: u32, t: u64) {
        let c = &mut self.clock[cpu as usize];
        c.after_runtime = false;
        self.f.now = c.at(t);
    }

    /// The clock of `cpu` at a `sched_stat_runtime` of `task` charging `ns` at `t`: the
    /// running task's last accounting point plus what it was charged.
    pub(super) fn runtime_clock(&self, t: u64, task: u32, cpu: u32, ns: u64) -> u64 {
        let c = self.clock[cpu as usize];
        match c.task {
            Some(k) if c.who == Some(task) => k.saturating_add(ns),
            _ => c.at(t),
        }
    }

    /// The model's clock for the wakeup of `se` onto `at`'s queue at `t`, recorded in section
    /// `ctx`. `try_to_wake_up()` reads the clock once: a `sched_stat_runtime` of the task
    /// running on that queue just before is this wakeup's own `update_curr()`.
    pub(super) fn wakeup_clock(&mut self, t: u64, at: u32, se: EntityId, ctx: u8) {
        let c = self.clock[at as usize];
        let tg = self.tg[se as usize];
        let same_queue = self.f.rqs[at as usize]
            .curr
            .is_some_and(|k| self.f.ents[k as usize].cfs_rq == self.f.tgs[tg as usize].cfs_rq[at as usize]);
        self.f.now = match self.wake_clock.take() {
            Some(now) => now,
            None if c.after_runtime
                && same_section(c.section, ctx)
                && same_queue
                && t <= c.wall.saturating_add(20_000) =>
            {
                c.clk
            }
            None => c.at(t),
        };
        self.clock[at as usize].after_runtime = false;
    }

    /// The model's clock for a switch on `cpu` at `t`. `__schedule()` reads the clock once:
    /// prev's last `update_curr()` (its last `sched_stat_runtime`, when it had one since it
    /// was switched in) and next's `exec_start` share that reading.
    pub(super) fn switch_clock(&mut self, cpu: u32, t: u64) -> u64 {
        let c = self.clock[cpu as usize];
        let now = match (c.charged, c.task) {
            (true, Some(k)) => k,
            _ => c.at(t),
        };
        self.f.now = now;
        now
    }

    /// Task `next` was switched in on `cpu` at `t`, its accounting starting at `now`.
    pub(super) fn switched_in(&mut self, cpu: u32, t: u64, now: u64, next: u32) {
        self.clock[cpu as usize] = TaskClock {
            wall: t,
            clk: now,
            task: Some(now),
            who: Some(next),
            charged: false,
            after_runtime: false,
            section: UNKNOWN_SECTION,
        };
    }

    /// The running task of `cpu` vanished at `t` (its switch-out was lost): nobody's
    /// accounting runs there.
    pub(super) fn vanished(&mut self, cpu: u32, t: u64) {
        self.clock_at(cpu, t);
        self.clock[cpu as usize] = TaskClock { wall: t, clk: self.f.now, ..Default::default() };
    }

    /// A `sched_stat_runtime` of `task` on `cpu` at `t`, charging `ns`, written in section
    /// `ctx`: the kernel's clock at that `update_curr()` (the running task's last accounting
    /// point plus what it was charged) becomes the CPU's. Returns it.
    pub(super) fn runtime_read(&mut self, t: u64, task: u32, cpu: u32, ns: u64, ctx: u8) -> u64 {
        let now = self.runtime_clock(t, task, cpu, ns);
        self.clock[cpu as usize] = TaskClock {
            wall: t,
            clk: now,
            task: Some(now),
            who: Some(task),
            charged: true,
            after_runtime: true,
            section: ctx,
        };
        now
    }

    /// `update_curr()` at every level of the running chain of `se`, as `entity_tick()` does.
    /// Under `group_shares = pelt` the record is taken for a tick: `entity_tick()`'s
    /// `update_load_avg()` and `update_cfs_group()` at every level, then the blocked-load
    /// updates (`Fair::pelt_periodic`); a record written elsewhere than the tick ages the
    /// averages early, which changes nothing but the rate-limited `tg->load_avg` timing. With
    /// the instantaneous shares, a record of the tick itself (`tick`: `sched_tick()` holds the
    /// runqueue lock in hard-irq context, `d.h1.`) re-weighs the group entities where
    /// `entity_tick()` calls `update_cfs_group()` (with the model's instantaneous shares, not
    /// the kernel's PELT ones: `sched/group.rs`): a group's weight on a CPU follows its load
    /// elsewhere only there (a hog pulled away left the group entity on its old CPU at the
    /// weight of that moment until its next enqueue or dequeue; on three-hogs-two-cpus the
    /// lone hog's group entity stayed at 512 where the kernel's root load was about 350).
    pub(super) fn update_curr_chain(&mut self, se: EntityId, tick: bool) {
        let mut cur = Some(se);
        while let Some(s) = cur {
            let q = self.f.ents[s as usize].cfs_rq;
            self.f.update_curr(q);
            // PELT is tracked when group shares come from it, and under `smp = "fair"`
            // when a task may move (placement reads it).
            if self.f.pelt() {
                self.f.update_load_avg(q, s, crate::sched::group_pelt::UPDATE_TG);
            }
            if self.f.pelt_shares() || tick {
                self.f.update_cfs_group(s);
            }
            cur = self.f.ents[s as usize].parent;
        }
        if self.f.pelt() {
            let cpu = self.f.qs[self.f.ents[se as usize].cfs_rq as usize].cpu;
            self.f.pelt_periodic(cpu);
        }
    }
}

/// Whether a record was written by the tick (`sched_tick()`: hard-irq context, the runqueue
/// lock its only preempt depth, `d.h1.`); a wakeup from an interrupt holds more (`d.h3.`).
/// Named shortcut: it reads the preempt depth the trace prints (a kernel without
/// CONFIG_PREEMPT_COUNT shows none, and no record is taken for the tick), a tick inside a
/// softirq is not taken, and an IPI that updates the running task under the runqueue lock alone
/// (a remote wakeup's `sched_ttwu_pending()` on a machine of several LLCs) would be; the
/// re-weighing it adds there changes nothing the kernel would not do at its next tick.
pub fn tick_section(ctx: u8) -> bool {
    use crate::import::record::trace_flags::{preempt_depth, HARDIRQ, SOFTIRQ};
    ctx != UNKNOWN_SECTION && ctx & HARDIRQ != 0 && ctx & SOFTIRQ == 0 && preempt_depth(ctx) == 1
}
