//! tracefs text and `trace-cmd report` text (the ftrace line prefix and the sched payloads):
//! the whole-import properties of `schedlab_fuzz`, and per line those of `check_event_line`.
//! Seeds: slices of the Linux 6.18.44 captures (`trace.txt`, `trace-cmd-report.txt`), the e2e
//! malformed trace, and crafted corner lines (`seeds.py`).
#![no_main]
use libfuzzer_sys::fuzz_target;
use schedlab_engine::import::ftrace::{parse_event_line, parse_lost};
use schedlab_fuzz::{assert_in_line, check_event_line, import_and_check, text_lines};

fuzz_target!(|data: &[u8]| {
    import_and_check(data);
    for line in text_lines(data) {
        let _ = parse_lost(line);
        match parse_event_line(line) {
            Ok(e) => check_event_line(line, &e),
            Err(l) => assert_in_line(l.at, line, "ftrace prefix"),
        }
    }
});
