//! The pipe pair's run costs, from a capture made for them (`traces/linux-6.18-pipe-costs`):
//! `workers pipe k_p k_q 1.5 50` beside a hog on the v669 machine, without the bpftrace dump,
//! the workload of `traces/linux-6.18-smp/pipe-pair-and-hog`.
//!
//! A run of the pair is the CPU time the kernel charged it between its switch-in and its
//! switch-out (the sum of its `sched_stat_runtime` records there: the accounting the vruntime
//! follows, not the switches' timestamps). Runs that end `S` (the reader that finds the pipe
//! empty and blocks) are charged more than runs that end `R` (the writer whose wakee preempted
//! it): the blocking read, and the writer's tail after `try_to_wake_up()`, which the wakeup's
//! `rq_clock_skip_update()` hands to the next task. The difference is the pipe step's
//! `block_cost`; the spread of the runs (the central 90 % of each kind, pooled) is its
//! `work_jitter` as a uniform half-width (σ·√3).
//!
//! `scenarios/linux-6.18-smp/pipe-pair-and-hog.toml` takes both from here, and its `work` keeps
//! the SMP capture's 55.92 µs per message on average (one blocking read per round trip of two
//! messages). This test recomputes them and holds the mirror to them: calibration arithmetic,
//! not evidence. The evidence is `fidelity_smp.rs`'s prediction of the SMP capture.

#![allow(clippy::disallowed_methods)] // reads trace files

mod common;

use schedlab_engine::import::record::{PrevState, SchedPayload};

/// The SMP mirror's calibrated CPU time per message (µs): the SMP capture's pair CPU time ÷
/// its messages (`docs/calibration.md`).
const SMP_MESSAGE_US: f64 = 55.92;

/// The pair's runs (ns of CPU charged), those that ended runnable and those that ended asleep.
fn pair_runs() -> (Vec<u64>, Vec<u64>) {
    let mut recs = common::dat_records(&common::traces().join("linux-6.18-pipe-costs/pipe-pair-and-hog/trace.dat"));
    recs.sort_by_key(|r| (r.ts_ns, r.line));
    let pair = |comm: &str| comm == "k_p" || comm == "k_q";
    // Per pair task: the CPU charged since its switch-in (None: not on a CPU in the trace yet).
    let mut charged: [Option<u64>; 2] = [None, None];
    let slot = |comm: &str| usize::from(comm == "k_q");
    let (mut ended_runnable, mut ended_asleep) = (Vec::new(), Vec::new());
    for r in &recs {
        match &r.payload {
            SchedPayload::Other { fields, .. } if r.event == "sched_stat_runtime" => {
                let field = |k: &str| fields.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
                let comm = field("comm").unwrap_or("");
                if pair(comm) {
                    let ns: u64 = field("runtime")
                        .and_then(|v| v.trim_end_matches(" [ns]").trim_end_matches("[ns]").trim().parse().ok())
                        .expect("runtime=N");
                    if let Some(c) = charged[slot(comm)].as_mut() {
                        *c += ns;
                    }
                }
            }
            SchedPayload::Switch { prev_comm, prev_state, next_comm, .. } => {
                if pair(prev_comm) {
                    if let Some(c) = charged[slot(prev_comm)].take().filter(|&c| c > 0) {
                        match prev_state {
                            PrevState::Runnable | PrevState::Preempted => ended_runnable.push(c),
                            _ => ended_asleep.push(c),
                        }
                    }
                }
                if pair(next_comm) {
                    charged[slot(next_comm)] = Some(0);
                }
            }
            _ => {}
        }
    }
    (ended_runnable, ended_asleep)
}

fn mean(v: &[u64]) -> f64 {
    v.iter().sum::<u64>() as f64 / v.len() as f64
}

/// The variance of the central 90 % of `v`.
fn core_variance(v: &[u64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_unstable();
    let core = &v[v.len() / 20..v.len() * 19 / 20];
    let m = mean(core);
    core.iter().map(|&x| (x as f64 - m).powi(2)).sum::<f64>() / core.len() as f64
}

/// The mirror's `pipe` step of `task`: (work, work_jitter, block_cost) in ns.
fn mirror_pipe(task: &str) -> (u64, u64, u64) {
    let path = common::repo_root().join("scenarios/linux-6.18-smp/pipe-pair-and-hog.toml");
    let text = std::fs::read_to_string(path).expect("mirror");
    let scenario: toml::Value = toml::from_str(&text).expect("toml");
    let tasks = scenario["tasks"].as_array().expect("tasks");
    let t = tasks.iter().find(|t| t["name"].as_str() == Some(task)).expect("the task");
    let pipe = &t["program"][0]["pipe"];
    let ns = |k: &str| -> u64 {
        let s = pipe[k].as_str().unwrap_or_else(|| panic!("{task}'s pipe has {k}"));
        let (num, scale) =
            if let Some(n) = s.strip_suffix("us") { (n, 1e3) } else { (s.strip_suffix("ns").expect("us or ns"), 1.0) };
        (num.parse::<f64>().expect("a number") * scale).round() as u64
    };
    (ns("work"), ns("work_jitter"), ns("block_cost"))
}

#[test]
fn the_mirror_takes_its_pipe_costs_from_the_v669_capture() {
    let (ended_runnable, ended_asleep) = pair_runs();
    let (n_r, n_s) = (ended_runnable.len(), ended_asleep.len());
    assert!(n_r > 10_000 && n_s > 10_000, "the pair's runs: {n_r} ended runnable, {n_s} asleep");
    let block_cost = mean(&ended_asleep) - mean(&ended_runnable);
    let sigma = ((core_variance(&ended_asleep) + core_variance(&ended_runnable)) / 2.0).sqrt();
    let jitter = sigma * 3f64.sqrt();
    let work = SMP_MESSAGE_US * 1e3 - block_cost / 2.0;
    println!(
        "runs ending R: {n_r}, mean {:.0} ns; ending S: {n_s}, mean {:.0} ns; block_cost {block_cost:.0} ns, \
         σ {sigma:.0} ns → work_jitter {jitter:.0} ns; work {work:.0} ns",
        mean(&ended_runnable),
        mean(&ended_asleep)
    );
    for task in ["k_p", "k_q"] {
        let (w, j, b) = mirror_pipe(task);
        println!("{task}: the mirror's work {w} ns, work_jitter {j} ns, block_cost {b} ns");
        assert!((b as f64 - block_cost).abs() <= 5.0, "{task}: block_cost {b} ns, the capture gives {block_cost:.0}");
        assert!((j as f64 - jitter).abs() <= 5.0, "{task}: work_jitter {j} ns, the capture gives {jitter:.0}");
        assert!((w as f64 - work).abs() <= 5.0, "{task}: work {w} ns, 55.92 µs less half the block cost is {work:.0}");
    }
}
