//! Shared helpers of the integration tests.
#![allow(dead_code)]
#![allow(clippy::disallowed_methods)] // the tests read scenario files

use schedlab_engine::sim::Simulation;
use std::path::{Path, PathBuf};

/// The repository root.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("repo root")
}

/// The captures of our own machines committed with the repository (`traces/`).
pub fn traces() -> PathBuf {
    repo_root().join("traces")
}

/// The environment variable naming the folder of third-party sample traces (`trappy/`, `lisa/`,
/// `perfetto/`). They come from other projects and are not part of the repository; `.ci/run` sets
/// it when the folder is available.
pub const THIRD_PARTY_ENV: &str = "SCHEDLAB_THIRD_PARTY_TRACES";

/// The folder of third-party traces named by [`THIRD_PARTY_ENV`]. When the variable is unset or
/// empty, writes `SKIPPED (did not run): TEST needs ...` to stderr (past the test harness's
/// capture, so it shows in every run) and returns `None`: the caller returns without checking
/// anything. A variable naming a folder that does not exist is a mistake and panics.
pub fn third_party(test: &str, what: &str) -> Option<PathBuf> {
    use std::io::Write;
    match std::env::var_os(THIRD_PARTY_ENV).filter(|v| !v.is_empty()) {
        Some(dir) => {
            let dir = PathBuf::from(dir);
            assert!(dir.is_dir(), "{THIRD_PARTY_ENV}={} is not a folder", dir.display());
            Some(dir)
        }
        None => {
            let _ = writeln!(
                std::io::stderr(),
                "SKIPPED (did not run): {test} needs {THIRD_PARTY_ENV} (third-party traces: {what})"
            );
            None
        }
    }
}

/// Every scenario file under `scenarios/` (TOML and JSON, not the schema), sorted.
pub fn scenario_files() -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![repo_root().join("scenarios")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("read scenarios dir") {
            let p = entry.expect("entry").path();
            if p.is_dir() {
                if p.file_name().is_some_and(|n| n != "schema") {
                    stack.push(p);
                }
            } else if p.extension().is_some_and(|e| e == "toml" || e == "json") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Loads a scenario file into a simulation.
pub fn load(path: &Path, variants: &[(&str, &str)]) -> Simulation {
    let text = std::fs::read_to_string(path).expect("read scenario");
    let v: Vec<(String, String)> = variants.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
    let (_, sim) = schedlab_engine::load(&path.display().to_string(), &text, &v).unwrap_or_else(|e| panic!("{e}"));
    sim
}

/// Loads scenario text with overrides and runs it with the invariant checker on.
pub fn run_text(file: &str, text: &str, variants: &[(&str, &str)]) -> Simulation {
    let v: Vec<(String, String)> = variants.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
    let (_, mut sim) = schedlab_engine::load(file, text, &v).unwrap_or_else(|e| panic!("{e}"));
    sim.check_invariants = true;
    sim.run();
    sim
}

/// Every record of a trace-cmd `.dat` capture, in file order (a capture that lost events is
/// refused: the tests that read records one by one count on all of them).
pub fn dat_records(path: &Path) -> Vec<schedlab_engine::import::record::TraceRecord> {
    use schedlab_engine::import::record::{Skipped, TraceRecord, TraceSink};
    struct Records(Vec<TraceRecord>);
    impl TraceSink for Records {
        fn record(&mut self, rec: TraceRecord) {
            self.0.push(rec);
        }
        fn lost(&mut self, cpu: u32, count: u64, _line: u64) {
            panic!("CPU {cpu} lost {count} events");
        }
        fn skipped(&mut self, _s: Skipped) {}
    }
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut recs = Records(Vec::new());
    schedlab_engine::import::dat::decode_all(&bytes, &mut recs).expect("decodes");
    recs.0
}

/// A `.dat` capture read into the replay's observation (`Observed`, finished).
pub fn observe_dat(path: &Path) -> schedlab_engine::replay::observe::Observed {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut obs = schedlab_engine::replay::observe::Observed::default();
    obs.source = path.display().to_string();
    schedlab_engine::import::dat::decode_all(&bytes, &mut obs).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    obs.finish();
    obs
}

/// The samples of a bpftrace EEVDF-state dump (`tools/capture/schedlab-eevdf.bt`'s
/// `eevdf-state.txt`).
pub fn eevdf_dump(path: &Path) -> Vec<schedlab_engine::import::EevdfSample> {
    use schedlab_engine::import::{EevdfSample, Skipped, TextImporter, TraceRecord, TraceSink};
    #[derive(Default)]
    struct Dump(Vec<EevdfSample>);
    impl TraceSink for Dump {
        fn record(&mut self, _rec: TraceRecord) {}
        fn lost(&mut self, _cpu: u32, _count: u64, _line: u64) {}
        fn skipped(&mut self, _s: Skipped) {}
        fn eevdf(&mut self, s: EevdfSample) {
            self.0.push(s);
        }
    }
    let text = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let (mut imp, mut d) = (TextImporter::new(), Dump::default());
    imp.feed(&text, &mut d);
    imp.finish(&mut d);
    d.0
}

/// A layout file (`*.layout.toml`) parsed.
pub fn layout_file(path: &Path) -> schedlab_engine::replay::shadow::Layout {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    schedlab_engine::replay::shadow::Layout::parse(&path.display().to_string(), &text).expect("layout parses")
}
