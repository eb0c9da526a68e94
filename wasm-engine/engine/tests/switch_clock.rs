//! When `__schedule()` reads the runqueue clock, and who pays for the time up to the switch
//! (`host.wakeup_switch_latency`, `host.schedule_clock_lead`; docs/kernel-6.18.44-findings.md,
//! "Who pays for the switch").
//!
//! * A wakeup that preempts: `wakeup_preempt()` (core.c) calls `rq_clock_skip_update()`, so the
//!   `__schedule()` at the interrupt's return reads the clock of the wakeup. The running task
//!   is charged up to the wakeup, the wakee from it: the wakee pays for the gap.
//! * Any other switch (a block here): `__schedule()` reads the clock before it dequeues the
//!   task, a little before the switch: the next task pays for that part.

#![allow(clippy::disallowed_methods)] // tests read fixture files

mod common;

use schedlab_engine::obs::log::{EventKind, SwitchReason};
use schedlab_engine::obs::summary::Summary;
use schedlab_engine::sim::Simulation;

/// A hog and a sleeper (300 µs of CPU, then 700 µs asleep) on one CPU for 200 ms.
fn sleeper_beside_hog(latency: &str, lead: &str) -> Simulation {
    let text = format!(
        "version = 1\nname = \"t\"\nduration = \"200ms\"\n[host]\ncpus = 1\nhz = 250\ntimer_slack = \"0ns\"\n\
         wakeup_switch_latency = \"{latency}\"\nschedule_clock_lead = \"{lead}\"\n\
         [[tasks]]\nname = \"k_h\"\nprogram = [{{ run = \"forever\" }}]\n\
         [[tasks]]\nname = \"k_s\"\nstart = \"1ms\"\n\
         program = [{{ loop = {{ body = [{{ run = \"300us\" }}, {{ sleep = \"700us\" }}] }} }}]\n"
    );
    common::run_text("t.toml", &text, &[])
}

/// Each task's CPU time as the switches show it (the summary's, as a trace's), and as it was
/// charged (`Simulation::cpu_time`: `sum_exec_runtime` and the run in progress).
fn on_cpu_and_charged(sim: &Simulation, task: u32) -> (u64, u64) {
    (Summary::of(sim).tasks[task as usize].cpu_time_ns, sim.cpu_time(task))
}

/// The switches to `task` that a wakeup's preemption caused, and the wakeup before each.
fn preempting_wakeups(sim: &Simulation, task: u32) -> Vec<(u64, u64)> {
    let mut woke = None;
    let mut out = Vec::new();
    for r in sim.fair.log.events.rows() {
        if r.kind == EventKind::Wakeup as u8 && r.task == task {
            woke = Some(r.t);
        } else if r.kind == EventKind::Switch as u8 && r.task == task {
            if let Some(w) = woke.take().filter(|_| r.val == SwitchReason::WakeupPreempt as i64) {
                out.push((w, r.t));
            }
        }
    }
    out
}

#[test]
fn wakeup_preempt_rq_clock_skip_update_makes_the_wakee_pay_for_the_gap() {
    let (k_h, k_s) = (0, 1);
    let base = sleeper_beside_hog("0ns", "0ns");
    let sim = sleeper_beside_hog("10us", "0ns");
    // Without a gap each task is charged what it ran.
    for t in [k_h, k_s] {
        let (on, charged) = on_cpu_and_charged(&base, t);
        assert_eq!(on, charged, "task {t}");
    }
    // With it, the switch comes 10 µs after each preempting wakeup ...
    let gaps = preempting_wakeups(&sim, k_s);
    assert!(gaps.len() > 100, "{} preempting wakeups", gaps.len());
    assert!(gaps.iter().all(|&(w, s)| s - w == 10_000), "{gaps:?}");
    // ... the hog holds the CPU for it but is not charged, and the sleeper is: 10 µs each.
    let n = gaps.len() as u64;
    let (h_on, h_charged) = on_cpu_and_charged(&sim, k_h);
    let (s_on, s_charged) = on_cpu_and_charged(&sim, k_s);
    // (A tick inside a gap updates the clock: the hog is charged up to it, the sleeper from it.)
    let moved = h_on - h_charged;
    assert_eq!(s_charged - s_on, moved, "what the hog is not charged, the sleeper is");
    assert!(moved <= n * 10_000 && moved > (n - 3) * 10_000, "{moved} ns moved over {n} gaps");
    // Its own program does not go on in the gap: 300 µs of it per period, each period
    // 10 µs longer than without the gap.
    let periods = |sim: &Simulation| sim.tasks[k_s as usize].stats.sleeps;
    assert!(periods(&sim) < periods(&base), "{} periods against {}", periods(&sim), periods(&base));
    assert!(s_on.abs_diff(periods(&sim) * 300_000) <= 300_000, "{s_on} ns on CPU in {} periods", periods(&sim));
}

#[test]
fn schedule_clock_lead_charges_a_blocking_task_up_to_the_clock_read() {
    let (k_h, k_s) = (0, 1);
    let sim = sleeper_beside_hog("0ns", "5us");
    let blocks = sim.tasks[k_s as usize].stats.sleeps;
    assert!(blocks > 100, "{blocks} blocks");
    let (s_on, s_charged) = on_cpu_and_charged(&sim, k_s);
    let (h_on, h_charged) = on_cpu_and_charged(&sim, k_h);
    // The sleeper stops being charged 5 µs before each of its switches, the hog picks up from
    // there.
    assert_eq!(s_on - s_charged, blocks * 5_000, "the sleeper is charged up to the clock read");
    assert_eq!(h_charged - h_on, blocks * 5_000, "the hog is charged from it");
}
