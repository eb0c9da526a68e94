//! The balance-pass dump (`tools/capture/schedlab-balance.bt`, `import::balance`), which the
//! command line and the browser read from the user: per line, an error stays inside the line;
//! the whole text parses to records in time order or to an error at `FILE:LINE:COLUMN`; the
//! passes paired from any records are in order of their entries, each its exit not before its
//! entry.
//! Seeds: the header and slices of the `traces/linux-6.18-smp-balance` dumps.
#![no_main]
use libfuzzer_sys::fuzz_target;
use schedlab_engine::import::balance::{parse, parse_line, passes};
use schedlab_fuzz::{assert_in_line, text_lines};

fuzz_target!(|data: &[u8]| {
    for line in text_lines(data) {
        if let Err(l) = parse_line(line) {
            assert_in_line(l.at, line, "balance record");
        }
    }
    if let Ok(text) = std::str::from_utf8(data) {
        match parse("d.txt", text) {
            Ok(records) => {
                assert!(records
                    .windows(2)
                    .all(|w| (w[0].ts_ns, w[0].cpu, w[0].exit) <= (w[1].ts_ns, w[1].cpu, w[1].exit)));
                let p = passes(&records);
                assert!(p.len() * 2 <= records.len());
                assert!(p.iter().all(|x| x.entry_ns <= x.exit_ns));
                assert!(p.windows(2).all(|w| (w[0].entry_ns, w[0].cpu) <= (w[1].entry_ns, w[1].cpu)));
            }
            Err(e) => assert!(e.starts_with("d.txt:"), "{e}"),
        }
    }
});
