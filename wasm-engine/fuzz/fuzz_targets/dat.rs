//! The trace-cmd `.dat` decoder (`import/dat`, versions 6 and 7): never panics, and
//! * stepping the decoder `n` records at a time (`n` from the input length) gives exactly what
//!   `decode_all` gives: records, skips, lost notices, the info or the same error;
//! * the info's counters equal what the sink saw, record/skip positions increase, progress never
//!   passes the file size, errors name an offset inside the file;
//! * the decoded records go into a `TraceStore` and its summary builds.
//!
//! Seeds: two 6.18.44 captures cut to a few pages each, as version 6 and 7 files (`seeds.py`).
#![no_main]
use libfuzzer_sys::fuzz_target;
use schedlab_engine::import::dat::{decode_all, DatDecoder};
use schedlab_engine::import::{ImportStats, ImportSummary, TraceStore};
use schedlab_fuzz::Collect;

fuzz_target!(|data: &[u8]| {
    let mut all = Collect::default();
    let whole = decode_all(data, &mut all);
    let step = 1 + data.len() % 13;
    let mut parts = Collect::default();
    let stepped = DatDecoder::new(data).and_then(|mut d| {
        while d.step(&mut parts, step)? {
            assert!(d.bytes_consumed() <= d.bytes_total(), "progress {} of {}", d.bytes_consumed(), d.bytes_total());
        }
        Ok(d.info())
    });
    assert_eq!(whole, stepped, "decode_all and steps of {step} differ");
    assert_eq!(all, parts, "decode_all and steps of {step} deliver different records");
    match &whole {
        Ok(info) => {
            assert_eq!(info.records, all.records.len() as u64);
            assert_eq!(info.skipped, all.skipped.len() as u64);
            assert_eq!(info.lost_events, all.lost.iter().fold(0u64, |a, l| a.saturating_add(l.1)));
        }
        Err(e) => assert!(e.offset <= data.len() as u64, "error offset {} past the file ({})", e.offset, data.len()),
    }
    let mut lines: Vec<u64> = all.records.iter().map(|r| r.line).chain(all.skipped.iter().map(|s| s.line)).collect();
    let n = lines.len() as u64;
    lines.sort_unstable();
    assert!(lines.iter().enumerate().all(|(i, &l)| l == i as u64 + 1), "positions are 1..={n} once each");
    for w in all.records.windows(2) {
        assert!(w[0].line < w[1].line);
    }
    let mut store = TraceStore::new();
    let r = decode_all(data, &mut store);
    let stats = ImportStats {
        bytes: data.len() as u64,
        records: r.as_ref().map_or(store.records, |i| i.records),
        binary: Some("trace-cmd .dat"),
        ..Default::default()
    };
    assert_eq!(store.records, all.records.len() as u64);
    let sum = ImportSummary::new(&stats, &store);
    assert_eq!(sum.events.values().sum::<u64>(), store.records);
    let _ = serde_json::to_string(&sum).expect("summary serialises");
    let _ = sum.text();
});
