//! `schedlab bench`: simulated scheduler events per second, natively.
//!
//! (a) 1 CPU × 8 hogs; (b) 64 CPUs × 512 unpinned tasks that run and sleep for varied
//! lengths. Each is run with the full observation log (samples, picks, candidates) and with
//! events only. "events" are event-queue events (ticks, wakeups, burst ends, starts);
//! "log rows" are rows of the events table (switches, picks, enqueues, …).

use crate::args::BenchArgs;
use schedlab_engine::obs::summary::Summary;
use std::time::Instant;

fn hogs(seconds: u64) -> String {
    let mut s = format!("version = 1\nname = \"bench-1cpu-8hogs\"\nduration = \"{seconds}s\"\n[host]\ncpus = 1\n");
    for i in 0..8 {
        s.push_str(&format!(
            "[[tasks]]\nname = \"hog{i}\"\nnice = {}\nprogram = [{{ run = \"forever\" }}]\n",
            (i % 4) - 1
        ));
    }
    s
}

/// Benchmark (b): 64 CPUs, 512 unpinned tasks that run and sleep for varied times.
pub fn sleepers(seconds: u64) -> String {
    let mut s = format!("version = 1\nname = \"bench-64cpu-512tasks\"\nduration = \"{seconds}s\"\n[host]\ncpus = 64\n");
    for i in 0..512u64 {
        let run = 50 + (i * 37) % 950;
        let sleep = 100 + (i * 53) % 1900;
        s.push_str(&format!(
            "[[tasks]]\nname = \"t{i}\"\nprogram = [{{ loop = {{ body = [{{ run = \"{run}us\" }}, {{ sleep = \"{sleep}us\" }}] }} }}]\n"
        ));
    }
    s
}

fn measure(label: &str, text: &str, detailed: bool) {
    let (_, mut sim) = schedlab_engine::load(label, text, &[]).expect("bench scenario is valid");
    sim.fair.log.detailed = detailed;
    let t0 = Instant::now();
    sim.run();
    let wall = t0.elapsed().as_secs_f64();
    let s = Summary::of(&sim);
    let sim_s = sim.now() as f64 / 1e9;
    println!(
        "{label:<24} log={:<8} sim={sim_s:>5.1}s wall={wall:>7.3}s events={:>10} events/s={:>12.0} log_rows={:>10} rows/s={:>12.0} samples={} picks={} digest={}",
        if detailed { "full" } else { "events" },
        s.queue_events,
        s.queue_events as f64 / wall,
        s.log_events,
        s.log_events as f64 / wall,
        sim.fair.log.samples.t.len(),
        sim.fair.log.picks.t.len(),
        s.digest,
    );
}

/// `schedlab bench`: both benchmarks, or one scenario file's run.
pub fn command(a: &BenchArgs) -> Result<(), String> {
    match &a.scenario {
        Some(file) => run_file(file, &crate::read(file)?),
        None => {
            run(a.seconds);
            Ok(())
        }
    }
}

/// Times one scenario file's run (full log) and prints one line, for wasm/native ratios.
pub fn run_file(label: &str, text: &str) -> Result<(), String> {
    let (_, mut sim) = schedlab_engine::load(label, text, &[])?;
    let t0 = Instant::now();
    sim.run();
    let wall = t0.elapsed().as_secs_f64();
    println!(
        "{label} wall={wall:.4}s queue_events={} events/s={:.0} digest={:016x}",
        sim.queue.processed,
        sim.queue.processed as f64 / wall,
        sim.fair.log.digest()
    );
    Ok(())
}

/// Runs both benchmarks for `seconds` of simulated time each.
pub fn run(seconds: u64) {
    let a = hogs(seconds * 50);
    let b = sleepers(seconds);
    let target = if cfg!(target_arch = "wasm32") { "wasm32-wasip1" } else { "native" };
    println!("schedlab bench ({target}, release={})", !cfg!(debug_assertions));
    for detailed in [true, false] {
        measure("(a) 1cpu x 8 hogs", &a, detailed);
        measure("(b) 64cpu x 512 sleepers", &b, detailed);
    }
}
