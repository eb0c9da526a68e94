//! Inputs the fuzz targets (`wasm-engine/fuzz`, `scripts/fuzz.sh`) found, kept as regression
//! tests: each names the target, what went wrong, and what the fix guarantees. The inputs are in
//! `tests/fixtures/fuzz/`.

#![allow(clippy::disallowed_methods)] // reads fixture files

mod common;

use schedlab_engine::import::dat::decode_all;
use schedlab_engine::import::record::MAX_CPU;
use schedlab_engine::import::{import_text, EevdfSample, ImportSummary, PrevState, Skipped, TraceRecord, TraceSink};

fn fixture(name: &str) -> Vec<u8> {
    let p = common::repo_root().join("wasm-engine/engine/tests/fixtures/fuzz").join(name);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[derive(Default)]
struct Count(u64);
impl TraceSink for Count {
    fn record(&mut self, _: TraceRecord) {
        self.0 += 1;
    }
    fn lost(&mut self, _: u32, _: u64, _: u64) {}
    fn skipped(&mut self, _: Skipped) {}
    fn eevdf(&mut self, _: EevdfSample) {}
}

/// `dat`: a version 7 header whose first options section lies past the end of the 345-byte file
/// (the zstd seed cut short). The error named byte 3585, outside the file; it now names the end of
/// the file and where the section was expected.
#[test]
fn dat_section_past_the_end_is_reported_inside_the_file() {
    let b = fixture("dat-section-past-end.dat");
    assert_eq!(b.len(), 345);
    let e = decode_all(&b, &mut Count::default()).unwrap_err();
    assert_eq!(e.offset, 345);
    assert_eq!(e.expected, "section 0 at byte 3585 inside the file (345 bytes; truncated?)");
}

/// `dat` (CI, 2026-11-27): a version 7 file of 13,405 bytes whose CPU data, read chunk by chunk
/// as its chunk count says, ran past its section into the rest of the file: the decoder's
/// progress said 13,413 bytes of 13,405. Progress now counts a CPU's bytes up to its section's
/// size and never passes the file; decoding is unchanged.
#[test]
fn dat_chunks_past_their_section_keep_progress_inside_the_file() {
    use schedlab_engine::import::dat::DatDecoder;
    let b = fixture("dat-chunks-past-the-section.dat");
    assert_eq!(b.len(), 13_405);
    for step in [1, 3, 7, 13] {
        let mut sink = Count::default();
        let Ok(mut d) = DatDecoder::new(&b[..]) else { continue };
        while let Ok(true) = d.step(&mut sink, step) {
            assert!(d.bytes_consumed() <= d.bytes_total(), "{} of {}", d.bytes_consumed(), d.bytes_total());
        }
        assert!(d.bytes_consumed() <= d.bytes_total());
    }
}

/// `dat` (a 5-minute run): a version 7 file whose BUFFER option points at a flyrecord section
/// past the end of the 3,966-byte file; the error named byte 4284.
#[test]
fn dat_buffer_section_past_the_end_is_reported_inside_the_file() {
    let b = fixture("dat-buffer-section-past-end.dat");
    assert_eq!(b.len(), 3966);
    let e = decode_all(&b, &mut Count::default()).unwrap_err();
    assert_eq!(e.offset, 3966);
    assert_eq!(e.expected, "the BUFFER FLYRECORD section at byte 4284 inside the file (3966 bytes; truncated?)");
}

/// The same for a CPU's trace data (found next to the above, in the same code): a version 6 file
/// (`nice-0-vs-2-v6-cut.dat`, our capture through `trace-cmd convert`, cut) with CPU 0's data size
/// patched past the end.
#[test]
fn dat_cpu_data_past_the_end_is_reported_inside_the_file() {
    let mut b = fixture("nice-0-vs-2-v6-cut.dat");
    assert_eq!(&b[3..11], b"tracing6", "a version 6 file");
    let at = b.windows(10).position(|w| w == b"flyrecord\0").expect("a flyrecord tag") + 10;
    let offset = u64::from_le_bytes(b[at..at + 8].try_into().unwrap());
    b[at + 8..at + 16].copy_from_slice(&(1u64 << 40).to_le_bytes());
    let e = decode_all(&b, &mut Count::default()).unwrap_err();
    assert_eq!(e.offset, offset);
    assert!(e.offset <= b.len() as u64);
    assert_eq!(
        e.expected,
        format!("CPU 0 data (1099511627776 bytes at byte {offset}) inside the file ({} bytes; truncated?)", b.len())
    );
}

/// `perf_script` and `systrace_html` (the latter's input was read as perf script): an event token
/// with a system and no name (`s:::::`) gave a record whose event name was empty. Such a line is
/// now skipped, located at the token.
#[test]
fn perf_event_without_a_name_is_skipped() {
    let text = "  perf 1 [000] 1.000000: sched:sched_stat_runtime: x=1\n  perf 1 [000] 1.000001: s:::::: x=2\n";
    let (store, st) = import_text(text.as_bytes());
    assert_eq!((st.records, st.skipped_lines), (1, 1));
    let (reason, g) = store.skipped.iter().next().unwrap();
    assert_eq!((reason.as_str(), g.examples[0]), ("expected an event `system:event:`", (2, 26)));
    for f in ["perf-empty-event-name.txt", "systrace-empty-event-name.txt"] {
        let (store, _) = import_text(&fixture(f));
        assert!((0..store.events.len() as u32).all(|i| !store.events.get(i).is_empty()), "{f}");
    }
}

/// `tracefs`: two `CPU:2 [LOST n EVENTS]` lines whose counts add past u64 overflowed the per-CPU
/// sum (a panic in debug builds). The sums saturate.
#[test]
fn lost_event_counts_saturate() {
    let text = "# tracer: nop\nCPU:2 [LOST 18446744073709551615 EVENTS]\nCPU:2 [LOST 5 EVENTS]\n";
    let (store, st) = import_text(text.as_bytes());
    assert_eq!(st.lost_lines, 2);
    assert_eq!(store.cpus[2].lost, u64::MAX);
    let sum = ImportSummary::new(&st, &store);
    assert_eq!(sum.lost_events.get(&2), Some(&u64::MAX));
    assert!(sum.text().contains("lost events per CPU"));
    let (store, st) = import_text(&fixture("tracefs-lost-overflow.txt"));
    assert!(st.lost_lines >= 2);
    let _ = ImportSummary::new(&st, &store).text();
}

/// `perf_script` (the sched_switch round trip): `prev_state=|||` was read as a blocked state with no
/// bits, which prints as nothing. A state needs at least one letter; the line is skipped, located
/// at the value.
#[test]
fn prev_state_of_separators_only_is_rejected() {
    let line = "  bash-1 [000] d..2. 1.000001: sched_switch: prev_comm=bash prev_pid=1 prev_prio=120 prev_state=||| ==> next_comm=b next_pid=2 next_prio=120";
    let (store, st) = import_text(format!("# tracer: nop\n{line}\n").as_bytes());
    assert_eq!((st.records, st.skipped_lines), (0, 1));
    let (reason, g) = store.skipped.iter().next().unwrap();
    assert!(reason.starts_with("expected a state"), "{reason}");
    assert_eq!(g.examples[0], (2, line.find("|||").unwrap() as u32 + 1));
    let (store, _) = import_text(&fixture("perf-state-only-separators.txt"));
    assert!(!store.switches.prev_state.contains(&PrevState::Blocked(0)));
}

/// `tracefs` and `perf_script` (out of memory, not a panic): a line with `[287320000]` as its CPU
/// made the store's per-CPU table (and the replay's lanes) that long: gigabytes for a 3 KiB input.
/// CPU numbers above `MAX_CPU` (65535; the kernel's NR_CPUS is at most 8192) are not CPUs: such a
/// line is skipped, a LOST line for such a CPU is not a LOST line, and a `.dat` claiming more CPUs
/// is refused.
#[test]
fn huge_cpu_numbers_are_not_cpus() {
    let ok = "  bash-1 [000] d..2. 1.000001: sched_process_exit: comm=bash pid=1 prio=120\n";
    let big = "  bash-1 [287320000] d..2. 1.000002: sched_process_exit: comm=bash pid=1 prio=120\n";
    let (store, st) = import_text(format!("# tracer: nop\n{ok}{big}CPU:70000 [LOST 3 EVENTS]\n").as_bytes());
    assert_eq!((st.records, st.skipped_lines, st.lost_lines), (1, 2, 0));
    assert_eq!(store.cpus.len(), 1);
    let (store, st) = import_text(format!("# tracer: nop\n{}", big.replace("287320000", "65535")).as_bytes());
    assert_eq!((st.records, store.cpus.len()), (1, 65_536));
    for f in ["perf-huge-cpu-number.txt", "tracefs-huge-cpu-number.txt"] {
        let (store, _) = import_text(&fixture(f));
        assert!(store.cpus.len() <= MAX_CPU as usize + 1, "{f}: {}", store.cpus.len());
    }
    // A version 6 file with its CPU count (the u32 before the first options tag) patched.
    let mut b = fixture("nice-0-vs-2-v6-cut.dat");
    let at = b.windows(10).position(|w| w == b"options  \0").expect("an options tag") - 4;
    b[at..at + 4].copy_from_slice(&100_000u32.to_le_bytes());
    let e = decode_all(&b, &mut Count::default()).unwrap_err();
    assert_eq!((e.offset, e.expected.as_str()), (at as u64, "a CPU count of at most 65536, found 100000"));
}

/// The replay of the fuzz inputs below: the shadow scenario loads as TOML, the per-decision
/// replay runs along the whole trace and the simulation its first 5 ms with the invariant
/// checker on, as the `replay` target does. Returns the simulation and the comparison.
fn replay_fixture(name: &str) -> (schedlab_engine::sim::Simulation, schedlab_engine::replay::compare::ReplayReport) {
    use schedlab_engine::replay::compare::compare;
    use schedlab_engine::replay::decisions::decisions;
    use schedlab_engine::replay::observe::Observed;
    use schedlab_engine::replay::shadow::{shadow_scenario, Layout};
    use schedlab_engine::sim::{config::SimConfig, Simulation};
    let mut obs = Observed::default();
    let mut imp = schedlab_engine::import::TextImporter::new();
    imp.feed(&fixture(name), &mut obs);
    imp.finish(&mut obs);
    obs.finish();
    let shadow = shadow_scenario(&obs, &Layout::default(), "replay/f").unwrap_or_else(|e| panic!("{e}"));
    let toml = toml::to_string(&shadow.scenario).unwrap();
    schedlab_engine::load("shadow.toml", &toml, &[]).unwrap_or_else(|e| panic!("{e}\n{toml}"));
    let cfg = SimConfig::from_scenario(&shadow.scenario).unwrap();
    let d = decisions(&obs, &shadow, cfg.clone());
    let mut sim = Simulation::new(cfg);
    sim.check_invariants = true;
    sim.run_until(5_000_000);
    let r = compare(&obs, &shadow, &sim, &[], d);
    assert!((0.0..=100.0).contains(&r.agreement_pct), "{}", r.agreement_pct);
    (sim, r)
}

/// `replay` (a 10-minute run; a timeout, not a crash): a task that yielded with no CPU time the
/// trace shows between its yields, then exited, became an endless loop of 1 ns runs and
/// yields, which the simulation ran at an event per nanosecond (over 20 s for 5 ms under the
/// fuzzer). An endless yield loop's burst is now at least 1 µs (`shadow::MIN_LOOP_BURST_NS`).
#[test]
fn replay_of_a_yield_loop_without_cpu_time_is_bounded() {
    let (sim, _) = replay_fixture("replay-zero-cpu-yield-loop.txt");
    assert!(sim.fair.log.len() < 100_000, "{} events in 5 ms", sim.fair.log.len());
}

/// `replay` (the fresh-clone CI run of 2026-11-26): a task first seen before the trace with
/// prio 118 (nice -2). The weight index of its averages (`shadow::existing_averages`) took the
/// nice value as an unsigned index before adding 20: an overflow, a panic in a debug build (a
/// release build wrapped to the right index). The index is now taken from prio 100..=139.
#[test]
fn replay_of_a_task_below_nice_0_from_before_the_trace() {
    let (_, r) = replay_fixture("replay-nice-below-0-existing.txt");
    assert!(!r.tasks.is_empty());
}

/// `replay` (its first run, on the crafted `odd.txt` seed of `seeds.py`): a pid that exits and
/// comes back, a record half a second before the first one, a CPU numbered 65535 and a timestamp of
/// 18446744073.709551 s. Its runs, overlapping and reaching the end of the clock, overflowed the
/// comparison's sums of CPU time (compare.rs). They saturate now; the shadow scenario loads as
/// TOML, the per-decision replay runs along the whole trace and the simulation runs its first
/// milliseconds (the whole window, 584 years, is not run here).
#[test]
fn replay_of_runs_to_the_end_of_the_clock() {
    replay_fixture("replay-runs-to-end-of-clock.txt");
}

/// `replay` (a second 10-minute run): a garbled line's timestamp (55,825,772 s after the others)
/// gave a task 646 days of observed CPU time, the whole of its CPU's; its share, 100 × a / a in
/// floating point, came out as 100.00000000000001 %. Shares are now at most 100 %.
#[test]
fn replay_shares_stay_within_100_percent() {
    let (_, r) = replay_fixture("replay-share-above-100.txt");
    let k_h = r.tasks.iter().find(|t| t.name == "k_h").unwrap();
    assert_eq!((k_h.observed_ns, k_h.observed_share_pct), (55_825_215_875_309_000, 100.0));
    assert!(r.max_share_error_pp <= 100.0, "{}", r.max_share_error_pp);
}

/// `replay` (a third 10-minute run): a garbled timestamp (18446744073.7 s, near the end of the
/// 64-bit clock) made a 584-year run step, and the simulation's `now + run` overflowed in the
/// program interpreter in its first milliseconds. The shadow scenario's times now stop at 2^62 ns
/// (146 years), so every step ends within 64 bits.
#[test]
fn replay_steps_end_within_the_clock() {
    replay_fixture("replay-step-past-the-clock.txt");
}

/// `replay` (found in the eighth session's fresh-clone run): a garbled capture of
/// sleepers-and-hogs-smp whose shadow, run free with the invariant checker on, broke "a
/// cfs_rq's PELT averages equal its attached entities' within rounding" at 1.86 ms: CPU 0's
/// root held util_avg 26, computed at +1.25 ms, and its running task, aged by the check to
/// +1.86 ms across a period boundary, 38. Both are what the kernel holds (a `*_avg` is
/// recomputed only when an update crosses a 1024 µs period); the check now compares the
/// averages of the sums at the same time (`check.rs`, `fresh`).
#[test]
fn replay_keeps_pelt_sums_of_a_garbled_smp_capture() {
    replay_fixture("replay-pelt-sum-invariant.txt");
}

/// `systrace_html` (a timeout in the fresh-clone CI of 2026-11-27): a record on CPU 60601 among
/// records on CPU 1 gives window figures for 60,602 CPUs, one of them with a known runqueue
/// depth. `import::diff` looked each CPU number up in both sides' lists (3.7·10⁹ steps: 24 s in a
/// debug build, past the fuzzer's limit). It now reads each side's CPUs into a map once; the
/// comparison of the trace with itself has the one CPU row and flags nothing.
#[test]
fn diff_of_a_trace_naming_cpu_60601_reads_each_side_once() {
    use schedlab_engine::import::diff::{diff, DiffInput, DiffOptions};
    use schedlab_engine::import::metrics::{window_metrics, MetricsWindow};
    use schedlab_engine::import::timeline::TraceTimeline;
    let (store, _) = import_text(&fixture("systrace-cpu-60601.html"));
    let tl = TraceTimeline::build(&store);
    let all = window_metrics(&store, &tl, &MetricsWindow::all());
    assert_eq!(all.cpus.len(), 60_602);
    let known: Vec<u32> = all.cpus.iter().filter(|c| c.known_ns > 0).map(|c| c.cpu).collect();
    let input = || DiffInput { store: &store, timeline: &tl };
    let d = diff(input(), input(), &DiffOptions::default()).expect("no --match");
    assert_eq!(d.cpus.iter().map(|c| c.cpu).collect::<Vec<_>>(), known);
    assert_eq!(d.flagged, 0);
}
