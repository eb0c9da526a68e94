//! Format detection and line splitting under any chunking: the same bytes fed in fuzzer-chosen
//! chunk sizes (including empty chunks and boundaries inside CRLF, UTF-8 sequences, the `.dat`
//! magic and the detection head) give exactly what one chunk gives: the same records, skips with
//! the same locations, LOST lines, samples, file facts and counters.
//!
//! Input: one byte `k`, then `k % 8 + 1` chunk sizes of one byte each (`0..=255`), then the trace.
#![no_main]
use libfuzzer_sys::fuzz_target;
use schedlab_fuzz::{check_text_import, feed_chunks, Collect};

fuzz_target!(|data: &[u8]| {
    let Some((&k, rest)) = data.split_first() else { return };
    let n = (k as usize % 8 + 1).min(rest.len());
    let (sizes, trace) = rest.split_at(n);
    let sizes: Vec<usize> = sizes.iter().map(|&s| s as usize).collect();
    let mut whole = Collect::default();
    let st_whole = feed_chunks(trace, &[trace.len()], &mut whole);
    check_text_import(trace, &whole, &st_whole);
    let mut parts = Collect::default();
    let st_parts = feed_chunks(trace, &sizes, &mut parts);
    assert_eq!(st_parts, st_whole, "counters differ with chunks {sizes:?}");
    assert_eq!(parts, whole, "output differs with chunks {sizes:?}");
});
