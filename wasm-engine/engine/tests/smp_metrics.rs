//! The SMP metrics of `schedlab simulate --json` (`obs::smp`): per task `migrations` and
//! `cpu_time_ns_by_cpu`, per CPU `idle_while_overloaded_ns`, on small 2-CPU scenarios whose
//! answers are known by hand or from other rows of the log.

mod common;

use schedlab_engine::obs::log::EventKind;
use schedlab_engine::obs::summary::{Summary, TaskSummary};
use schedlab_engine::sim::Simulation;

const MS: u64 = 1_000_000;

fn run(body: &str, variants: &[(&str, &str)]) -> (Simulation, Summary) {
    let text =
        format!("version = 1\nname = \"smp\"\nseed = 1\nduration = \"50ms\"\n[host]\ncpus = 2\nhz = 1000\n{body}");
    let sim = common::run_text("smp.toml", &text, variants);
    let s = Summary::of(&sim);
    (sim, s)
}

fn task<'a>(s: &'a Summary, name: &str) -> &'a TaskSummary {
    s.tasks.iter().find(|t| t.name == name).expect("task")
}

/// Every task's per-CPU times have one entry per CPU and add up to its CPU time.
fn by_cpu_sums(s: &Summary) {
    for t in &s.tasks {
        assert_eq!(t.cpu_time_ns_by_cpu.len(), s.cpu_idle_ns.len(), "{}", t.name);
        assert_eq!(t.cpu_time_ns_by_cpu.iter().sum::<u64>(), t.cpu_time_ns, "{}", t.name);
    }
    assert_eq!(s.idle_while_overloaded_ns.len(), s.cpu_idle_ns.len());
    for (o, i) in s.idle_while_overloaded_ns.iter().zip(&s.cpu_idle_ns) {
        assert!(o <= i, "idle while overloaded {o} > idle {i}");
    }
}

const THREE_PINNED_HOGS: &str = r#"
[[tasks]]
name = "a"
affinity = [0]
program = [{ run = "forever" }]
[[tasks]]
name = "b"
affinity = [0]
start = "2ms"
stop = "30ms"
program = [{ run = "forever" }]
[[tasks]]
name = "c"
affinity = [0]
start = "5ms"
stop = "40ms"
program = [{ run = "forever" }]
"#;

#[test]
fn three_hogs_pinned_to_one_cpu() {
    let (_, s) = run(THREE_PINNED_HOGS, &[]);
    by_cpu_sums(&s);
    for t in &s.tasks {
        assert_eq!(t.migrations, 0, "{}", t.name);
        assert_eq!(t.cpu_time_ns_by_cpu, vec![t.cpu_time_ns, 0], "{}", t.name);
    }
    assert_eq!(s.tasks.iter().map(|t| t.cpu_time_ns).sum::<u64>(), 50 * MS);
    assert_eq!(s.cpu_idle_ns, vec![0, 50 * MS]);
    // CPU 0 has two or more hogs from b's start (2 ms) to c's stop (40 ms); CPU 1, with
    // nothing pinned to it, idles through all of it.
    assert_eq!(s.idle_while_overloaded_ns, vec![0, 38 * MS]);
}

#[test]
fn a_busy_cpu_is_not_idle_while_overloaded() {
    // d keeps CPU 1 busy from 10 to 20 ms: 10 ms of the 38 are not idle.
    let d = "[[tasks]]\nname = \"d\"\naffinity = [1]\nstart = \"10ms\"\nstop = \"20ms\"\nprogram = [{ run = \"forever\" }]\n";
    let (_, s) = run(&format!("{THREE_PINNED_HOGS}{d}"), &[]);
    by_cpu_sums(&s);
    assert_eq!(task(&s, "d").cpu_time_ns_by_cpu, vec![0, 10 * MS]);
    assert_eq!(s.idle_while_overloaded_ns, vec![0, 28 * MS]);
}

/// Only runnable tasks wait: a sleeper's delayed dequeue (DELAY_DEQUEUE keeps it queued, not
/// runnable) does not make its CPU overloaded. CPU 0 holds a hog and a sleeper, so it has a
/// task waiting exactly while the sleeper is awake: from each wakeup to its next sleep.
#[test]
fn overloaded_while_the_sleeper_is_awake() {
    let body = r#"
[[tasks]]
name = "h"
affinity = [0]
program = [{ run = "forever" }]
[[tasks]]
name = "s"
affinity = [0]
start = "1ms"
program = [{ loop = { body = [{ run = "1ms" }, { sleep = "3ms" }] } }]
"#;
    let (sim, s) = run(body, &[]);
    by_cpu_sums(&s);
    let e = &sim.fair.log.events;
    let (mut awake, mut since) = (0u64, None);
    for i in 0..e.t.len() {
        if e.task[i] != 1 {
            continue;
        }
        match EventKind::from_u8(e.kind[i]) {
            Some(EventKind::Wakeup | EventKind::WakeupNew) => since = Some(e.t[i]),
            Some(EventKind::Sleep) => awake += e.t[i] - since.take().expect("woken before it sleeps"),
            _ => {}
        }
    }
    awake += since.map_or(0, |w| sim.now() - w);
    assert!(awake > 10 * MS && awake < 40 * MS, "awake {awake}");
    assert!(task(&s, "s").sleeps > 5);
    assert_eq!(s.idle_while_overloaded_ns, vec![0, awake]);
}

/// A task whose affinity allows one CPU runs only there; an unpinned sleeper that finds its
/// CPU busy and the other idle at a wakeup migrates, and each migration is a CPU change
/// between its consecutive runs.
#[test]
fn affinity_pins_and_a_wakeup_migrates() {
    let body = r#"
[[tasks]]
name = "p"
affinity = [1]
stop = "10ms"
program = [{ run = "forever" }]
[[tasks]]
name = "s"
program = [{ loop = { body = [{ run = "500us" }, { sleep = "1ms" }] } }]
[[tasks]]
name = "h"
affinity = [0]
start = "1ms"
program = [{ run = "forever" }]
"#;
    // The static placement (`smp = "static"`) moves s at the wakeup that finds its CPU busy
    // and the other idle; the metrics are what this test is about.
    let (sim, s) = run(body, &[("smp", "static")]);
    by_cpu_sums(&s);
    let p = task(&s, "p");
    assert_eq!((p.migrations, p.cpu_time_ns_by_cpu.clone()), (0, vec![0, 10 * MS]));
    let h = task(&s, "h");
    assert_eq!((h.migrations, h.cpu_time_ns_by_cpu.clone()), (0, vec![h.cpu_time_ns, 0]));
    // s's CPU at each switch-in, from the Switch rows alone.
    let e = &sim.fair.log.events;
    let mut cpus: Vec<u16> = Vec::new();
    for i in 0..e.t.len() {
        if EventKind::from_u8(e.kind[i]) == Some(EventKind::Switch) && e.task[i] == 1 && cpus.last() != Some(&e.cpu[i])
        {
            cpus.push(e.cpu[i]);
        }
    }
    let moves = cpus.len() as u64 - 1;
    let st = task(&s, "s");
    assert!(moves >= 1, "s never moved: {cpus:?}");
    assert_eq!(st.migrations, moves, "{cpus:?}");
    assert!(st.cpu_time_ns_by_cpu.iter().all(|&ns| ns > 0), "{:?}", st.cpu_time_ns_by_cpu);
    // Each Migrate row names the CPU it left and precedes the wakeup on the new one.
    for i in 0..e.t.len() {
        if EventKind::from_u8(e.kind[i]) == Some(EventKind::Migrate) {
            assert_ne!(e.val[i], e.cpu[i] as i64);
            assert_eq!(EventKind::from_u8(e.kind[i + 1]), Some(EventKind::Wakeup));
            assert_eq!((e.task[i + 1], e.cpu[i + 1]), (e.task[i], e.cpu[i]));
        }
    }
}

/// Under the cfs_rq-based throttle (≤6.17) a throttled group's tasks stay queued but cannot
/// run: CPU 0 has a task waiting only while /capped has quota, i.e. while CPU 0 runs.
#[test]
fn legacy_throttled_tasks_do_not_wait() {
    let body = r#"
[[cgroups]]
path = "/capped"
quota = "3ms"
period = "10ms"
[[tasks]]
name = "q1"
cgroup = "/capped"
affinity = [0]
program = [{ run = "forever" }]
[[tasks]]
name = "q2"
cgroup = "/capped"
affinity = [0]
program = [{ run = "forever" }]
"#;
    let (_, s) = run(body, &[("throttle", "cfs_rq")]);
    by_cpu_sums(&s);
    let busy0 = 50 * MS - s.cpu_idle_ns[0];
    assert!(busy0 < 25 * MS, "the quota throttles: busy {busy0}");
    assert_eq!(s.idle_while_overloaded_ns, vec![0, busy0]);
    // The task-based throttle dequeues each task as it returns to user space: never more.
    let (_, s) = run(body, &[]);
    by_cpu_sums(&s);
    assert!(s.idle_while_overloaded_ns[1] <= 50 * MS - s.cpu_idle_ns[0]);
}
