//! Lessons: guided walks through a bundled scenario, as data (`lessons/*.json` at the
//! repository root). Each step names what to look at (text, highlighted entities, a time
//! range, a cursor), a question, an optional knob to try, and an `expect` block: facts about
//! the run that `check.rs` verifies against the engine, so the prose cannot drift from what
//! the model does. The web app reads the same files (`web/src/lessons/`).
//!
//! Entities are named as in scenarios: tasks by name, group entities by cgroup path ("/CG0");
//! a cfs_rq level is named by its cgroup path, "/" for the root cfs_rq. Times are duration
//! strings ("12ms", "1.5ms", "300us").

pub mod check;
pub mod facts;
pub mod run;

use serde::Deserialize;

/// One lesson file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lesson {
    /// Identifier: the file name without `.json`.
    pub id: String,
    /// Title shown in the lesson list.
    pub title: String,
    /// One sentence: what the student learns.
    pub summary: String,
    /// Bundled scenario id: its path under `scenarios/` without the extension.
    pub scenario: String,
    /// The steps, in order.
    pub steps: Vec<Step>,
}

/// One step of a lesson.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// Short title.
    pub title: String,
    /// Another bundled scenario for this step (default: the lesson's).
    #[serde(default)]
    pub scenario: Option<String>,
    /// Paragraphs of explanation.
    pub text: Vec<String>,
    /// Entities to highlight in the timeline (task names, cgroup paths).
    #[serde(default)]
    pub highlight: Vec<String>,
    /// The visible time window `[start, end]`.
    pub range: [String; 2],
    /// The cursor (the instant the inspector explains).
    pub at: String,
    /// The CPU the step is about.
    #[serde(default)]
    pub cpu: u32,
    /// Named variants loaded side by side (`schedlab variants`); default: baseline.
    #[serde(default)]
    pub variants: Vec<String>,
    /// A question for the student.
    pub question: String,
    /// Its answer, revealed on request.
    #[serde(default)]
    pub answer: Option<String>,
    /// A knob to try.
    #[serde(default, rename = "try")]
    pub try_knob: Option<TryKnob>,
    /// Facts about the run that must hold.
    pub expect: Expect,
}

/// A knob the student can flip: loaded as one more variant beside the step's own.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TryKnob {
    /// A `--variant` name (scheduler feature or knob).
    pub knob: String,
    /// Values to offer; the first is the default.
    pub values: Vec<String>,
    /// What to look for once it runs.
    pub look: String,
    /// Facts that hold in the knob's run (with the first value).
    #[serde(default)]
    pub expect: Option<Expect>,
}

/// Facts about a run at the step's cursor (or `at`), on its CPU (or `cpu`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// Which loaded variant (default: the step's first, or the try variant in `try.expect`).
    #[serde(default)]
    pub variant: Option<String>,
    /// The instant (default: the step's cursor).
    #[serde(default)]
    pub at: Option<String>,
    /// The CPU (default: the step's).
    #[serde(default)]
    pub cpu: Option<u32>,
    /// The level of the decision the pick facts are about ("/" root, "/CG0"); default: the
    /// level where the task itself was picked.
    #[serde(default)]
    pub level: Option<String>,
    /// The winner of the latest pick at or before `at` on that level.
    #[serde(default)]
    pub picked: Option<String>,
    /// Its reason: only_entity, buddy, protected, earliest_eligible_deadline,
    /// curr_earlier_deadline.
    #[serde(default)]
    pub reason: Option<String>,
    /// Who set the queue's next buddy at that pick: none, yield_to, wakeup, sleep, sustained.
    #[serde(default)]
    pub buddy: Option<String>,
    /// Candidates of that pick that were eligible.
    #[serde(default)]
    pub eligible: Vec<String>,
    /// Candidates of that pick that were not eligible.
    #[serde(default)]
    pub not_eligible: Vec<String>,
    /// Entities queued but asleep (delayed dequeue) at `at`, by their latest sample.
    #[serde(default)]
    pub delayed: Vec<String>,
    /// Entities not queued at `at` (asleep, throttled in limbo, exited), by their latest sample.
    #[serde(default)]
    pub sleeping: Vec<String>,
    /// Whole-run metrics.
    #[serde(default)]
    pub metrics: Vec<MetricExpect>,
    /// Event counts within the step's range.
    #[serde(default)]
    pub counts: Vec<CountExpect>,
    /// Tasks on a given CPU (`task_cpu()`: running, queued or asleep there) at `at`, by their
    /// latest sample.
    #[serde(default)]
    pub on_cpu: Vec<OnCpuExpect>,
    /// Whole-run CPU time of a task, on one CPU or on all, as a percentage of the run.
    #[serde(default)]
    pub cpu_time: Vec<CpuTimeExpect>,
    /// Migrations (`migrate` rows) within the step's range, by task and class.
    #[serde(default)]
    pub migrations: Vec<MigrationsExpect>,
    /// Wakeup placements (`select_rq` rows) within the step's range, by task, rule and
    /// wake_affine()'s part.
    #[serde(default)]
    pub placements: Vec<PlacementsExpect>,
}

/// A task on `cpu` at an instant, as `task_cpu()` says: running, queued or asleep there (the
/// CPU of its latest sample at or before the instant).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OnCpuExpect {
    /// Which variant (default: the expect's).
    #[serde(default)]
    pub variant: Option<String>,
    /// The instant (default: the expect's).
    #[serde(default)]
    pub at: Option<String>,
    /// The task.
    pub task: String,
    /// The CPU.
    pub cpu: u32,
}

/// A task's CPU time over the whole run as a percentage of the run's length (one CPU = 100):
/// on `cpu` (`cpu_time_ns_by_cpu` of `schedlab simulate --json`), or on every CPU.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CpuTimeExpect {
    /// Which variant (default: the expect's).
    #[serde(default)]
    pub variant: Option<String>,
    /// The task.
    pub task: String,
    /// The CPU (default: all of them).
    #[serde(default)]
    pub cpu: Option<u32>,
    /// Lower bound, % of a CPU (inclusive).
    pub min_pct: f64,
    /// Upper bound, % of a CPU (inclusive).
    pub max_pct: f64,
}

/// The number of migrations in `[start, end)`: the step's range unless `range`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MigrationsExpect {
    /// Which variant (default: the expect's).
    #[serde(default)]
    pub variant: Option<String>,
    /// Only this task's.
    #[serde(default)]
    pub task: Option<String>,
    /// Only this class (`obs::codes::MigrateClass`: wake, periodic, newidle, nohz, active,
    /// affinity, exec).
    #[serde(default)]
    pub class: Option<String>,
    /// The time range counted (default: the step's range).
    #[serde(default)]
    pub range: Option<[String; 2]>,
    /// Lower bound (inclusive).
    pub min: u64,
    /// Upper bound (inclusive).
    pub max: u64,
}

/// The number of wakeup placements (`select_task_rq()`) in `[start, end)`: the step's range
/// unless `range`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlacementsExpect {
    /// Which variant (default: the expect's).
    #[serde(default)]
    pub variant: Option<String>,
    /// Only this task's.
    #[serde(default)]
    pub task: Option<String>,
    /// Only this rule (`sched::select::PlacePath`'s names: pinned, target_idle, prev_idle,
    /// recent_used_cpu, idle_scan, target_busy, find_dst_cpu, fallback_rq, vcpu_pack).
    #[serde(default)]
    pub rule: Option<String>,
    /// Only with this part of wake_affine() (`sched::select::AffinePath`'s names: none,
    /// idle, weight, prev).
    #[serde(default)]
    pub affine: Option<String>,
    /// Only those that chose this CPU.
    #[serde(default)]
    pub cpu: Option<u32>,
    /// The time range counted (default: the step's range).
    #[serde(default)]
    pub range: Option<[String; 2]>,
    /// Lower bound (inclusive).
    pub min: u64,
    /// Upper bound (inclusive).
    pub max: u64,
}

/// A whole-run metric within `[min, max]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MetricExpect {
    /// Which variant (default: the expect's).
    #[serde(default)]
    pub variant: Option<String>,
    /// A task's metric (`share_pct`, `yields`, …), or with no task a summary path
    /// (`cputimer.atomic_pct`, `yield_to.penalties`).
    #[serde(default)]
    pub task: Option<String>,
    /// The field, as in `schedlab simulate --json`.
    pub field: String,
    /// Lower bound (inclusive).
    pub min: f64,
    /// Upper bound (inclusive).
    pub max: f64,
}

/// The number of events of one kind in `[start, end)`: the step's range unless `range`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CountExpect {
    /// Which variant (default: the expect's).
    #[serde(default)]
    pub variant: Option<String>,
    /// Event kind, one the timeline marks: switch, wakeup, wakeup_new, yield, sleep, exit,
    /// place, throttle, unthrottle, task_throttled, yield_to, guest_lock, guest_unlock,
    /// ple_exit, ipi_send, ipi_handled, guest_spin, guest_spin_end, migrate.
    pub kind: String,
    /// Only events of this entity (task name or cgroup path).
    #[serde(default)]
    pub task: Option<String>,
    /// Only events with this value (a yield's 1 = reached schedule(), 0 = throttled; a
    /// switch's reason code).
    #[serde(default)]
    pub val: Option<i64>,
    /// The time range counted (default: the step's range).
    #[serde(default)]
    pub range: Option<[String; 2]>,
    /// Lower bound (inclusive).
    pub min: u64,
    /// Upper bound (inclusive).
    pub max: u64,
}

/// Event kinds a `counts` entry may name: the ones the timeline draws as markers.
pub const COUNTABLE: [&str; 19] = [
    "switch",
    "wakeup",
    "wakeup_new",
    "yield",
    "sleep",
    "exit",
    "place",
    "throttle",
    "unthrottle",
    "task_throttled",
    "yield_to",
    "guest_lock",
    "guest_unlock",
    "ple_exit",
    "ipi_send",
    "ipi_handled",
    "guest_spin",
    "guest_spin_end",
    "migrate",
];

/// The fields of each fact shape of an `expect` block, as lesson files spell them: the web
/// app's strict parser accepts exactly these (it reads them from the generated contract), and
/// a test holds them equal to the serde structs' fields.
pub const FACT_FIELDS: [(&str, &[&str]); 7] = [
    (
        "expect",
        &[
            "variant",
            "at",
            "cpu",
            "level",
            "picked",
            "reason",
            "buddy",
            "eligible",
            "not_eligible",
            "delayed",
            "sleeping",
            "metrics",
            "counts",
            "on_cpu",
            "cpu_time",
            "migrations",
            "placements",
        ],
    ),
    ("metrics", &["variant", "task", "field", "min", "max"]),
    ("counts", &["variant", "kind", "task", "val", "range", "min", "max"]),
    ("on_cpu", &["variant", "at", "task", "cpu"]),
    ("cpu_time", &["variant", "task", "cpu", "min_pct", "max_pct"]),
    ("migrations", &["variant", "task", "class", "range", "min", "max"]),
    ("placements", &["variant", "task", "rule", "affine", "cpu", "range", "min", "max"]),
];

/// Parses one lesson file; errors name the file, line and column.
pub fn parse_lesson(file: &str, text: &str) -> Result<Lesson, String> {
    serde_json::from_str(text).map_err(|e| format!("{file}:{}:{}: {e}", e.line(), e.column()))
}

/// A lesson duration ("12ms", "1.5ms", "300us"): a number and a unit, nothing else.
pub fn lesson_time(text: &str) -> Result<u64, String> {
    let split = text.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(text.len());
    let (num, unit) = text.split_at(split);
    let number_ok = match num.split_once('.') {
        Some((i, f)) => !i.is_empty() && !f.is_empty() && f.chars().all(|c| c.is_ascii_digit()),
        None => !num.is_empty(),
    };
    if !number_ok || !matches!(unit, "ns" | "us" | "µs" | "ms" | "s") {
        return Err(format!("{text:?}: expected a number and a unit (ns, us, µs, ms, s), e.g. \"12ms\" or \"1.5ms\""));
    }
    crate::scenario::units::parse_duration(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times() {
        assert_eq!(lesson_time("12ms"), Ok(12_000_000));
        assert_eq!(lesson_time("1.5ms"), Ok(1_500_000));
        assert_eq!(lesson_time("300us"), Ok(300_000));
        assert_eq!(lesson_time("300µs"), Ok(300_000));
        assert_eq!(lesson_time("2s"), Ok(2_000_000_000));
        for bad in ["12", "ms", " 12ms", "1.ms", ".5ms", "1.2.3ms", "forever", "12 ms", "12min"] {
            assert!(lesson_time(bad).is_err(), "{bad}");
        }
    }

    /// The fields serde names in its unknown-field error ("expected one of `a`, `b`").
    fn serde_fields<T: serde::de::DeserializeOwned + std::fmt::Debug>() -> Vec<String> {
        let e = serde_json::from_str::<T>("{\"__no_such_field__\": 0}").unwrap_err().to_string();
        let list = e.split("expected one of ").nth(1).unwrap_or_else(|| panic!("{e}"));
        list.split(", ").map(|f| f.split('`').nth(1).expect("`field`").to_string()).collect()
    }

    #[test]
    fn fact_fields_are_the_structs_fields() {
        let of = |k: &str| -> Vec<String> {
            FACT_FIELDS.iter().find(|(n, _)| *n == k).expect(k).1.iter().map(|f| f.to_string()).collect()
        };
        assert_eq!(of("expect"), serde_fields::<Expect>());
        assert_eq!(of("metrics"), serde_fields::<MetricExpect>());
        assert_eq!(of("counts"), serde_fields::<CountExpect>());
        assert_eq!(of("on_cpu"), serde_fields::<OnCpuExpect>());
        assert_eq!(of("cpu_time"), serde_fields::<CpuTimeExpect>());
        assert_eq!(of("migrations"), serde_fields::<MigrationsExpect>());
        assert_eq!(of("placements"), serde_fields::<PlacementsExpect>());
    }

    #[test]
    fn errors_are_located() {
        let e = parse_lesson("x.json", "{\n  \"id\": 3\n}").unwrap_err();
        assert!(e.starts_with("x.json:2:"), "{e}");
    }
}
