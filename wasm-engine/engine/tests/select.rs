//! Wakeup placement under `smp = "fair"` (`sched::select`, Linux 6.18's
//! `select_task_rq_fair()`), rule by rule: each test builds a small host state by running a
//! scenario to a point, then asks the function for a waking task's CPU and checks the CPU
//! and the rule that chose it.

mod common;

use schedlab_engine::obs::log::EventKind;
use schedlab_engine::sched::select::{AffinePath, PlacePath, Placement};
use schedlab_engine::sched::wakeup::{WF_SYNC, WF_TTWU};
use schedlab_engine::sim::Simulation;

const MS: u64 = 1_000_000;

/// A 4-CPU host (one LLC, like our machine's MC domain but wider) at `at` ms, with the
/// scenario's tasks, under 6.18.y stable's placement (`vcpu_pack = "6.18"`: the machine's
/// vendor block is tested in `select_vendor.rs`).
fn host_at(tasks: &str, at: u64, variants: &[(&str, &str)]) -> Simulation {
    let text = format!(
        "version = 1\nname = \"select\"\nseed = 1\nduration = \"100ms\"\n[host]\ncpus = 4\nhz = 250\n[kernel]\nsmp = \"fair\"\nvcpu_pack = \"6.18\"\n{tasks}"
    );
    let (_, mut sim) = schedlab_engine::load("select.toml", &text, &owned(variants)).expect("valid scenario");
    sim.check_invariants = true;
    sim.run_until(at * MS);
    sim
}

fn owned(v: &[(&str, &str)]) -> Vec<(String, String)> {
    v.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
}

/// A sleeper `s` (task 0) allowed on `s_affinity` that runs 1 ms and sleeps 50 ms (created on
/// its first allowed CPU, the stand-in for its parent's), then hogs pinned to the given CPUs.
fn tasks(s_affinity: &str, hogs: &[u32]) -> String {
    let mut t = format!(
        "[[tasks]]\nname = \"s\"\naffinity = {s_affinity}\nprogram = [{{ loop = {{ body = [{{ run = \"1ms\" }}, {{ sleep = \"50ms\" }}] }} }}]\n"
    );
    for (i, c) in hogs.iter().enumerate() {
        t.push_str(&format!("[[tasks]]\nname = \"h{i}\"\naffinity = [{c}]\nprogram = [{{ run = \"forever\" }}]\n"));
    }
    t
}

fn wake(sim: &mut Simulation, waker_cpu: u32, flags: u32) -> Placement {
    let prev = sim.tasks[0].cpu;
    let waker = sim.fair.rqs[waker_cpu as usize].curr.map(|se| sim.fair.task_of(se));
    sim.fair.select_task_rq_fair(0, prev, WF_TTWU | flags, waker_cpu, waker)
}

#[test]
fn an_idle_previous_cpu_keeps_the_task() {
    // s slept on CPU 0 (started there: its first allowed CPU is idle at t=0); CPU 0 is idle.
    let mut sim = host_at(&tasks("[0, 1, 2, 3]", &[1, 2]), 10, &[]);
    assert_eq!(sim.tasks[0].cpu, 0);
    let p = wake(&mut sim, 0, 0);
    assert_eq!((p.cpu, p.path, p.affine), (0, PlacePath::Target, AffinePath::None));
}

#[test]
fn sis_util_stops_the_idle_scan_until_the_balancer_sets_nr_idle_scan() {
    // s on CPU 0 with a hog there too; CPU 3 is idle. nr_idle_scan starts at 0 (the LLC's
    // shared state is allocated zeroed), so SIS_UTIL cuts the scan and s stays on its busy
    // CPU; without SIS_UTIL the scan finds CPU 3.
    let hogs = [0, 1, 2];
    let mut sim = host_at(&tasks("[0, 1, 2, 3]", &hogs), 10, &[]);
    let prev = sim.tasks[0].cpu;
    assert!(sim.fair.rqs[prev as usize].curr.is_some(), "s's CPU is busy");
    let p = wake(&mut sim, prev, 0);
    assert_eq!((p.cpu, p.path, p.nr_idle_scan), (prev, PlacePath::Fallback, 0));
    let mut sim = host_at(&tasks("[0, 1, 2, 3]", &hogs), 10, &[("SIS_UTIL", "false")]);
    let p = wake(&mut sim, prev, 0);
    assert_eq!((p.cpu, p.path), (3, PlacePath::Scan));
}

#[test]
fn update_idle_cpu_scan_follows_the_llc_utilization() {
    let mut sim = host_at(&tasks("[0, 1, 2, 3]", &[]), 1, &[]);
    let llc = |sim: &Simulation| sim.fair.smp().llc_shared[0].nr_idle_scan;
    // The MC domain of a 4-CPU host is its LLC (level 0 after the degenerate ones go).
    for (sum_util, want) in [(0, 4), (4 * 512, 2), (4 * 700, 1), (4 * 1024, 0)] {
        sim.fair.update_idle_cpu_scan(0, 0, sum_util);
        // y = 4 · (1 − min(1, x² · 117² / (10000 · 1024) / 1024)), x = sum_util / 4.
        assert_eq!(llc(&sim), want, "sum_util {sum_util}");
    }
}

#[test]
fn recent_used_cpu_is_taken_when_idle() {
    // s last ran on CPU 0; its recent_used_cpu is where it ran before (set at each pass of
    // select_idle_sibling). Make prev and target busy and recent idle.
    let mut sim = host_at(&tasks("[0, 1, 2, 3]", &[0, 1, 3]), 10, &[]);
    let prev = sim.tasks[0].cpu;
    assert_eq!(prev, 0);
    // A previous wakeup's select_idle_sibling() recorded recent_used_cpu = 2, the idle CPU.
    sim.fair.smp.as_mut().expect("smp").tasks[0].recent_used_cpu = 2;
    let p = wake(&mut sim, prev, 0);
    assert_eq!((p.cpu, p.path), (2, PlacePath::Recent));
    assert_eq!(sim.fair.smp().tasks[0].recent_used_cpu, prev, "select_idle_sibling() records prev");
}

#[test]
fn a_sync_wakeup_from_a_lone_waker_is_affine() {
    // The waker runs alone on CPU 2; s's previous CPU 0 is busy. wake_affine_idle(): a sync
    // waker alone on its CPU pulls the wakee there (the waker is about to sleep).
    let mut sim = host_at(&tasks("[0, 1, 2, 3]", &[0, 2]), 10, &[]);
    assert_eq!(sim.fair.rqs[2].nr_running, 1);
    let p = wake(&mut sim, 2, WF_SYNC);
    assert_eq!((p.affine, p.target), (AffinePath::Idle, 2));
    // Not sync: prev is busy and the waker's CPU too, so wake_affine_weight() decides by
    // load; the hog on CPU 2 and the one on CPU 0 weigh the same, so WA_BIAS keeps prev.
    let mut sim = host_at(&tasks("[0, 1, 2, 3]", &[0, 2]), 10, &[]);
    let p = wake(&mut sim, 2, 0);
    assert_eq!((p.affine, p.target), (AffinePath::Prev, 0));
}

#[test]
fn pinned_tasks_are_placed_without_asking_the_class() {
    let mut sim = host_at(&tasks("[1]", &[1]), 10, &[]);
    let p = wake(&mut sim, 0, 0);
    assert_eq!((p.cpu, p.path), (1, PlacePath::Pinned));
}

#[test]
fn every_placement_is_logged_with_its_rule() {
    let sim = host_at(&tasks("[0, 1, 2, 3]", &[0, 1, 2]), 100, &[]);
    let e = &sim.fair.log.events;
    let rows: Vec<usize> =
        (0..e.t.len()).filter(|&i| e.kind[i] == EventKind::SelectRq as u8 && e.task[i] == 0).collect();
    // One at creation (fork balancing), one at its exec (sched_exec's balancing at its first
    // run), then one per wakeup of s (100 ms / 51 ms).
    assert_eq!(rows.len(), 2 + sim.tasks[0].stats.wakeups as usize);
    for &i in &rows {
        let path = (e.val[i] & 0xff) as u8;
        assert!(path <= PlacePath::NotAllowed as u8);
    }
}

#[test]
fn why_this_cpu_names_the_rule_and_its_numbers() {
    use schedlab_engine::obs::why_cpu::{placement_words, PlacementRow};
    // s wakes at 51 ms on its busy CPU 0 with CPU 3 idle and nr_idle_scan still 0.
    let sim = host_at(&tasks("[0, 1, 2, 3]", &[0, 1, 2]), 60, &[]);
    let e = &sim.fair.log.events;
    let i = (0..e.t.len()).rfind(|&i| e.kind[i] == EventKind::SelectRq as u8 && e.task[i] == 0).expect("a wakeup");
    let r = PlacementRow::unpack(e.val[i]).expect("valid row");
    assert_eq!((r.path, r.nr_idle_scan, r.target), (PlacePath::Fallback, Some(0), 0));
    let words = placement_words(&sim.fair.log, i, &|t| sim.tasks[t as usize].cfg.name.clone());
    assert!(words.starts_with("select_task_rq placed s on CPU 0 (previous CPU 0)."), "{words}");
    assert!(words.contains("SIS_UTIL's nr_idle_scan was 0"), "{words}");
}

#[test]
fn why_a_balance_pass_moved_a_task() {
    use schedlab_engine::obs::why_cpu::balance_words;
    // Three hogs on two CPUs: the periodic balance pulls one across once nr_balance_failed
    // lets its load pass the imbalance (shr_bound).
    let text = "version = 1\nname = \"b\"\nseed = 1\nduration = \"400ms\"\n[host]\ncpus = 2\nhz = 250\n\
                [[tasks]]\nname = \"a\"\nprogram = [{ run = \"forever\" }]\n\
                [[tasks]]\nname = \"b\"\nprogram = [{ run = \"forever\" }]\n\
                [[tasks]]\nname = \"c\"\nprogram = [{ run = \"forever\" }]\n";
    let (_, mut sim) = schedlab_engine::load("b.toml", text, &[]).expect("valid");
    sim.check_invariants = true;
    sim.run();
    let e = &sim.fair.log.events;
    let rows: Vec<usize> = (0..e.t.len()).filter(|&i| e.kind[i] == EventKind::Balance as u8).collect();
    let moved = rows.iter().find(|&&i| (e.val[i] >> 32) & 0xff == 0).expect("a pass that moved a task");
    let words = balance_words(&sim.fair.log, *moved);
    assert!(words.contains("the busiest group was overloaded, migrate_load"), "{words}");
    assert!(words.contains("1 task(s) pulled from CPU"), "{words}");
    let failed = rows.iter().find(|&&i| (e.val[i] >> 32) & 0xff == 3).expect("a pass that failed first");
    assert!(balance_words(&sim.fair.log, *failed).contains("refused because"));
}

/// A task that existed before the run (scenario `existing`, what the trace replay gives a task
/// whose fork the trace does not show) first wakes as a sleeper (`try_to_wake_up()`: a Wakeup
/// row, `select_task_rq_fair()` from its `prev_cpu`), with the PELT averages it brought; the
/// same task as a new one goes through `wake_up_new_task()` with a new task's full load.
#[test]
fn an_existing_task_wakes_as_a_sleeper_with_its_averages() {
    let spec = |existing: &str| {
        format!(
            "[[tasks]]\nname = \"h\"\naffinity = [0]\nprogram = [{{ run = \"forever\" }}]\n\
             [[tasks]]\nname = \"d\"\nstart = \"2ms\"\n{existing}program = [{{ run = \"100us\" }}, {{ sleep = \"50ms\" }}]\n"
        )
    };
    let first_rows = |sim: &Simulation| -> Vec<u8> {
        sim.fair.log.events.rows().filter(|r| r.task == 1 && r.t == 2 * MS).map(|r| r.kind).collect()
    };
    let seeded = "existing = { cpu = 2, load_avg = 12, runnable_avg = 12, util_avg = 9 }\n";
    let sim = host_at(&spec(seeded), 3, &[]);
    let rows = first_rows(&sim);
    assert!(rows.contains(&(EventKind::Wakeup as u8)) && !rows.contains(&(EventKind::WakeupNew as u8)), "{rows:?}");
    // Its previous CPU, 2, is idle: the wakeup keeps it there (the new task's fork balancing
    // would start from CPU 0, its first allowed CPU).
    assert_eq!(sim.tasks[1].cpu, 2);
    // 100 us of running since: the averages moved little from what it brought.
    let avg = sim.fair.ents[sim.tasks[1].se as usize].avg;
    assert!(avg.load_avg < 40 && avg.util_avg < 40, "{avg:?}");

    let sim = host_at(&spec(""), 3, &[]);
    let rows = first_rows(&sim);
    assert!(rows.contains(&(EventKind::WakeupNew as u8)), "{rows:?}");
    let avg = sim.fair.ents[sim.tasks[1].se as usize].avg;
    assert!(avg.load_avg > 1000, "a new task starts with its weight as load: {avg:?}");
}
