//! What the replay view reads of an imported trace (`import::timeline`, `import::inspect`,
//! `import::align`), against the five Linux 6.18.44 captures in `traces/linux-6.18`:
//! the tracefs text and the `.dat` of one capture give the same spans; the spans agree with the
//! replay's own observed runs (`replay::observe`, written separately); the bpftrace EEVDF dump
//! lands on the trace's switch-outs once aligned.

#![allow(clippy::disallowed_methods)] // reads trace files

mod common;

use schedlab_engine::import::align::{align, shifted, TOLERANCE_NS};
use schedlab_engine::import::dat::decode_all;
use schedlab_engine::import::inspect::{record_near, view};
use schedlab_engine::import::record::EevdfEntity;
use schedlab_engine::import::timeline::{TraceTimeline, LOST, NONE, OPEN};
use schedlab_engine::import::{TextImporter, TraceStore};
use schedlab_engine::replay::observe::Observed;
use std::path::PathBuf;

const CAPTURES: [&str; 5] = ["bandwidth-30-of-100", "cgroup-shares", "nice-0-vs-2", "sleeper-vs-hog", "yield-vs-hog"];

fn capture(exp: &str, file: &str) -> PathBuf {
    common::traces().join("linux-6.18").join(exp).join(file)
}

fn text(exp: &str, file: &str) -> TraceStore {
    let bytes = std::fs::read(capture(exp, file)).expect("read trace");
    let mut store = TraceStore::new();
    let mut imp = TextImporter::new();
    for chunk in bytes.chunks(1 << 16) {
        imp.feed(chunk, &mut store);
    }
    imp.finish(&mut store);
    store
}

fn dat(exp: &str) -> TraceStore {
    let bytes = std::fs::read(capture(exp, "trace.dat")).expect("read trace.dat");
    let mut store = TraceStore::new();
    decode_all(&bytes, &mut store).expect("decode");
    store
}

/// (pid, cpu, start, end, state) of every span.
fn spans(store: &TraceStore, tl: &TraceTimeline) -> Vec<(i32, u32, u64, u64, u32)> {
    (0..tl.ncpus as usize)
        .flat_map(|c| (tl.cpu_first[c]..tl.cpu_first[c + 1]).map(move |i| (c, i as usize)))
        .map(|(c, i)| (store.tasks[tl.task[i] as usize].pid, c as u32, tl.start[i], tl.end[i], tl.state[i]))
        .collect()
}

/// Panics at the first difference (not with two whole lists).
fn same<T: PartialEq + std::fmt::Debug>(a: &[T], b: &[T], what: &str) {
    if let Some(i) = (0..a.len().min(b.len())).find(|&i| a[i] != b[i]) {
        panic!("{what}: first difference at {i}: {:?} vs {:?}", a[i], b[i]);
    }
    assert_eq!(a.len(), b.len(), "{what}: lengths");
}

/// The text forms print µs (6 decimals); the `.dat` has ns.
/// (tracefs rounds to the nearest µs, as the kernel's `ns2usecs()` does.)
fn us(t: u64) -> u64 {
    if t == u64::MAX {
        t
    } else {
        (t + 500) / 1000 * 1000
    }
}

#[test]
fn text_and_dat_give_the_same_spans_and_wakeup_links() {
    for exp in CAPTURES {
        let (t, d) = (text(exp, "trace.txt"), dat(exp));
        let (tt, dt) = (TraceTimeline::build(&t), TraceTimeline::build(&d));
        assert!(tt.len() > 100, "{exp}: {} spans", tt.len());
        let d_us: Vec<_> = spans(&d, &dt).into_iter().map(|(p, c, s, e, st)| (p, c, us(s), us(e), st)).collect();
        same(&spans(&t, &tt), &d_us, exp);
        same(&tt.wake_run_ts, &dt.wake_run_ts.iter().map(|&t| us(t)).collect::<Vec<_>>(), exp);
        assert_eq!(tt.wake_run_cpu, dt.wake_run_cpu, "{exp}");
        assert_eq!(tt.discontinuities, dt.discontinuities, "{exp}");
        // Open spans are the last of their CPU; a span without its switch-out is open or lost.
        for c in 0..tt.ncpus as usize {
            for i in tt.cpu_first[c] as usize..tt.cpu_first[c + 1] as usize {
                assert!(tt.state[i] != OPEN || i + 1 == tt.cpu_first[c + 1] as usize, "{exp} span {i}");
                assert_eq!(tt.switch_out[i] == NONE, tt.state[i] == OPEN || tt.state[i] == LOST, "{exp} span {i}");
            }
        }
    }
}

#[test]
fn spans_are_the_observed_runs_of_the_replay() {
    for exp in CAPTURES {
        let store = text(exp, "trace.txt");
        let tl = TraceTimeline::build(&store);
        // Observed runs begin at a switch-in, or (issue 18) at the record that revealed a task
        // on its CPU after a missing switch-out; the task on a CPU before its first switch gets
        // none there.
        let begun: Vec<bool> = (0..tl.ncpus as usize)
            .flat_map(|c| (tl.cpu_first[c] as usize..tl.cpu_first[c + 1] as usize).map(move |i| (c, i)))
            .map(|(c, i)| tl.switch_in[i] != NONE || i > tl.cpu_first[c] as usize)
            .collect();
        let mut mine: Vec<(i32, u32, u64, u64)> = spans(&store, &tl)
            .into_iter()
            .zip(begun)
            .filter(|&((_, _, s, e, _), b)| b && e > s)
            .map(|((pid, c, s, e, _), _)| (pid, c, s, e))
            .collect();
        let bytes = std::fs::read(capture(exp, "trace.txt")).unwrap();
        let mut obs = Observed::default();
        let mut imp = TextImporter::new();
        imp.feed(&bytes, &mut obs);
        imp.finish(&mut obs);
        obs.finish();
        // The replay counts missing switch-outs only after a switch-in on the CPU; the timeline
        // also before the CPU's first switch.
        assert!(tl.discontinuities >= obs.missing_switches && obs.missing_switches > 0, "{exp}");
        let mut theirs: Vec<(i32, u32, u64, u64)> = obs
            .runs
            .iter()
            .map(|r| (obs.tasks[r.task as usize].pid, r.cpu, r.start, r.end))
            .filter(|r| r.0 != 0)
            .collect();
        mine.sort_unstable();
        theirs.sort_unstable();
        same(&mine, &theirs, exp);
    }
}

#[test]
fn merged_window_keeps_every_span_counted() {
    let store = text("sleeper-vs-hog", "trace.txt");
    let tl = TraceTimeline::build(&store);
    let all = tl.spans(tl.t0, tl.t1 + 1, 1);
    assert_eq!(all.len(), tl.len());
    // 1,000 buckets over the whole trace: at most about two spans per bucket per CPU.
    let bucket = (tl.t1 - tl.t0) / 1000;
    let merged = tl.spans(tl.t0, tl.t1 + 1, bucket);
    assert!(merged.len() < 2 * 1000 * tl.ncpus as usize + 10, "{}", merged.len());
    assert!(merged.len() < all.len() / 2, "{} of {}", merged.len(), all.len());
    assert_eq!(merged.count.iter().map(|&c| c as usize).sum::<usize>(), tl.len());
}

#[test]
fn record_under_a_span_end_is_its_switch() {
    let store = text("yield-vs-hog", "trace.txt");
    let tl = TraceTimeline::build(&store);
    let i = (0..tl.len()).find(|&i| tl.switch_out[i] != NONE && tl.end[i] > tl.start[i]).unwrap();
    let c = (0..tl.ncpus).find(|&c| tl.cpu_first[c as usize + 1] as usize > i).unwrap();
    let r = record_near(&store, c, tl.end[i], 0).expect("a record at the span's end");
    let v = view(&store, r);
    assert!(v.event == "sched_switch" || v.event == "sched_stat_runtime", "{v:?}");
    let sw = view(&store, schedlab_engine::import::inspect::RecordRef::Switch(tl.switch_out[i] as usize));
    assert_eq!(sw.ts_ns, tl.end[i]);
    assert_eq!(sw.fields[1].1, store.tasks[tl.task[i] as usize].pid.to_string());
}

#[test]
fn eevdf_dumps_align_to_their_traces() {
    for exp in CAPTURES {
        let store = text(exp, "trace.txt");
        let dump = text(exp, "eevdf-state.txt");
        let a = align(&store, &dump.eevdf);
        println!("{exp}: {a:?}");
        assert!(a.accepted, "{exp}: {a:?}");
        assert!(a.matched * 10 >= a.in_trace * 9, "{exp}: {a:?}");
        assert!(a.median_error_ns <= TOLERANCE_NS / 5, "{exp}: {a:?}");
        // The shifted S lines of the k_* tasks sit on their switch-outs.
        let moved = shifted(&dump.eevdf, a.offset_ns);
        let k = moved
            .iter()
            .filter(|s| matches!(&s.entity, EevdfEntity::Task { comm, .. } if comm.starts_with("k_")))
            .filter(|s| s.ts_ns >= store.first_ts.unwrap() && s.ts_ns <= store.last_ts)
            .count();
        assert!(k > 0, "{exp}");
        // A dump against the wrong capture does not align.
        let other = text(if exp == "nice-0-vs-2" { "yield-vs-hog" } else { "nice-0-vs-2" }, "trace.txt");
        let b = align(&other, &dump.eevdf);
        assert!(!b.accepted, "{exp} against another capture: {b:?}");
    }
}

/// The runqueue depths of the `traces/linux-6.18-smp` captures (`import::depth`): a CPU running
/// a task has depth ≥ 1 at the middle of each span; three hogs on two CPUs keep one CPU at depth
/// 2 or more most of the time and both CPUs barely idle; idle-while-overloaded never exceeds idle.
#[test]
fn runqueue_depth_of_the_smp_captures() {
    for exp in
        ["three-hogs-two-cpus", "nice-imbalance-smp", "sleepers-and-hogs-smp", "cgroup-shares-smp", "pipe-pair-and-hog"]
    {
        let bytes =
            std::fs::read(common::traces().join("linux-6.18-smp").join(exp).join("trace.dat")).expect("read trace.dat");
        let mut store = TraceStore::new();
        decode_all(&bytes, &mut store).expect("decode");
        let tl = TraceTimeline::build(&store);
        let d = &tl.depth;
        assert_eq!(d.cpus.len(), 2, "{exp}");
        for c in 0..tl.ncpus as usize {
            for i in tl.cpu_first[c] as usize..tl.cpu_first[c + 1] as usize {
                let mid = tl.start[i] + (tl.end[i] - tl.start[i]) / 2;
                // (Not before a CPU's first switch: the depth counts a task from its first record.)
                if tl.end[i] > tl.start[i] && tl.switch_in[i] != NONE && tl.state[i] != LOST {
                    assert!(d.at(c, mid) >= 1, "{exp}: CPU {c} runs a task at {mid} with depth 0");
                }
            }
        }
        for r in &d.cpus {
            assert!(r.idle_while_overloaded_ns <= r.idle_ns, "{exp}: {r:?}");
            assert!(r.idle_ns <= tl.t1 - tl.t0, "{exp}: {r:?}");
            eprintln!("{exp}: {r:?} of {} ms", (tl.t1 - tl.t0) / 1_000_000);
        }
        if exp == "three-hogs-two-cpus" {
            let dur = tl.t1 - tl.t0;
            // Three runnable hogs on two CPUs: the depths add up to about 3 on average.
            let total: u64 = d.cpus.iter().map(|r| r.mean_depth_milli).sum();
            assert!((2700..=3600).contains(&total), "mean depths add up to {total}/1000");
            for r in &d.cpus {
                assert!(r.max_depth >= 2, "{r:?}");
                assert!(r.idle_ns < dur / 20, "{r:?}");
            }
        }
    }
}

/// Each task's thread states (`import::thread_states`) on the SMP captures: in time order, back
/// to back but where the trace shows one task running on two CPUs at once (a lost record: both
/// runs count), its Running time equal to its run spans' total, Running only inside a
/// span of its CPU, and the three hogs of `three-hogs-two-cpus` always Running or waiting
/// (never asleep) with about a third of their time spent preempted.
#[test]
fn thread_states_of_the_smp_captures() {
    use schedlab_engine::import::thread_states::{ThreadState, ThreadStates};
    for exp in
        ["three-hogs-two-cpus", "nice-imbalance-smp", "sleepers-and-hogs-smp", "cgroup-shares-smp", "pipe-pair-and-hog"]
    {
        let bytes =
            std::fs::read(common::traces().join("linux-6.18-smp").join(exp).join("trace.dat")).expect("read trace.dat");
        let mut store = TraceStore::new();
        decode_all(&bytes, &mut store).expect("decode");
        let tl = TraceTimeline::build(&store);
        let st = ThreadStates::build(&store, &tl);
        let mut span_ns = vec![0u64; store.tasks.len()];
        for i in 0..tl.len() {
            if store.tasks[tl.task[i] as usize].pid != 0 {
                span_ns[tl.task[i] as usize] += tl.end[i] - tl.start[i];
            }
        }
        for (t, &spans_total) in span_ns.iter().enumerate() {
            let (a, b) = (st.first[t] as usize, st.first[t + 1] as usize);
            for i in a..b {
                assert!(st.start[i] < st.end[i], "{exp}: task {t} segment {i} is empty");
                if i > a {
                    let overlap = st.start[i] < st.end[i - 1];
                    let both_running = st.state[i] == ThreadState::Running && st.state[i - 1] == ThreadState::Running;
                    assert!(st.start[i] >= st.start[i - 1], "{exp}: task {t}: segment {i} out of order");
                    assert!(!overlap || both_running, "{exp}: task {t}: segments {} and {i} overlap", i - 1);
                }
                if st.state[i] == ThreadState::Running {
                    let c = st.cpu[i];
                    let s = tl.span_at(c, st.start[i]).expect("a span of its CPU");
                    assert_eq!(tl.task[s] as usize, t, "{exp}: task {t} Running on CPU {c} in another task's span");
                }
            }
            let running = st.totals[t][ThreadState::Running as usize];
            assert_eq!(running, spans_total, "{exp}: task {t} ({}) Running vs its spans", store.tasks[t].pid);
            assert_eq!(
                st.time_in(t, tl.t0, tl.t1 + 1),
                st.totals[t],
                "{exp}: task {t} totals vs time_in over the trace"
            );
        }
        if exp == "three-hogs-two-cpus" {
            let comm = |t: &schedlab_engine::import::store::Task| store.task_comm(t);
            for (t, task) in store.tasks.iter().enumerate() {
                if !comm(task).ends_with("k_a") && !comm(task).ends_with("k_b") && !comm(task).ends_with("k_c") {
                    continue;
                }
                let tot = st.totals[t];
                let first = st.start[st.first[t] as usize];
                let all = tl.t1 - first;
                let waiting = tot[ThreadState::Runnable as usize] + tot[ThreadState::Preempted as usize];
                let asleep = tot[ThreadState::Sleeping as usize] + tot[ThreadState::Uninterruptible as usize];
                eprintln!("{exp} {}: running {} waiting {} asleep {} of {all} ns", comm(task), tot[0], waiting, asleep);
                assert!(asleep < all / 100, "{}: asleep {asleep} of {all}", comm(task));
                assert!((all / 4..all / 2).contains(&waiting), "{}: waiting {waiting} of {all}", comm(task));
            }
        }
    }
}
