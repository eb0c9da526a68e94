//! The Perfetto protobuf importer (`import/perfetto`): never panics, and
//! * feeding the input in chunks (sizes from the input's first byte) gives exactly what one chunk
//!   gives: records, skips, lost notices, file facts and the statistics;
//! * the statistics equal what the sink saw; records carry positions 1..=n in order; a skip and
//!   the framing error name a byte offset inside the input;
//! * the records go into a `TraceStore` whose summary builds, serialises and prints;
//! * a store that imported records re-encodes (`perfetto::encode`, both forms) into a trace that
//!   imports back with the same switch and wakeup counts.
//!
//! Seeds: the repository's Perfetto fixtures (re-encoded captures) cut to their first packets,
//! and one packet of each wrapped in `compressed_packets` (`seeds.py`).
#![no_main]
use libfuzzer_sys::fuzz_target;
use schedlab_engine::import::perfetto::encode::{encode, Form};
use schedlab_engine::import::perfetto::{import_perfetto, PerfettoImporter, NAME};
use schedlab_engine::import::{ImportStats, ImportSummary, TraceStore};
use schedlab_fuzz::Collect;

fuzz_target!(|data: &[u8]| {
    let mut whole = Collect::default();
    let st = import_perfetto(data, &mut whole);
    let size = 1 + data.first().copied().unwrap_or(0) as usize % 97;
    let mut parts = Collect::default();
    let mut imp = PerfettoImporter::new();
    for c in data.chunks(size) {
        imp.feed(c, &mut parts);
        assert!(imp.bytes_read() <= data.len() as u64);
    }
    imp.finish(&mut parts);
    assert_eq!(whole, parts, "one chunk and chunks of {size} differ");
    assert_eq!(&st, imp.stats(), "statistics differ with chunks of {size}");
    assert_eq!(st.records, whole.records.len() as u64);
    for (i, r) in whole.records.iter().enumerate() {
        assert_eq!(r.line, i as u64 + 1, "positions 1..=n in order");
    }
    for s in &whole.skipped {
        assert!(s.line <= data.len() as u64, "skip at byte {} past the input ({})", s.line, data.len());
        assert!(!s.reason.is_empty());
    }
    if st.error.is_some() {
        assert!(whole.skipped.iter().any(|s| s.reason.contains("the rest of the file is not read")));
    }
    let mut store = TraceStore::new();
    import_perfetto(data, &mut store);
    assert_eq!(store.records, st.records);
    let stats = ImportStats { bytes: st.bytes, records: st.records, binary: Some(NAME), ..Default::default() };
    let sum = ImportSummary::new(&stats, &store);
    assert_eq!(sum.events.values().sum::<u64>(), store.records);
    let _ = serde_json::to_string(&sum).expect("summary serialises");
    let _ = sum.text();
    if store.records > 0 {
        for form in [Form::Regular, Form::Compact] {
            let bytes = encode(&store, form);
            let mut back = TraceStore::new();
            let st2 = import_perfetto(&bytes, &mut back);
            assert_eq!(st2.error, None, "{form:?}");
            for ev in ["sched_switch", "sched_waking", "sched_wakeup", "sched_wakeup_new", "sched_migrate_task"] {
                assert_eq!(back.count(ev), store.count(ev), "{form:?}: {ev} after re-encoding");
            }
        }
    }
});
