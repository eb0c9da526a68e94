//! The workload steps kernel reviewers' benchmarks need: `pipe` (two tasks passing a byte over
//! two pipes, `workers pipe`) and `fork` (bursts of children waited for, `workers burst`).
//! Every run has the invariant checker on.

mod common;

use schedlab_engine::obs::log::{EventKind, NO_TASK};
use schedlab_engine::obs::meta::ScenarioMeta;
use schedlab_engine::obs::summary::Summary;
use schedlab_engine::sched::wakeup::WF_SYNC;
use schedlab_engine::sim::{Simulation, TaskState};

const US: u64 = 1_000;
const MS: u64 = 1_000_000;

fn run(body: &str, duration: &str, variants: &[(&str, &str)]) -> Simulation {
    let text =
        format!("version = 1\nname = \"workloads\"\nseed = 1\nduration = \"{duration}\"\n[host]\ncpus = 2\n{body}");
    common::run_text("workloads.toml", &text, variants)
}

fn id(sim: &Simulation, name: &str) -> u32 {
    sim.tasks.iter().position(|t| t.cfg.name == name).unwrap_or_else(|| panic!("no task {name}")) as u32
}

/// (time, cpu, task, arg, val) of every row of `kind`.
fn rows(sim: &Simulation, kind: EventKind) -> Vec<(u64, u32, u32, u32, i64)> {
    let e = &sim.fair.log.events;
    (0..e.t.len())
        .filter(|&i| EventKind::from_u8(e.kind[i]) == Some(kind))
        .map(|i| (e.t[i], e.cpu[i] as u32, e.task[i], e.arg[i], e.val[i]))
        .collect()
}

fn rows_of(sim: &Simulation, kind: EventKind, task: u32) -> Vec<(u64, u32, u32, u32, i64)> {
    rows(sim, kind).into_iter().filter(|r| r.2 == task).collect()
}

/// The log's per-task figures agree with the simulation's own counters and CPU time.
fn summary_agrees(sim: &Simulation) -> Summary {
    let s = Summary::of(sim);
    for (i, (t, ts)) in sim.tasks.iter().zip(&s.tasks).enumerate() {
        assert_eq!(ts.name, t.cfg.name);
        assert_eq!(ts.cpu_time_ns, sim.cpu_time(i as u32), "{} cpu time", ts.name);
        assert_eq!(ts.cpu_time_ns_by_cpu.iter().sum::<u64>(), ts.cpu_time_ns, "{}", ts.name);
        assert_eq!((ts.switches_out, ts.switches_out_runnable), (t.stats.switches_out, t.stats.switches_out_runnable));
        assert_eq!((ts.wakeups, ts.sleeps), (t.stats.wakeups, t.stats.sleeps), "{}", ts.name);
        assert_eq!(ts.wakeup_latency_ns.max, t.stats.wakeup_latencies.iter().copied().max().unwrap_or(0));
    }
    s
}

const PIPE_PAIR_ON_CPU0: &str = r#"
[[tasks]]
name = "k_p"
affinity = [0]
program = [{ pipe = { peer = "k_q", rounds = 200, work = "50us", first = true } }]
[[tasks]]
name = "k_q"
affinity = [0]
program = [{ pipe = { peer = "k_p", rounds = 200, work = "50us" } }]
"#;

#[test]
fn pipe_pair_on_one_cpu_alternates_message_by_message() {
    let sim = run(PIPE_PAIR_ON_CPU0, "50ms", &[]);
    let (p, q) = (id(&sim, "k_p"), id(&sim, "k_q"));
    // Each runs its 200 messages of 50 us, and nothing else: CPU time = rounds × work.
    for t in [p, q] {
        assert_eq!(sim.cpu_time(t), 200 * 50 * US, "{}", sim.tasks[t as usize].cfg.name);
        assert_eq!(sim.tasks[t as usize].stats.pipe_writes, 200, "round trips");
        assert_eq!(sim.tasks[t as usize].state, TaskState::Exited);
    }
    // Strict alternation on CPU 0: p, q, p, q, ... with no preemption, each run one message,
    // and a last run of k_p to read the last reply and exit.
    let runs: Vec<u32> =
        rows(&sim, EventKind::Switch).into_iter().filter(|r| r.1 == 0 && r.2 != NO_TASK).map(|r| r.2).collect();
    assert_eq!(runs.len(), 401, "one switch-in per message, and k_p's last read");
    for (i, &t) in runs.iter().enumerate() {
        assert_eq!(t, if i % 2 == 0 { p } else { q }, "switch-in {i}");
    }
    assert_eq!(
        sim.tasks[p as usize].stats.switches_out_runnable + sim.tasks[q as usize].stats.switches_out_runnable,
        0
    );
    // Each message wakes its blocked reader once, but the first: k_q had not run yet, so the
    // byte waited in the pipe and its first read did not block.
    assert_eq!(rows_of(&sim, EventKind::Wakeup, p).len(), 200);
    assert_eq!(rows_of(&sim, EventKind::Wakeup, q).len(), 199);
    assert_eq!(sim.tasks[q as usize].stats.sleeps, 199);
    // The round trips end together at 400 × 50 us: the pipe costs no time of its own.
    let exits = rows(&sim, EventKind::Exit);
    assert_eq!(exits.iter().map(|r| r.0).max(), Some(20 * MS));
    summary_agrees(&sim);
}

#[test]
fn a_blocking_read_that_costs_more_lets_the_wakee_preempt_its_writer() {
    // Equal costs: the pair settles at lag 0 with the writer exactly at V, eligible and
    // slice-protected, and no wakeup preempts (above). With the blocking read ~1 us dearer
    // than the writer's run (the machine's accounting), the writer is ahead of V at its next
    // write, __pick_eevdf() drops it before looking at its protection, and the wakee preempts:
    // the writer leaves `R` and reads the byte waiting for it when it runs again.
    let body = PIPE_PAIR_ON_CPU0.replace(r#"work = "50us""#, r#"work = "50us", block_cost = "1us""#);
    assert_eq!(body.matches("block_cost").count(), 2);
    let sim = run(&body, "50ms", &[]);
    let (p, q) = (id(&sim, "k_p"), id(&sim, "k_q"));
    let preempted: u64 = [p, q].iter().map(|&t| sim.tasks[t as usize].stats.switches_out_runnable).sum();
    let wakeups = rows(&sim, EventKind::Wakeup).len() as u64;
    assert!(preempted * 10 >= wakeups * 9, "{preempted} of {wakeups} wakeups preempted the writer");
    // Every message still costs its work, and each blocking read its 1 us on top.
    for t in [p, q] {
        let st = &sim.tasks[t as usize].stats;
        assert_eq!(st.pipe_writes, 200);
        assert_eq!(sim.cpu_time(t), 200 * 50 * US + st.sleeps * US, "{}", sim.tasks[t as usize].cfg.name);
    }
    summary_agrees(&sim);
}

#[test]
fn work_jitter_draws_each_message_from_the_seeded_stream() {
    let body = PIPE_PAIR_ON_CPU0.replace(r#"work = "50us""#, r#"work = "50us", work_jitter = "2us""#);
    let a = run(&body, "50ms", &[]);
    for t in [id(&a, "k_p"), id(&a, "k_q")] {
        let cpu = a.cpu_time(t);
        assert_ne!(cpu, 200 * 50 * US, "jittered messages do not all cost 50 us");
        assert!(cpu.abs_diff(200 * 50 * US) <= 200 * 2 * US, "within ± the jitter per message: {cpu}");
    }
    // The same seed gives the same run; another seed, another one.
    let again = run(&body, "50ms", &[]);
    assert_eq!(a.fair.log.digest(), again.fair.log.digest());
    let other = run(&body, "50ms", &[("seed", "2")]);
    assert_ne!(a.fair.log.digest(), other.fair.log.digest());
}

#[test]
fn pipe_wakeups_carry_wf_sync_and_the_writers_cpu() {
    // k_s's timer wakeups beside the pair: no waker, no flags.
    let body = format!(
        "{PIPE_PAIR_ON_CPU0}[[tasks]]\nname = \"k_s\"\naffinity = [0]\nprogram = [{{ loop = {{ times = 5, body = [{{ run = \"100us\" }}, {{ sleep = \"1ms\" }}] }} }}]\n"
    );
    let sim = run(&body, "50ms", &[]);
    let (p, q, s) = (id(&sim, "k_p"), id(&sim, "k_q"), id(&sim, "k_s"));
    for r in rows(&sim, EventKind::Wakeup) {
        if r.2 == s {
            assert_eq!((r.3, r.4), (NO_TASK, 0), "a timer wakeup has no waker: {r:?}");
        } else {
            assert!(r.2 == p || r.2 == q);
            assert_eq!((r.3, r.4), (0, WF_SYNC as i64), "a pipe write wakes synchronously from CPU 0: {r:?}");
        }
    }
    assert_eq!(rows_of(&sim, EventKind::Wakeup, s).len(), 5);
}

/// Whether the last Resched rows after row `from` include a wakeup preemption.
fn resched_after(sim: &Simulation, from: usize) -> bool {
    let e = &sim.fair.log.events;
    (from..e.t.len()).any(|i| {
        EventKind::from_u8(e.kind[i]) == Some(EventKind::Resched)
            && schedlab_engine::obs::log::SwitchReason::from_i64(e.val[i])
                == Some(schedlab_engine::obs::log::SwitchReason::WakeupPreempt)
    })
}

#[test]
fn wf_sync_reaches_check_preempt_wakeup_fair() {
    // With NEXT_BUDDY, the machine's check_preempt_wakeup_fair() makes an eligible wakee the
    // buddy; without WF_SYNC the pick then prefers it and curr is rescheduled; with WF_SYNC
    // preempt_sync() decides, and a waker that has just run update_curr() is never preempted.
    // The same wakeup of the same state (a cloned simulation), with and without the flag.
    let body = r#"
[kernel.features]
NEXT_BUDDY = true
[[tasks]]
name = "k_h"
affinity = [0]
program = [{ run = "forever" }]
[[tasks]]
name = "k_s"
affinity = [0]
program = [{ loop = { body = [{ run = "300us" }, { sleep = "1ms" }] } }]
"#;
    let text = format!("version = 1\nname = \"sync\"\nduration = \"60ms\"\n[host]\ncpus = 2\n{body}");
    let (_, mut sim) = schedlab_engine::load("sync.toml", &text, &[]).expect("valid");
    sim.check_invariants = true;
    let s = id(&sim, "k_s");
    let (mut synced, mut preempted_without) = (0, 0);
    for step in 1..200u64 {
        sim.run_until(step * 250 * US);
        if sim.tasks[s as usize].state != TaskState::Sleeping || sim.fair.ents[s as usize].on_rq {
            continue; // awake, or still queued as a delayed entity (no preemption either way)
        }
        let n = sim.fair.log.len();
        let mut with = sim.clone();
        with.wake_up_flags(s, WF_SYNC, Some(0));
        let mut without = sim.clone();
        without.wake_up_flags(s, 0, Some(0));
        assert!(!resched_after(&with, n), "a WF_SYNC wakeup preempted at {} ns", sim.now());
        preempted_without += resched_after(&without, n) as u32;
        synced += 1;
    }
    assert!(synced > 10, "k_s should be found asleep and off the queue, got {synced}");
    assert!(preempted_without > 10, "without WF_SYNC the wakee should preempt, got {preempted_without} of {synced}");
}

const BURST: &str = r#"
[[tasks]]
name = "k_f"
program = [{ fork = { children = 8, program = [{ run = "5ms" }] } }]
"#;

#[test]
fn fork_burst_runs_each_child_once_and_wakes_the_parent_after_the_last_exit() {
    let sim = run(BURST, "100ms", &[]);
    let f = id(&sim, "k_f");
    assert_eq!(sim.tasks.len(), 9, "eight child slots after the scenario's task");
    let children: Vec<u32> = (0..8).map(|i| id(&sim, &format!("k_f/child{i}"))).collect();
    assert_eq!(children, (1..9).collect::<Vec<u32>>());
    for &c in &children {
        assert_eq!(sim.cpu_time(c), 5 * MS, "{}", sim.tasks[c as usize].cfg.name);
        assert_eq!(sim.tasks[c as usize].state, TaskState::Exited);
        // Created by the fork on the parent's CPU, once.
        let new = rows_of(&sim, EventKind::WakeupNew, c);
        assert_eq!(new.len(), 1);
        assert_eq!((new[0].0, new[0].3), (0, sim.tasks[f as usize].cpu));
    }
    let last_exit = children.iter().map(|&c| rows_of(&sim, EventKind::Exit, c)[0]).max().expect("exits");
    assert!(last_exit.0 >= 20 * MS, "40 ms of work on 2 CPUs cannot end before 20 ms");
    // The parent slept once (its wait) and the last exit woke it, synchronously, from the CPU
    // the child exited on.
    let woken = rows_of(&sim, EventKind::Wakeup, f);
    assert_eq!(woken.len(), 1);
    assert_eq!((woken[0].0, woken[0].3, woken[0].4), (last_exit.0, last_exit.1, WF_SYNC as i64));
    assert_eq!(sim.tasks[f as usize].stats.sleeps, 1);
    assert_eq!(sim.tasks[f as usize].stats.forks, 8);
    assert_eq!(sim.tasks[f as usize].state, TaskState::Exited);
    assert_eq!(sim.cpu_time(f), 0, "fork and wait cost nothing in the model");
    summary_agrees(&sim);
}

const LOOPED_BURST: &str = r#"
[[cgroups]]
path = "/burst"
shares = 512
[[tasks]]
name = "k_f"
nice = 3
cgroup = "/burst"
program = [{ loop = { times = 3, body = [{ fork = { children = 8, name = "k_w", program = [{ run = "5ms" }] } }, { sleep = "10ms" }] } }]
[[tasks]]
name = "k_h"
program = [{ run = "forever" }]
"#;

#[test]
fn looped_burst_reuses_its_slots_and_the_totals_add_up() {
    for variants in [&[][..], &[("group_shares", "pelt")][..]] {
        let sim = run(LOOPED_BURST, "400ms", variants);
        let f = id(&sim, "k_f");
        assert_eq!(sim.tasks.len(), 2 + 8, "the loop forks the same eight slots three times");
        let meta = ScenarioMeta::of(&sim, None, false);
        for i in 0..8 {
            let c = id(&sim, &format!("k_w{i}"));
            let t = &sim.tasks[c as usize];
            // Each incarnation runs 5 ms; the counters span all three.
            assert_eq!(sim.cpu_time(c), 15 * MS, "{} {variants:?}", t.cfg.name);
            assert_eq!(t.exec_before, 10 * MS, "two earlier incarnations");
            assert_eq!(sim.fair.ents[c as usize].sum_exec_runtime, 5 * MS, "a fresh entity each time");
            assert_eq!(rows_of(&sim, EventKind::WakeupNew, c).len(), 3);
            assert_eq!(rows_of(&sim, EventKind::Exit, c).len(), 3);
            // The parent's attributes.
            assert_eq!((t.cfg.nice, t.cfg.tg, t.cfg.parent), (3, sim.tasks[f as usize].cfg.tg, Some(f)));
            assert_eq!(meta.tasks[c as usize].parent, Some(f));
        }
        assert_eq!(meta.tasks[f as usize].parent, None);
        // Woken three times by its children (WF_SYNC), three times by its sleep's timer.
        let woken = rows_of(&sim, EventKind::Wakeup, f);
        assert_eq!(woken.iter().filter(|r| r.4 == WF_SYNC as i64).count(), 3, "{variants:?}");
        assert_eq!(woken.iter().filter(|r| r.4 == 0).count(), 3, "{variants:?}");
        assert_eq!(sim.tasks[f as usize].stats.forks, 24);
        assert_eq!(sim.tasks[f as usize].state, TaskState::Exited);
        summary_agrees(&sim);
    }
}

#[test]
fn pipe_step_ends_when_the_peer_exits() {
    // k_p stops at 5 ms; k_q, blocked reading or not, gets end of file, leaves its endless
    // pipe step and runs its last 1 ms.
    let body = r#"
[[tasks]]
name = "k_p"
affinity = [0]
stop = "5.02ms"
program = [{ pipe = { peer = "k_q", work = "50us", first = true } }]
[[tasks]]
name = "k_q"
affinity = [0]
program = [{ pipe = { peer = "k_p", work = "50us" } }, { run = "1ms" }]
"#;
    let sim = run(body, "20ms", &[]);
    let q = id(&sim, "k_q");
    let exit = rows_of(&sim, EventKind::Exit, q);
    assert_eq!(exit.len(), 1, "k_q leaves the pipe step and ends its program");
    assert!(exit[0].0 > 5 * MS + MS && exit[0].0 <= 5 * MS + MS + 100 * US, "{exit:?}");
    summary_agrees(&sim);
}

#[test]
fn pipe_and_fork_runs_are_deterministic() {
    let body = format!("{PIPE_PAIR_ON_CPU0}{LOOPED_BURST}");
    let digest = |steps: &[u64]| {
        let text = format!("version = 1\nname = \"d\"\nduration = \"120ms\"\n[host]\ncpus = 2\n{body}");
        let (_, mut sim) = schedlab_engine::load("d.toml", &text, &[]).expect("valid");
        sim.check_invariants = true;
        for &t in steps {
            sim.run_until(t);
        }
        sim.run();
        sim.fair.log.digest()
    };
    let a = digest(&[]);
    assert_eq!(a, digest(&[]));
    assert_eq!(a, digest(&[1, 7 * MS, 33_333_333, 90 * MS]), "stepping must not change the run");
}

/// The `wake` and `wait_wakeup` steps: a waker's `wake` ends the wakee's `wait_wakeup`
/// (a wakeup from the waker's CPU, `WF_SYNC` when the step says so); a wakeup sent before
/// the wait is counted and the wait returns without blocking.
#[test]
fn wake_steps_wake_a_waiting_task_from_the_wakers_cpu() {
    let body = r#"
[[tasks]]
name = "waker"
affinity = [0]
program = [{ run = "1ms" }, { wake = { task = "sleeper", sync = true } }, { run = "2ms" }, { wake = { task = "sleeper" } }, { run = "forever" }]
[[tasks]]
name = "sleeper"
affinity = [1]
program = [{ wait_wakeup = 1 }, { run = "100us" }, { sleep = "5ms" }, { wait_wakeup = 1 }, { run = "100us" }]
"#;
    let sim = run(body, "20ms", &[]);
    let (w, s) = (id(&sim, "waker"), id(&sim, "sleeper"));
    let wakeups = rows_of(&sim, EventKind::Wakeup, s);
    // The first wake finds it waiting: woken at 1 ms, from CPU 0 with WF_SYNC. The second is
    // sent at 3 ms while it sleeps its 5 ms: counted, so its second wait (at ~6.1 ms) returns
    // at once; its only other wakeup is its sleep's timer.
    assert_eq!(wakeups.len(), 2, "{wakeups:?}");
    assert_eq!(wakeups[0].0, MS);
    // Woken from the waker's CPU (the row's arg), with WF_SYNC in its flags (val).
    assert_eq!((wakeups[0].3, wakeups[0].4 & WF_SYNC as i64 != 0), (0, true), "{:?} (waker {w})", wakeups[0]);
    assert_eq!(sim.tasks[s as usize].state, TaskState::Exited);
    let cpu = summary_agrees(&sim).tasks[s as usize].cpu_time_ns;
    assert_eq!(cpu, 200 * US);
    // With one wake fewer, the remaining one (at 3 ms) ends the first wait and the second
    // never ends: a wait is a wait, not a sleep.
    let fewer = body.replace(r#"{ wake = { task = "sleeper", sync = true } }, "#, "");
    let sim = run(&fewer, "20ms", &[]);
    let s = id(&sim, "sleeper");
    assert_eq!(summary_agrees(&sim).tasks[s as usize].cpu_time_ns, 100 * US);
    assert_eq!(rows_of(&sim, EventKind::Wakeup, s)[0].0, 3 * MS);
    assert_eq!(sim.tasks[s as usize].state, TaskState::Sleeping);
}

/// A `wake` naming an unknown task, or the waker itself, and a `wait_wakeup` of 0 are refused
/// at their keys.
#[test]
fn wake_steps_are_validated() {
    let text = |step: &str| {
        format!("version = 1\nname = \"w\"\nduration = \"1ms\"\n[[tasks]]\nname = \"a\"\nprogram = [{step}]\n")
    };
    let Err(e) = schedlab_engine::load("w.toml", &text(r#"{ wake = { task = "nobody" } }"#), &[]) else {
        panic!("refused")
    };
    assert!(e.contains("tasks[0].program[0].wake.task") && e.contains("\"nobody\""), "{e}");
    let Err(e) = schedlab_engine::load("w.toml", &text(r#"{ wake = { task = "a" } }"#), &[]) else { panic!("refused") };
    assert!(e.contains("cannot wake itself"), "{e}");
    let Err(e) = schedlab_engine::load("w.toml", &text("{ wait_wakeup = 0 }"), &[]) else { panic!("refused") };
    assert!(e.starts_with("w.toml:6:") && e.contains("wait_wakeup count of at least 1"), "{e}");
}
