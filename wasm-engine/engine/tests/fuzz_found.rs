//! Inputs the fuzz targets (`wasm-engine/fuzz`, `scripts/fuzz.sh`) found, kept as regression
//! tests: each names the target, what went wrong, and what the fix guarantees. The inputs are in
//! `tests/fixtures/fuzz/`.

#![allow(clippy::disallowed_methods)] // reads fixture files

mod common;

use schedlab_engine::import::dat::decode_all;
use schedlab_engine::import::{EevdfSample, Skipped, TraceRecord, TraceSink};

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

/// The same for a CPU's trace data (found next to the above, in the same code): trappy's version 6
/// file with CPU 0's data size patched past the end.
#[test]
fn dat_cpu_data_past_the_end_is_reported_inside_the_file() {
    let p = common::repo_root().join("../shared/traces/public/trappy/trace.dat");
    let mut b = std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
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
