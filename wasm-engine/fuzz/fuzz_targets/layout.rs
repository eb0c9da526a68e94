//! The replay layout file (`replay/shadow.rs` `Layout::parse`, TOML): never panics, and an error
//! is `file:line:column: message` with the line inside the text and the column inside that line.
//! Seeds: `traces/linux-6.18/*.layout.toml`.
#![no_main]
use libfuzzer_sys::fuzz_target;
use schedlab_engine::replay::shadow::Layout;
use schedlab_fuzz::check_location;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Err(e) = Layout::parse("f.toml", text) {
        let rest = e.strip_prefix("f.toml:").unwrap_or_else(|| panic!("error without the file: {e}"));
        let mut it = rest.splitn(3, ':');
        let line: usize = it.next().and_then(|x| x.parse().ok()).unwrap_or_else(|| panic!("no line: {e}"));
        let col: usize = it.next().and_then(|x| x.parse().ok()).unwrap_or_else(|| panic!("no column: {e}"));
        assert!(it.next().is_some_and(|m| !m.trim().is_empty()), "no message: {e}");
        check_location(text, line, col, false, &e);
    }
});
