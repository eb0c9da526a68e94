//! Tidy: ARCHITECTURE.md names only paths that exist, and every engine source file opens
//! with a `//!` module header.

#![allow(clippy::disallowed_methods)] // reads repository files

mod common;

#[test]
fn architecture_paths_exist() {
    let root = common::repo_root();
    let text = std::fs::read_to_string(root.join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let mut checked = 0;
    for (i, chunk) in text.split('`').enumerate() {
        // Odd chunks are inside backticks.
        if i % 2 == 0 || !chunk.contains('/') || chunk.contains(' ') || chunk.contains("::") {
            continue;
        }
        let path = chunk.trim_end_matches('/');
        assert!(root.join(path).exists(), "ARCHITECTURE.md names `{chunk}`, which does not exist");
        checked += 1;
    }
    assert!(checked >= 10, "expected ARCHITECTURE.md to name its paths, found {checked}");
}

#[test]
fn every_engine_module_has_a_header() {
    let src = common::repo_root().join("wasm-engine/engine/src");
    let mut stack = vec![src];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).expect("dir") {
            let p = e.expect("entry").path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                let text = std::fs::read_to_string(&p).expect("read");
                assert!(text.starts_with("//!"), "{} does not start with a //! module header", p.display());
            }
        }
    }
}
