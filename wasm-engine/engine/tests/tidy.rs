//! Tidy: ARCHITECTURE.md names only paths that exist, every engine source file opens with a
//! `//!` module header, and no file of the repository reaches outside it for data.

#![allow(clippy::disallowed_methods)] // reads repository files

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The repository's files (relative paths with `/`): `git ls-files` (tracked, plus untracked
/// files that are not ignored, so a new file is checked before it is added); without git, a walk
/// of the tree that skips `.git`, `target`, `node_modules`, `dist` and the e2e/fuzz artifacts.
fn repo_files(root: &Path) -> Vec<String> {
    let git = std::process::Command::new("git")
        .args(["ls-files", "-z", "--cached", "--others", "--exclude-standard"])
        .current_dir(root)
        .output();
    if let Some(out) = git.ok().filter(|o| o.status.success()) {
        let mut files: Vec<String> = out
            .stdout
            .split(|&b| b == 0)
            .filter(|p| !p.is_empty())
            .map(|p| String::from_utf8_lossy(p).into_owned())
            .filter(|p| root.join(p).is_file()) // deleted but not yet committed
            .collect();
        files.sort();
        files.dedup();
        return files;
    }
    let skip = ["target", "node_modules", "dist", "artifacts"];
    let mut files = Vec::new();
    let mut stack = vec![PathBuf::new()];
    while let Some(rel) = stack.pop() {
        for e in std::fs::read_dir(root.join(&rel)).expect("read dir") {
            let e = e.expect("entry");
            let name = e.file_name().to_string_lossy().into_owned();
            let p = rel.join(&name);
            if e.file_type().expect("file type").is_dir() {
                if name != ".git" && !skip.contains(&name.as_str()) {
                    stack.push(p);
                }
            } else {
                files.push(p.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    files.sort();
    files
}

/// File extensions that make a bare backticked token a file name (see [`architecture_paths_exist`]).
const FILE_EXTENSIONS: [&str; 22] = [
    "rs", "ts", "tsx", "js", "mjs", "md", "toml", "json", "sh", "py", "txt", "dat", "bt", "html", "css", "lock",
    "digest", "yml", "yaml", "svg", "png", "dict",
];

/// Matches `name` against `pattern` where `*` stands for any run of characters (none of them `/`).
fn glob(pattern: &str, name: &str) -> bool {
    let (p, n) = (pattern.as_bytes(), name.as_bytes());
    let (mut i, mut j) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while j < n.len() {
        if i < p.len() && p[i] == b'*' {
            star = Some((i, j));
            i += 1;
        } else if i < p.len() && p[i] == n[j] {
            i += 1;
            j += 1;
        } else if let Some((si, sj)) = star.filter(|&(_, sj)| n[sj] != b'/') {
            i = si + 1;
            j = sj + 1;
            star = Some((si, sj + 1));
        } else {
            return false;
        }
    }
    p[i..].iter().all(|&c| c == b'*')
}

/// The inline code spans of a Markdown text (fenced code blocks left out).
fn code_spans(text: &str) -> Vec<String> {
    let mut prose = String::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced {
            prose.push_str(line);
            prose.push('\n');
        }
    }
    // Odd chunks are inside backticks.
    prose.split('`').skip(1).step_by(2).map(str::to_string).collect()
}

/// Every backticked token of ARCHITECTURE.md that names a file or folder exists.
///
/// Rules, applied to each inline code span (fenced code blocks are diagrams, not names):
/// 1. Skipped as not a name: a span with whitespace, `::`, `(` or `)`, one of `? [ ] { } < > = | " ' $ @ , ;`,
///    one starting with `-` (a flag), one starting with `.` without a `/` (an extension such as
///    `.dat`), or one without a letter or digit.
/// 2. A span with a `/` is a path from the repository root (a trailing `/` is dropped): it must be
///    a file or a folder that holds files.
/// 3. A span without `/` is a file name when it ends in `.EXT` with EXT one of [`FILE_EXTENSIONS`]
///    after a non-empty stem (so `sim.fair.log`, `window.__schedlab` and `load.weight` are not):
///    some file of the repository must have that name. Other bare words (`sched`, `Simulation`,
///    `update_curr`) are identifiers, not checked.
/// 4. A `*` in a name or path is a glob over one path segment: at least one file must match
///    (`lessons/*.json`; a bare `*.expected.txt` against file names).
#[test]
fn architecture_paths_exist() {
    let root = common::repo_root();
    let text = std::fs::read_to_string(root.join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let files = repo_files(&root);
    let names: BTreeSet<&str> = files.iter().map(|f| f.rsplit('/').next().unwrap()).collect();
    let folders: BTreeSet<&str> = files.iter().flat_map(|f| f.match_indices('/').map(move |(i, _)| &f[..i])).collect();
    let (mut paths, mut bare, mut missing) = (0, 0, Vec::new());
    for span in code_spans(&text) {
        let not_a_name = span.is_empty()
            || span.chars().any(char::is_whitespace)
            || span.contains("::")
            || span.contains(['(', ')', '?', '[', ']', '{', '}', '<', '>', '=', '|', '"', '\'', '$', '@', ',', ';'])
            || span.starts_with('-')
            || (span.starts_with('.') && !span.contains('/'))
            || !span.chars().any(|c| c.is_ascii_alphanumeric());
        if not_a_name {
            continue;
        }
        let path = span.trim_end_matches('/');
        let found = if path.contains('/') {
            paths += 1;
            if path.contains('*') {
                files.iter().any(|f| glob(path, f))
            } else {
                files.iter().any(|f| f == path) || folders.contains(path)
            }
        } else {
            let ext = path.rsplit_once('.').filter(|(stem, _)| !stem.is_empty()).map(|(_, e)| e);
            if !ext.is_some_and(|e| FILE_EXTENSIONS.contains(&e)) {
                continue;
            }
            bare += 1;
            if path.contains('*') {
                names.iter().any(|n| glob(path, n))
            } else {
                names.contains(path)
            }
        };
        if !found {
            missing.push(span);
        }
    }
    assert!(missing.is_empty(), "ARCHITECTURE.md names files or folders that do not exist: {missing:?}");
    assert!(
        paths >= 50 && bare >= 100,
        "expected ARCHITECTURE.md to name its paths, found {paths} paths, {bare} names"
    );
}

#[test]
fn the_glob_of_the_architecture_check() {
    assert!(glob("lessons/*.json", "lessons/01-eevdf-basics.json"));
    assert!(!glob("lessons/*.json", "lessons/x/01.json"), "* stays in its segment");
    assert!(glob("*.expected.txt", "a.expected.txt"));
    assert!(!glob("*.expected.txt", "a.expected.txt.bak"));
    assert!(glob("a*b*c", "aXbYc") && !glob("a*b*c", "aXbY"));
    let spans = code_spans("`a.rs` and\n```\n`not.rs`\n```\n`b/c`");
    assert_eq!(spans, vec!["a.rs", "b/c"]);
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

/// The repository stands alone: no file names the folder beside it where the project's shared
/// data lives (`..` + `/shared`) or its traces folder (`shared` + `/traces`), except the one line
/// of `.ci/run` that points `SCHEDLAB_THIRD_PARTY_TRACES` at the third-party traces there. Tests
/// read real captures from `traces/`, third-party ones only through that variable. Every file is
/// searched, binary ones too (fuzz corpora, `.dat` files). The needles are built at run time so
/// that this file does not match itself.
#[test]
fn no_file_reaches_outside_the_repository() {
    let root = common::repo_root();
    let needles = [format!("..{}", "/shared"), format!("shared{}", "/traces")];
    let files = repo_files(&root);
    assert!(files.len() > 100, "{} files", files.len());
    assert!(files.iter().any(|f| f == "wasm-engine/engine/tests/tidy.rs"), "this file is among them");
    let mut offenders = Vec::new();
    for f in &files {
        let bytes = std::fs::read(root.join(f)).unwrap_or_else(|e| panic!("{f}: {e}"));
        let hits: Vec<usize> = bytes
            .split(|&b| b == b'\n')
            .enumerate()
            .filter(|(_, line)| needles.iter().any(|n| line.windows(n.len()).any(|w| w == n.as_bytes())))
            .map(|(i, _)| i + 1)
            .collect();
        if f == ".ci/run" {
            assert_eq!(
                hits.len(),
                1,
                ".ci/run names the folder beside the repository on lines {hits:?}: one line only"
            );
            let line = String::from_utf8_lossy(bytes.split(|&b| b == b'\n').nth(hits[0] - 1).unwrap()).into_owned();
            assert!(line.contains(common::THIRD_PARTY_ENV), ".ci/run line {}: {line}", hits[0]);
        } else if !hits.is_empty() {
            offenders.push(format!("{f}:{hits:?}"));
        }
    }
    assert!(offenders.is_empty(), "files naming a folder outside the repository (file:[lines]): {offenders:#?}");
}
