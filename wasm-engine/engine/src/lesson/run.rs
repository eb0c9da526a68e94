//! Running a lesson: each scenario it uses under every variant its steps load (each distinct
//! set of overrides once), then every step's checks and its "why this pick" at the cursor.
//! The caller reads the files (the engine does no IO) through `load`; `schedlab lessons` and
//! the lesson test print or assert the report.

use super::check::{step_variants, try_variant, validate_step, Names};
use super::facts::{check_expect, level_path, pick_row, Context};
use super::{lesson_time, Lesson, Step};
use crate::obs::explain::{decision_levels, node_name};
use crate::obs::why::pick_words;
use crate::scenario::{apply_variant, parse_scenario, validate as validate_scenario};
use crate::sim::config::SimConfig;
use crate::sim::Simulation;

/// What one step showed and whether its facts hold.
#[derive(Debug, Clone)]
pub struct StepReport {
    /// The step's title.
    pub title: String,
    /// Facts of `expect` that do not hold (empty: all hold).
    pub failures: Vec<String>,
    /// Facts of `try.expect` that do not hold.
    pub try_failures: Vec<String>,
    /// The decision at the cursor on the step's CPU in its first variant: per level, the
    /// queue's cgroup path, the winner and the words.
    pub why: Vec<(String, String, String)>,
}

/// A lesson's report: problems with the lesson itself, then one report per step.
#[derive(Debug, Clone, Default)]
pub struct LessonReport {
    /// Validation errors (names, times, variants, knobs, scenarios).
    pub errors: Vec<String>,
    /// Per step, in order (empty when validation failed).
    pub steps: Vec<StepReport>,
}

impl LessonReport {
    /// Whether the lesson is valid and every fact holds.
    pub fn ok(&self) -> bool {
        self.errors.is_empty() && self.steps.iter().all(|s| s.failures.is_empty() && s.try_failures.is_empty())
    }
}

/// A scenario file and its text, as `load` returns them.
pub type ScenarioText = (String, String);

fn build(file: &str, text: &str, overrides: &[(String, String)]) -> Result<Simulation, String> {
    let mut sf = parse_scenario(file, text).map_err(|e| e.to_string())?;
    for (k, v) in overrides {
        apply_variant(&mut sf, k, v)?;
    }
    validate_scenario(file, Some(text), &sf).map_err(|e| e.to_string())?;
    Ok(Simulation::new(SimConfig::from_scenario(&sf)?))
}

/// The scenario id a step uses.
pub fn step_scenario<'a>(lesson: &'a Lesson, st: &'a Step) -> &'a str {
    st.scenario.as_deref().unwrap_or(&lesson.scenario)
}

/// One scenario's runs, each distinct override set once.
struct Runs {
    file: String,
    text: String,
    runs: Vec<(Vec<(String, String)>, Simulation)>,
}

impl Runs {
    fn index(&mut self, o: &[(String, String)]) -> usize {
        if let Some(i) = self.runs.iter().position(|(k, _)| k == o) {
            return i;
        }
        let mut s = build(&self.file, &self.text, o).expect("validated");
        s.run();
        self.runs.push((o.to_vec(), s));
        self.runs.len() - 1
    }
}

/// Validates `lesson` against its scenarios (`load` gives a bundled scenario's file name and
/// text by id), runs them and checks every step.
pub fn run_lesson(lesson: &Lesson, load: &dyn Fn(&str) -> Result<ScenarioText, String>) -> LessonReport {
    let mut errors = Vec::new();
    if lesson.steps.is_empty() {
        errors.push(format!("{}: a lesson needs at least one step", lesson.id));
    }
    let mut scenarios: Vec<(String, Runs)> = Vec::new();
    for (i, st) in lesson.steps.iter().enumerate() {
        let id = step_scenario(lesson, st);
        if !scenarios.iter().any(|(k, _)| k == id) {
            match load(id).and_then(|(f, t)| build(&f, &t, &[]).map(|_| (f, t))) {
                Ok((file, text)) => scenarios.push((id.to_string(), Runs { file, text, runs: Vec::new() })),
                Err(e) => {
                    errors.push(format!("{} step {}: scenario {id}: {e}", lesson.id, i + 1));
                    continue;
                }
            }
        }
        let r = &scenarios.iter().find(|(k, _)| k == id).expect("loaded").1;
        let base = build(&r.file, &r.text, &[]).expect("built above");
        let apply = |o: &[(String, String)]| build(&r.file, &r.text, o).map(|_| ());
        errors.extend(validate_step(
            &lesson.id,
            i,
            st,
            &Names::of(&base),
            base.cfg.duration_ns,
            base.cfg.host.ncpus,
            &apply,
        ));
    }
    if !errors.is_empty() {
        return LessonReport { errors, steps: vec![] };
    }
    // Every step's variants, run once per scenario and override set.
    let mut plan: Vec<(usize, Vec<(String, usize)>)> = Vec::new();
    for st in &lesson.steps {
        let si = scenarios.iter().position(|(k, _)| k == step_scenario(lesson, st)).expect("loaded");
        let mut specs = step_variants(st).expect("validated");
        if let Some(t) = &st.try_knob {
            specs.extend(try_variant(st, &t.values[0]).expect("validated"));
        }
        let runs = &mut scenarios[si].1;
        plan.push((si, specs.iter().map(|(k, o)| (k.clone(), runs.index(o))).collect()));
    }
    let steps =
        lesson.steps.iter().zip(&plan).map(|(st, (si, keys))| check_step(st, &scenarios[*si].1, keys)).collect();
    LessonReport { errors: Vec::new(), steps }
}

fn check_step(st: &Step, runs: &Runs, keys: &[(String, usize)]) -> StepReport {
    let sims: Vec<(String, &Simulation)> = keys.iter().map(|(k, i)| (k.clone(), &runs.runs[*i].1)).collect();
    let at = lesson_time(&st.at).expect("validated");
    let range = (lesson_time(&st.range[0]).expect("validated"), lesson_time(&st.range[1]).expect("validated"));
    let cx = Context { runs: &sims, variant: &keys[0].0, at, cpu: st.cpu, range };
    let failures = check_expect(&st.expect, &cx);
    let try_failures = match st.try_knob.as_ref().and_then(|t| t.expect.as_ref()) {
        Some(e) => check_expect(e, &Context { variant: &keys[keys.len() - 1].0, ..cx }),
        None => Vec::new(),
    };
    let first = sims[0].1;
    let n = Names::of(first);
    let shown = |x: u32| node_name(x, &|t| n.tasks.get(t as usize).cloned(), &|g| n.groups.get(g as usize).cloned());
    let why = match pick_row(first, st.cpu, at, None) {
        Ok(i) => decision_levels(first, i)
            .into_iter()
            .map(|j| {
                let node = first.fair.log.picks.task[j];
                (level_path(first, node), shown(node), pick_words(&first.fair.log, j, &shown, &first.fair.feat))
            })
            .collect(),
        Err(_) => Vec::new(),
    };
    StepReport { title: st.title.clone(), failures, try_failures, why }
}
