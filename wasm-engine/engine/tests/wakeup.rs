//! `check_preempt_wakeup_fair()`: the machine's function (the default) against 6.18.y
//! stable's (`wakeup_preempt = "6.18"`, the `wakeup-6.18` variant), one test per place where
//! they differ, and the real captures that tell them apart
//! (`traces/linux-6.18-forks`, docs/kernel-6.18.44-findings.md).

#![allow(clippy::disallowed_methods)] // tests read fixture files

mod common;

use schedlab_engine::import::record::{trace_flags, SchedPayload, TraceRecord, WakeKind};
use schedlab_engine::obs::log::{EventKind, SwitchReason};
use schedlab_engine::obs::summary::wakeup_latencies;
use schedlab_engine::sim::Simulation;

const STABLE: (&str, &str) = ("wakeup_preempt", "6.18");

fn run(text: &str, variants: &[(&str, &str)], until_ns: Option<u64>) -> Simulation {
    let v: Vec<(String, String)> = variants.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
    let (_, mut sim) = schedlab_engine::load("t.toml", text, &v).unwrap_or_else(|e| panic!("{e}"));
    sim.check_invariants = true;
    match until_ns {
        Some(t) => sim.run_until(t),
        None => sim.run(),
    }
    sim
}

/// Every latency of `task` from a wakeup (or its first wakeup as a new task) to its switch-in.
fn latencies(sim: &Simulation, task: u32) -> Vec<u64> {
    wakeup_latencies(&sim.fair.log, sim.tasks.len()).into_iter().filter(|&(t, _)| t == task).map(|(_, l)| l).collect()
}

/// The reasons of every resched raised on `cpu` in `[t0, t1]`.
fn resched_reasons(sim: &Simulation, cpu: u32, t0: u64, t1: u64) -> Vec<(u64, u8)> {
    let e = &sim.fair.log.events;
    (0..e.t.len())
        .filter(|&i| e.kind[i] == EventKind::Resched as u8 && e.cpu[i] as u32 == cpu && (t0..=t1).contains(&e.t[i]))
        .map(|i| (e.t[i], e.val[i] as u8))
        .collect()
}

/// A hog alone on CPU 1 (HZ=250, base slice 1.4 ms) and `children` tasks that start on the
/// same CPU every `gap_us` (as if the hog forked them), each running 300 µs and exiting.
fn forker(children: u32, gap_us: u64) -> String {
    let mut s =
        String::from("version = 1\nname = \"fork-onto-self\"\nduration = \"3.1s\"\n[host]\ncpus = 2\nhz = 250\n");
    s += "[[tasks]]\nname = \"k_f\"\naffinity = [1]\nprogram = [{ run = \"forever\" }]\n";
    for i in 1..=children {
        s += &format!(
            "[[tasks]]\nname = \"c{i}\"\naffinity = [1]\nstart = \"{}us\"\nprogram = [{{ run = \"300us\" }}]\n",
            i as u64 * gap_us
        );
    }
    s
}

/// (children that ran within 50 µs of their fork, children in all) in the model.
fn immediate_forks(sim: &Simulation) -> (usize, usize) {
    let lat: Vec<u64> = (1..sim.tasks.len() as u32).filter_map(|t| latencies(sim, t).first().copied()).collect();
    (lat.iter().filter(|&&l| l < 50_000).count(), lat.len())
}

#[test]
fn check_preempt_wakeup_fair_fork_waits_for_the_tick() {
    // The hog runs alone, so it is unprotected (its vprot dates from its last pick) and its
    // deadline was renewed at the 8 ms tick. The child forked at 10.1 ms is placed at V with
    // half a slice: 6.18.y's pick finds it eligible with the earliest deadline and preempts.
    // The machine returns before the pick for a fork: the child waits for the 12 ms tick.
    let text = forker(1, 10_100);
    let machine = run(&text, &[], Some(20_000_000));
    assert_eq!(latencies(&machine, 1), vec![1_900_000], "the child runs at the 12 ms tick");
    assert!(resched_reasons(&machine, 1, 10_100_000, 10_100_000).is_empty(), "no resched at the fork on the machine");
    let stable = run(&text, &[STABLE], Some(20_000_000));
    assert_eq!(latencies(&stable, 1), vec![0], "6.18.y: the child preempts its parent at once");
    assert_eq!(
        resched_reasons(&stable, 1, 10_100_000, 10_100_000),
        vec![(10_100_000, SwitchReason::WakeupPreempt as u8)]
    );
}

#[test]
fn check_preempt_wakeup_fair_fork_onto_a_busy_cpu_as_captured() {
    // The mirror of traces/linux-6.18-forks/fork-onto-self: 290 children, one every 10.3 ms.
    let text = forker(290, 10_300);
    let machine = run(&text, &[], None);
    let stable = run(&text, &[STABLE], None);
    let (m_now, m_all) = immediate_forks(&machine);
    let (s_now, s_all) = immediate_forks(&stable);
    println!("children running within 50 us of their fork: machine {m_now}/{m_all}, 6.18.y {s_now}/{s_all}");
    assert_eq!((m_now, m_all), (0, 290));
    let lat: Vec<u64> = (1..=290).map(|t| latencies(&machine, t)[0]).collect();
    assert!(lat.iter().all(|&l| l <= 4_000_000), "each child waits at most one tick");
    let mean = lat.iter().sum::<u64>() as f64 / lat.len() as f64;
    println!("machine: mean wait {mean:.0} ns");
    assert!((1.8e6..2.2e6).contains(&mean), "the wait is uniform over the tick: mean {mean:.0} ns");
    assert_eq!(s_all, 290);
    assert!(s_now > 200, "6.18.y lets most children preempt at once: {s_now}/290");
}

/// What happened after each fork onto `cpu` of a real capture: (wakeup time, CPU's next
/// switch time, whether that switch ran the child, whether need-resched was already set when
/// the wakeup was recorded, the CPU's next tick).
fn real_forks(folder: &str, cpu: u32) -> Vec<(u64, u64, bool, bool, u64)> {
    let recs = common::dat_records(&common::traces().join(folder).join("trace.dat"));
    let on = |r: &TraceRecord| r.cpu == cpu;
    // The tick: update_curr()'s sched_stat_runtime in hard-irq context.
    let ticks: Vec<u64> = recs
        .iter()
        .filter(|r| on(r) && r.event == "sched_stat_runtime" && r.flags.is_some_and(|f| f & trace_flags::HARDIRQ != 0))
        .map(|r| r.ts_ns)
        .collect();
    let mut out = Vec::new();
    for (i, r) in recs.iter().enumerate() {
        let SchedPayload::Wakeup { kind: WakeKind::WakeupNew, pid: child, target_cpu, .. } = r.payload else {
            continue;
        };
        // A fork by the workload (k_f) on the CPU it pins to.
        if !on(r) || target_cpu != cpu as i32 || r.comm != "k_f" {
            continue;
        }
        let Some((t, next)) = recs[i + 1..].iter().filter(|x| on(x)).find_map(|x| match x.payload {
            SchedPayload::Switch { next_pid, .. } => Some((x.ts_ns, next_pid)),
            _ => None,
        }) else {
            continue;
        };
        let pending = r.flags.is_some_and(|f| f & trace_flags::NEED_RESCHED != 0);
        let tick = ticks.iter().copied().find(|&k| k > r.ts_ns).unwrap_or(u64::MAX);
        out.push((r.ts_ns, t, next == child, pending, tick));
    }
    out
}

/// The real capture (`traces/linux-6.18-forks/fork-onto-self`): a spinning task pinned to
/// CPU 1 forks a 300 µs child every 10.3 ms. After each `sched_wakeup_new`, the CPU's next
/// switch: a wakeup preemption would switch to the child within µs.
#[test]
fn check_preempt_wakeup_fair_fork_onto_a_busy_cpu_real_capture() {
    let forks = real_forks("linux-6.18-forks/fork-onto-self", 1);
    // A resched already pending when the wakeup was recorded (the enqueue's update_curr())
    // returns check_preempt_wakeup_fair() early in both shapes: not a wakeup preemption.
    let pending = forks.iter().filter(|f| f.3).count();
    let checked: Vec<_> = forks.iter().filter(|f| !f.3).collect();
    let immediate = checked.iter().filter(|f| f.2 && f.1 - f.0 < 50_000).count();
    let at_tick: Vec<u64> = checked.iter().filter(|f| f.2 && f.1.abs_diff(f.4) < 100_000).map(|f| f.1 - f.0).collect();
    let mean = at_tick.iter().sum::<u64>() as f64 / at_tick.len() as f64;
    println!(
        "real: {} forks ({pending} with a resched already pending); {immediate} children ran within 50 us; \
         {} ran at the next tick, mean wait {mean:.0} ns; the rest after another task",
        forks.len(),
        at_tick.len()
    );
    assert_eq!(forks.len(), 291, "workload.txt: k_f forks=291");
    assert_eq!(immediate, 0, "no child preempted its parent");
    assert!(at_tick.len() >= 260, "the children ran at the next tick: {}", at_tick.len());
    assert!((1.8e6..2.3e6).contains(&mean), "uniform over the tick: {mean:.0}");
}

/// The same forker beside a nice-0 hog on CPU 1 (`fork-beside-hog`): a fork made after the
/// forker's protection ran out finds a resched already raised by the enqueue's update_curr(),
/// and the child often runs at once; with no resched pending, none does.
#[test]
fn check_preempt_wakeup_fair_fork_beside_a_hog_real_capture() {
    let forks = real_forks("linux-6.18-forks/fork-beside-hog", 1);
    let now = |f: &&(u64, u64, bool, bool, u64)| f.2 && f.1 - f.0 < 50_000;
    let (pending, clear): (Vec<_>, Vec<_>) = forks.iter().partition(|f| f.3);
    let (p_now, c_now) = (pending.iter().filter(now).count(), clear.iter().filter(now).count());
    println!(
        "real: {} forks; resched pending: {} ({p_now} children at once); none pending: {} ({c_now} at once)",
        forks.len(),
        pending.len(),
        clear.len()
    );
    assert_eq!(forks.len(), 290, "workload.txt: k_f forks=290");
    assert_eq!(c_now, 0, "no wakeup preemption by a fork");
    assert!(clear.len() > 150 && p_now > 50);
}

/// Hogs A and B and a task L with a 0.3 ms slice on CPU 0 (HZ=1000), PREEMPT_SHORT off: L's
/// wakeup at 11.05 ms does not preempt A, picked at 11 ms with its whole 1.4 ms slice
/// protected (lessons/parity-short).
const PARITY: &str = include_str!("../../../scenarios/lessons/parity-short.toml");

#[test]
fn check_preempt_wakeup_fair_update_protect_slice_on_every_wakeup() {
    let no_short = ("PREEMPT_SHORT", "false");
    // The machine tightens A's protection to the smallest queued slice (L's 0.3 ms) at any
    // wakeup that does not preempt, so the 12 ms tick ends A's turn and L runs.
    let machine = run(PARITY, &[no_short], Some(30_000_000));
    // 6.18.y does that only for a shorter-slice wakee under PREEMPT_SHORT: A keeps its
    // protection to its deadline, noticed at the 13 ms tick.
    let stable = run(PARITY, &[no_short, STABLE], Some(30_000_000));
    let l = 2; // A, B, L; L's wakeups: new at 1 ms, 6 ms, 11.05 ms, ...
    assert_eq!(latencies(&machine, l)[2], 950_000, "L waits for the 12 ms tick");
    assert_eq!(latencies(&stable, l)[2], 1_950_000, "L waits for the 13 ms tick");
}

/// Hogs H and X, and W1 (0.3 ms slice) and W2 (the base slice, 0.7 ms on one CPU) asleep since
/// their first pick, on one CPU, NEXT_BUDDY on, PREEMPT_SHORT off, no timer slack; each
/// sleeper's sleep is given in µs.
fn buddies(w1_sleep_us: u64, w2_sleep_us: u64) -> String {
    let mut s = String::from(
        "version = 1\nname = \"buddies\"\nduration = \"60ms\"\n[host]\ncpus = 1\nhz = 1000\ntimer_slack = \"0us\"\n",
    );
    s += "[kernel.features]\nNEXT_BUDDY = true\nPREEMPT_SHORT = false\n";
    s += "[[tasks]]\nname = \"H\"\nprogram = [{ run = \"forever\" }]\n";
    s += "[[tasks]]\nname = \"X\"\nprogram = [{ run = \"forever\" }]\n";
    s += &format!("[[tasks]]\nname = \"W1\"\nslice = \"300us\"\nprogram = [{{ sleep = \"{w1_sleep_us}us\" }}, {{ run = \"forever\" }}]\n");
    s += &format!("[[tasks]]\nname = \"W2\"\nprogram = [{{ sleep = \"{w2_sleep_us}us\" }}, {{ run = \"forever\" }}]\n");
    s
}

fn events(sim: &Simulation, kind: EventKind) -> Vec<(u64, u32)> {
    let e = &sim.fair.log.events;
    (0..e.t.len()).filter(|&i| e.kind[i] == kind as u8).map(|i| (e.t[i], e.task[i])).collect()
}

#[test]
fn check_preempt_wakeup_fair_set_preempt_buddy_keeps_an_earlier_deadline_buddy() {
    let (h, w1, w2) = (0u32, 2u32, 3u32);
    // Where the hogs' turns change after 20 ms, and when the sleepers went to sleep.
    let probe = run(&buddies(100_000, 100_000), &[], Some(30_000_000));
    let turn =
        events(&probe, EventKind::Switch).into_iter().find(|&(t, n)| t > 20_000_000 && n == h).expect("H's turn").0;
    let slept = |w: u32| events(&probe, EventKind::Sleep).into_iter().find(|&(_, n)| n == w).expect("slept").0;
    // W1 wakes 50 µs into H's turn, W2 10 µs later: H is freshly picked, protected and
    // eligible. W1 is given a lag of −0.1 ms (W2 none): ineligible, but with its short slice
    // its deadline (about V + 0.43 ms once place_entity() has inflated the lag) is earlier
    // than W2's (V + 0.7 ms, the base slice on one CPU).
    let (t1, t2) = (turn + 50_000, turn + 60_000);
    let text = buddies((t1 - slept(w1)) / 1000, (t2 - slept(w2)) / 1000);
    for (variants, want) in [(&[][..], w1), (&[STABLE][..], w2)] {
        let mut sim = run(&text, variants, Some(t1 - 1));
        sim.fair.ents[w1 as usize].vlag = -100_000;
        sim.fair.ents[w2 as usize].vlag = 0;
        sim.run_until(t2 + 1);
        let root = sim.fair.rqs[0].cfs as usize;
        assert!(sim.fair.rqs[0].need_resched.is_none(), "{variants:?}: neither wakeup preempts H");
        assert_eq!(sim.fair.rqs[0].curr, Some(h));
        let (d1, d2) = (sim.fair.ents[w1 as usize].deadline, sim.fair.ents[w2 as usize].deadline);
        assert!((d1 as i64).wrapping_sub(d2 as i64) < 0, "W1's deadline is the earlier");
        // The machine's set_preempt_buddy() keeps W1; 6.18.y's set_next_buddy() takes the
        // last wakee, W2.
        assert_eq!(sim.fair.qs[root].next, Some(want), "{variants:?}");
    }
}

#[test]
fn check_preempt_wakeup_fair_delayed_group_winner_is_dequeued() {
    // H at the root; T, alone in /g (with a 1.4 ms slice of its own, sched_setattr), runs
    // 1.05 ms and sleeps at 2.05 ms: T leaves /g's queue, and /g's entity, ineligible at the
    // root, stays there delayed. W wakes at 2.45 ms, when /g's entity has become eligible
    // with the earliest deadline while H, picked at 2.05 ms, is ineligible.
    let text = "version = 1\nname = \"g\"\nduration = \"10ms\"\n[host]\ncpus = 1\nhz = 1000\ntimer_slack = \"0us\"\n\
        [[cgroups]]\npath = \"/g\"\n\
        [[tasks]]\nname = \"H\"\nprogram = [{ run = \"forever\" }]\n\
        [[tasks]]\nname = \"T\"\ncgroup = \"/g\"\nslice = \"1400us\"\nprogram = [{ run = \"1050us\" }, { sleep = \"1s\" }]\n\
        [[tasks]]\nname = \"W\"\nprogram = [{ sleep = \"1450us\" }, { run = \"forever\" }]\n";
    let (w, tw) = (2u32, 2_450_000u64);
    let group_leaves = |sim: &Simulation| -> Vec<u64> {
        events(sim, EventKind::DelayedDequeue)
            .into_iter()
            .filter(|&(_, n)| n & 0x8000_0000 != 0)
            .map(|(t, _)| t)
            .collect()
    };
    let machine = run(text, &[], None);
    assert_eq!(events(&machine, EventKind::Wakeup), vec![(tw, w)], "W wakes at 2.45 ms");
    // The machine: the wakeup's pick lands on the delayed group entity, which is dequeued
    // for good on the spot; the retried pick finds W, which preempts H at once.
    assert_eq!(group_leaves(&machine), vec![tw]);
    assert_eq!(resched_reasons(&machine, 0, tw, tw), vec![(tw, SwitchReason::WakeupPreempt as u8)]);
    assert_eq!(latencies(&machine, w)[1], 0);
    // 6.18.y: the delayed winner is not the wakee, so nothing happens; /g's entity leaves at
    // the 3 ms tick's pick, and W runs then.
    let stable = run(text, &[STABLE], None);
    assert_eq!(group_leaves(&stable), vec![3_000_000]);
    assert!(resched_reasons(&stable, 0, tw, tw).is_empty());
    assert_eq!(latencies(&stable, w)[1], 550_000);
}

#[test]
fn check_preempt_wakeup_fair_pick_eevdf_honours_the_next_buddy() {
    // NEXT_BUDDY on: W2 alone wakes 50 µs into H's protected turn. On the machine the
    // wakeup's pick_eevdf() tests the buddy before curr's protection, and W2, just made the
    // buddy and eligible, wins at once. 6.18.y's __pick_eevdf() has no buddy: H's protection
    // holds.
    let (h, w2) = (0u32, 3u32);
    let probe = run(&buddies(100_000, 100_000), &[], Some(30_000_000));
    let turn =
        events(&probe, EventKind::Switch).into_iter().find(|&(t, n)| t > 20_000_000 && n == h).expect("H's turn").0;
    let slept = events(&probe, EventKind::Sleep).into_iter().find(|&(_, n)| n == w2).expect("slept").0;
    let tw = turn + 50_000;
    let text = buddies(100_000, (tw - slept) / 1000);
    for (variants, preempts) in [(&[][..], true), (&[STABLE][..], false)] {
        let mut sim = run(&text, variants, Some(tw - 1));
        sim.fair.ents[w2 as usize].vlag = 0;
        sim.run_until(tw + 1);
        let got = resched_reasons(&sim, 0, tw, tw) == vec![(tw, SwitchReason::WakeupPreempt as u8)];
        assert_eq!(got, preempts, "{variants:?}");
    }
}
