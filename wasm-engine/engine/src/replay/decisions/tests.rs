//! The replay's unit tests: synthetic traces, record by record, each after the kernel function it
//! shows the replay following.

use super::*;
use crate::import::record::{state_bits, trace_flags, PrevState, SchedPayload, TraceRecord, TraceSink, WakeKind};
use crate::replay::shadow::{shadow_scenario, Layout};
use crate::sched::entity::vdiff;

/// A task of a synthetic trace: (comm, pid, prio).
type T = (&'static str, i32, i32);
const IDLE: T = ("swapper/1", 0, 120);

/// A trace written record by record; `flags` are the latency flags as printed.
#[derive(Default)]
struct Trace(Vec<TraceRecord>);

impl Trace {
    fn rec(&mut self, ts: u64, cpu: u32, current: T, event: &str, flags: &str, payload: SchedPayload) -> &mut Self {
        self.0.push(TraceRecord {
            ts_ns: ts,
            cpu,
            pid: current.1,
            comm: current.0.into(),
            event: event.into(),
            line: 0,
            flags: trace_flags::from_text(flags),
            payload,
        });
        self
    }

    fn switch(&mut self, ts: u64, cpu: u32, prev: T, state: PrevState, next: T) -> &mut Self {
        let payload = SchedPayload::Switch {
            prev_comm: prev.0.into(),
            prev_pid: prev.1,
            prev_prio: prev.2,
            prev_state: state,
            next_comm: next.0.into(),
            next_pid: next.1,
            next_prio: next.2,
            extra: Vec::new(),
        };
        self.rec(ts, cpu, prev, "sched_switch", "d..2.", payload)
    }

    fn wakeup(&mut self, ts: u64, cpu: u32, current: T, who: T, target: i32, kind: WakeKind) -> &mut Self {
        self.wakeup_in(ts, cpu, current, who, target, kind, "dNh3.")
    }

    /// A wakeup recorded with `flags` (`d..2.`: in the waker's task context, as a fork's).
    #[allow(clippy::too_many_arguments)]
    fn wakeup_in(
        &mut self,
        ts: u64,
        cpu: u32,
        current: T,
        who: T,
        target: i32,
        kind: WakeKind,
        flags: &str,
    ) -> &mut Self {
        let payload = SchedPayload::Wakeup {
            kind,
            comm: who.0.into(),
            pid: who.1,
            prio: who.2,
            target_cpu: target,
            success: None,
            extra: Vec::new(),
        };
        let event = if kind == WakeKind::WakeupNew { "sched_wakeup_new" } else { "sched_wakeup" };
        self.rec(ts, cpu, current, event, flags, payload)
    }

    /// `sched_stat_runtime` of the current task (`flags`: `d.h1.` at a tick, `d..2.` quiet).
    fn stat(&mut self, ts: u64, cpu: u32, current: T, ns: u64, flags: &str) -> &mut Self {
        let fields = vec![
            ("comm".into(), current.0.into()),
            ("pid".into(), current.1.to_string()),
            ("runtime".into(), format!("{ns} [ns]")),
        ];
        self.rec(ts, cpu, current, "sched_stat_runtime", flags, SchedPayload::Other { fields, text: None })
    }

    fn other(&mut self, ts: u64, cpu: u32, current: T, event: &str, payload: SchedPayload) -> &mut Self {
        self.rec(ts, cpu, current, event, ".....", payload)
    }

    fn observe(&self) -> Observed {
        let mut obs = Observed::default();
        for r in &self.0 {
            obs.record(r.clone());
        }
        obs.finish();
        obs
    }
}

fn shadow(obs: &Observed, layout: &str) -> (Shadow, SimConfig) {
    let layout = Layout::parse("layout", layout).unwrap();
    let shadow = shadow_scenario(obs, &layout, "t").unwrap();
    let cfg = SimConfig::from_scenario(&shadow.scenario).unwrap();
    (shadow, cfg)
}

/// The model's entity of the observed task named `comm`.
fn entity(r: &Replayer, comm: &str) -> EntityId {
    let i = r.obs.tasks.iter().position(|t| t.comm == comm).unwrap();
    r.se(i as u32).unwrap()
}

/// Each `sched_stat_runtime` is one `update_curr()`: the task is charged what the kernel
/// charged (here 3.9 ms of a 4 ms run: interrupt time is left out of rq_clock_task), and the
/// switch that follows reads the same clock.
#[test]
fn update_curr_charges_what_sched_stat_runtime_says() {
    let (a, b) = (("a", 10, 120), ("b", 11, 120));
    let mut t = Trace::default();
    t.switch(1_000, 1, IDLE, PrevState::Runnable, a)
        .stat(4_001_000, 1, a, 3_900_000, "d.h1.")
        .stat(4_001_010, 1, a, 10, "dN.2.")
        .switch(4_001_020, 1, a, PrevState::Runnable, b)
        .stat(5_001_010, 1, b, 1_000_000, "d..2.")
        .switch(5_001_020, 1, b, PrevState::Blocked(state_bits::S), IDLE);
    let obs = t.observe();
    let (shadow, cfg) = shadow(&obs, "");
    let r = replay(&obs, &shadow, cfg);
    assert_eq!(r.f.ents[entity(&r, "a") as usize].sum_exec_runtime, 3_900_010);
    assert_eq!(r.f.ents[entity(&r, "b") as usize].sum_exec_runtime, 1_000_000);
}

/// `set_user_nice()`: `nice -n 7` forks at nice 0 and calls setpriority() after 0.7 ms: the
/// task ran those at weight 1024 and keeps its lag (−0.35 ms beside one nice-0 task) in real
/// terms, ×1024/215 in virtual time at nice 7.
#[test]
fn set_user_nice_reweighs_a_task_reniced_after_fork() {
    let (a, b) = (("a", 10, 120), ("b", 11, 120));
    let a7 = ("a", 10, 127);
    let mut t = Trace::default();
    t.switch(1_000, 1, IDLE, PrevState::Runnable, b)
        .wakeup(2_000, 1, b, a, 1, WakeKind::WakeupNew)
        .switch(2_010, 1, b, PrevState::Preempted, a)
        .stat(702_010, 1, a, 700_000, "d..2.")
        .switch(702_020, 1, a7, PrevState::Preempted, b);
    let obs = t.observe();
    let (shadow, cfg) = shadow(&obs, "");
    let r = replay(&obs, &shadow, cfg);
    let se = entity(&r, "a");
    let e = &r.f.ents[se as usize];
    assert_eq!(e.load, LoadWeight::for_nice(7));
    let lag = vdiff(r.f.qs[e.cfs_rq as usize].peek_avg_vruntime(&r.f.ents), e.vruntime);
    let expect = -350_000 * 1024 / 215;
    assert!((lag - expect).abs() < 1_000, "lag {lag}, expected {expect}");
}

/// `sched_autogroup_exit_task()`: a task of an autogroup that exits finishes on the root
/// cfs_rq (moved at its first update_curr() after sched_process_exit).
#[test]
fn sched_autogroup_exit_task_moves_an_exiting_task_to_the_root_group() {
    let (a, b) = (("a", 10, 120), ("b", 11, 120));
    let exit = SchedPayload::Other {
        fields: vec![("comm".into(), "a".into()), ("pid".into(), "10".into()), ("prio".into(), "120".into())],
        text: None,
    };
    let mut t = Trace::default();
    t.switch(1_000, 1, IDLE, PrevState::Runnable, a)
        .other(501_000, 1, a, "sched_process_exit", exit)
        .stat(601_000, 1, a, 600_000, "d..2.")
        .switch(601_010, 1, a, PrevState::Blocked(state_bits::Z), b)
        .stat(701_010, 1, b, 100_000, "d.h1.");
    let obs = t.observe();
    let layout = "[[cgroups]]\npath = \"/autogroup-1\"\n[tasks]\na = \"/autogroup-1\"\nb = \"/autogroup-1\"\n";
    let (shadow, cfg) = shadow(&obs, layout);
    let r = replay(&obs, &shadow, cfg);
    let se = entity(&r, "a");
    assert_eq!(r.tg[se as usize], 0);
    assert_eq!(r.f.ents[se as usize].cfs_rq, r.f.rqs[1].cfs);
    assert_eq!(r.f.ents[entity(&r, "b") as usize].depth, 1, "b stays in the autogroup");
}

/// `requeue_delayed_entity()`: a delayed task woken while another runs is requeued with V
/// read before `wakeup_preempt()`'s update_curr(), whose sched_stat_runtime comes first in
/// the trace. b slept 0.5 ms behind V (delayed); a has run 1.2 ms since, but was last
/// charged at its switch-in: b is still ineligible, so it keeps its vruntime (DELAY_ZERO
/// would re-place it at V).
#[test]
fn requeue_delayed_entity_reads_v_before_wakeup_preempt_updates_curr() {
    let (a, b) = (("a", 10, 120), ("b", 11, 120));
    let mut t = Trace::default();
    t.switch(1_000, 1, IDLE, PrevState::Runnable, b)
        .stat(1_001_000, 1, b, 1_000_000, "d..2.")
        .switch(1_001_010, 1, b, PrevState::Blocked(state_bits::S), a)
        .stat(2_201_010, 1, a, 1_200_000, "d.h3.")
        .wakeup(2_201_012, 1, a, b, 1, WakeKind::Wakeup);
    let obs = t.observe();
    let (shadow, cfg) = shadow(&obs, "");
    let r = replay(&obs, &shadow, cfg);
    let (ea, eb) = (&r.f.ents[entity(&r, "a") as usize], &r.f.ents[entity(&r, "b") as usize]);
    assert!(eb.on_rq && !eb.sched_delayed);
    assert_eq!(vdiff(eb.vruntime, ea.vruntime), -200_000);
}

/// The same with the `sched_stat_runtime` of the tick (`d.h1.`) just before the wakeup of
/// the hrtimer that fired in the same interrupt (`dNh3.`): the tick set need-resched, so
/// `wakeup_preempt()` returned before its update_curr(), and the requeue read V after the
/// tick's. b's lag is positive then: DELAY_ZERO places it at V (alone with a: a's vruntime).
#[test]
fn requeue_delayed_entity_after_the_ticks_update_curr() {
    let (a, b) = (("a", 10, 120), ("b", 11, 120));
    let mut t = Trace::default();
    t.switch(1_000, 1, IDLE, PrevState::Runnable, b)
        .stat(1_001_000, 1, b, 1_000_000, "d..2.")
        .switch(1_001_010, 1, b, PrevState::Blocked(state_bits::S), a)
        .stat(2_201_010, 1, a, 1_200_000, "d.h1.")
        .wakeup(2_201_012, 1, a, b, 1, WakeKind::Wakeup);
    let obs = t.observe();
    let (shadow, cfg) = shadow(&obs, "");
    let r = replay(&obs, &shadow, cfg);
    let (ea, eb) = (&r.f.ents[entity(&r, "a") as usize], &r.f.ents[entity(&r, "b") as usize]);
    // (a has run the 2 ns of the trace's clock between the two records since.)
    assert!(vdiff(eb.vruntime, ea.vruntime).abs() <= 2, "{}", vdiff(eb.vruntime, ea.vruntime));
}

/// `try_to_wake_up()` reads the clock once: the wakee is placed at V as of the update_curr()
/// whose sched_stat_runtime the trace shows just before its sched_wakeup, not 3 µs later. a
/// renewed its deadline there, so b (at V, alone with a) is exactly one slice before it.
#[test]
fn try_to_wake_up_places_at_the_clock_of_its_own_update_curr() {
    let (a, b) = (("a", 10, 120), ("b", 11, 120));
    let mut t = Trace::default();
    t.switch(1_000, 1, IDLE, PrevState::Runnable, a)
        .stat(4_001_000, 1, a, 4_000_000, "d.h3.")
        .wakeup(4_004_000, 1, a, b, 1, WakeKind::WakeupNew)
        .switch(4_004_010, 1, a, PrevState::Preempted, b)
        .stat(4_104_010, 1, b, 100_000, "d..2.")
        .switch(4_104_020, 1, b, PrevState::Blocked(state_bits::S), IDLE);
    let obs = t.observe();
    let (shadow, cfg) = shadow(&obs, "");
    let r = replay(&obs, &shadow, cfg);
    let (ea, eb) = (&r.f.ents[entity(&r, "a") as usize], &r.f.ents[entity(&r, "b") as usize]);
    let placed = eb.vruntime.wrapping_sub(100_000);
    assert_eq!(vdiff(ea.deadline, placed), 1_400_000);
}

/// a runs 1 ms on CPU 0 and blocks (x runs there next); `moved` writes the records of its move
/// to CPU 1 (given the `sched_migrate_task` payload), then x wakes it onto CPU 1, where it runs
/// 0.1 ms and sleeps.
fn a_moved_after_blocking(moved: impl FnOnce(&mut Trace, SchedPayload) -> &mut Trace) -> Observed {
    let (a, x) = (("a", 10, 120), ("x", 11, 120));
    let migrate =
        SchedPayload::MigrateTask { comm: "a".into(), pid: 10, prio: 120, orig_cpu: 0, dest_cpu: 1, extra: Vec::new() };
    let mut t = Trace::default();
    t.switch(1_000, 0, ("swapper/0", 0, 120), PrevState::Runnable, a).stat(1_001_000, 0, a, 1_000_000, "d..2.").switch(
        1_001_010,
        0,
        a,
        PrevState::Blocked(state_bits::D),
        x,
    );
    moved(&mut t, migrate)
        .wakeup(1_001_030, 0, x, a, 1, WakeKind::Wakeup)
        .switch(1_001_040, 1, IDLE, PrevState::Runnable, a)
        .stat(1_101_040, 1, a, 100_000, "d..2.")
        .switch(1_101_050, 1, a, PrevState::Blocked(state_bits::S), IDLE)
        .stat(2_001_030, 0, x, 1_000_000, "d.h1.");
    t.observe()
}

/// `move_queued_task()` moves a delayed task as it is: dequeued without DEQUEUE_SLEEP, so
/// PLACE_REL_DEADLINE keeps its deadline relative (0.4 ms left of its slice), and its
/// wakeup on the new CPU (lag still negative) does not place it afresh. (The move here is
/// CPU 1's idle balance, a `migrate_load` pass that may take a delayed task.)
#[test]
fn move_queued_task_keeps_a_delayed_tasks_relative_deadline() {
    let obs = a_moved_after_blocking(|t, migrate| t.rec(1_001_020, 1, IDLE, "sched_migrate_task", "..s1.", migrate));
    let (shadow, cfg) = shadow(&obs, "");
    let r = replay(&obs, &shadow, cfg);
    let e = &r.f.ents[entity(&r, "a") as usize];
    assert_eq!(r.f.qs[e.cfs_rq as usize].cpu, 1);
    // 0.4 ms left when it went to sleep on CPU 0, 0.1 ms of it run on CPU 1.
    assert_eq!(vdiff(e.deadline, e.vruntime), 300_000);
}

/// `__schedule()` that picks the running task again leaves no `sched_switch`, only its
/// `update_curr()` with need-resched set (`dN.2.`) and no switch-out after it: the pick
/// still happened, and a delayed entity it chose was dequeued (`pick_next_entity()`). b
/// went to sleep 0.5 ms behind V; after a's 4 ms it is eligible with the earlier deadline.
#[test]
fn pick_next_entity_dequeues_a_delayed_entity_at_a_pick_without_a_switch() {
    let (a, b) = (("a", 10, 120), ("b", 11, 120));
    let mut t = Trace::default();
    t.switch(1_000, 1, IDLE, PrevState::Runnable, b)
        .stat(1_001_000, 1, b, 1_000_000, "d..2.")
        .switch(1_001_010, 1, b, PrevState::Blocked(state_bits::S), a)
        .stat(5_001_010, 1, a, 4_000_000, "d.h1.")
        .stat(5_001_020, 1, a, 10, "dN.2.")
        .stat(9_001_020, 1, a, 4_000_000, "d.h1.");
    let obs = t.observe();
    let (shadow, cfg) = shadow(&obs, "");
    let r = replay(&obs, &shadow, cfg);
    let eb = &r.f.ents[entity(&r, "b") as usize];
    assert!(!eb.on_rq && !eb.sched_delayed, "b dequeued at the re-pick");
    assert_eq!(eb.vlag, 0, "DELAY_ZERO");
}

/// A task the trace first shows being switched in was runnable from its start: it is queued
/// then (with zero lag) and has waited since, 4 ms behind a, which ran.
#[test]
fn tasks_runnable_at_the_trace_start_wait_from_it() {
    let (a, b) = (("a", 10, 120), ("b", 11, 120));
    let mut t = Trace::default();
    t.stat(1_000, 1, a, 500_000, "d.h1.")
        .stat(4_001_000, 1, a, 4_000_000, "d.h1.")
        .stat(4_001_010, 1, a, 10, "dN.2.")
        .switch(4_001_020, 1, a, PrevState::Runnable, b)
        .stat(5_001_020, 1, b, 1_000_000, "d..2.")
        .switch(5_001_030, 1, b, PrevState::Blocked(state_bits::S), a)
        .stat(6_001_030, 1, a, 1_000_000, "d.h1.");
    let obs = t.observe();
    let (shadow, cfg) = shadow(&obs, "");
    let r = replay(&obs, &shadow, cfg);
    let (ea, eb) = (&r.f.ents[entity(&r, "a") as usize], &r.f.ents[entity(&r, "b") as usize]);
    // a: 4 ms before its first switch (its sched_stat_runtime records come before the
    // trace names it, so the trace's clock) and 1 ms after; b: 1 ms.
    assert_eq!(vdiff(eb.vruntime, ea.vruntime), -4_000_020);
    assert_eq!(r.report.not_queued, 0);
}

/// A cgroup with 2 ms of quota per 100 ms holding a and b, alone on CPU 1.
const BANDWIDTH: &str =
    "[[cgroups]]\npath = \"/q\"\nquota = \"2ms\"\nperiod = \"100ms\"\n[tasks]\na = \"/q\"\nb = \"/q\"\n";

/// The task-based throttle along a trace: a's update_curr() runs the group out of quota; the
/// kernel's next picks walk the throttled hierarchy (`check_cfs_rq_runtime()`), so b and then a
/// owe the throttle task_work, and each leaves for the limbo list at its `R+` return to user
/// space 20–30 µs later. The unthrottle leaves no record: the kernel switching to a again, a
/// period later, is where the replay runs the period timer (refill, `distribute_cfs_runtime()`,
/// the limbo list re-enqueued), and that pick is scored.
#[test]
fn throttle_cfs_rq_work_at_the_return_to_user_space_and_the_unthrottle_where_the_trace_shows_it() {
    let (a, b) = (("a", 10, 120), ("b", 11, 120));
    let mut t = Trace::default();
    t.switch(1_000, 1, IDLE, PrevState::Runnable, a)
        .wakeup(1_500, 1, a, b, 1, WakeKind::WakeupNew)
        .stat(2_501_000, 1, a, 2_500_000, "dNh1.")
        .switch(2_501_010, 1, a, PrevState::Preempted, b)
        .stat(2_528_010, 1, b, 27_000, "d..2.")
        .switch(2_528_020, 1, b, PrevState::Preempted, a)
        .stat(2_548_020, 1, a, 20_000, "d..2.")
        .switch(2_548_030, 1, a, PrevState::Preempted, IDLE);
    {
        let obs = t.observe();
        let (shadow, cfg) = shadow(&obs, BANDWIDTH);
        let r = replay(&obs, &shadow, cfg);
        let (sa, sb) = (entity(&r, "a"), entity(&r, "b"));
        assert_eq!((r.report.throttled, r.report.unthrottles), (2, 0));
        assert!(r.in_limbo(sa) && r.in_limbo(sb));
        assert!(!r.f.ents[sa as usize].on_rq && !r.f.ents[sb as usize].on_rq);
        assert_eq!(r.report.first_disagreements.len(), 0, "{:?}", r.report.first_disagreements);
    }

    t.switch(102_548_040, 1, IDLE, PrevState::Runnable, a);
    let obs = t.observe();
    let (shadow, cfg) = shadow(&obs, BANDWIDTH);
    let r = replay(&obs, &shadow, cfg);
    let (sa, sb) = (entity(&r, "a"), entity(&r, "b"));
    assert_eq!((r.report.throttled, r.report.unthrottles), (2, 1));
    assert!(!r.in_limbo(sa) && !r.in_limbo(sb));
    assert_eq!(r.f.rqs[1].curr, Some(sa));
    assert!(r.f.ents[sb as usize].on_rq, "b re-enqueued from the limbo list");
    assert_eq!(r.report.not_queued, 0, "the kernel's pick of a is scored");
}

/// A task that runs on past its first return to user space was not throttled there: the
/// kernel's hierarchy had quota left when it was picked (the model's ran out first), so its
/// later preemption is not the throttle task_work's.
#[test]
fn no_throttle_after_the_first_return_to_user_space() {
    let (a, b) = (("a", 10, 120), ("b", 11, 120));
    let mut t = Trace::default();
    t.switch(1_000, 1, IDLE, PrevState::Runnable, a)
        .wakeup(1_500, 1, a, b, 1, WakeKind::WakeupNew)
        .stat(2_501_000, 1, a, 2_500_000, "dNh1.")
        .switch(2_501_010, 1, a, PrevState::Preempted, b)
        .stat(4_501_010, 1, b, 2_000_000, "dNh1.")
        .switch(4_501_020, 1, b, PrevState::Preempted, a);
    let obs = t.observe();
    let (shadow, cfg) = shadow(&obs, BANDWIDTH);
    let r = replay(&obs, &shadow, cfg);
    assert_eq!(r.report.throttled, 0);
    assert!(r.f.ents[entity(&r, "b") as usize].on_rq);
}

/// `post_init_entity_util_avg()` (`wake_up_new_task()`): a task forked onto an idle CPU starts
/// with half the CPU's capacity as utilization (and as runnable), attached to that CPU's
/// cfs_rq, where the placements that follow read it.
#[test]
fn post_init_entity_util_avg_at_a_replayed_fork() {
    let (a, b) = (("a", 10, 120), ("b", 11, 120));
    let mut t = Trace::default();
    t.switch(1_000, 1, IDLE, PrevState::Runnable, b)
        .stat(1_500_000, 1, b, 1_499_000, "d..2.")
        .wakeup(1_500_010, 1, b, a, 0, WakeKind::WakeupNew)
        .switch(1_500_020, 0, ("swapper/0", 0, 120), PrevState::Runnable, a);
    let obs = t.observe();
    let (shadow, cfg) = shadow(&obs, "");
    let r = replay(&obs, &shadow, cfg);
    let avg = r.f.ents[entity(&r, "a") as usize].avg;
    assert_eq!((avg.util_avg, avg.runnable_avg), (512, 512));
    assert_eq!(r.f.qs[r.f.rqs[0].cfs as usize].avg.util_avg, 512);
}

/// `post_init_entity_util_avg()` reads the cfs_rq the child is forked into: its parent's
/// group (`cgroup_post_fork()`), not the cgroup the layout gives it later. b, a hog in /g on
/// CPU 1, forks a, which the layout puts in /h: a's utilization is capped by /g's busy queue
/// (half of what little capacity b leaves), where /h's empty queue would give it 512.
#[test]
fn post_init_entity_util_avg_reads_the_parents_group_at_a_replayed_fork() {
    let (a, b) = (("a", 10, 120), ("b", 11, 120));
    let mut t = Trace::default();
    t.switch(1_000, 1, IDLE, PrevState::Runnable, b)
        .stat(1_000_000, 1, b, 999_000, "d..2.")
        .wakeup_in(1_000_010, 1, b, a, 1, WakeKind::WakeupNew, "d..2.")
        .stat(1_000_100, 1, b, 90, "dNh1.")
        .switch(1_000_110, 1, b, PrevState::Preempted, a);
    let obs = t.observe();
    let layout = "[[cgroups]]\npath = \"/g\"\nshares = 1024\n\n[[cgroups]]\npath = \"/h\"\nshares = 1024\n\n[tasks]\nb = \"/g\"\na = \"/h\"\n";
    let (shadow, cfg) = shadow(&obs, layout);
    let r = replay(&obs, &shadow, cfg);
    let avg = r.f.ents[entity(&r, "a") as usize].avg;
    assert!(avg.util_avg < 100, "{avg:?}");
}

/// Four hogs on CPU 0 (h0 forks h1–h3 there and they rotate at its ticks) and CPU 1 idle:
/// the records of one balance pass, `count` of them, written by CPU 1's idle task 1 µs apart.
fn idle_pull(count: usize) -> Trace {
    let idle0 = ("swapper/0", 0, 120);
    let hogs = [("h0", 10, 120), ("h1", 11, 120), ("h2", 12, 120), ("h3", 13, 120)];
    let mut t = Trace::default();
    t.switch(1_000, 1, ("x", 9, 120), PrevState::Blocked(state_bits::S), IDLE).switch(
        2_000,
        0,
        idle0,
        PrevState::Runnable,
        hogs[0],
    );
    for (i, &h) in hogs.iter().enumerate().skip(1) {
        t.wakeup_in(3_000 + i as u64, 0, hogs[0], h, 0, WakeKind::WakeupNew, "d..2.");
    }
    let mut now = 3_000u64;
    for k in 0..24 {
        let (cur, next) = (hogs[k % 4], hogs[(k + 1) % 4]);
        now += 4_000_000;
        t.stat(now, 0, cur, 4_000_000, "d.h1.").switch(now + 10, 0, cur, PrevState::Preempted, next);
    }
    // h0 runs; h1, h2 and h3 are queued, none of them hot (at least 4 ms since it ran).
    for (i, h) in hogs[1..=count].iter().enumerate() {
        let migrate = SchedPayload::MigrateTask {
            comm: h.0.into(),
            pid: h.1,
            prio: 120,
            orig_cpu: 0,
            dest_cpu: 1,
            extra: Vec::new(),
        };
        t.rec(now + 1_000 + i as u64 * 1_000, 1, IDLE, "sched_migrate_task", "..s1.", migrate);
    }
    t.switch(now + 10_000, 1, IDLE, PrevState::Runnable, hogs[1]);
    t
}

/// `sched_balance_rq()` of an idle CPU (`CPU_IDLE`, at its tick's softirq) moves as many tasks
/// as `calculate_imbalance()` asks for in one `detach_tasks()`: here two (four tasks against
/// none, `sibling_imbalance()` halved). The records name the idle task: asked as newidle, the
/// model's pass stops after one task (a preemptible kernel's newidle `detach_tasks()` does),
/// and the second record, asked as a busy CPU holding the first, finds nothing to pull. (The two
/// records are also one pass here, scored against one answer; `replay_smp.rs`'s 22 of 25
/// balance migrations hold the grouping: 21 without it.)
#[test]
fn detach_tasks_moves_two_tasks_in_one_idle_balance_pass() {
    let obs = idle_pull(2).observe();
    let hows: Vec<MigrateHow> = obs
        .events
        .iter()
        .filter_map(|e| if let ObsEvent::Migrate { how, .. } = e.ev { Some(how) } else { None })
        .collect();
    assert_eq!(hows, [MigrateHow::Idle, MigrateHow::Idle]);
    let (shadow, cfg) = shadow(&obs, "");
    let r = replay(&obs, &shadow, cfg);
    let p = &r.report.placements;
    assert_eq!(p.balance_migrations, 2);
    assert_eq!((p.balance_same_source, p.balance_same_task), (2, 2), "{:?}", p.balance_disagreements);
}

/// `sched_balance_newidle()` runs in the `__schedule()` of a task that blocks, after its
/// dequeue and before the `sched_switch`: the pull is written in that task's context on the
/// destination. Two hogs rotate on CPU 0; s runs 1 ms on CPU 1 and sleeps, pulling h1 there.
/// The model is asked with s dequeued and nothing left to pick, as the kernel was; asked as a
/// busy CPU with s still running, it finds CPU 1's spare capacity no reason to pull.
#[test]
fn sched_balance_newidle_pulls_in_the_blocking_tasks_schedule() {
    let idle0 = ("swapper/0", 0, 120);
    let (h0, h1, s) = (("h0", 10, 120), ("h1", 11, 120), ("s", 12, 120));
    let mut t = Trace::default();
    t.switch(1_000, 0, idle0, PrevState::Runnable, h0).wakeup_in(2_000, 0, h0, h1, 0, WakeKind::WakeupNew, "d..2.");
    let mut now = 2_000u64;
    for k in 0..24 {
        let (cur, next) = if k % 2 == 0 { (h0, h1) } else { (h1, h0) };
        now += 4_000_000;
        t.stat(now, 0, cur, 4_000_000, "d.h1.").switch(now + 10, 0, cur, PrevState::Preempted, next);
    }
    let migrate = SchedPayload::MigrateTask {
        comm: "h1".into(),
        pid: 11,
        prio: 120,
        orig_cpu: 0,
        dest_cpu: 1,
        extra: Vec::new(),
    };
    t.switch(now + 1_000, 1, IDLE, PrevState::Runnable, s)
        .stat(now + 1_001_000, 1, s, 1_000_000, "d..2.")
        .rec(now + 1_004_000, 1, s, "sched_migrate_task", "d..2.", migrate)
        .switch(now + 1_010_000, 1, s, PrevState::Blocked(state_bits::S), h1);
    let obs = t.observe();
    assert!(obs.events.iter().any(|e| matches!(e.ev, ObsEvent::Migrate { how: MigrateHow::Newidle, .. })));
    let (shadow, cfg) = shadow(&obs, "");
    let r = replay(&obs, &shadow, cfg);
    let p = &r.report.placements;
    assert_eq!(p.balance_migrations, 1);
    assert_eq!(p.balance_same_task, 1, "{:?}", p.balance_disagreements);
}

/// `try_to_wake_up()` requeues a delayed task where it is (`ttwu_runnable()`): a wakeup that
/// moves a task (its `sched_migrate_task` and then its `sched_wakeup`, from one context) shows
/// that the kernel had it off its runqueue. Here the model still holds a delayed (its lag was
/// negative when it blocked): it is dequeued there, not scored as a balance migration, and the
/// wakeup is scored as a placement from its previous CPU, 0.
#[test]
fn a_wakeup_that_moves_a_task_the_model_holds_delayed_is_not_a_balance() {
    let x = ("x", 11, 120);
    let obs = a_moved_after_blocking(|t, migrate| {
        t.other(1_001_020, 0, x, "sched_migrate_task", migrate).stat(1_001_025, 0, x, 15, "d..4.")
    });
    assert!(obs.events.iter().any(|e| matches!(e.ev, ObsEvent::Migrate { how: MigrateHow::Wakeup, .. })));
    let (shadow, cfg) = shadow(&obs, "");
    let r = replay(&obs, &shadow, cfg);
    let p = &r.report.placements;
    assert_eq!((p.balance_migrations, p.wakeup_of_queued), (0, 1));
    assert_eq!(p.scored, 1, "the wakeup is scored as a placement");
    let e = &r.f.ents[entity(&r, "a") as usize];
    assert_eq!(r.f.qs[e.cfs_rq as usize].cpu, 1);
}
