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

/// `host.cpu_switch_gaps`: a CPU's own gaps apply on that CPU alone. A sleeper beside a hog on
/// each of two CPUs, a 5 µs clock lead on CPU 1 only: CPU 1's sleeper stops being charged 5 µs
/// before each of its switches, CPU 0's pair is charged what it ran.
#[test]
fn a_cpus_own_clock_lead_applies_on_that_cpu_alone() {
    let pair = |cpu: u32| {
        format!(
            "[[tasks]]\nname = \"k_h{cpu}\"\naffinity = [{cpu}]\nprogram = [{{ run = \"forever\" }}]\n\
             [[tasks]]\nname = \"k_s{cpu}\"\naffinity = [{cpu}]\nstart = \"1ms\"\n\
             program = [{{ loop = {{ body = [{{ run = \"300us\" }}, {{ sleep = \"700us\" }}] }} }}]\n"
        )
    };
    let text = format!(
        "version = 1\nname = \"t\"\nduration = \"200ms\"\n[host]\ncpus = 2\nhz = 250\ntimer_slack = \"0ns\"\n\
         cpu_switch_gaps = [{{ cpu = 1, schedule_clock_lead = \"5us\" }}]\n{}{}",
        pair(0),
        pair(1)
    );
    let sim = common::run_text("t.toml", &text, &[]);
    let (k_h0, k_s0, k_h1, k_s1) = (0, 1, 2, 3);
    for t in [k_h0, k_s0] {
        let (on, charged) = on_cpu_and_charged(&sim, t);
        assert_eq!(on, charged, "task {t} on CPU 0");
    }
    let blocks = sim.tasks[k_s1 as usize].stats.sleeps;
    assert!(blocks > 100, "{blocks} blocks");
    let (s_on, s_charged) = on_cpu_and_charged(&sim, k_s1);
    let (h_on, h_charged) = on_cpu_and_charged(&sim, k_h1);
    assert_eq!(s_on - s_charged, blocks * 5_000, "CPU 1's sleeper is charged up to the clock read");
    assert_eq!(h_charged - h_on, blocks * 5_000, "CPU 1's hog from it");
}

/// The quiet captures' workload (`traces/linux-6.18-two-sleepers`, quiet-N: k_s spins 300 µs and
/// sleeps 700, k_t spins 1000 and sleeps 2000, beside a hog) as `quiet-1` shows its bursts and
/// sleeps: median whole bursts of 309 and 1007 µs, sleeps of 758 and 2061 µs from switch-out to
/// wakeup (timer slack and the timer's interrupt included; those medians are the constants
/// here), every one moved by up to ±2 µs from a seeded stream: k_t's share of the three.
fn jittered_two_sleepers(seed: u64, latency: &str, lead: &str) -> f64 {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut jitter = |us: f64| {
        // xorshift64*: deterministic, uniform in ±2 µs.
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        let u = (x.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64;
        format!("{:.3}us", us + 4.0 * u - 2.0)
    };
    let mut program = |periods: usize, spin: f64, sleep: f64| {
        let steps: Vec<String> = (0..periods)
            .map(|_| format!("{{ spin = \"{}\" }}, {{ sleep = \"{}\" }}", jitter(spin), jitter(sleep)))
            .collect();
        format!("[{}]", steps.join(", "))
    };
    let (ks, kt) = (program(1500, 309.0, 758.0), program(520, 1007.0, 2061.0));
    // As the shadow of quiet-1 has them: the capture's autogroup on CPU 1 of two, forked at
    // their first records.
    let task = |name: &str, start: &str, program: &str| {
        format!(
            "[[tasks]]\nname = \"{name}\"\naffinity = [1]\ncgroup = \"/autogroup-capture\"\nstart = \"{start}\"\nprogram = {program}\n"
        )
    };
    let text = format!(
        "version = 1\nname = \"t\"\nduration = \"1500ms\"\n[host]\ncpus = 2\nhz = 250\ntimer_slack = \"0ns\"\n\
         wakeup_switch_latency = \"{latency}\"\nschedule_clock_lead = \"{lead}\"\n[kernel]\nsmp = \"static\"\n\
         [[cgroups]]\npath = \"/autogroup-capture\"\nshares = 1024\n{}{}{}",
        task("k_s", "1.797ms", &ks),
        task("k_t", "1.910ms", &kt),
        task("k_h", "3.227ms", "[{ run = \"forever\" }]"),
    );
    let sim = common::run_text("t.toml", &text, &[]);
    let sum = Summary::of(&sim);
    let ns = |name: &str| sum.tasks.iter().find(|t| t.name == name).expect(name).cpu_time_ns as f64;
    100.0 * ns("k_t") / (ns("k_h") + ns("k_s") + ns("k_t"))
}

/// The gap holds the workload's lock, in the shape of `quiet-1`'s shadow (docs/kernel-6.18.44-
/// findings.md, "two-sleepers-and-hog is bistable"): with the gaps measured there (7.65 µs and
/// 0.9 µs) every seed stays locked, k_t at 28-31 % (the kernel's five quiet captures: 27.0-29.0 %);
/// with the switch taking no time every seed falls into the broken regime (about 20.5 %). The
/// outcome is a knife edge of the workload's shape: written as its mirror (700 and 2000 µs sleeps
/// plus 50 µs of slack, started on one CPU as existing tasks) it stays broken either way.
#[test]
fn the_switch_gap_keeps_two_sleepers_locked_under_noise() {
    let with: Vec<f64> = (1..=6).map(|s| jittered_two_sleepers(s, "7.65us", "0.9us")).collect();
    let without: Vec<f64> = (1..=6).map(|s| jittered_two_sleepers(s, "0ns", "0ns")).collect();
    println!("k_t with the gap {with:.1?}, without {without:.1?}");
    assert!(with.iter().all(|&k| k > 27.0), "with the gap, a seed left the lock: {with:.1?}");
    assert!(without.iter().all(|&k| k < 25.0), "without the gap, a seed kept the lock: {without:.1?}");
}
