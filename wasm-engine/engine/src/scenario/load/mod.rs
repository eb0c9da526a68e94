//! Loading scenario files: parse (TOML, or JSON when the text starts with `{`), then
//! validate, and report every problem as `file:line:column: message` at the offending value.
//!
//! Syntax and type errors carry the parser's own location. Semantic errors are found on the
//! typed [`ScenarioFile`] and located afterwards by key path (`tasks[1].affinity[0]`) in a
//! span tree of the text (see [`super::locate`]). Pure: no IO.
//!
//! The checks, by part of the file: `host.rs` (`[host]`), `cgroups.rs` (`[[cgroups]]`, and the
//! `cpu.max` helpers the simulator shares), `tasks.rs` (`[[tasks]]` and the names their programs
//! give), `program.rs` (each step where it stands).

mod cgroups;
mod host;
mod program;
mod tasks;
#[cfg(test)]
mod tests;

pub use cgroups::{cgroup_parent, cgroup_period_ns, parse_cpu_max};
pub use host::MAX_CFS_RQ_AVG;

use super::locate::{self, KeyPath};
use super::schema::{ScenarioFile, SCENARIO_VERSION};
use super::units::{format_duration, DurationSpec};
use crate::sched::features::SchedFeatures;
use std::fmt;

/// A scenario error with its location (1-based line and column; 0:0 when no text is known).
/// The UI shows every error in this shape (`LocatedError`; file empty and 0:0 when no file is
/// to blame).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, ts_rs::TS)]
#[ts(rename = "LocatedError")]
pub struct ScenarioError {
    /// File name, as given by the caller.
    pub file: String,
    /// 1-based line (0 when unknown).
    pub line: usize,
    /// 1-based column in characters (0 when unknown).
    pub column: usize,
    /// What is wrong and what was expected.
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}: {}", self.file, self.line, self.column, self.message)
    }
}

impl std::error::Error for ScenarioError {}

/// Smallest accepted slice (base or per task): the kernel clamps sched_runtime to 0.1 ms.
pub const MIN_SLICE_NS: u64 = 100_000;
/// Largest accepted slice: the kernel clamps sched_runtime to 100 ms.
pub const MAX_SLICE_NS: u64 = 100_000_000;
/// Largest accepted timer slack.
pub const MAX_TIMER_SLACK_NS: u64 = 1_000_000_000;
/// Longest `host.wakeup_switch_latency` and `host.schedule_clock_lead` (1 ms: the measured gaps are
/// 1-17 us).
pub const MAX_SWITCH_GAP_NS: u64 = 1_000_000;
/// Largest accepted host.
pub const MAX_CPUS: u32 = 4096;
/// Accepted CONFIG_HZ values.
pub const HZ_VALUES: [u32; 4] = [100, 250, 300, 1000];
/// Deepest accepted loop nesting.
pub const MAX_LOOP_DEPTH: usize = 16;
/// Most children one fork step may fork.
pub const MAX_FORK_CHILDREN: u32 = 1024;
/// Most fork children (task slots) a scenario may declare in all.
pub const MAX_FORK_SLOTS: u64 = 4096;

fn is_json(text: &str) -> bool {
    text.trim_start_matches('\u{feff}').trim_start().starts_with('{')
}

fn err_at(file: &str, text: &str, offset: usize, message: String) -> ScenarioError {
    let (line, column) = locate::line_col(text, offset);
    ScenarioError { file: file.to_string(), line, column, message }
}

/// Parses and validates a scenario. TOML by default; JSON when the first non-whitespace
/// character is `{`.
pub fn parse_scenario(file: &str, text: &str) -> Result<ScenarioFile, ScenarioError> {
    let s = if is_json(text) { parse_json(file, text)? } else { parse_toml(file, text)? };
    validate(file, Some(text), &s)?;
    Ok(s)
}

fn parse_toml(file: &str, text: &str) -> Result<ScenarioFile, ScenarioError> {
    toml::from_str::<ScenarioFile>(text).map_err(|e| {
        let offset = e.span().map(|r| r.start).unwrap_or(0);
        err_at(file, text, offset, e.message().trim_end().to_string())
    })
}

fn parse_json(file: &str, text: &str) -> Result<ScenarioFile, ScenarioError> {
    serde_json::from_str::<ScenarioFile>(text).map_err(|e| {
        let full = e.to_string();
        let suffix = format!(" at line {} column {}", e.line(), e.column());
        let message = full.strip_suffix(&suffix).unwrap_or(&full).to_string();
        // serde_json counts byte columns and, for data errors, points at the last byte of
        // the offending key or value: move to its start (in characters), as for TOML.
        let mut offset = locate::offset_of(text, e.line().max(1), e.column().max(1));
        if e.classify() == serde_json::error::Category::Data {
            if let Some(start) = locate::json_tree(text).and_then(|t| t.start_of_token_ending_at(offset)) {
                offset = start;
            }
        }
        err_at(file, text, offset, message)
    })
}

/// One semantic problem, before it is located in the text.
#[derive(Debug, Clone)]
struct Issue {
    path: KeyPath,
    /// Point at the key rather than the value (unknown keys).
    at_key: bool,
    message: String,
}

/// Validates a scenario's semantics (ranges, references, reachability). With `text`, the
/// error is located at the offending value in it; without, line and column are 0. The
/// message always starts with the key path (`tasks[1].affinity[0]: ...`).
pub fn validate(file: &str, text: Option<&str>, s: &ScenarioFile) -> Result<(), ScenarioError> {
    let issues = check(s);
    let Some(first) = issues.into_iter().next() else {
        return Ok(());
    };
    let message = format!("{}: {}", first.path, first.message);
    let Some(text) = text else {
        return Err(ScenarioError { file: file.to_string(), line: 0, column: 0, message });
    };
    let tree = if is_json(text) { locate::json_tree(text) } else { locate::toml_tree(text) };
    let offset = tree.and_then(|t| t.locate(&first.path, first.at_key)).unwrap_or(0);
    Err(err_at(file, text, offset, message))
}

/// The first semantic problem `validate` would report, with its key path, for callers that
/// locate it themselves (the replay names the trace record a shadow scenario's step came from).
pub fn first_issue(s: &ScenarioFile) -> Option<(KeyPath, String)> {
    check(s).into_iter().next().map(|i| (i.path, i.message))
}

struct Checker {
    issues: Vec<Issue>,
}

impl Checker {
    fn push(&mut self, path: KeyPath, message: impl Into<String>) {
        self.issues.push(Issue { path, at_key: false, message: message.into() });
    }
    fn push_key(&mut self, path: KeyPath, message: impl Into<String>) {
        self.issues.push(Issue { path, at_key: true, message: message.into() });
    }

    /// A duration that must be finite and (when `positive`) greater than zero.
    fn finite(&mut self, path: &KeyPath, d: DurationSpec, positive: bool, what: &str) -> bool {
        if d.is_forever() {
            self.push(
                path.clone(),
                format!("{what} must be finite: expected a duration like \"300us\", not \"forever\""),
            );
            false
        } else if positive && d.ns() == 0 {
            self.push(path.clone(), format!("{what} must be greater than 0 (expected a duration like \"300us\")"));
            false
        } else {
            true
        }
    }

    fn slice_range(&mut self, path: KeyPath, d: DurationSpec, what: &str) {
        if d.ns() < MIN_SLICE_NS || d.ns() > MAX_SLICE_NS {
            self.push(
                path,
                format!(
                    "{what} {} is out of range: expected a duration in 100us..=100ms (the kernel clamps slices to this range)",
                    format_duration(d.ns())
                ),
            );
        }
    }
}

/// All semantic problems, in document order.
fn check(s: &ScenarioFile) -> Vec<Issue> {
    let mut c = Checker { issues: Vec::new() };
    let root = KeyPath::root();

    if s.version != SCENARIO_VERSION {
        c.push(
            root.key("version"),
            format!("unsupported scenario version {} (expected {SCENARIO_VERSION})", s.version),
        );
    }
    if s.name.trim().is_empty() {
        c.push(root.key("name"), "the scenario name must not be empty");
    }
    c.finite(&root.key("duration"), s.duration, true, "the scenario duration");

    host::check_host(&mut c, &root, s);

    // Kernel.
    let features = root.key("kernel").key("features");
    for name in s.kernel.features.keys() {
        if !SchedFeatures::is_known(name) {
            c.push_key(
                features.key(name),
                format!("unknown scheduler feature {name:?}, expected one of {}", SchedFeatures::NAMES.join(", ")),
            );
        }
    }

    // cgroups.
    cgroups::check_cgroups(&mut c, &root.key("cgroups"), &s.cgroups);

    // VMs.
    for (i, v) in s.vms.iter().enumerate() {
        let vp = root.key("vms").index(i);
        if !s.tasks.iter().any(|t| t.vm.as_deref() == Some(v.name.as_str())) {
            c.push(
                vp.key("name"),
                format!("no task is a vCPU of vm {:?} (expected a task with vm = {:?})", v.name, v.name),
            );
        } else if let Some(j) = s.vms[..i].iter().position(|o| o.name == v.name) {
            c.push(vp.key("name"), format!("vm {:?} is already configured by vms[{j}]", v.name));
        }
        if let Some(w) = v.ple_window {
            if w.ns() == 0 || w.ns() > 1_400_000_000 {
                c.push(vp.key("ple_window"), "expected a PLE window in 1ns..=1.4s");
            }
        }
        if let Some(m) = v.ple_window_max {
            if m.ns() == 0 {
                c.push(vp.key("ple_window_max"), "expected a maximum PLE window of at least 1ns");
            }
        }
    }

    tasks::check_tasks(&mut c, s);
    c.issues
}
