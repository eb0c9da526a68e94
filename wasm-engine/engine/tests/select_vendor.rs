//! This build's vendor wake placement (`sched::select_vendor`, `vcpu_pack_room()` with
//! `sched_vcpu_pack=15`, decoded from the 6.18.44-fc machine's text): a waking task whose
//! previous CPU is busy but under 70 % utilized, with no other runnable task, stays there
//! even though other CPUs are idle; stable's `select_task_rq_fair()` (`vcpu_pack = "6.18"`)
//! moves it to an idle CPU.

use schedlab_engine::sched::select::PlacePath;
use schedlab_engine::sched::wakeup::{WF_FORK, WF_SYNC, WF_TTWU};
use schedlab_engine::sim::Simulation;

const MS: u64 = 1_000_000;

/// A 4-CPU host at `at` ms: a sleeper `s` (task 0, runs 1 ms, sleeps 50 ms, starts on CPU 0)
/// and a light task `l` pinned to CPU 0 (runs 2 ms, sleeps 6 ms: about 25 % utilized), plus
/// hogs pinned to `hogs`.
fn host_at(at: u64, vcpu_pack: &str, hogs: &[u32]) -> Simulation {
    let mut t = String::from(
        "[[tasks]]\nname = \"s\"\naffinity = [0, 1, 2, 3]\nprogram = [{ loop = { body = [{ run = \"1ms\" }, { sleep = \"50ms\" }] } }]\n\
         [[tasks]]\nname = \"l\"\naffinity = [0]\nprogram = [{ loop = { body = [{ run = \"2ms\" }, { sleep = \"6ms\" }] } }]\n",
    );
    for (i, c) in hogs.iter().enumerate() {
        t.push_str(&format!("[[tasks]]\nname = \"h{i}\"\naffinity = [{c}]\nprogram = [{{ run = \"forever\" }}]\n"));
    }
    let text = format!(
        "version = 1\nname = \"vcpu_pack\"\nseed = 1\nduration = \"200ms\"\n[host]\ncpus = 4\nhz = 250\n[kernel]\nsmp = \"fair\"\nvcpu_pack = \"{vcpu_pack}\"\n{t}"
    );
    let (_, mut sim) = schedlab_engine::load("vcpu_pack.toml", &text, &[]).expect("valid scenario");
    sim.check_invariants = true;
    sim.run_until(at * MS);
    sim
}

/// Runs until `l` is running on CPU 0 and `s` sleeps, then returns the sim.
fn l_running(vcpu_pack: &str, hogs: &[u32]) -> Simulation {
    for at in 60..120 {
        let sim = host_at(at, vcpu_pack, hogs);
        let cur = sim.fair.rqs[0].curr.map(|se| sim.fair.task_of(se));
        if cur == Some(1) && sim.fair.rqs[0].nr_running == 1 && !sim.fair.ents[0].on_rq && sim.tasks[0].cpu == 0 {
            return sim;
        }
    }
    panic!("no instant with l alone on CPU 0 and s asleep");
}

fn wake(sim: &mut Simulation, waker_cpu: u32, flags: u32) -> (u32, PlacePath) {
    // Let SIS_UTIL scan the whole LLC (the balancer sets nr_idle_scan from the LLC's
    // utilization; it is 0 until the first periodic balance there).
    sim.fair.smp.as_mut().expect("smp").llc_shared[0].nr_idle_scan = 4;
    let prev = sim.tasks[0].cpu;
    let waker = sim.fair.rqs[waker_cpu as usize].curr.map(|se| sim.fair.task_of(se));
    let p = sim.fair.select_task_rq_fair(0, prev, flags, waker_cpu, waker);
    (p.cpu, p.path)
}

#[test]
fn a_wakeup_stays_on_its_busy_previous_cpu_while_it_has_room() {
    // s's timer fires on CPU 0, where l runs (~25 % utilized, alone); CPUs 1-3 are idle.
    let mut sim = l_running("machine", &[]);
    assert!(sim.fair.cpu_util_cfs(0) * 100 < sim.fair.capacity_of(0) * 70);
    assert!(sim.fair.vcpu_pack_room(0, 0, 0));
    assert_eq!(wake(&mut sim, 0, WF_TTWU), (0, PlacePath::VcpuPack));
    // 6.18.y stable: the previous CPU is busy, so select_idle_sibling() finds an idle one
    // (recent_used_cpu or the scan), never CPU 0.
    let mut sim = l_running("6.18", &[]);
    let (cpu, path) = wake(&mut sim, 0, WF_TTWU);
    assert_ne!(cpu, 0, "stable leaves the busy CPU ({path:?})");
    assert_ne!(path, PlacePath::VcpuPack);
}

#[test]
fn no_room_on_a_cpu_over_70_percent_or_with_another_runnable_task() {
    // A hog on CPU 0 beside l: two runnable tasks there, so no room; a hog's CPU (utilization
    // near 1024 after 60 ms) has none either.
    let sim = host_at(100, "machine", &[0, 2]);
    assert!(!sim.fair.vcpu_pack_room(0, 3, 0), "two runnable tasks on CPU 0");
    assert!(sim.fair.cpu_util_cfs(2) * 100 >= sim.fair.capacity_of(2) * 70);
    assert!(!sim.fair.vcpu_pack_room(0, 3, 2), "CPU 2 is over 70 %");
}

#[test]
fn a_wakeup_from_an_idle_cpu_lands_there() {
    // Bit 0: the idle task of CPU 3 runs the wakeup (waker None) and CPU 3 has nothing
    // queued: the wakee goes to CPU 3 although its previous CPU 0 is free too.
    let mut sim = host_at(10, "machine", &[]);
    let prev = sim.tasks[0].cpu;
    let p = sim.fair.select_task_rq_fair(0, prev, WF_TTWU, 3, None);
    assert_eq!((p.cpu, p.path), (3, PlacePath::VcpuPack));
    let mut sim = host_at(10, "6.18", &[]);
    let p = sim.fair.select_task_rq_fair(0, prev, WF_TTWU, 3, None);
    assert_ne!(p.path, PlacePath::VcpuPack);
}

#[test]
fn sync_and_fork_pack_onto_the_wakers_cpu() {
    // Bit 1 (sync) and bit 3 (fork): onto the waker's (parent's) CPU 0 while it has room.
    let mut sim = l_running("machine", &[]);
    assert_eq!(wake(&mut sim, 0, WF_TTWU | WF_SYNC), (0, PlacePath::VcpuPack));
    let mut sim = l_running("machine", &[]);
    assert_eq!(wake(&mut sim, 0, WF_FORK), (0, PlacePath::VcpuPack));
    let mut sim = l_running("6.18", &[]);
    assert_ne!(wake(&mut sim, 0, WF_FORK).1, PlacePath::VcpuPack);
}
