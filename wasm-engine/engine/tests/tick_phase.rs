//! `host.tick_phase`: where the jiffies begin. A scenario's ticks fire at that offset plus each
//! multiple of the tick period; a trace's phase is read off its tick records
//! (`Observed::tick_phase`), and `replay --variant tick_phase=trace` runs the shadow's ticks
//! where the kernel's were. The shadow's default stays 0: aligned, the shadows of the
//! repository's captures agree no better on average (docs/kernel-6.18.44-findings.md,
//! "The shadow's tick phase").

#![allow(clippy::disallowed_methods)] // tests read fixture files

mod common;

use schedlab_engine::import::TextImporter;
use schedlab_engine::obs::log::EventKind;
use schedlab_engine::replay::compare::replay;
use schedlab_engine::replay::shadow::Layout;

const TICK: u64 = 4_000_000;

fn hog(phase: &str) -> String {
    format!(
        "version = 1\nname = \"t\"\nduration = \"50ms\"\n[host]\ncpus = 1\nhz = 250\ntick_phase = \"{phase}\"\n\
         [[tasks]]\nname = \"k_h\"\nstart = \"1ms\"\nprogram = [{{ run = \"forever\" }}]\n"
    )
}

fn tick_times(text: &str) -> Vec<u64> {
    let sim = common::run_text("t.toml", text, &[]);
    let ev = &sim.fair.log.events;
    (0..ev.t.len()).filter(|&i| ev.kind[i] == EventKind::Tick as u8).map(|i| ev.t[i]).collect()
}

#[test]
fn ticks_fire_at_the_phase_plus_each_period() {
    // Armed at the hog's start (1 ms): the first tick on the grid after it.
    assert_eq!(tick_times(&hog("0ns"))[..3], [4_000_000, 8_000_000, 12_000_000]);
    assert_eq!(tick_times(&hog("1.5ms"))[..3], [1_500_000, 5_500_000, 9_500_000]);
    assert_eq!(tick_times(&hog("500us"))[..3], [4_500_000, 8_500_000, 12_500_000]);
    // `jiffies` counts the ticks from the first: a CPU's jiffy changes at its ticks.
    let mut sim = common::run_text("t.toml", &hog("1.5ms"), &[("smp", "fair")]);
    for (at, want) in [(1_499_999, 0), (1_500_000, 0), (5_499_999, 0), (5_500_000, 1), (9_500_000, 2)] {
        sim.fair.now = at;
        assert_eq!(sim.fair.jiffies(), want, "at {at}");
    }
}

#[test]
fn a_phase_of_a_period_or_more_is_refused_where_it_is_written() {
    let text = hog("4ms");
    let Err(e) = schedlab_engine::load("t.toml", &text, &[]) else { panic!("a phase of one period was taken") };
    assert_eq!(
        e.to_string(),
        "t.toml:7:14: host.tick_phase: tick_phase = 4000000 ns: expected less than one tick period (4000000 ns at hz = 250)"
    );
}

/// sleeper-vs-hog's tick records (`d.h1.` `sched_stat_runtime`, read from the text the `.dat`
/// was reported to) all fall within 40 µs after the phase read off the `.dat`, over the whole
/// 1.5 s: one grid, no drift between the trace's clock and the jiffies. With the variant the
/// shadow's ticks are on that grid; without it, at 0.
#[test]
fn the_traces_tick_phase_is_read_off_its_tick_records() {
    let dir = common::traces().join("linux-6.18/sleeper-vs-hog");
    let obs = common::observe_dat(&dir.join("trace.dat"));
    let t0 = obs.t0.expect("records");
    let phase = obs.tick_phase(TICK).expect("tick records");
    let text = std::fs::read_to_string(dir.join("trace.txt")).unwrap();
    let ticks: Vec<u64> = text
        .lines()
        .filter(|l| l.contains(" d.h1. ") && l.contains("sched_stat_runtime:"))
        .filter_map(|l| l.split_whitespace().find(|w| w.ends_with(':') && w.contains('.')))
        .map(|ts| (ts.trim_end_matches(':').parse::<f64>().unwrap() * 1e9).round() as u64)
        .collect();
    assert!(ticks.len() > 300, "{} tick records", ticks.len());
    // Each record's offset from the grid, within half a period either side.
    let off: Vec<i64> = ticks
        .iter()
        .map(|&t| ((t - t0 + TICK - phase) % TICK) as i64)
        .map(|d| if d > 2_000_000 { d - TICK as i64 } else { d })
        .collect();
    let (early, late) = (off.iter().copied().min().unwrap(), off.iter().copied().max().unwrap());
    println!("sleeper-vs-hog: phase {phase} ns, {} tick records from {early} to {late} ns of it", ticks.len());
    assert!(early > -40_000 && late < 40_000, "a tick record off the grid: {early}..{late} ns");

    let layout = Layout::default();
    let (_, r) = replay(&obs, &layout, "t", &[]).unwrap();
    assert_eq!((r.tick_phase_ns, r.trace_tick_phase_ns), (0, Some(phase)));
    let aligned = [("tick_phase".to_string(), "trace".to_string())];
    let (shadow, r) = replay(&obs, &layout, "t", &aligned).unwrap();
    assert_eq!(r.tick_phase_ns, phase);
    assert_eq!(shadow.scenario.host.tick_phase.map(|d| d.ns()), Some(phase));
}

/// A trace without latency flags (trace-cmd's report) shows no tick records: the variant is
/// refused, saying why.
#[test]
fn tick_phase_trace_needs_the_traces_tick_records() {
    let path = common::traces().join("linux-6.18/sleeper-vs-hog/trace-cmd-report.txt");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut obs = schedlab_engine::replay::observe::Observed::default();
    let mut imp = TextImporter::new();
    imp.feed(text.as_bytes(), &mut obs);
    imp.finish(&mut obs);
    obs.finish();
    assert_eq!(obs.tick_phase(TICK), None);
    let aligned = [("tick_phase".to_string(), "trace".to_string())];
    let Err(e) = replay(&obs, &Layout::default(), "t", &aligned) else { panic!("aligned to ticks it does not show") };
    assert!(e.contains("tick_phase=trace: the trace shows no tick records"), "{e}");
}
