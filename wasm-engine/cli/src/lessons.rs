//! `schedlab lessons <lesson.json|dir>`: runs each lesson's scenario under its steps'
//! variants and prints, per step, the decision at the cursor level by level ("why this
//! pick") and whether the step's stated facts hold. Exits with an error if any does not.

use schedlab_engine::lesson::{parse_lesson, run::run_lesson};
use std::path::{Path, PathBuf};

/// The lesson files named by `arg`: the file itself, or every `*.json` in the directory.
fn files(arg: &str) -> Result<Vec<PathBuf>, String> {
    let p = Path::new(arg);
    if !p.is_dir() {
        return Ok(vec![p.to_path_buf()]);
    }
    let mut v: Vec<PathBuf> = std::fs::read_dir(p)
        .map_err(|e| format!("{arg}: {e}"))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    v.sort();
    Ok(v)
}

/// The `scenarios/` directory: beside the lessons directory, or above it.
fn scenarios_dir(lesson: &Path) -> Option<PathBuf> {
    let mut dir = lesson.canonicalize().ok()?.parent()?.to_path_buf();
    loop {
        let s = dir.join("scenarios");
        if s.is_dir() {
            return Some(s);
        }
        dir = dir.parent()?.to_path_buf();
    }
}

/// Runs and reports every lesson; Err if a lesson is invalid or a fact does not hold.
pub fn run(arg: &str) -> Result<String, String> {
    let mut out = String::new();
    let mut bad = 0;
    for f in files(arg)? {
        let name = f.display().to_string();
        let text = std::fs::read_to_string(&f).map_err(|e| format!("{name}: cannot read: {e}"))?;
        let lesson = parse_lesson(&name, &text)?;
        let dir = scenarios_dir(&f).ok_or_else(|| format!("{name}: no scenarios/ directory above it"))?;
        let load = |id: &str| {
            let p = dir.join(format!("{id}.toml"));
            std::fs::read_to_string(&p)
                .map(|t| (p.display().to_string(), t))
                .map_err(|e| format!("{}: {e}", p.display()))
        };
        let report = run_lesson(&lesson, &load);
        out.push_str(&format!("# {} — {} ({})\n", lesson.id, lesson.title, lesson.scenario));
        for e in &report.errors {
            out.push_str(&format!("  ERROR {e}\n"));
        }
        for (i, (st, s)) in lesson.steps.iter().zip(&report.steps).enumerate() {
            let verdict = if s.failures.is_empty() && s.try_failures.is_empty() { "ok" } else { "FAILS" };
            out.push_str(&format!("  {}. {} [at {}, cpu {}] {verdict}\n", i + 1, s.title, st.at, st.cpu));
            for (level, winner, words) in &s.why {
                out.push_str(&format!("     on {level}: {winner} — {words}\n"));
            }
            for x in &s.failures {
                out.push_str(&format!("     expect: {x}\n"));
            }
            for x in &s.try_failures {
                out.push_str(&format!("     try.expect: {x}\n"));
            }
        }
        if !report.ok() {
            bad += 1;
        }
    }
    if bad > 0 {
        return Err(format!("{out}{bad} lesson(s) invalid or with facts that do not hold"));
    }
    Ok(out)
}
