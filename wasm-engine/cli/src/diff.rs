//! `schedlab diff <A> <B> [--json] [--match OLD=NEW]... [--noise 5%] [--cpus LIST]`: two traces
//! (any format `schedlab import` reads, text or `.dat`) imported, their timelines built, and
//! compared by the engine's `import::diff` (tasks matched by comm, the flagging rule in its docs).
//!
//! `schedlab bench-diff [--mb N]`: two synthetic tracefs traces of N MiB (seeds 1 and 2) built
//! in memory, imported, and compared; the time of each step.

use crate::args::DiffArgs;
use crate::import::{read_trace, synthetic_trace_seeded};
use schedlab_engine::import::diff::{diff, DiffInput, DiffOptions};
use schedlab_engine::import::metrics::MetricsWindow;
use schedlab_engine::import::timeline::TraceTimeline;
use schedlab_engine::import::{TextImporter, TraceStore};
use std::time::Instant;

/// A trace file read into a store, with its timeline; an error names the file.
fn load(file: &str) -> Result<(TraceStore, TraceTimeline), String> {
    let mut store = TraceStore::new();
    read_trace(file, &mut store)?;
    if store.switches.ts.is_empty() {
        return Err(format!("{file}: no sched_switch records; a diff needs them (capture: trace-cmd record -e sched_switch -e sched_waking -e sched_wakeup)"));
    }
    let tl = TraceTimeline::build(&store);
    Ok((store, tl))
}

pub fn run(a: &DiffArgs) -> Result<String, String> {
    let (sa, ta) = load(&a.a)?;
    let (sb, tb) = load(&a.b)?;
    let opt = DiffOptions {
        noise_pct: a.noise,
        matches: a.matches.clone(),
        window: MetricsWindow { cpus: a.cpus.as_ref().map(|c| c.0.clone()), ..MetricsWindow::all() },
    };
    let d = diff(DiffInput { store: &sa, timeline: &ta }, DiffInput { store: &sb, timeline: &tb }, &opt)?;
    if a.json {
        Ok(format!("{}\n", serde_json::to_string_pretty(&d).expect("the diff serialises")))
    } else {
        Ok(format!("A: {}\nB: {}\n{}", a.a, a.b, d.text()))
    }
}

pub fn bench(mb: u64) -> Result<(), String> {
    let bytes = (mb as usize) << 20;
    let t = Instant::now();
    let texts = [synthetic_trace_seeded(bytes, 1), synthetic_trace_seeded(bytes, 2)];
    let size = texts.iter().map(|s| s.len()).sum::<usize>() as f64 / (1 << 20) as f64;
    println!(
        "two synthetic tracefs traces (seeds 1, 2): {size:.1} MiB in all, generated in {:.2} s",
        t.elapsed().as_secs_f64()
    );
    let total = Instant::now();
    let t = Instant::now();
    let stores: Vec<TraceStore> = texts
        .iter()
        .map(|text| {
            let mut store = TraceStore::new();
            let mut imp = TextImporter::new();
            for c in text.as_bytes().chunks(1 << 20) {
                imp.feed(c, &mut store);
            }
            imp.finish(&mut store);
            store
        })
        .collect();
    let import = t.elapsed().as_secs_f64();
    println!(
        "import both:    {import:.3} s ({:.0} MiB/s), {} + {} sched_switch",
        size / import,
        stores[0].switches.ts.len(),
        stores[1].switches.ts.len()
    );
    let t = Instant::now();
    let tls: Vec<TraceTimeline> = stores.iter().map(TraceTimeline::build).collect();
    println!("timelines:      {:.3} s", t.elapsed().as_secs_f64());
    let t = Instant::now();
    let d = diff(
        DiffInput { store: &stores[0], timeline: &tls[0] },
        DiffInput { store: &stores[1], timeline: &tls[1] },
        &DiffOptions::default(),
    )?;
    println!(
        "metrics + diff: {:.3} s, {} task rows, {} CPU rows, {} flagged",
        t.elapsed().as_secs_f64(),
        d.tasks.len(),
        d.cpus.len(),
        d.flagged
    );
    let t = Instant::now();
    let text = d.text();
    let json = serde_json::to_string(&d).expect("the diff serialises");
    println!(
        "render:         {:.3} s ({} bytes text, {} bytes JSON)",
        t.elapsed().as_secs_f64(),
        text.len(),
        json.len()
    );
    println!("total (import to rendered diff, generation excluded): {:.3} s", total.elapsed().as_secs_f64());
    Ok(())
}
