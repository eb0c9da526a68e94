//! `schedlab export --perfetto <trace> -o OUT [--compact]`: a trace of any format `schedlab import`
//! reads, written as a Perfetto protobuf trace by the engine's encoder
//! (`import::perfetto::encode`).
//!
//! `schedlab bench-import --perfetto [--mb N]`: the Perfetto importer's throughput on the
//! synthetic tracefs trace of `bench-import`, re-encoded as Perfetto (regular events, then
//! `compact_sched`), fed in the CLI's 1 MiB chunks.

use crate::args::ExportArgs;
use crate::import::{read_trace, synthetic_trace, Discard, CHUNK};
use schedlab_engine::import::perfetto::encode::{encode, Form};
use schedlab_engine::import::perfetto::PerfettoImporter;
use schedlab_engine::import::{import_text, TraceStore};
use std::time::Instant;

pub fn run(a: &ExportArgs) -> Result<String, String> {
    let mut store = TraceStore::new();
    read_trace(&a.trace, &mut store)?;
    let form = if a.compact { Form::Compact } else { Form::Regular };
    let bytes = encode(&store, form);
    std::fs::write(&a.output, &bytes).map_err(|e| format!("{}: cannot write: {e}", a.output))?;
    Ok(format!(
        "wrote {}: Perfetto protobuf trace ({}), {} bytes: {} sched_switch, {} wakeups, {} migrations, {} other events, {} tasks named\n",
        a.output,
        if a.compact { "compact_sched" } else { "regular ftrace events" },
        bytes.len(),
        store.switches.ts.len(),
        store.wakeups.ts.len(),
        store.migrations.ts.len(),
        store.others.ts.len(),
        store.tasks.iter().filter(|t| !t.comms.is_empty()).count(),
    ))
}

pub fn bench(mb: u64) -> Result<(), String> {
    let t0 = Instant::now();
    let text = synthetic_trace((mb as usize) << 20);
    let (store, _) = import_text(text.as_bytes());
    drop(text);
    println!(
        "synthetic tracefs trace ({mb} MiB) imported in {:.2} s: {} records",
        t0.elapsed().as_secs_f64(),
        store.records
    );
    for form in [Form::Regular, Form::Compact] {
        let t = Instant::now();
        let bytes = encode(&store, form);
        let size = bytes.len() as f64 / (1 << 20) as f64;
        println!("Perfetto {form:?}: {size:.1} MiB, encoded in {:.2} s", t.elapsed().as_secs_f64());

        let t = Instant::now();
        let mut d = Discard(0);
        let mut imp = PerfettoImporter::new();
        for c in bytes.chunks(CHUNK) {
            imp.feed(c, &mut d);
        }
        imp.finish(&mut d);
        let parse = t.elapsed().as_secs_f64();
        println!("  parse only (records dropped): {parse:.3} s, {:.0} MiB/s, {} records", size / parse, d.0);

        let t = Instant::now();
        let mut back = TraceStore::new();
        let mut imp = PerfettoImporter::new();
        for c in bytes.chunks(CHUNK) {
            imp.feed(c, &mut back);
        }
        imp.finish(&mut back);
        let into = t.elapsed().as_secs_f64();
        println!(
            "  parse into the store:         {into:.3} s, {:.0} MiB/s, {} records, {} merge inversions",
            size / into,
            back.records,
            imp.stats().merge_inversions
        );
        if back.records != store.records || !back.skipped.is_empty() {
            return Err(format!(
                "the round trip lost records: {} of {} ({:?})",
                back.records, store.records, back.skipped
            ));
        }
    }
    Ok(())
}
