//! systrace HTML (tracefs text inside `<script class="trace-data">`): the whole-import properties
//! of `schedlab_fuzz`, and no record from before the first trace-data block. Seeds: slices of
//! 6.18.44 captures wrapped in systrace's HTML, one in atrace's layout (TGID column, 4-character
//! flags; `seeds.py`).
#![no_main]
use libfuzzer_sys::fuzz_target;
use schedlab_engine::import::Format;
use schedlab_fuzz::{import_and_check, line_lengths};

fuzz_target!(|data: &[u8]| {
    let (c, st) = import_and_check(data);
    if st.format != Some(Format::SystraceHtml) {
        return;
    }
    let marker: &[u8] = b"<script class=\"trace-data\"";
    let mut first_block = None;
    let mut at = 0;
    for (i, len) in line_lengths(data).into_iter().enumerate() {
        let line = &data[at..at + len];
        if std::str::from_utf8(line).is_ok() && line.windows(marker.len()).any(|w| w == marker) {
            first_block = Some(i as u64 + 1);
            break;
        }
        at += len + if data[at + len..].starts_with(b"\r\n") { 2 } else { 1 };
    }
    for r in &c.records {
        assert!(first_block.is_some_and(|b| r.line >= b), "record at line {} before any trace-data block", r.line);
    }
});
