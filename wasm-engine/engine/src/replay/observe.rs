//! What a trace shows each task doing, read from its `sched_switch` and wakeup records: the
//! observed schedule (per-CPU run intervals, runtime, switches) and, for the shadow
//! re-simulation, each task's behaviour as a program of CPU bursts, yields and sleeps.
//!
//! The inference, per task (keyed by pid; the comm is the last one the trace printed for it, so
//! a task that exec'd is named after its new image, as `oracle.py` does):
//! * CPU time between being switched in and switched out accumulates into a burst;
//! * a switch-out as `R+` (preempted) continues the burst;
//! * a switch-out as plain `R` means "still runnable, switched by a call to schedule() rather
//!   than by kernel preemption". On a `PREEMPT_NONE` kernel (ours) that is both `sched_yield()`
//!   and an involuntary switch at return to user after a tick or wakeup set need-resched. The
//!   two are told apart by the latency flags: the task's last record before such a switch
//!   (the `sched_stat_runtime` of `__schedule()`'s `update_curr()`) carries need-resched
//!   (`N`) for an involuntary switch, which then continues the burst like `R+`; so does a last
//!   record written in an interrupt (`h`, `s`: on SMP, the balance softirq that pulled a task
//!   onto the CPU and set need-resched after its own record), which a yield's never is. A yield ends
//!   the burst. Yields that did not switch are not in `sched_switch`, but each `sched_yield()`
//!   runs `update_curr()`, which emits `sched_stat_runtime`: the task's own such records
//!   (outside interrupts, without need-resched) count its yields, and the burst's CPU time is
//!   spread evenly over them. A run that ends preempted (`R+`, or `R` with need-resched) after
//!   yields that did not switch keeps them too, where the records carry the preempt depth:
//!   `sched_yield()`'s own record is at depth 1 (`d..1.`: the runqueue lock of
//!   `do_sched_yield()`), `__schedule()`'s and a wakeup's `update_curr()` at 2 or more. (Issue
//!   16: in `yield-in-cgroup` the yielder's runs end at a tick after hundreds of such yields;
//!   539 of its 1,225 yields were lost this way, 1,224 are recovered now.) Without flags (`trace-cmd report`
//!   without `-l`, `perf script`) every plain `R` is taken as one yield;
//! * a switch-out in a blocked state (`S`, `D`, …) ends the burst with a sleep that lasts until
//!   the next `sched_wakeup`/`sched_wakeup_new` of the task (or its `sched_waking`, when the
//!   trace has no `sched_wakeup` and the task is switched in after it);
//! * a task that exits (`Z`/`X`) records when (see `shadow` for what that becomes);
//! * a task still running or runnable when the trace ends keeps running ("forever").
//!
//! A wakeup raised in a running task's context (the waker of a `sched_wakeup` without `h`/`s`
//! flags) is causal: the waker's `Wake` step, the wakee's `Wait` for it (the shadow replays
//! them as `wake` and `wait_wakeup` when tasks run free). One dependency has no wakeup in the
//! trace, the hand-off: a task that wakes another and is preempted by it at once (within
//! [`SYNC_WAKE_WINDOW_NS`]), then runs again only when that task blocks and switches straight
//! back to it, waited runnable for that block. It is the reply through a pipe (the reader's
//! write found the writer runnable, so no wakeup was written), and without it the shadow's
//! writer, when the model does not preempt it, runs its next bursts ahead of the replies they
//! read (issue 18: `linux-6.18-smp/pipe-pair-and-hog`'s pair switched 5,706 times in the
//! model against 13,337 in the trace). So the wakee gets an inferred `Wake` before its block
//! and the waker a `Handoff` step (a `wait_wakeup` in the shadow, which does not block when the
//! wake came first). Named inference: a task preempted by its wakee and resumed at its block
//! is taken to depend on it.
//!
//! A pid names a new task after its holder was seen exiting (switched out as `Z`/`X`) or
//! when `sched_process_fork` hands it to a child; without those records pid reuse is not seen.
//!
//! For the per-decision replay (`decisions`) the scheduling events are also kept in time order:
//! besides switches, wakeups, migrations and quiet yields, every `sched_stat_runtime` (one
//! `update_curr()` and what it charged, for the CPU the task runs on), a priority change
//! (`set_user_nice()`: at the task's last quiet `sched_stat_runtime` before the record that
//! first shows the new `prio` when it is running, else at that record), an exiting task's
//! `sched_autogroup_exit_task()` (its first own quiet `sched_stat_runtime` after
//! `sched_process_exit`, or its switch-out), and a `__schedule()` that kept the running task
//! (its `sched_stat_runtime` in task context with need-resched set, then no switch-out). A run
//! whose switch-out is missing ends, for the replay, where the record that revealed it says its
//! own task's run began (a `sched_stat_runtime` of that task charges it since then), and that
//! task is taken as current there (its run not counted).
//!
//! Zero-length steps (issue 16). A real trace shows a task woken at the nanosecond it blocked,
//! or switched in and out at the same time: the trace clock's resolution (µs in tracefs text)
//! hides what took less, and a wakeup can race the switch-out it follows. Such a step is not
//! nothing: the switch-out, the wakeup and the pick around it are scheduling events the replay
//! exists to reproduce. So a sleep of 0 ns is kept as a sleep of 1 ns (the task still blocks,
//! is dequeued, and is woken and placed again, as in the trace), and a run of 0 ns between a
//! switch-in (or the trace's start) and a block or exit is kept as a run of 1 ns (the task is
//! still picked and leaves the CPU). Merging them into their neighbours instead would drop
//! those events: the model would keep running a task the kernel switched out, or never pick a
//! task the kernel picked. 1 ns is the smallest step a scenario takes and within the trace
//! clock's error. A 0 ns run before a yield needs nothing: the yield alone is that step.
//! (The run of a task already on a CPU when the trace began counts from its switch-out, so
//! it is 0 ns too; when that switch-out blocks, the task is taken to start there, so that its
//! sleep ends when the trace shows.)
//!
//! Times and CPUs are kept within what a scenario can hold: a record earlier than the first
//! record (text not sorted across CPUs) is moved to the first record's time, and when the trace
//! names CPUs past the model's largest host (`MAX_CPUS`), the CPUs it names are numbered densely
//! in order (`Observed::cpu_ids` gives the trace's number of each).
//!
//! Every step keeps the source line of the record that ended it (`ObservedTask::op_lines`; the
//! record number for `.dat`), so that the replay locates anything about it in the trace.
//!
//! Named shortcut: sleeps are open loop (a fixed duration, not "until the waker runs").

use super::decisions::{section, ObsEvent, SwitchOut, Timed};
use crate::import::record::{
    state_bits, trace_flags, EevdfSample, PrevState, SchedPayload, Skipped, TraceRecord, TraceSink, WakeKind,
};
use std::collections::BTreeMap;

mod context;
mod cpus;
mod migrate;
mod task;
use context::bandwidth_timer;
use migrate::stopper_cpu;
pub use migrate::WAKEUP_MIGRATION_NS;
pub use task::{ObservedTask, Run, ShadowOp};

/// A causal wakeup is taken as synchronous (`WF_SYNC`) when its waker blocks next, having run
/// at most this much CPU time since (a yield or another wakeup in between cancels it): what a
/// pipe write followed by a read of the reply, or a parent's wake of a waiter followed by its
/// own wait, looks like. The trace does not record `WF_SYNC`; this window is a named
/// inference, not fitted to a capture.
pub const SYNC_WAKE_WINDOW_NS: u64 = 20_000;

/// [`median_gap`] needs at least this many gaps.
pub const MIN_SWITCH_GAPS: usize = 10;
/// How soon after a migration onto its own CPU a task's blocking switch must come for the
/// migration to be read as `sched_balance_newidle()`'s, in that task's `__schedule()`: the
/// pull and the switch are one code path (6 µs apart in `linux-6.18-smp/sleepers-and-hogs-smp`).
pub const NEWIDLE_SWITCH_NS: u64 = 50_000;

/// The median of a trace's gaps over all its CPUs, when it has at least [`MIN_SWITCH_GAPS`]
/// (a trace without latency flags or `sched_stat_runtime` has none). Named shortcut: one value
/// for the whole machine, as the kernel's own work is; a probe that runs at some tasks'
/// switches only makes theirs longer. On the pinned captures of `traces/linux-6.18` a bpftrace
/// probe filtered on the workload's comms ran at each of its switches: on `sleeper-vs-hog`
/// (build v657) its blocks took 8-10 us from their last record to the switch, the capture's
/// own more numerous tasks on CPU 0 1 us, and the median over both is 1 us.
pub fn median_gap(gaps: &[(u32, u64)]) -> Option<u64> {
    let mut g: Vec<u64> = gaps.iter().map(|&(_, g)| g).collect();
    if g.len() < MIN_SWITCH_GAPS {
        return None;
    }
    g.sort_unstable();
    Some(g[g.len() / 2])
}

/// The observed schedule.
#[derive(Debug, Clone, Default)]
pub struct Observed {
    pub tasks: Vec<ObservedTask>,
    by_pid: BTreeMap<i32, u32>,
    pub runs: Vec<Run>,
    /// First and last record time (ns).
    pub t0: Option<u64>,
    pub t1: u64,
    pub cpus: u32,
    /// Lines the importer skipped and events it reported lost.
    pub skipped: u64,
    pub lost: u64,
    /// Records whose time went backwards on their CPU, or before the first record (kept,
    /// clamped).
    pub out_of_order: u64,
    /// A bpftrace EEVDF-state dump read with the trace (its own clock; the replay seeds from it,
    /// `decisions::seed`).
    pub eevdf: Vec<EevdfSample>,
    /// A dump of each CPU's root cfs_rq averages read with the trace (`tools/capture/
    /// schedlab-cpu-avg.bt`; the replay seeds from it, `decisions::cpu_avg`).
    pub cpu_avg: Vec<crate::import::cpu_avg::CpuAvgSample>,
    /// The periodic balance passes a dump read with the trace recorded (`tools/capture/
    /// schedlab-balance.bt`; the replay asks each of the model, `decisions::passes`). `None`
    /// without a dump; an empty list when the dump's softirqs hold no pass.
    pub balance: Option<Vec<crate::import::balance::BalancePassRecord>>,
    /// `sched_switch` records.
    pub switches: u64,
    /// The trace's number of each model CPU, when they differ (see the module docs); empty
    /// when model CPU n is the trace's CPU n.
    pub cpu_ids: Vec<u32>,
    /// The source line of the record that named one CPU more than the model's largest host,
    /// if any (the replay refuses such a trace there).
    pub too_many_cpus_at: Option<u64>,
    /// What the trace is called in located errors (its file name; empty: `trace`).
    pub source: String,
    /// Switch-outs the trace does not have: a record on a CPU from another task than the one
    /// last switched in there (filtered or lost events). The run is ended at that record and
    /// taken as a block.
    pub missing_switches: u64,
    /// The scheduling events in time order (for the per-decision replay, `decisions`).
    pub events: Vec<Timed>,
    /// The cgroup paths tasks were moved into (`ObsEvent::CgroupMove`), each once.
    pub cgroup_paths: Vec<String>,
    /// Forked children not yet seen as tasks: their pid and their parent.
    fork_parent: BTreeMap<i32, u32>,
    /// Causal wakeups numbered so far (`ShadowOp::Wake`/`Wait` pairs).
    pub causal_wakeups: u32,
    /// Each preempting wakeup's CPU and gap to its switch (ns): a `sched_wakeup` on the
    /// wakee's own CPU with need-resched set, then that CPU's next `sched_switch`, to the
    /// wakee, of a task (not idle) still runnable. See [`Observed::wakeup_switch_latency`].
    pub wakeup_switch_gaps: Vec<(u32, u64)>,
    /// Each blocking switch-out's gap from the task's last own quiet `sched_stat_runtime`
    /// (its dequeue's `update_curr()`) to its `sched_switch` (ns). See
    /// [`Observed::schedule_clock_lead`].
    pub block_switch_gaps: Vec<(u32, u64)>,
    /// Per CPU: the last such wakeup (the wakee and when), until the CPU's next switch.
    preempting_wakeup: Vec<Option<(u32, u64)>>,
    last_on_cpu: Vec<u64>,
    cpu_cur: Vec<Option<u32>>,
    /// Per CPU: the task that last woke that CPU's stopper (`migration/N`) from its own
    /// context there, as `sched_exec()` does before the stopper moves it.
    stopper_woken_by: Vec<Option<u32>>,
    /// Per CPU: the migrations onto it written there by its running task (pid, event indices,
    /// time of the first), until that CPU's next switch: `sched_balance_newidle()`'s if the
    /// task then blocks ([`NEWIDLE_SWITCH_NS`]).
    newidle_pending: Vec<Option<(i32, Vec<usize>, u64)>>,
    /// The time of the record being read.
    now: u64,
    /// CPUs named by a record or as a wakeup target or migration destination, and how many.
    named: Vec<bool>,
    named_count: u32,
    /// The source line of the record being read.
    line: u64,
}

impl Observed {
    /// The model's number of the trace's CPU `trace_cpu` (`cpu_ids` when the trace's CPUs were
    /// renumbered), or None for a CPU the model does not have.
    pub fn model_cpu(&self, trace_cpu: u32) -> Option<u32> {
        if self.cpu_ids.is_empty() {
            (trace_cpu < self.cpus.max(1)).then_some(trace_cpu)
        } else {
            self.cpu_ids.iter().position(|&c| c == trace_cpu).map(|i| i as u32)
        }
    }

    /// The trace's wakeup-to-switch latency (`host.wakeup_switch_latency` of the shadow): the
    /// median of [`Observed::wakeup_switch_gaps`] ([`median_gap`]).
    pub fn wakeup_switch_latency(&self) -> Option<u64> {
        median_gap(&self.wakeup_switch_gaps)
    }

    /// How long before a switch `__schedule()` read the clock (`host.schedule_clock_lead` of
    /// the shadow): the median of [`Observed::block_switch_gaps`] ([`median_gap`]).
    pub fn schedule_clock_lead(&self) -> Option<u64> {
        median_gap(&self.block_switch_gaps)
    }

    /// One model CPU's own gaps, the medians of its wakeup and block gaps alone (each None
    /// with fewer than [`MIN_SWITCH_GAPS`]): a probe that runs at some tasks' switches only
    /// lengthens the gaps of the CPU they run on, which the pooled medians hide when the other
    /// CPU switches more (`host.cpu_switch_gaps` of the shadow).
    pub fn cpu_switch_gaps(&self, cpu: u32) -> (Option<u64>, Option<u64>) {
        let on = |g: &[(u32, u64)]| g.iter().copied().filter(|&(c, _)| c == cpu).collect::<Vec<_>>();
        (median_gap(&on(&self.wakeup_switch_gaps)), median_gap(&on(&self.block_switch_gaps)))
    }

    /// When the trace's jiffies begin, modulo one tick period `tick` from the trace's first
    /// record (`host.tick_phase` of the shadow): the median offset of its tick records
    /// (`sched_stat_runtime` written by `sched_tick()`, [`decisions::tick_section`]) from the
    /// first of them, wrapped to within half a period, so that records either side of a period
    /// boundary agree. None with fewer than [`MIN_SWITCH_GAPS`] tick records (a trace without
    /// latency flags has none). Named shortcut: a tick record is written a few µs after the
    /// tick's timer expired; the shadow's tick does its work at the record's time.
    ///
    /// [`decisions::tick_section`]: super::decisions::tick_section
    pub fn tick_phase(&self, tick: u64) -> Option<u64> {
        let t0 = self.t0?;
        let residue = |ts: u64| ts.saturating_sub(t0) % tick;
        let ticks: Vec<u64> = self
            .events
            .iter()
            .filter_map(|e| match e.ev {
                ObsEvent::Runtime { ctx, .. } if super::decisions::tick_section(ctx) => Some(residue(e.ts)),
                _ => None,
            })
            .collect();
        if ticks.len() < MIN_SWITCH_GAPS || tick == 0 {
            return None;
        }
        let first = ticks[0] as i64;
        let half = (tick / 2) as i64;
        let mut offsets: Vec<i64> = ticks
            .iter()
            .map(|&r| {
                let d = r as i64 - first;
                if d > half {
                    d - tick as i64
                } else if d <= -half {
                    d + tick as i64
                } else {
                    d
                }
            })
            .collect();
        offsets.sort_unstable();
        Some((first + offsets[offsets.len() / 2]).rem_euclid(tick as i64) as u64)
    }

    fn task(&mut self, pid: i32, comm: &str, prio: i32, ts: u64) -> usize {
        let i = match self.by_pid.get(&pid) {
            Some(&i) => i as usize,
            None => {
                let i = self.tasks.len();
                self.by_pid.insert(pid, i as u32);
                let parent = self.fork_parent.remove(&pid);
                self.tasks.push(ObservedTask {
                    pid,
                    first_ns: ts,
                    first_line: self.line,
                    parent,
                    ..Default::default()
                });
                i
            }
        };
        let t = &mut self.tasks[i];
        if !comm.is_empty() && comm != "<...>" {
            t.comm = comm.to_string();
        }
        if prio >= 0 {
            let fair = |p: i32| (100..=139).contains(&p);
            match t.first_prio {
                None => t.first_prio = Some(prio),
                // A new nice value (set_user_nice()): when the task is running, at its last
                // own sched_stat_runtime outside interrupts since it was switched in (the
                // update_curr() of set_user_nice()'s dequeue), else at this record.
                Some(_) if prio != t.prio && fair(prio) && fair(t.prio) => {
                    let at = match t.on_cpu {
                        Some(_) => t.stat_ts.last().copied().unwrap_or(self.now),
                        None => self.now,
                    };
                    self.events.push(Timed { ts: at, ev: ObsEvent::Nice { task: i as u32, prio } });
                }
                Some(_) => {}
            }
            t.prio = prio;
        }
        i
    }

    fn switch(&mut self, cpu: u32, ts: u64, p: &SchedPayload) {
        let SchedPayload::Switch { prev_comm, prev_pid, prev_prio, prev_state, next_comm, next_pid, next_prio, .. } = p
        else {
            return;
        };
        let t0 = self.t0.unwrap_or(ts);
        let line = self.line;
        self.switches += 1;
        self.newidle_switch(cpu, ts, *prev_pid, matches!(prev_state, PrevState::Blocked(_)));
        let prev = self.task(*prev_pid, prev_comm, *prev_prio, t0);
        let t = &mut self.tasks[prev];
        t.first_cpu.get_or_insert(cpu);
        // Running since the last switch-in on this CPU, or since the trace began.
        let since = match t.on_cpu.take() {
            Some((c, s)) if c == cpu => s,
            _ => t0.max(self.last_on_cpu.get(cpu as usize).copied().unwrap_or(t0)).min(ts),
        };
        t.switches_out += 1;
        t.adopted = false;
        t.ran(cpu, since, ts, prev as u32, &mut self.runs);
        // Its last causal wakeup was synchronous if it blocks now, having run at most
        // SYNC_WAKE_WINDOW_NS since (preempted in between or not).
        let blocks = matches!(prev_state, PrevState::Blocked(b) if b & (state_bits::Z | state_bits::X) == 0);
        let sync_wake = match t.last_wake {
            Some((op, _, _)) if blocks => {
                let since: u64 = t.ops[op + 1..]
                    .iter()
                    .map(|o| if let ShadowOp::Run(ns) = o { *ns } else { u64::MAX / 4 })
                    .fold(t.burst, u64::saturating_add);
                t.last_wake.take().filter(|_| since <= SYNC_WAKE_WINDOW_NS)
            }
            _ => None,
        };
        if matches!(prev_state, PrevState::Blocked(_)) {
            t.last_wake = None;
        }
        let out = match prev_state {
            PrevState::Preempted => {
                t.switches_out_runnable += 1;
                t.preempted_since_block += 1;
                let quiet = t.yields_before_preemption(ts, line);
                self.events.extend(
                    quiet.into_iter().map(|at| Timed { ts: at, ev: ObsEvent::Yield { task: prev as u32, cpu } }),
                );
                SwitchOut::Preempted
            }
            // Need-resched set, or the last record written in an interrupt (a balance softirq
            // that pulled a task here, a tick): `sched_yield()`'s own `update_curr()` record is
            // in task context, so a yield never ends on an interrupt's record.
            PrevState::Runnable
                if t.last_flags.is_some_and(|f| {
                    f & (trace_flags::NEED_RESCHED | trace_flags::HARDIRQ | trace_flags::SOFTIRQ) != 0
                }) =>
            {
                t.switches_out_runnable += 1;
                t.involuntary += 1;
                t.preempted_since_block += 1;
                let quiet = t.yields_before_preemption(ts, line);
                self.events.extend(
                    quiet.into_iter().map(|at| Timed { ts: at, ev: ObsEvent::Yield { task: prev as u32, cpu } }),
                );
                SwitchOut::Preempted
            }
            PrevState::Runnable => {
                t.switches_out_runnable += 1;
                // A 0 ns run before a yield is the yield alone (see the module docs).
                t.ran_since_step = false;
                let n = t.stats.max(1) as u64;
                t.yields += n;
                // The yields before the one that switched did not switch: each is a pick of
                // the same task, at its sched_stat_runtime record.
                let quiet = t.stat_ts.len().saturating_sub(1);
                for &at in &t.stat_ts[..quiet] {
                    self.events.push(Timed { ts: at, ev: ObsEvent::Yield { task: prev as u32, cpu } });
                }
                let burst = std::mem::take(&mut t.burst);
                t.push_yields(n, burst, line);
                SwitchOut::Yield
            }
            PrevState::Blocked(bits) if bits & (state_bits::Z | state_bits::X) != 0 => {
                t.exit(ts, line);
                // The pid is free: a later task with it is another task.
                self.by_pid.remove(prev_pid);
                SwitchOut::Exit
            }
            PrevState::Blocked(_) | PrevState::Raw(_) => {
                if t.switches_out == 1 && since == ts && t.ops.is_empty() {
                    // Blocking after a run the trace does not show (it was on the CPU when the
                    // trace began): it starts here, so that it wakes when it did (module docs).
                    t.first_ns = ts;
                }
                t.sleeps += 1;
                if let Some(at) = t.own_stat_at {
                    self.block_switch_gaps.push((cpu, ts.saturating_sub(at)));
                }
                let t = &mut self.tasks[prev];
                let step = t.ops.len();
                t.end_burst(line);
                if t.ops.len() > step {
                    t.block_bursts.push((step, t.preempted_since_block > 0));
                }
                t.blocked_since = Some(ts);
                t.preempted_since_block = 0;
                SwitchOut::Sleep
            }
        };
        if let Some((op, ev, _)) = sync_wake {
            if let ShadowOp::Wake { sync, .. } = &mut self.tasks[prev].ops[op] {
                *sync = true;
            }
            if let Some(ObsEvent::Wake { sync, .. }) = self.events.get_mut(ev).map(|e| &mut e.ev) {
                *sync = true;
            }
        }
        if std::mem::take(&mut self.tasks[prev].exiting) {
            self.events.push(Timed { ts, ev: ObsEvent::Exiting { task: prev as u32 } });
        }
        let next = self.task(*next_pid, next_comm, *next_prio, ts);
        self.handoff(cpu, ts, prev, next, out);
        if let Some((wakee, at)) = self.preempting_wakeup[cpu as usize].take() {
            // Not from idle: the gap that matters is the preempted task's.
            if wakee == next as u32 && out == SwitchOut::Preempted && self.tasks[prev].pid != 0 {
                self.wakeup_switch_gaps.push((cpu, ts.saturating_sub(at)));
            }
        }
        self.events.push(Timed { ts, ev: ObsEvent::Switch { cpu, prev: prev as u32, next: next as u32, out } });
        self.cpu_cur[cpu as usize] = Some(next as u32);
        let n = &mut self.tasks[next];
        n.adopted = false;
        n.first_cpu.get_or_insert(cpu);
        n.stats = 0;
        n.stat_ts.clear();
        n.own_stat_at = None;
        n.yield_ts.clear();
        n.last_flags = None;
        n.on_cpu = Some((cpu, ts));
        // Switched in without a sched_wakeup we saw: its sleep ended at its sched_waking, or
        // here.
        if let Some(b) = n.blocked_since.take() {
            let end = n.waking.take().unwrap_or(ts).clamp(b, ts.max(b));
            n.slept(b, end, line);
        }
    }

    /// The task last switched in on `cpu` is no longer current there at `ts`. For the
    /// per-decision replay it left at `at`, when the run of the task whose record revealed it
    /// began, if that record says so (its own `sched_stat_runtime`).
    fn implicit_out(&mut self, cpu: u32, ts: u64, at: u64) {
        let Some(i) = self.cpu_cur[cpu as usize].take() else { return };
        let t = &mut self.tasks[i as usize];
        let Some((c, since)) = t.on_cpu else { return };
        if c != cpu {
            return;
        }
        if std::mem::take(&mut t.adopted) {
            // Revealed by its own record after a lost switch-in, gone again: its run is
            // counted; what it did at either end is not in the trace, so nothing else is
            // inferred (no block, no step).
            t.on_cpu = None;
            t.ran(cpu, since, ts, i, &mut self.runs);
            return;
        }
        t.on_cpu = None;
        t.ran(cpu, since, ts, i, &mut self.runs);
        t.switches_out += 1;
        t.end_burst(self.line);
        t.blocked_since = Some(ts);
        self.missing_switches += 1;
        self.events.push(Timed { ts: at.clamp(since, ts), ev: ObsEvent::Vanished { task: i, cpu } });
    }

    fn wakeup(&mut self, ts: u64, kind: WakeKind, p: &SchedPayload, rec: &TraceRecord) {
        let SchedPayload::Wakeup { comm, pid, prio, target_cpu, .. } = p else { return };
        let i = self.task(*pid, comm, *prio, ts);
        let ctx = section(rec.flags);
        // The task whose context raised it: the CPU's current task, outside interrupts.
        let irq = trace_flags::HARDIRQ | trace_flags::SOFTIRQ;
        let waker = self.cpu_cur[rec.cpu as usize]
            .filter(|&w| w as usize != i && rec.pid != 0 && self.tasks[w as usize].pid == rec.pid)
            .filter(|_| rec.flags.is_some_and(|f| f & irq == 0));
        if kind == WakeKind::Wakeup && stopper_cpu(comm) == Some(rec.cpu) {
            if let Some(slot) = self.stopper_woken_by.get_mut(rec.cpu as usize) {
                *slot = waker;
            }
        }
        if kind == WakeKind::Wakeup {
            self.wakeup_migration(ts, i as u32, rec);
        }
        if kind != WakeKind::Waking {
            if let Some(cpu) = self.named_cpu(*target_cpu) {
                let (task, new) = (i as u32, kind == WakeKind::WakeupNew);
                let (from, sync) = (rec.cpu, false);
                let t = &mut self.tasks[i];
                t.first_cpu.get_or_insert(cpu);
                if new {
                    t.forked_on.get_or_insert(from);
                }
                if kind == WakeKind::Wakeup && self.tasks[i].blocked_since.is_some() {
                    if let Some(w) = waker {
                        self.causal_wakeup(ts, w, i as u32);
                    }
                }
                let resched = rec.flags.map(|f| f & trace_flags::NEED_RESCHED != 0);
                // In an interrupt on the wakee's CPU (a timer's, a remote wakeup's IPI): the
                // wakeups the model delays (`sim::switch_clock`); the first since the CPU's last
                // switch, as the need-resched it set.
                let irq = rec.flags.is_some_and(|f| f & (trace_flags::HARDIRQ | trace_flags::SOFTIRQ) != 0);
                if kind == WakeKind::Wakeup && resched == Some(true) && irq && cpu == rec.cpu {
                    self.preempting_wakeup[cpu as usize].get_or_insert((task, ts));
                }
                let ev = ObsEvent::Wake { task, cpu, new, ctx, from, waker, sync, resched };
                if let Some(w) = waker.filter(|_| self.tasks[i].woken_by.is_some()) {
                    // Where the sync inference at the waker's next block patches it.
                    if let Some(lw) = self.tasks[w as usize].last_wake.as_mut() {
                        lw.1 = self.events.len();
                    }
                }
                self.events.push(Timed { ts, ev });
            }
        }
        let line = self.line;
        let t = &mut self.tasks[i];
        if kind == WakeKind::Waking {
            if t.blocked_since.is_some() {
                t.waking = Some(ts);
            }
        } else if let Some(b) = t.blocked_since.take() {
            t.waking = None;
            // A wakeup on another CPU can read earlier than the switch-out (text not sorted
            // across CPUs): a sleep of at least 1 ns either way.
            t.slept(b, ts, line);
        }
    }

    /// The hand-off inference (module docs) at a switch on `cpu` at `ts` from `prev` (switched
    /// out as `out`) to `next`.
    fn handoff(&mut self, cpu: u32, ts: u64, prev: usize, next: usize, out: SwitchOut) {
        let line = self.line;
        if out == SwitchOut::Sleep && prev != next && self.tasks[next].handed_to == Some((prev as u32, cpu)) {
            // `next` had been preempted by `prev`, just woken by it; `prev` blocks and hands the
            // CPU straight back: what a reply through a pipe looks like.
            let id = self.causal_wakeups;
            self.causal_wakeups += 1;
            self.tasks[prev].push(ShadowOp::Wake { id, wakee: next as u32, sync: true }, line);
            let n = &mut self.tasks[next];
            n.end_burst(line);
            n.push(ShadowOp::Handoff { id }, line);
        }
        self.tasks[next].handed_to = None;
        if out == SwitchOut::Preempted && prev != next {
            let t = &mut self.tasks[prev];
            let woke_next = |(op, _, at): (usize, usize, u64)| {
                matches!(t.ops.get(op), Some(ShadowOp::Wake { wakee, .. }) if *wakee == next as u32)
                    && ts.saturating_sub(at) <= SYNC_WAKE_WINDOW_NS
            };
            if t.last_wake.is_some_and(woke_next) {
                t.handed_to = Some((next as u32, cpu));
            }
        }
    }

    /// `waker`, running, woke the blocked `wakee` at `ts` from task context: the waker's burst
    /// so far is a step, then a `Wake` step; the wakee's sleep becomes a `Wait` for it.
    fn causal_wakeup(&mut self, ts: u64, waker: u32, wakee: u32) {
        let line = self.line;
        let id = self.causal_wakeups;
        self.causal_wakeups += 1;
        let w = &mut self.tasks[waker as usize];
        w.burst_to(ts, line);
        w.last_wake = Some((w.ops.len(), usize::MAX, ts));
        w.push(ShadowOp::Wake { id, wakee, sync: false }, line);
        self.tasks[wakee as usize].woken_by = Some(id);
    }

    /// Ends the inference at the last record: tasks on a CPU or runnable keep running.
    pub fn finish(&mut self) {
        let (t1, line) = (self.t1, self.line);
        for (i, t) in self.tasks.iter_mut().enumerate() {
            if let Some((cpu, since)) = t.on_cpu.take() {
                t.ran(cpu, since, t1.max(since), i as u32, &mut self.runs);
            }
            if let (Some(b), None) = (t.blocked_since, t.exit_ns) {
                t.blocked_ns = t.blocked_ns.saturating_add(t1.saturating_sub(b));
            }
            t.runs_on = t.blocked_since.is_none() && t.exit_ns.is_none();
            if t.runs_on {
                // It goes on running ("forever", see `shadow`): nothing to end at 0 ns.
                t.ran_since_step = false;
            }
            t.end_burst(line);
        }
        self.renumber_cpus();
        self.runs.sort_by_key(|r| (r.cpu, r.start));
        // Quiet yields were noted at their switch-out, after later records: a stable sort puts
        // them back in time order.
        self.events.sort_by_key(|e| e.ts);
    }

    /// A `sched_stat_runtime` record: one `update_curr()` of the task, with the time it was
    /// charged (the rq's task clock, interrupt time left out), for the CPU it is running on:
    /// where it was switched in, or, its switch-in lost, where it accounts itself.
    fn stat_runtime(&mut self, ts: u64, cpu: u32, current: i32, fields: &[(String, String)], ctx: u8) {
        let Some((pid, ns)) = stat_fields(fields) else { return };
        let Some(&task) = self.by_pid.get(&pid) else { return };
        let on = self.cpu_cur.iter().position(|&c| c == Some(task)).map(|c| c as u32);
        if let Some(cpu) = on.or((pid == current).then_some(cpu)) {
            self.events.push(Timed { ts, ev: ObsEvent::Runtime { task, cpu, ns, ctx } });
        }
    }

    /// `__schedule()` with need-resched set calls `update_curr()` (a `sched_stat_runtime` of
    /// the current task in task context, `dN.2.`) and then switches, or re-picks the same task:
    /// no `sched_switch` then, and the CPU's next record is not its switch-out (nor a wakeup in
    /// task context, which may come in between).
    fn repicked(&mut self, rec: &TraceRecord) {
        let Some(cur) = self.cpu_cur[rec.cpu as usize] else { return };
        let irq = trace_flags::HARDIRQ | trace_flags::SOFTIRQ;
        let t = &mut self.tasks[cur as usize];
        if let Some(at) = t.resched_at {
            match &rec.payload {
                SchedPayload::Switch { prev_pid, .. } if *prev_pid == t.pid => t.resched_at = None,
                SchedPayload::Wakeup { .. } if rec.flags.is_some_and(|f| f & irq == 0) => {}
                _ => {
                    t.resched_at = None;
                    self.events.push(Timed { ts: at, ev: ObsEvent::Repick { task: cur, cpu: rec.cpu } });
                }
            }
        }
        let own = match &rec.payload {
            SchedPayload::Other { fields, .. } if rec.event == "sched_stat_runtime" => {
                stat_fields(fields).is_some_and(|(pid, _)| pid == rec.pid && pid == t.pid)
            }
            _ => false,
        };
        if own && rec.flags.is_some_and(|f| f & trace_flags::NEED_RESCHED != 0 && f & irq == 0) {
            t.resched_at = Some(rec.ts_ns);
        }
    }
}

/// The `pid` and `runtime` (ns) of a `sched_stat_runtime` record.
fn stat_fields(fields: &[(String, String)]) -> Option<(i32, u64)> {
    let field = |name: &str| fields.iter().find(|(k, _)| k == name).map(|(_, v)| v.trim());
    let pid = field("pid")?.parse().ok()?;
    let ns = field("runtime")?.split(|c: char| !c.is_ascii_digit()).next()?.parse().ok()?;
    Some((pid, ns))
}

impl TraceSink for Observed {
    fn record(&mut self, rec: TraceRecord) {
        let ts = rec.ts_ns;
        self.line = rec.line;
        let t0 = *self.t0.get_or_insert(ts);
        self.t1 = self.t1.max(ts);
        self.name_cpu(rec.cpu);
        let last = &mut self.last_on_cpu[rec.cpu as usize];
        let floor = (*last).max(t0);
        let ts = if ts < floor {
            self.out_of_order += 1;
            floor
        } else {
            *last = ts;
            ts
        };
        self.now = ts;
        // The bandwidth period timer's expiry interrupts whatever runs: it says nothing about
        // the current task (not its flags, not a lost switch, not a re-pick).
        if let Some(timer) = bandwidth_timer(&rec) {
            self.events.push(Timed { ts, ev: ObsEvent::BandwidthTimer { cpu: rec.cpu, timer } });
            return;
        }
        if rec.event == "cgroup_attach_task" {
            self.cgroup_attach(ts, &rec);
            return;
        }
        self.repicked(&rec);
        // Before a CPU's first switch its records name the task current there (switched in
        // before the trace began). Its run there is not counted (it has no known start), but
        // its flags are: its first switch-out is told a yield or a preemption by them.
        if self.cpu_cur[rec.cpu as usize].is_none() && rec.pid != 0 && rec.event != "sched_switch" {
            if let Some(&i) = self.by_pid.get(&rec.pid) {
                if self.tasks[i as usize].on_cpu.is_none() {
                    self.tasks[i as usize].last_flags = rec.flags;
                }
            }
        }
        if let Some(cur) = self.cpu_cur[rec.cpu as usize] {
            if self.tasks[cur as usize].pid != rec.pid {
                // A task's own sched_stat_runtime says how long it has been running.
                let at = match &rec.payload {
                    SchedPayload::Other { fields, .. } if rec.event == "sched_stat_runtime" => stat_fields(fields)
                        .filter(|&(pid, _)| pid == rec.pid)
                        .map_or(ts, |(_, ns)| ts.saturating_sub(ns)),
                    _ => ts,
                };
                self.implicit_out(rec.cpu, ts, at);
                // The record's own task is current there now (its switch-in is lost too): its
                // records' latency flags tell how it leaves, and its run counts from this
                // record, as the import timeline's span does (a hog whose switch back in was
                // lost keeps running: pipe-pair-and-hog's k_h for 120 ms after a switch to
                // damon-regions, its ticks charging it).
                let adopt = self.by_pid.get(&rec.pid).copied().filter(|&i| {
                    rec.pid != 0 && rec.event != "sched_switch" && self.tasks[i as usize].on_cpu.is_none()
                });
                if let Some(i) = adopt {
                    self.cpu_cur[rec.cpu as usize] = Some(i);
                    let t = &mut self.tasks[i as usize];
                    t.on_cpu = Some((rec.cpu, ts));
                    t.adopted = true;
                    t.stats = 0;
                    t.stat_ts.clear();
                    t.yield_ts.clear();
                    t.last_flags = None;
                }
            }
        }
        match &rec.payload {
            p @ SchedPayload::Switch { .. } => self.switch(rec.cpu, ts, p),
            p @ SchedPayload::Wakeup { kind, .. } => {
                if let Some(cur) = self.cpu_cur[rec.cpu as usize] {
                    self.tasks[cur as usize].last_flags = rec.flags;
                }
                self.wakeup(ts, *kind, p, &rec)
            }
            SchedPayload::Other { fields, .. } => {
                // A forked child's pid starts a new task even if an earlier task had it.
                if rec.event == "sched_process_fork" {
                    let child = fields.iter().find(|(k, _)| k == "child_pid").and_then(|(_, v)| v.parse().ok());
                    if let Some(child) = child {
                        self.by_pid.remove(&child);
                        if let Some(cur) = self.cpu_cur[rec.cpu as usize] {
                            self.fork_parent.insert(child, cur);
                        }
                    }
                }
                if rec.event == "sched_stat_runtime" {
                    self.stat_runtime(ts, rec.cpu, rec.pid, fields, section(rec.flags));
                }
                if rec.event == "sched_process_exit" {
                    if let Some(cur) = self.cpu_cur[rec.cpu as usize].filter(|&c| self.tasks[c as usize].pid == rec.pid)
                    {
                        self.tasks[cur as usize].exiting = true;
                    }
                }
                if let Some(cur) = self.cpu_cur[rec.cpu as usize] {
                    let t = &mut self.tasks[cur as usize];
                    t.last_flags = rec.flags;
                    let quiet = rec.flags.is_none_or(|f| {
                        f & (trace_flags::NEED_RESCHED | trace_flags::HARDIRQ | trace_flags::SOFTIRQ) == 0
                    });
                    if rec.event == "sched_stat_runtime" && quiet {
                        t.stats += 1;
                        t.stat_ts.push(ts);
                        if rec.flags.is_some_and(|f| trace_flags::preempt_depth(f) == 1) {
                            t.yield_ts.push(ts);
                        }
                        // sched_move_task()'s update_curr() of the exiting task (after its
                        // Runtime event).
                        let own = stat_fields(fields).is_some_and(|(pid, _)| pid == t.pid);
                        if own {
                            t.own_stat_at = Some(ts);
                        }
                        if own && std::mem::take(&mut t.exiting) {
                            self.events.push(Timed { ts, ev: ObsEvent::Exiting { task: cur } });
                        }
                    }
                }
            }
            p @ SchedPayload::MigrateTask { .. } => self.migrate(ts, p, &rec),
        }
    }

    fn lost(&mut self, _cpu: u32, count: u64, _line: u64) {
        self.lost += count;
    }

    fn skipped(&mut self, _s: Skipped) {
        self.skipped += 1;
    }

    fn eevdf(&mut self, s: EevdfSample) {
        self.eevdf.push(s);
    }
}

#[cfg(test)]
mod tests;
