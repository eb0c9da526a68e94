//! `perf script` text: the whole-import properties of `schedlab_fuzz`, and per line those of
//! `check_event_line`. Seeds: the tracefs captures re-printed in perf script's layout (both payload
//! styles, 6 and 9 decimals, a callchain), see `wasm-engine/fuzz/seeds.py`.
#![no_main]
use libfuzzer_sys::fuzz_target;
use schedlab_engine::import::perf::{is_callchain, parse_perf_line};
use schedlab_fuzz::{assert_in_line, check_event_line, import_and_check, text_lines};

fuzz_target!(|data: &[u8]| {
    import_and_check(data);
    for line in text_lines(data) {
        match parse_perf_line(line) {
            Ok(e) => check_event_line(line, &e),
            Err(l) => {
                let _ = is_callchain(line);
                assert_in_line(l.at, line, "perf script line")
            }
        }
    }
});
