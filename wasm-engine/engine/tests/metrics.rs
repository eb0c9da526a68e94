//! `import::metrics`: the window figures of a small hand-made tracefs trace against values
//! worked out by hand (CPU time, switches, involuntary switches, wakeup latencies, migrations,
//! thread-state times, runqueue depth, idle while overloaded), clipped to a window and to a CPU;
//! then properties on the real captures: over the whole trace the CPU figures equal
//! `depth::RunqueueDepth`'s, a window split in two adds up, and each CPU's busy time is the sum of
//! its tasks' CPU time.

#![allow(clippy::disallowed_methods)] // reads trace files

mod common;

use schedlab_engine::import::dat::decode_all;
use schedlab_engine::import::metrics::{
    percentile, thread_states, window_metrics, MetricsWindow, StateTimes, TaskMetrics, ThreadState, WindowMetrics,
};
use schedlab_engine::import::timeline::TraceTimeline;
use schedlab_engine::import::{import_text, TraceStore};

const US: u64 = 1000;
const T0: u64 = 1_000_000_000;

fn rec(comm_pid: &str, cpu: u32, us: u64, ev: &str) -> String {
    format!("{comm_pid:>16} [{cpu:03}] d..2. {}.{:06}: {ev}\n", 1 + us / 1_000_000, us % 1_000_000)
}

fn switch(prev: (&str, i32), st: &str, next: (&str, i32)) -> String {
    format!(
        "sched_switch: prev_comm={} prev_pid={} prev_prio=120 prev_state={st} ==> next_comm={} next_pid={} next_prio=120",
        prev.0, prev.1, next.0, next.1
    )
}

fn wake(ev: &str, comm: &str, pid: i32, target: u32) -> String {
    format!("{ev}: comm={comm} pid={pid} prio=120 target_cpu={target:03}")
}

const A: (&str, i32) = ("a", 10);
const B: (&str, i32) = ("b", 11);
const C: (&str, i32) = ("c", 12);

/// Two CPUs, 1200 µs (times below in µs after the first record):
/// CPU 0: a runs 0–150 (then preempted by b, R+), b 150–400 (S), a 400–700 (D), idle, a 1000–1200 (S).
/// CPU 1: c 50–600 (R: switched out runnable), b 600–800 (S), c from 800 to the end.
/// Wakeups: b at 100 (on CPU 0), b at 500 (onto CPU 1, migrated 0 → 1), a at 900 (from CPU 1).
fn trace() -> String {
    let mut s = "# tracer: nop\n".to_string();
    s += &rec("<idle>-0", 0, 0, &switch(("swapper/0", 0), "R", A));
    s += &rec("<idle>-0", 1, 50, &switch(("swapper/1", 0), "R", C));
    s += &rec("a-10", 0, 100, &wake("sched_waking", "b", 11, 0));
    s += &rec("a-10", 0, 100, &wake("sched_wakeup", "b", 11, 0));
    s += &rec("a-10", 0, 150, &switch(A, "R+", B));
    s += &rec("b-11", 0, 400, &switch(B, "S", A));
    s += &rec("a-10", 0, 500, &wake("sched_waking", "b", 11, 1));
    s += &rec("a-10", 0, 500, "sched_migrate_task: comm=b pid=11 prio=120 orig_cpu=0 dest_cpu=1");
    s += &rec("a-10", 0, 500, &wake("sched_wakeup", "b", 11, 1));
    s += &rec("c-12", 1, 600, &switch(C, "R", B));
    s += &rec("a-10", 0, 700, &switch(A, "D", ("swapper/0", 0)));
    s += &rec("b-11", 1, 800, &switch(B, "S", C));
    s += &rec("c-12", 1, 900, &wake("sched_waking", "a", 10, 0));
    s += &rec("c-12", 1, 900, &wake("sched_wakeup", "a", 10, 0));
    s += &rec("<idle>-0", 0, 1000, &switch(("swapper/0", 0), "R", A));
    s += &rec("a-10", 0, 1200, &switch(A, "S", ("swapper/0", 0)));
    s
}

fn metrics(w: &MetricsWindow) -> WindowMetrics {
    let (store, stats) = import_text(trace().as_bytes());
    assert_eq!((stats.skipped_lines, stats.records), (0, 16), "{stats:?}");
    let tl = TraceTimeline::build(&store);
    window_metrics(&store, &tl, w)
}

fn task<'a>(m: &'a WindowMetrics, comm: &str) -> &'a TaskMetrics {
    m.tasks.iter().find(|t| t.comm == comm).unwrap_or_else(|| panic!("no task {comm}"))
}

/// (cpu, switches, involuntary, preempted, migrations) in µs for times.
fn counts(t: &TaskMetrics) -> (u64, u64, u64, u64, u64) {
    (t.cpu_ns / US, t.switches, t.involuntary, t.preempted, t.migrations)
}

/// running, runnable, preempted, sleeping, uninterruptible, other, unknown (ns).
fn states_ns(s: &StateTimes) -> [u64; 7] {
    [s.running_ns, s.runnable_ns, s.preempted_ns, s.sleeping_ns, s.uninterruptible_ns, s.other_ns, s.unknown_ns]
}

/// The same in µs.
fn states(s: &StateTimes) -> [u64; 7] {
    states_ns(s).map(|v| v / US)
}

#[test]
fn whole_trace_by_hand() {
    let m = metrics(&MetricsWindow::all());
    assert_eq!((m.t0, m.t1, m.window_ns), (T0, T0 + 1200 * US, 1200 * US));
    // In the store's order (first seen).
    let comms: Vec<_> = m.tasks.iter().map(|t| t.comm.as_str()).collect();
    assert_eq!(comms, ["a", "c", "b"]);
    let (a, b, c) = (task(&m, "a"), task(&m, "b"), task(&m, "c"));
    // a: runs 150 + 300 + 200; switched in at 0, 400, 1000; preempted once (R+ at 150).
    assert_eq!(counts(a), (650, 3, 1, 1, 0));
    // R+ 150–400, D 700–900, woken at 900, runs at 1000: runnable 100.
    assert_eq!(states(&a.states), [650, 100, 250, 0, 200, 0, 0]);
    assert_eq!(a.latencies_ns, [100 * US]);
    // b: first seen at its wakeup (100), runs 150–400 and 600–800 (CPU 1: one migration).
    assert_eq!(counts(b), (450, 2, 0, 0, 1));
    assert_eq!(states(&b.states), [450, 150, 0, 500, 0, 0, 0]);
    assert_eq!(b.latencies_ns, [50 * US, 100 * US]);
    let l = &b.wakeup_latency;
    assert_eq!(
        (l.count, l.p50_ns, l.p90_ns, l.p99_ns, l.max_ns, l.mean_ns),
        (2, Some(50 * US), Some(100 * US), Some(100 * US), Some(100 * US), Some(75 * US))
    );
    // c: runs 50–600 and 800–1200 (still running at the end); switched out runnable once.
    assert_eq!(counts(c), (950, 2, 1, 0, 0));
    assert_eq!(states(&c.states), [950, 200, 0, 0, 0, 0, 0]);
    assert_eq!(c.wakeup_latency.count, 0);
    assert_eq!(c.wakeup_latency.p50_ns, None);

    let (c0, c1) = (&m.cpus[0], &m.cpus[1]);
    // CPU 0: depth 1 (a) 0–100, 2 (b woken) 100–400, 1 400–700, 0 700–900, 1 (a woken) 900–1200.
    assert_eq!((c0.busy_ns / US, c0.switches, c0.known_ns / US), (900, 5, 1200));
    assert_eq!(c0.depth_ns.iter().map(|d| d / US).collect::<Vec<_>>(), [200, 700, 300]);
    assert_eq!((c0.max_depth, c0.mean_depth_milli, c0.idle_ns / US), (2, 1083, 200));
    // Idle 700–900 while CPU 1 held c and b (500–800).
    assert_eq!(c0.idle_while_overloaded_ns / US, 100);
    // CPU 1 known from its first switch (50): depth 1 50–500, 2 500–800, 1 800–1200.
    assert_eq!((c1.busy_ns / US, c1.switches, c1.known_ns / US), (1150, 3, 1150));
    assert_eq!(c1.depth_ns.iter().map(|d| d / US).collect::<Vec<_>>(), [0, 850, 300]);
    assert_eq!((c1.max_depth, c1.mean_depth_milli, c1.idle_ns, c1.idle_while_overloaded_ns), (2, 1260, 0, 0));
}

#[test]
fn a_window_clips_at_both_ends() {
    let m = metrics(&MetricsWindow { t0: Some(T0 + 300 * US), t1: Some(T0 + 1100 * US), cpus: None });
    assert_eq!(m.window_ns, 800 * US);
    let (a, b, c) = (task(&m, "a"), task(&m, "b"), task(&m, "c"));
    // a: runs 400–700 and 1000–1100; its R+ switch-out at 150 is before the window.
    assert_eq!(counts(a), (400, 2, 0, 0, 0));
    assert_eq!(states(&a.states), [400, 100, 100, 0, 200, 0, 0]);
    assert_eq!(a.latencies_ns, [100 * US]);
    // b: its wakeup at 100 is before the window, the one at 500 in it.
    assert_eq!(counts(b), (300, 1, 0, 0, 1));
    assert_eq!(states(&b.states), [300, 100, 0, 400, 0, 0, 0]);
    assert_eq!(b.latencies_ns, [100 * US]);
    assert_eq!(counts(c), (600, 1, 1, 0, 0));
    assert_eq!(states(&c.states), [600, 200, 0, 0, 0, 0, 0]);
    for t in &m.tasks {
        assert_eq!(states(&t.states).iter().sum::<u64>(), 800, "{}: every state of the window", t.comm);
    }
    let (c0, c1) = (&m.cpus[0], &m.cpus[1]);
    assert_eq!(c0.depth_ns.iter().map(|d| d / US).collect::<Vec<_>>(), [200, 500, 100]);
    assert_eq!((c0.busy_ns / US, c0.idle_while_overloaded_ns / US, c0.switches), (500, 100, 3));
    assert_eq!(c1.depth_ns.iter().map(|d| d / US).collect::<Vec<_>>(), [0, 500, 300]);
    assert_eq!(c1.busy_ns / US, 800);
}

#[test]
fn a_cpu_selection_counts_what_ran_there() {
    let m = metrics(&MetricsWindow { cpus: Some(vec![1]), ..MetricsWindow::all() });
    assert_eq!(m.cpus_selected, Some(vec![1]));
    assert_eq!(m.cpus.iter().map(|c| c.cpu).collect::<Vec<_>>(), [1]);
    let (a, b, c) = (task(&m, "a"), task(&m, "b"), task(&m, "c"));
    // a never ran on CPU 1; its other states are its own.
    assert_eq!(counts(a), (0, 0, 0, 0, 0));
    assert_eq!(states(&a.states), [0, 100, 250, 0, 200, 0, 0]);
    assert!(a.latencies_ns.is_empty());
    // b: the run on CPU 1 and the wakeup that led there; the migration reached CPU 1.
    assert_eq!(counts(b), (200, 1, 0, 0, 1));
    assert_eq!(b.latencies_ns, [100 * US]);
    assert_eq!(counts(c), (950, 2, 1, 0, 0));
}

#[test]
fn thread_state_segments_by_hand() {
    let (store, _) = import_text(trace().as_bytes());
    let tl = TraceTimeline::build(&store);
    let b = store.tasks.iter().position(|t| t.pid == 11).unwrap() as u32;
    let seg = |w: &MetricsWindow| -> Vec<(u64, u64, ThreadState, Option<u32>)> {
        thread_states(&store, &tl, b, w)
            .iter()
            .map(|x| ((x.start - T0) / US, (x.end - T0) / US, x.state, x.cpu))
            .collect()
    };
    use ThreadState::*;
    assert_eq!(
        seg(&MetricsWindow::all()),
        [
            (100, 150, Runnable, None),
            (150, 400, Running, Some(0)),
            (400, 500, Sleeping, None),
            (500, 600, Runnable, None),
            (600, 800, Running, Some(1)),
            (800, 1200, Sleeping, None)
        ]
    );
    let w = MetricsWindow { t0: Some(T0 + 300 * US), t1: Some(T0 + 550 * US), cpus: None };
    assert_eq!(seg(&w), [(300, 400, Running, Some(0)), (400, 500, Sleeping, None), (500, 550, Runnable, None)]);
}

#[test]
fn a_task_on_two_cpus_at_once_counts_both_runs() {
    // x's switch-out on CPU 0 is lost: the trace ends with x current on both CPUs.
    let mut s = "# tracer: nop\n".to_string();
    s += &rec("<idle>-0", 0, 0, &switch(("swapper/0", 0), "R", ("x", 20)));
    s += &rec("<idle>-0", 1, 100, &switch(("swapper/1", 0), "R", ("x", 20)));
    s += &rec("x-20", 1, 400, &wake("sched_waking", "y", 21, 1));
    s += &rec("x-20", 0, 500, &wake("sched_waking", "y", 21, 1));
    let (store, _) = import_text(s.as_bytes());
    let tl = TraceTimeline::build(&store);
    let m = window_metrics(&store, &tl, &MetricsWindow::all());
    let x = task(&m, "x");
    assert_eq!((x.cpu_ns / US, x.switches), (500 + 400, 2));
    assert_eq!(m.cpus.iter().map(|c| c.busy_ns / US).collect::<Vec<_>>(), [500, 400]);
    // y was woken at 400 (the second wake record is the same wakeup) and never ran: runnable to
    // the end, no latency.
    let y = task(&m, "y");
    assert_eq!((states(&y.states), y.wakeup_latency.count), ([0, 100, 0, 0, 0, 0, 0], 0));
}

#[test]
fn csv_tables() {
    let m = metrics(&MetricsWindow::all());
    let csv = m.csv();
    let lines: Vec<&str> = csv.lines().collect();
    assert!(lines[0]
        .starts_with("pid,generation,comm,cpu_ns,switches,involuntary,preempted,migrations,wakeups,latency_p50_ns"));
    assert_eq!(lines[3], "11,0,b,450000,2,0,0,1,2,50000,100000,100000,100000,75000,450000,150000,0,500000,0,0,0");
    // c has no wakeup: empty latency fields.
    assert_eq!(lines[2], "12,0,c,950000,2,1,0,0,0,,,,,,950000,200000,0,0,0,0,0");
    assert_eq!(lines[4], "");
    assert_eq!(lines[5], "cpu,busy_ns,switches,known_ns,idle_ns,idle_while_overloaded_ns,max_depth,mean_depth,depth_0_ns,depth_1_ns,depth_2_ns");
    assert_eq!(lines[6], "0,900000,5,1200000,200000,100000,2,1.083,200000,700000,300000");
    assert_eq!(lines.len(), 8);
    // A comm with a comma or a quote is quoted, its quotes doubled.
    let mut odd = m.clone();
    odd.tasks[0].comm = "Web Content, \"x\"".into();
    assert!(odd.csv().lines().nth(1).unwrap().starts_with("10,0,\"Web Content, \"\"x\"\"\",650000,"));
}

#[test]
fn nearest_rank_percentiles() {
    let v: Vec<u64> = (1..=100).collect();
    assert_eq!([50, 90, 99, 100].map(|p| percentile(&v, p)), [50, 90, 99, 100]);
    assert_eq!(percentile(&[1, 2, 3], 50), 2);
    assert_eq!(percentile(&[7], 99), 7);
}

fn dat(path: &str) -> (TraceStore, TraceTimeline) {
    let bytes = std::fs::read(common::traces().join(path)).expect("read trace.dat");
    let mut store = TraceStore::new();
    decode_all(&bytes, &mut store).expect("decode");
    let tl = TraceTimeline::build(&store);
    (store, tl)
}

const REAL: [&str; 4] = [
    "linux-6.18/sleeper-vs-hog/trace.dat",
    "linux-6.18-smp/three-hogs-two-cpus/trace.dat",
    "linux-6.18-smp/pipe-pair-and-hog/trace.dat",
    "linux-6.18-ab/base-1/trace.dat",
];

#[test]
fn whole_trace_cpu_figures_are_the_runqueue_depths() {
    for path in REAL {
        let (store, tl) = dat(path);
        let m = window_metrics(&store, &tl, &MetricsWindow::all());
        for (c, r) in m.cpus.iter().zip(&tl.depth.cpus) {
            assert_eq!(
                (c.idle_ns, c.idle_while_overloaded_ns, c.mean_depth_milli),
                (r.idle_ns, r.idle_while_overloaded_ns, r.mean_depth_milli),
                "{path} CPU {}",
                c.cpu
            );
            assert!(c.max_depth <= r.max_depth, "{path} CPU {}", c.cpu);
            let on_it: u64 =
                tl.start.iter().enumerate().filter(|&(i, _)| tl.cpu_of(i) == c.cpu).map(|(i, &s)| tl.end[i] - s).sum();
            assert_eq!(c.busy_ns, on_it, "{path} CPU {}", c.cpu);
        }
        let cpu: u64 = m.tasks.iter().map(|t| t.cpu_ns).sum();
        assert_eq!(cpu, m.cpus.iter().map(|c| c.busy_ns).sum::<u64>(), "{path}: tasks' CPU time = CPUs' busy time");
        for t in &m.tasks {
            assert_eq!(t.states.running_ns, t.cpu_ns, "{path} {}", t.comm);
            // The thread-state segments sum to the state times.
            let mut by_state = [0u64; 7];
            for x in thread_states(&store, &tl, t.task, &MetricsWindow::all()) {
                // Idle and Stopped are both "other" in the state times.
                let k = match x.state {
                    ThreadState::Idle | ThreadState::Stopped => 5,
                    ThreadState::Unknown => 6,
                    s => s as usize,
                };
                by_state[k] += x.end - x.start;
            }
            assert_eq!(by_state, states_ns(&t.states), "{path} {}", t.comm);
            // The states add up to at most the window, plus the time the trace shows the task on
            // two CPUs at once (pipe-pair-and-hog: k_p once, 0.3 ms, around a lost switch).
            let mut runs: Vec<(u64, u64)> =
                (0..tl.len()).filter(|&i| tl.task[i] == t.task).map(|i| (tl.start[i], tl.end[i])).collect();
            runs.sort_unstable();
            let twice: u64 = runs.windows(2).map(|w| w[0].1.min(w[1].1).saturating_sub(w[1].0)).sum();
            let known: u64 = states_ns(&t.states).iter().sum();
            assert!(known <= m.window_ns + twice, "{path} {}: {known} > {} + {twice}", t.comm, m.window_ns);
        }
    }
}

#[test]
fn a_window_split_in_two_adds_up() {
    for path in REAL {
        let (store, tl) = dat(path);
        let mid = tl.t0 + (tl.t1 - tl.t0) * 2 / 5;
        let whole = window_metrics(&store, &tl, &MetricsWindow::all());
        let left = window_metrics(&store, &tl, &MetricsWindow { t1: Some(mid), ..MetricsWindow::all() });
        let right = window_metrics(&store, &tl, &MetricsWindow { t0: Some(mid), ..MetricsWindow::all() });
        assert_eq!(left.window_ns + right.window_ns, whole.window_ns);
        for t in &whole.tasks {
            let part = |m: &WindowMetrics| m.tasks.iter().find(|x| x.task == t.task).cloned().unwrap_or_default();
            let (l, r) = (part(&left), part(&right));
            let sum = |f: fn(&TaskMetrics) -> u64| f(&l) + f(&r);
            assert_eq!(sum(|x| x.cpu_ns), t.cpu_ns, "{path} {}", t.comm);
            assert_eq!(sum(|x| x.switches), t.switches, "{path} {}", t.comm);
            assert_eq!(sum(|x| x.involuntary), t.involuntary, "{path} {}", t.comm);
            assert_eq!(sum(|x| x.migrations), t.migrations, "{path} {}", t.comm);
            let mut lat = [l.latencies_ns.clone(), r.latencies_ns.clone()].concat();
            lat.sort_unstable();
            assert_eq!(lat, t.latencies_ns, "{path} {}", t.comm);
            let st: Vec<u64> = states_ns(&l.states).iter().zip(states_ns(&r.states)).map(|(a, b)| a + b).collect();
            assert_eq!(st, states_ns(&t.states), "{path} {}", t.comm);
        }
        for (c, w) in whole.cpus.iter().enumerate() {
            let (l, r) = (&left.cpus[c], &right.cpus[c]);
            assert_eq!(l.busy_ns + r.busy_ns, w.busy_ns, "{path} CPU {c}");
            assert_eq!(l.switches + r.switches, w.switches, "{path} CPU {c}");
            assert_eq!(
                l.idle_while_overloaded_ns + r.idle_while_overloaded_ns,
                w.idle_while_overloaded_ns,
                "{path} CPU {c}"
            );
            for d in 0..w.depth_ns.len() {
                let at = |m: &[u64]| m.get(d).copied().unwrap_or(0);
                assert_eq!(at(&l.depth_ns) + at(&r.depth_ns), w.depth_ns[d], "{path} CPU {c} depth {d}");
            }
        }
    }
}
