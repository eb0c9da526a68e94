//! Lessons (`lessons/*.json`): every lesson is valid against its scenarios (names, times,
//! variants, knobs) and every fact its steps state holds in the engine, for the step's own
//! variants and for the knob it offers. A wrong fact or a bad name must be caught.

#![allow(clippy::disallowed_methods)] // the test reads lesson and scenario files

mod common;

use schedlab_engine::lesson::run::{run_lesson, LessonReport, ScenarioText};
use schedlab_engine::lesson::{parse_lesson, Lesson};
use std::path::PathBuf;

fn lesson_files() -> Vec<PathBuf> {
    let dir = common::repo_root().join("lessons");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("lessons dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    v.sort();
    v
}

fn load_scenario(id: &str) -> Result<ScenarioText, String> {
    let p = common::repo_root().join("scenarios").join(format!("{id}.toml"));
    std::fs::read_to_string(&p).map(|t| (p.display().to_string(), t)).map_err(|e| format!("{}: {e}", p.display()))
}

fn read(p: &PathBuf) -> Lesson {
    let text = std::fs::read_to_string(p).expect("read lesson");
    parse_lesson(&p.display().to_string(), &text).unwrap_or_else(|e| panic!("{e}"))
}

fn describe(id: &str, r: &LessonReport) -> String {
    let mut s = format!("{id}:\n");
    for e in &r.errors {
        s.push_str(&format!("  error: {e}\n"));
    }
    for (i, st) in r.steps.iter().enumerate() {
        for f in st.failures.iter().chain(&st.try_failures) {
            s.push_str(&format!("  step {} ({}): {f}\n", i + 1, st.title));
        }
    }
    s
}

#[test]
fn every_lesson_is_valid_and_its_facts_hold() {
    let files = lesson_files();
    assert!(files.len() >= 12, "expected the twelve lessons, found {}", files.len());
    let mut ids = Vec::new();
    let mut failures = Vec::new();
    let mut steps = 0;
    for f in &files {
        let lesson = read(f);
        // The id is the file name without its ordering prefix ("01-").
        let stem = f.file_stem().unwrap().to_string_lossy().to_string();
        let (prefix, rest) = stem.split_once('-').expect("NN-id.json");
        assert!(prefix.len() == 2 && prefix.chars().all(|c| c.is_ascii_digit()), "{stem}: expected a two-digit prefix");
        assert_eq!(lesson.id, rest, "{}: id must match the file name", f.display());
        assert!(!ids.contains(&lesson.id), "duplicate lesson id {}", lesson.id);
        ids.push(lesson.id.clone());
        for st in &lesson.steps {
            assert!(!st.question.trim().is_empty(), "{}: step {:?} has no question", lesson.id, st.title);
        }
        let report = run_lesson(&lesson, &load_scenario);
        steps += report.steps.len();
        if !report.ok() {
            failures.push(describe(&lesson.id, &report));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(steps >= 40, "only {steps} steps checked");
}

/// The first lesson, with one of its facts changed.
fn mutated(change: impl Fn(&mut Lesson)) -> LessonReport {
    let mut lesson = read(&lesson_files()[0]);
    change(&mut lesson);
    run_lesson(&lesson, &load_scenario)
}

#[test]
fn a_wrong_fact_is_caught() {
    let r = mutated(|l| l.steps[0].expect.picked = Some("A".into()));
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    assert_eq!(r.steps[0].failures, vec!["the pick at 4000000 ns on cpu 0 chose B, not A".to_string()]);
    let r = mutated(|l| l.steps[1].expect.eligible = vec!["A".into()]);
    assert_eq!(r.steps[1].failures, vec!["A was not eligible at the pick at 9000000 ns on cpu 0".to_string()]);
    let r = mutated(|l| l.steps[3].expect.metrics[0].min = 20.0);
    assert!(r.steps[3].failures[0].starts_with("C share_pct = 14"), "{:?}", r.steps[3].failures);
    let r = mutated(|l| l.steps[3].try_knob.as_mut().unwrap().values[0] = "0.7ms".into());
    assert!(!r.steps[3].try_failures.is_empty(), "the knob's fact no longer holds with the default slice");
    assert!(!r.ok());
}

#[test]
fn bad_names_times_and_knobs_are_reported() {
    let r = mutated(|l| {
        l.steps[0].highlight.push("Z".into());
        l.steps[1].range = ["5ms".into(), "4ms".into()];
        l.steps[2].at = "12 ms".into();
        l.steps[3].try_knob.as_mut().unwrap().knob = "NO_SUCH_KNOB".into();
    });
    let all = r.errors.join("\n");
    assert!(all.contains("step 1 (Virtual time and V): highlight \"Z\" is no task or cgroup"), "{all}");
    assert!(all.contains("step 2 (Eligibility): range [5ms, 4ms] must be increasing"), "{all}");
    assert!(all.contains("step 3 (Virtual deadlines): at: \"12 ms\": expected a number and a unit"), "{all}");
    assert!(
        all.contains("step 4 (Shares follow the weights): try NO_SUCH_KNOB=3ms: unknown variant \"NO_SUCH_KNOB\""),
        "{all}"
    );
    assert!(r.steps.is_empty());
    let r = mutated(|l| l.steps[0].scenario = Some("gallery/nope".into()));
    assert!(r.errors[0].contains("scenario gallery/nope"), "{:?}", r.errors);
}

#[test]
fn lesson_files_report_their_location() {
    let e = parse_lesson(
        "x.json",
        "{\"id\": \"x\", \"title\": \"t\", \"summary\": \"s\", \"scenario\": \"g\", \"steps\": [{\"titel\": 1}]}",
    )
    .unwrap_err();
    assert!(e.starts_with("x.json:1:"), "{e}");
    assert!(e.contains("unknown field `titel`"), "{e}");
}
