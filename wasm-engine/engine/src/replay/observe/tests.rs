//! The observation's unit tests: records written by hand, each after the inference it shows.

use super::*;

fn switch(ts: u64, prev: (&str, i32), state: PrevState, next: (&str, i32)) -> TraceRecord {
    TraceRecord {
        ts_ns: ts,
        cpu: 1,
        pid: prev.1,
        comm: prev.0.into(),
        event: "sched_switch".into(),
        line: 0,
        flags: None,
        payload: SchedPayload::Switch {
            prev_comm: prev.0.into(),
            prev_pid: prev.1,
            prev_prio: 120,
            prev_state: state,
            next_comm: next.0.into(),
            next_pid: next.1,
            next_prio: 120,
            extra: Vec::new(),
        },
    }
}

/// A wakeup of `who` raised while `current` runs.
fn wakeup(ts: u64, who: (&str, i32), current: (&str, i32)) -> TraceRecord {
    TraceRecord {
        ts_ns: ts,
        cpu: 1,
        pid: current.1,
        comm: current.0.into(),
        event: "sched_wakeup".into(),
        line: 0,
        flags: None,
        payload: SchedPayload::Wakeup {
            kind: WakeKind::Wakeup,
            comm: who.0.into(),
            pid: who.1,
            prio: 120,
            target_cpu: 1,
            success: None,
            extra: Vec::new(),
        },
    }
}

/// A record of another event, with its fields, while `current` runs on CPU 1.
fn other(ts: u64, event: &str, current: (&str, i32), fields: &[(&str, &str)]) -> TraceRecord {
    TraceRecord {
        ts_ns: ts,
        cpu: 1,
        pid: current.1,
        comm: current.0.into(),
        event: event.into(),
        line: 0,
        flags: None,
        payload: SchedPayload::Other {
            fields: fields.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
            text: None,
        },
    }
}

/// The capture tool's two context events: the period timer's expiry (as tracefs and as
/// `trace-cmd report` print it) and a task's move into a cgroup, with the child's parent
/// taken from its fork. Neither ends the running task's run nor counts as its record.
#[test]
fn the_bandwidth_timer_and_cgroup_moves_become_events() {
    let (bash, sh) = (("bash", 20), ("sh", 21));
    let mut o = Observed::default();
    for r in [
        switch(1_000, ("swapper/1", 0), PrevState::Runnable, bash),
        other(
            1_100,
            "sched_process_fork",
            bash,
            &[("comm", "bash"), ("pid", "20"), ("child_comm", "bash"), ("child_pid", "21")],
        ),
        switch(1_200, bash, PrevState::Blocked(1), sh),
        other(1_300, "cgroup_attach_task", sh, &[("dst_path", "/sl_Q"), ("pid", "21"), ("comm", "sh")]),
        other(
            1_400,
            "hrtimer_expire_entry",
            sh,
            &[("hrtimer", "000000009df8f609"), ("function", "sched_cfs_period_timer"), ("now", "1400")],
        ),
        other(
            1_500,
            "hrtimer_expire_entry",
            sh,
            &[("hrtimer", "0xffff8881084a5288"), ("now", "1500"), ("function", "sched_cfs_period_timer/0x0")],
        ),
        other(1_600, "hrtimer_expire_entry", sh, &[("hrtimer", "0x1"), ("function", "tick_nohz_handler")]),
        switch(2_000, sh, PrevState::Preempted, bash),
    ] {
        o.record(r);
    }
    o.finish();
    let i = |c: &str| o.tasks.iter().position(|t| t.comm == c).unwrap() as u32;
    let mine: Vec<_> = o
        .events
        .iter()
        .filter(|e| matches!(e.ev, ObsEvent::BandwidthTimer { .. } | ObsEvent::CgroupMove { .. }))
        .map(|e| (e.ts, e.ev))
        .collect();
    assert_eq!(
        mine,
        vec![
            (1_300, ObsEvent::CgroupMove { task: i("sh"), path: 0 }),
            (1_400, ObsEvent::BandwidthTimer { cpu: 1, timer: 0x9df8f609 }),
            (1_500, ObsEvent::BandwidthTimer { cpu: 1, timer: 0xffff8881084a5288 }),
        ]
    );
    assert_eq!(o.cgroup_paths, vec!["/sl_Q".to_string()]);
    assert_eq!(o.tasks[i("sh") as usize].parent, Some(i("bash")));
    // sh ran from its switch-in to its switch-out: split at its move, the shadow's step.
    assert_eq!(o.tasks[i("sh") as usize].ops, vec![ShadowOp::Run(100), ShadowOp::Cgroup(0), ShadowOp::Run(700)]);
    assert_eq!(o.missing_switches, 0);
}

#[test]
fn bursts_yields_and_sleeps_are_inferred_from_switch_states() {
    let (h, y, s, idle) = (("hog", 10), ("yielder", 11), ("sleeper", 12), ("swapper/1", 0));
    let mut o = Observed::default();
    for r in [
        switch(1_000, h, PrevState::Preempted, y),
        switch(1_300, y, PrevState::Runnable, s),
        switch(1_500, s, PrevState::Blocked(1), h),
        wakeup(2_000, s, h),
        switch(2_500, h, PrevState::Preempted, s),
        switch(2_600, s, PrevState::Blocked(1), idle),
        switch(2_700, idle, PrevState::Runnable, h),
        switch(3_000, h, PrevState::Preempted, y),
    ] {
        o.record(r);
    }
    o.finish();
    let t = |c: &str| o.tasks.iter().find(|t| t.comm == c).unwrap();
    // The hog's first run began before the trace: it counts from the first record.
    assert_eq!(t("hog").ops, vec![ShadowOp::Run(1_300)]);
    assert_eq!((t("hog").runtime_ns, t("hog").switches_out_runnable, t("hog").runs_on), (1_300, 3, true));
    assert_eq!(t("yielder").ops, vec![ShadowOp::Run(300), ShadowOp::Yield]);
    assert_eq!(t("sleeper").ops, vec![ShadowOp::Run(200), ShadowOp::Sleep(500), ShadowOp::Run(100)]);
    assert!(!t("sleeper").runs_on);
    assert_eq!(o.runs.len(), 6);
    assert_eq!((o.t0, o.t1, o.cpus), (Some(1_000), 3_000, 2));
    assert_eq!(o.missing_switches, 0);
}

#[test]
fn a_pid_freed_by_an_exit_names_a_new_task() {
    let (a, idle) = (("worker", 42), ("swapper/1", 0));
    let mut o = Observed::default();
    o.record(switch(1_000, idle, PrevState::Runnable, a));
    o.record(switch(1_500, a, PrevState::Blocked(state_bits::Z), idle));
    o.record(switch(2_000, idle, PrevState::Runnable, a));
    o.record(switch(2_300, a, PrevState::Blocked(1), idle));
    o.finish();
    let gens: Vec<_> = o.tasks.iter().filter(|t| t.pid == 42).map(|t| (t.runtime_ns, t.exit_ns)).collect();
    assert_eq!(gens, vec![(500, Some(1_500)), (300, None)]);
}

/// A task's own `sched_stat_runtime` on a CPU where another was switched in: both the
/// other's switch-out and its switch-in are lost (the capture agent's, here). For the
/// replay the other left when this one's accounting began, and this one's latency flags
/// tell how it leaves: `R` with need-resched is a preemption, not a yield.
#[test]
fn a_task_revealed_by_its_own_sched_stat_runtime_is_current_since_its_accounting_began() {
    let (agent, b, k) = (("agent", 10), ("b", 11), ("kworker/1:0", 23));
    let mut o = Observed::default();
    o.record(switch(1_000, k, PrevState::Blocked(0x80), agent));
    o.record(wakeup(1_200, b, agent));
    let mut r = switch(2_000, b, PrevState::Runnable, k);
    r.event = "sched_stat_runtime".into();
    r.flags = Some(trace_flags::IRQS_OFF | trace_flags::NEED_RESCHED);
    r.payload = SchedPayload::Other {
        fields: vec![("comm".into(), "b".into()), ("pid".into(), "11".into()), ("runtime".into(), "600 [ns]".into())],
        text: None,
    };
    o.record(r);
    o.record(switch(2_010, b, PrevState::Runnable, k));
    o.finish();
    let t = |c: &str| o.tasks.iter().find(|t| t.comm == c).unwrap();
    assert_eq!(o.missing_switches, 1);
    assert_eq!((t("b").yields, t("b").involuntary), (0, 1));
    let vanished = o.events.iter().find(|e| matches!(e.ev, ObsEvent::Vanished { .. })).unwrap();
    assert_eq!(vanished.ts, 1_400);
}

#[test]
fn a_record_from_another_task_ends_a_run_whose_switch_out_is_missing() {
    let (a, b, k) = (("a", 10), ("b", 11), ("kworker/1:0", 23));
    let mut o = Observed::default();
    o.record(switch(1_000, k, PrevState::Blocked(0x80), a));
    // The switch a → k is not in the trace; k's own record at 1_400 shows a is gone.
    let mut r = switch(1_500, k, PrevState::Blocked(0x80), b);
    r.ts_ns = 1_400;
    r.payload = SchedPayload::Other { fields: Vec::new(), text: None };
    o.record(r);
    o.record(switch(1_500, k, PrevState::Blocked(0x80), b));
    o.record(wakeup(1_700, a, b));
    o.finish();
    let t = |c: &str| o.tasks.iter().find(|t| t.comm == c).unwrap();
    assert_eq!(o.missing_switches, 1);
    assert_eq!(t("a").ops, vec![ShadowOp::Run(400), ShadowOp::Sleep(300)]);
    assert_eq!(t("a").switches_out, 1);
}

/// A pipe pair on one CPU as the kernel runs it: q writes, wakes p and is preempted by it at
/// once; p reads, writes its reply (q is runnable: no wakeup) and blocks, handing the CPU
/// straight back. q's next burst needed that reply: a hand-off, so q waits for an inferred
/// wake from p before its block. A task preempted by its wakee and resumed by another is not.
#[test]
fn a_waker_preempted_by_its_wakee_and_resumed_at_its_block_waits_for_it() {
    let (p, q, h) = (("p", 20), ("q", 21), ("hog", 22));
    // From task context, as the trace's latency flags show it (`d..2.`).
    let wakeup = |ts, who, current| TraceRecord { flags: Some(0), ..wakeup(ts, who, current) };
    let mut o = Observed::default();
    for r in [
        switch(1_000, p, PrevState::Blocked(1), q),
        wakeup(1_050, p, q),
        switch(1_051, q, PrevState::Preempted, p),
        switch(1_100, p, PrevState::Blocked(1), q),
        wakeup(1_150, p, q),
        switch(1_152, q, PrevState::Preempted, p),
        // p blocks, but the hog runs before q: no hand-off.
        switch(1_200, p, PrevState::Blocked(1), h),
        switch(1_300, h, PrevState::Preempted, q),
    ] {
        o.record(r);
    }
    o.finish();
    let t = |c: &str| o.tasks.iter().find(|t| t.comm == c).unwrap();
    let wake = |id, wakee, sync| ShadowOp::Wake { id, wakee, sync };
    let (ip, iq) = (0, 1);
    assert_eq!(
        t("q").ops,
        vec![
            ShadowOp::Run(50),
            wake(0, ip, false),
            ShadowOp::Run(1),
            ShadowOp::Handoff { id: 1 },
            ShadowOp::Run(50),
            wake(2, ip, false),
            ShadowOp::Run(2),
        ]
    );
    assert_eq!(
        t("p").ops,
        vec![
            ShadowOp::Run(1),
            ShadowOp::Wait { id: 0, ns: 50 },
            ShadowOp::Run(49),
            wake(1, iq, true),
            ShadowOp::Wait { id: 2, ns: 50 },
            ShadowOp::Run(48),
        ]
    );
    assert_eq!(o.causal_wakeups, 3);
}
