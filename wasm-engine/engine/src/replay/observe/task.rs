//! A task as the trace shows it (`ObservedTask`): its figures, the behaviour inferred for the
//! shadow (`ShadowOp` steps, each with the line of the record that ended it), the inference's
//! running state, and its observed runs (`Run`). How the steps are inferred: `observe`'s module
//! docs.

use std::collections::BTreeMap;

/// One step of an inferred behaviour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShadowOp {
    /// CPU time (ns).
    Run(u64),
    /// `sched_yield()`.
    Yield,
    /// Blocked for this long (ns).
    Sleep(u64),
    /// Woke the observed task `wakee` (index into `Observed::tasks`) from task context: a
    /// causal wakeup, numbered `id`; `sync` when inferred synchronous (see the module docs).
    Wake { id: u32, wakee: u32, sync: bool },
    /// Blocked for `ns` until the causal wakeup `id` (its waker's `Wake` step).
    Wait { id: u32, ns: u64 },
    /// Went on only once the task it had just woken, and been preempted by, blocked: a hand-off
    /// (`Observed`'s module docs). No block in the trace (it waited runnable); in the shadow a
    /// wait for the inferred causal wakeup `id`, which the wakee's `Wake` step before its
    /// block raises, so that it cannot run ahead of the reply when the model does not preempt.
    Handoff { id: u32 },
    /// Moved into the cgroup `Observed::cgroup_paths[path]` (`cgroup_attach_task`): at that
    /// point of its run when it was running, else at the end of its last run (named shortcut:
    /// a task moved by another while it slept or waited is moved before it blocked).
    Cgroup(u32),
}

impl ShadowOp {
    /// A step that blocks the task (a timed sleep, or a wait for a causal wakeup).
    pub fn blocks(&self) -> bool {
        matches!(self, ShadowOp::Sleep(_) | ShadowOp::Wait { .. })
    }
}

/// A task as the trace shows it.
#[derive(Debug, Clone, Default)]
pub struct ObservedTask {
    pub pid: i32,
    pub comm: String,
    /// The last priority printed for it (`prio`: 100..=139 fair, below 100 real-time).
    pub prio: i32,
    /// The first priority printed for it: the weight it started with when its nice value
    /// changed later (`ObsEvent::Nice`).
    pub first_prio: Option<i32>,
    pub runtime_ns: u64,
    /// Runtime per CPU.
    pub runtime_on: BTreeMap<u32, u64>,
    pub switches_out: u64,
    /// Switched out while still runnable (`R` or `R+`).
    pub switches_out_runnable: u64,
    /// `sched_yield()` calls inferred (see the module docs).
    pub yields: u64,
    /// Plain-`R` switch-outs with need-resched set: involuntary, at return to user.
    pub involuntary: u64,
    pub sleeps: u64,
    /// When it was first seen (ns, trace clock), and the source line of that record.
    pub first_ns: u64,
    pub first_line: u64,
    /// The inferred behaviour, and the source line of the record that ended each step (the
    /// record number for `.dat`).
    pub ops: Vec<ShadowOp>,
    pub op_lines: Vec<u64>,
    /// Still demanding CPU at the end of the trace.
    pub runs_on: bool,
    /// The first CPU the trace shows it on (switched in or out, woken onto), and the CPU of
    /// its `sched_wakeup_new` (its parent's, where it was forked) if the trace shows its fork.
    pub first_cpu: Option<u32>,
    pub forked_on: Option<u32>,
    /// The task that forked it, if the trace shows the fork (`sched_process_fork`).
    pub parent: Option<u32>,
    /// Time seen blocked (each sleep from its switch-out to its wakeup, and a sleep still
    /// going at the trace's end), ns.
    pub blocked_ns: u64,
    /// When it was seen exiting (`Z`/`X`), and the source line of that record.
    pub exit_ns: Option<u64>,
    pub exit_line: u64,
    /// Involuntary switch-outs (`R+`, or `R` with need-resched) since it last blocked: its
    /// demand outran what it got.
    pub preempted_since_block: u32,
    /// Each `Run` step that ended at a block, by its index in `ops`, and whether the task was
    /// switched out involuntarily during it: what `shadow` reads to tell bursts paced by the
    /// wall clock from bursts paced by their work (`shadow::wall_paced`).
    pub block_bursts: Vec<(usize, bool)>,
    // Inference state.
    pub(super) on_cpu: Option<(u32, u64)>,
    pub(super) burst: u64,
    /// It ran (was switched in, or was running when the trace began) since its last step, if
    /// only for 0 ns.
    pub(super) ran_since_step: bool,
    pub(super) blocked_since: Option<u64>,
    pub(super) waking: Option<u64>,
    /// Its own `sched_stat_runtime` records since it was switched in, outside interrupts and
    /// without need-resched (yield candidates).
    pub(super) stats: u32,
    /// The flags of its last own record since it was switched in.
    pub(super) last_flags: Option<u8>,
    /// Between its `sched_process_exit` and the `sched_autogroup_exit_task()` that follows
    /// (`ObsEvent::Exiting`).
    pub(super) exiting: bool,
    /// When its last own `sched_stat_runtime` in task context with need-resched set was
    /// recorded (`__schedule()`'s `update_curr()`), until its CPU's next record says whether a
    /// switch followed (`ObsEvent::Repick`).
    pub(super) resched_at: Option<u64>,
    /// When those yield candidates were recorded.
    pub(super) stat_ts: Vec<u64>,
    /// When its last own quiet `sched_stat_runtime` since it was switched in was recorded (a
    /// block's dequeue writes one: `Observed::block_switch_gaps`).
    pub(super) own_stat_at: Option<u64>,
    /// Of them, those with `sched_yield()`'s own signature: preempt depth 1 (the runqueue lock
    /// `do_sched_yield()` holds; `__schedule()`'s and a wakeup's `update_curr()` run at 2 or
    /// more), when the trace has the preempt depth.
    pub(super) yield_ts: Vec<u64>,
    /// Its last causal wakeup since it was switched in: the `Wake` op's index, the event's
    /// index in `Observed::events` and when (for the sync inference at its next block).
    pub(super) last_wake: Option<(usize, usize, u64)>,
    /// The causal wakeup that ends its current sleep (set by the waker's record).
    pub(super) woken_by: Option<u32>,
    /// Its current run's CPU time up to here is already a step (a causal wakeup split it).
    pub(super) burst_from: Option<u64>,
    /// On its CPU since a record of its own revealed it there (its switch-in lost).
    pub(super) adopted: bool,
    /// Preempted at once by the task it had just woken, on this CPU (`(wakee, cpu)`), and not
    /// switched in since: a hand-off if that task's next switch-out there blocks and switches
    /// straight back to it (`ShadowOp::Handoff`).
    pub(super) handed_to: Option<(u32, u32)>,
}

impl ObservedTask {
    /// The CPU it ran on most.
    pub fn main_cpu(&self) -> Option<u32> {
        self.runtime_on.iter().max_by_key(|(c, ns)| (**ns, std::cmp::Reverse(**c))).map(|(c, _)| *c)
    }

    /// A fair-class task (not idle, not real-time).
    pub fn is_fair(&self) -> bool {
        self.pid != 0 && (100..=139).contains(&self.prio)
    }

    /// It ran on `cpu` over `[since, until)`: runtime, burst, and the observed run (as task
    /// index `me`).
    pub(super) fn ran(&mut self, cpu: u32, since: u64, until: u64, me: u32, runs: &mut Vec<Run>) {
        let ran = until.saturating_sub(since);
        // Saturating: a malformed trace can show a task on two CPUs at once.
        self.runtime_ns = self.runtime_ns.saturating_add(ran);
        let on = self.runtime_on.entry(cpu).or_default();
        *on = on.saturating_add(ran);
        // A causal wakeup inside this run already took the burst up to it.
        let from = self.burst_from.take().map_or(since, |b| b.clamp(since, until));
        self.burst = self.burst.saturating_add(until - from);
        self.ran_since_step = true;
        if ran > 0 {
            runs.push(Run { cpu, task: me, start: since, end: until });
        }
    }

    pub(super) fn push(&mut self, op: ShadowOp, line: u64) {
        self.ops.push(op);
        self.op_lines.push(line);
    }

    /// Ends the CPU burst at the record on `line`: a run of at least 1 ns when the task ran at
    /// all since its last step (see the module docs on zero-length steps).
    pub(super) fn end_burst(&mut self, line: u64) {
        let ran = std::mem::take(&mut self.ran_since_step);
        let ns = std::mem::take(&mut self.burst);
        if ns > 0 || ran {
            self.push(ShadowOp::Run(ns.max(1)), line);
        }
    }

    /// A step taken at `ts` inside the task's run (a causal wakeup, a move into a cgroup): the
    /// burst so far, with what ran since its switch-in when it is running, ends there (a `Run`
    /// step when not empty); what runs after it starts the next one.
    pub(super) fn burst_to(&mut self, ts: u64, line: u64) {
        if let Some((_, since)) = self.on_cpu {
            let from = self.burst_from.map_or(since, |b| b.max(since));
            self.burst = self.burst.saturating_add(ts.saturating_sub(from));
            self.burst_from = Some(ts.max(from));
        }
        let ns = std::mem::take(&mut self.burst);
        if ns > 0 {
            self.ran_since_step = false;
            self.push(ShadowOp::Run(ns), line);
        }
    }

    /// `n` yields after `burst` ns of CPU, spread evenly over them (the remainder on the first):
    /// a run step (when not 0 ns) before each yield.
    pub(super) fn push_yields(&mut self, n: u64, burst: u64, line: u64) {
        for k in 0..n {
            let part = burst / n + if k == 0 { burst % n } else { 0 };
            if part > 0 {
                self.push(ShadowOp::Run(part), line);
            }
            self.push(ShadowOp::Yield, line);
        }
    }

    /// A run that ends preempted at `ts` (the record on `line`) after `sched_yield()` calls
    /// that did not switch (records with the yield's signature, `yield_ts`): each is a yield,
    /// the burst up to the last of them spread evenly over them as the yield branch does, and
    /// what ran after it continues the burst. Returns when they were recorded (each a pick of
    /// the same task: `ObsEvent::Yield`).
    pub(super) fn yields_before_preemption(&mut self, ts: u64, line: u64) -> Vec<u64> {
        let at = std::mem::take(&mut self.yield_ts);
        let Some(&last) = at.last() else { return at };
        let n = at.len() as u64;
        let after = ts.saturating_sub(last).min(self.burst);
        let before = self.burst - after;
        self.burst = after;
        self.yields += n;
        self.push_yields(n, before, line);
        // Counted: the candidates of the next switch-out are the records after these.
        self.stats = self.stats.saturating_sub(n as u32);
        self.stat_ts.retain(|&x| x > last);
        self.ran_since_step = after > 0;
        at
    }

    /// Blocked since `since`, woken at `until`: a sleep of at least 1 ns (see the module
    /// docs), or a wait for the causal wakeup that woke it.
    pub(super) fn slept(&mut self, since: u64, until: u64, line: u64) {
        let ns = until.saturating_sub(since).max(1);
        self.blocked_ns = self.blocked_ns.saturating_add(ns);
        match self.woken_by.take() {
            Some(id) => self.push(ShadowOp::Wait { id, ns }, line),
            None => self.push(ShadowOp::Sleep(ns), line),
        }
    }

    /// The task exited at `ts` (the record on `line`).
    pub(super) fn exit(&mut self, ts: u64, line: u64) {
        self.exit_ns = Some(ts);
        self.exit_line = line;
        self.end_burst(line);
    }
}

/// One observed run: `task` (index into `Observed::tasks`) on `cpu` over `[start, end)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Run {
    pub cpu: u32,
    pub task: u32,
    pub start: u64,
    pub end: u64,
}
