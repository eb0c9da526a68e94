//! Loading scenario files: parse (TOML, or JSON when the text starts with `{`), then
//! validate, and report every problem as `file:line:column: message` at the offending value.
//!
//! Syntax and type errors carry the parser's own location. Semantic errors are found on the
//! typed [`ScenarioFile`] and located afterwards by key path (`tasks[1].affinity[0]`) in a
//! span tree of the text (see [`super::locate`]). Pure: no IO.

use super::locate::{self, KeyPath};
use super::schema::{
    CfsRqAvgSpec, CgroupSpec, ForkSpec, LoopSpec, OpSpec, PeriodicSpec, PipeSpec, PolicySpec, ScenarioFile, TaskSpec,
    SCENARIO_VERSION,
};
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

    // Host.
    let host = root.key("host");
    let h = &s.host;
    if h.cpus == 0 || h.cpus > MAX_CPUS {
        c.push(host.key("cpus"), format!("expected a CPU count in 1..={MAX_CPUS}, got {}", h.cpus));
    }
    if let Some(t) = h.topology {
        let tp = host.key("topology");
        for (k, v) in
            [("sockets", t.sockets), ("cores_per_socket", t.cores_per_socket), ("threads_per_core", t.threads_per_core)]
        {
            if v == 0 {
                c.push(tp.key(k), format!("expected {k} of at least 1, got 0"));
            }
        }
        let n = h.ncpus();
        if n > MAX_CPUS {
            c.push(tp.clone(), format!("the topology has {n} CPUs, more than {MAX_CPUS}"));
        } else if h.cpus != 1 && h.cpus != n {
            c.push(
                host.key("cpus"),
                format!("cpus = {} but the topology has {n} CPUs (leave cpus out or make them agree)", h.cpus),
            );
        }
    }
    if !HZ_VALUES.contains(&h.hz) {
        c.push(host.key("hz"), format!("expected CONFIG_HZ to be one of 100, 250, 300, 1000, got {}", h.hz));
    }
    if let Some(b) = h.base_slice {
        c.slice_range(host.key("base_slice"), b, "base_slice");
    }
    if let Some(t) = h.timer_slack {
        if t.ns() > MAX_TIMER_SLACK_NS {
            c.push(
                host.key("timer_slack"),
                format!("timer_slack {} is too large: expected a duration of at most 1s", format_duration(t.ns())),
            );
        }
    }

    for (key, d) in [("wakeup_switch_latency", h.wakeup_switch_latency), ("schedule_clock_lead", h.schedule_clock_lead)]
    {
        if d.is_some_and(|d| d.ns() > MAX_SWITCH_GAP_NS) {
            c.push(host.key(key), format!("{key} is too large: expected a duration of at most 1ms"));
        }
    }

    if h.tick_ahead.is_some_and(|p| !(0.0..=100.0).contains(&p)) {
        c.push(host.key("tick_ahead"), "expected tick_ahead to be a percentage from 0 to 100".to_string());
    }
    if let Some(t) = h.timekeeper.filter(|&t| t >= h.ncpus()) {
        c.push(host.key("timekeeper"), format!("timekeeper = {t} but the host has {} CPUs", h.ncpus()));
    }
    if let Some(phase) = h.tick_phase.filter(|d| h.hz > 0 && d.ns() >= 1_000_000_000 / u64::from(h.hz)) {
        let period = 1_000_000_000 / u64::from(h.hz);
        c.push(
            host.key("tick_phase"),
            format!(
                "tick_phase = {} ns: expected less than one tick period ({period} ns at hz = {})",
                phase.ns(),
                h.hz
            ),
        );
    }
    check_cfs_rq_avg(&mut c, &host.key("cfs_rq_avg"), &h.cfs_rq_avg, h.ncpus());

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
    check_cgroups(&mut c, &root.key("cgroups"), &s.cgroups);

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

    // Tasks.
    let tasks = root.key("tasks");
    if s.tasks.is_empty() {
        c.push(tasks.clone(), "expected at least one task");
    }
    for (i, t) in s.tasks.iter().enumerate() {
        let tp = tasks.index(i);
        if t.name.is_empty() {
            c.push(tp.key("name"), "a task name must not be empty");
        } else if t.name.chars().any(char::is_control) {
            c.push(tp.key("name"), format!("task name {:?} contains a control character", t.name));
        } else if let Some(j) = s.tasks[..i].iter().position(|o| o.name == t.name) {
            c.push(tp.key("name"), format!("duplicate task name {:?} (already used by tasks[{j}])", t.name));
        }
        check_task(&mut c, &tp, t, h.ncpus());
        if let Some(g) = &t.cgroup {
            if g != "/" && !s.cgroups.iter().any(|cg| &cg.path == g) {
                c.push(tp.key("cgroup"), format!("cgroup {g:?} is not declared in [[cgroups]]"));
            }
        }
        if t.vm.is_none() && uses_locks(&t.program) {
            c.push(
                tp.key("program"),
                format!("guest lock, IPI and halt steps need a vCPU: give task {:?} a vm", t.name),
            );
        }
        let mut ipis = Vec::new();
        ipi_targets(&tp.key("program"), &t.program, &mut ipis);
        for (path, target) in ipis {
            match s.tasks.iter().find(|o| o.name == target) {
                None => c.push(path, format!("ipi_wait names {target:?}, which is not a task of this scenario")),
                Some(o) if o.name == t.name => c.push(path, format!("task {:?} cannot send an IPI to itself", t.name)),
                Some(o) if o.vm.is_none() || o.vm != t.vm => c.push(
                    path,
                    format!(
                        "ipi_wait target {target:?} must be a vCPU of the same vm ({:?})",
                        t.vm.as_deref().unwrap_or("")
                    ),
                ),
                Some(_) => {}
            }
        }
        check_pipes(&mut c, s, &tp.key("program"), t);
        if t.vm.is_some() {
            let mut forks = Vec::new();
            forks_of(&tp.key("program"), &t.program, &mut forks);
            if let Some((path, _)) = forks.into_iter().next() {
                c.push(path, format!("task {:?} is a vCPU: guest code cannot fork host tasks", t.name));
            }
        }
        let mut targets = Vec::new();
        yield_to_targets(&tp.key("program"), &t.program, false, &mut targets);
        for (path, target, child) in targets {
            if target == t.name && !child {
                c.push(path, format!("task {:?} cannot yield_to itself", t.name));
            } else if !s.tasks.iter().any(|o| o.name == target) {
                c.push(path, format!("yield_to names {target:?}, which is not a task of this scenario"));
            }
        }
    }
    for (ti, t) in s.tasks.iter().enumerate() {
        let mut targets = Vec::new();
        wake_targets(&KeyPath::root().key("tasks").index(ti).key("program"), &t.program, &mut targets);
        for (path, target) in targets {
            if target == t.name {
                c.push(path, format!("task {:?} cannot wake itself", t.name));
            } else if !s.tasks.iter().any(|o| o.name == target) {
                c.push(path, format!("wake names {target:?}, which is not a task of this scenario"));
            }
        }
    }
    for (ti, t) in s.tasks.iter().enumerate() {
        let mut moves = Vec::new();
        cgroup_steps(&KeyPath::root().key("tasks").index(ti).key("program"), &t.program, &mut moves);
        for (path, cg) in moves {
            if cg != "/" && !s.cgroups.iter().any(|g| g.path == cg) {
                c.push(path, format!("cgroup {cg:?} is not declared in [[cgroups]]"));
            }
        }
    }
    check_fork_names(&mut c, s, &tasks);
    c.issues
}

/// Every `cgroup` step of a program (loops and a fork's children included) with its key path.
fn cgroup_steps<'a>(seq: &KeyPath, ops: &'a [OpSpec], out: &mut Vec<(KeyPath, &'a str)>) {
    for (i, op) in ops.iter().enumerate() {
        match op {
            OpSpec::Cgroup(path) => out.push((seq.index(i).key("cgroup"), path.as_str())),
            OpSpec::Loop(l) => cgroup_steps(&seq.index(i).key("loop").key("body"), &l.body, out),
            OpSpec::Fork(f) => cgroup_steps(&seq.index(i).key("fork").key("program"), &f.program, out),
            _ => {}
        }
    }
}

/// Every `pipe` step of a program (loops included) with its key path.
fn pipes_of<'a>(seq: &KeyPath, ops: &'a [OpSpec], out: &mut Vec<(KeyPath, &'a PipeSpec)>) {
    for (i, op) in ops.iter().enumerate() {
        match op {
            OpSpec::Pipe(p) => out.push((seq.index(i).key("pipe"), p)),
            OpSpec::Loop(l) => pipes_of(&seq.index(i).key("loop").key("body"), &l.body, out),
            _ => {}
        }
    }
}

/// Every `fork` step of a program (loops included, in `program::fork_steps` order) with its
/// key path.
fn forks_of<'a>(seq: &KeyPath, ops: &'a [OpSpec], out: &mut Vec<(KeyPath, &'a ForkSpec)>) {
    for (i, op) in ops.iter().enumerate() {
        match op {
            OpSpec::Fork(f) => out.push((seq.index(i).key("fork"), f)),
            OpSpec::Loop(l) => forks_of(&seq.index(i).key("loop").key("body"), &l.body, out),
            _ => {}
        }
    }
}

/// A pipe step's peer is another task of the scenario with a pipe step naming this task, and
/// exactly one of the two writes first.
fn check_pipes(c: &mut Checker, s: &ScenarioFile, pp: &KeyPath, t: &TaskSpec) {
    let mut pipes = Vec::new();
    pipes_of(pp, &t.program, &mut pipes);
    for (path, p) in pipes {
        let peer = &p.peer;
        if *peer == t.name {
            c.push(path.key("peer"), format!("task {:?} cannot pipe to itself", t.name));
            continue;
        }
        let Some(o) = s.tasks.iter().find(|o| &o.name == peer) else {
            c.push(path.key("peer"), format!("pipe names {peer:?}, which is not a task of this scenario"));
            continue;
        };
        let mut back = Vec::new();
        pipes_of(&KeyPath::root(), &o.program, &mut back);
        let back: Vec<&PipeSpec> = back.into_iter().map(|(_, b)| b).filter(|b| b.peer == t.name).collect();
        if back.is_empty() {
            c.push(
                path.key("peer"),
                format!(
                    "pipe peer {peer:?} has no pipe step naming {:?}: both tasks of a pair need one (pipe = {{ peer = {:?}, ... }})",
                    t.name, t.name
                ),
            );
        } else if back.iter().all(|b| b.first == p.first) {
            let (who, fix) = if p.first {
                ("both", "exactly one of them has first = true")
            } else {
                ("neither of", "give one of them first = true, or both wait in read() for ever")
            };
            c.push(path.clone(), format!("{who} {:?} and {peer:?} write the first message: {fix}", t.name));
        }
    }
}

/// The children's names are new task names: unlike every task's and every other child's.
fn check_fork_names(c: &mut Checker, s: &ScenarioFile, tasks: &KeyPath) {
    let mut seen: Vec<(String, KeyPath)> = Vec::new();
    let mut slots = 0u64;
    for (i, t) in s.tasks.iter().enumerate() {
        let mut forks = Vec::new();
        forks_of(&tasks.index(i).key("program"), &t.program, &mut forks);
        for (path, f) in forks {
            if f.children == 0 || f.children > MAX_FORK_CHILDREN {
                continue; // reported with the step
            }
            slots += f.children as u64;
            if slots > MAX_FORK_SLOTS {
                c.push(
                    path.key("children"),
                    format!("the fork steps of this scenario fork more than {MAX_FORK_SLOTS} children in all"),
                );
                return;
            }
            let at = if f.name.is_some() { path.key("name") } else { path.clone() };
            for k in 0..f.children {
                let name = crate::sim::config::fork_child_name(&t.name, f, k);
                if let Some(j) = s.tasks.iter().position(|o| o.name == name) {
                    c.push(
                        at,
                        format!("child {name:?} of this fork has the name of tasks[{j}]: give the fork another name"),
                    );
                    break;
                }
                if let Some((_, other)) = seen.iter().find(|(n, _)| *n == name) {
                    c.push(
                        at,
                        format!("child {name:?} of this fork has the name of a child of {other}: give the fork another name"),
                    );
                    break;
                }
                seen.push((name, path.clone()));
            }
        }
    }
}

/// The period a cgroup's bandwidth timer runs with (ns): `cpu.max`'s, else `period`, else
/// the kernel's default 100 ms.
pub fn cgroup_period_ns(g: &CgroupSpec) -> u64 {
    match g.max.as_deref().map(parse_cpu_max) {
        Some(Ok((_, p))) => p,
        _ => g.period.map(|d| d.ns()).unwrap_or(100_000_000),
    }
}

/// Parses cgroup v2 `cpu.max` ("QUOTA_US PERIOD_US", "max PERIOD_US", or a lone quota with
/// the default 100000 us period) into (quota ns or None for "max", period ns).
pub fn parse_cpu_max(text: &str) -> Result<(Option<u64>, u64), String> {
    let mut parts = text.split_whitespace();
    let expected = || format!("expected cpu.max as \"QUOTA_US PERIOD_US\" or \"max PERIOD_US\", got {text:?}");
    let q = parts.next().ok_or_else(expected)?;
    let p = parts.next().unwrap_or("100000");
    if parts.next().is_some() {
        return Err(expected());
    }
    let quota = if q == "max" { None } else { Some(q.parse::<u64>().map_err(|_| expected())?.saturating_mul(1000)) };
    let period = p.parse::<u64>().map_err(|_| expected())?.saturating_mul(1000);
    Ok((quota, period))
}

/// Parent path of a cgroup path ("/" for a top-level group).
pub fn cgroup_parent(path: &str) -> &str {
    match path.rfind('/') {
        Some(0) | None => "/",
        Some(i) => &path[..i],
    }
}

/// The largest `load_avg` and `runnable_avg` a CPU's starting averages may give (1024 tasks
/// of nice 0 runnable all the time).
pub const MAX_CFS_RQ_AVG: u64 = 1 << 20;

/// Checks `host.cfs_rq_avg`: each CPU of the host at most once, and averages a cfs_rq can hold.
fn check_cfs_rq_avg(c: &mut Checker, at: &KeyPath, avgs: &[CfsRqAvgSpec], cpus: u32) {
    for (i, a) in avgs.iter().enumerate() {
        let ap = at.index(i);
        if a.cpu >= cpus {
            c.push(ap.key("cpu"), format!("cpu names CPU {} but the host has {cpus} CPUs", a.cpu));
        } else if let Some(j) = avgs[..i].iter().position(|o| o.cpu == a.cpu) {
            c.push(ap.key("cpu"), format!("CPU {} is already given by cfs_rq_avg[{j}]", a.cpu));
        }
        for (key, v) in [("load_avg", a.load_avg), ("runnable_avg", a.runnable_avg)] {
            if v > MAX_CFS_RQ_AVG {
                c.push(ap.key(key), format!("{key} {v} is above {MAX_CFS_RQ_AVG}"));
            }
        }
        if a.util_avg > 1024 {
            c.push(ap.key("util_avg"), format!("util_avg {} is above SCHED_CAPACITY_SCALE (1024)", a.util_avg));
        }
    }
}

fn check_cgroups(c: &mut Checker, cp: &KeyPath, groups: &[CgroupSpec]) {
    for (i, g) in groups.iter().enumerate() {
        let gp = cp.index(i);
        let segs: Vec<&str> = g.path.split('/').skip(1).collect();
        let valid = g.path.starts_with('/')
            && !segs.is_empty()
            && segs
                .iter()
                .all(|s| !s.is_empty() && s.chars().all(|ch| ch.is_ascii_alphanumeric() || "_-.".contains(ch)));
        if !valid {
            c.push(
                gp.key("path"),
                format!("expected a cgroup path like \"/name\" or \"/a/b\" (letters, digits, _ - .), got {:?}", g.path),
            );
            continue;
        }
        if let Some(j) = groups[..i].iter().position(|o| o.path == g.path) {
            c.push(gp.key("path"), format!("duplicate cgroup {:?} (already declared at cgroups[{j}])", g.path));
        }
        let parent = cgroup_parent(&g.path);
        if parent != "/" && !groups[..i].iter().any(|o| o.path == parent) {
            c.push(gp.key("path"), format!("the parent {parent:?} of {:?} must be declared before it", g.path));
        }
        if g.shares.is_some() && g.weight.is_some() {
            c.push(gp.key("weight"), "give either shares (cgroup v1) or weight (cgroup v2), not both");
        }
        if let Some(v) = g.shares {
            if !(2..=262_144).contains(&v) {
                c.push(gp.key("shares"), format!("expected cpu.shares in 2..=262144, got {v}"));
            }
        }
        if let Some(v) = g.weight {
            if !(1..=10_000).contains(&v) {
                c.push(gp.key("weight"), format!("expected cpu.weight in 1..=10000, got {v}"));
            }
        }
        if let Some(m) = &g.max {
            if g.quota.is_some() || g.period.is_some() {
                c.push(gp.key("max"), "give either cpu.max (max) or quota/period, not both");
            }
            match parse_cpu_max(m) {
                Ok((Some(q), _)) if q < 1_000_000 => {
                    c.push(gp.key("max"), format!("expected a quota of at least 1000 us in cpu.max, got {m:?}"))
                }
                Ok((_, p)) if !(1_000_000..=1_000_000_000).contains(&p) => {
                    c.push(gp.key("max"), format!("expected a period in 1000..=1000000 us in cpu.max, got {m:?}"))
                }
                Ok(_) => {}
                Err(e) => c.push(gp.key("max"), e),
            }
        }
        if let Some(q) = g.quota {
            if q.is_forever() || q.ns() < 1_000_000 {
                c.push(gp.key("quota"), format!("expected a quota of at least 1ms, got {}", format_duration(q.ns())));
            }
        }
        if let Some(p) = g.period {
            if p.is_forever() || !(1_000_000..=1_000_000_000).contains(&p.ns()) {
                c.push(gp.key("period"), format!("expected a period in 1ms..=1s, got {}", format_duration(p.ns())));
            }
            if g.quota.is_none() {
                c.push(gp.key("period"), "a period without a quota has no effect: add quota");
            }
        }
        if let Some(b) = g.burst {
            match g.quota {
                Some(q) if b.ns() <= q.ns() => {}
                Some(q) => c.push(
                    gp.key("burst"),
                    format!("burst {} exceeds the quota {}", format_duration(b.ns()), format_duration(q.ns())),
                ),
                None => c.push(gp.key("burst"), "a burst without a quota has no effect: add quota"),
            }
        }
        if let Some(ph) = g.period_phase {
            let period = cgroup_period_ns(g);
            if g.quota.is_none() && g.max.is_none() {
                c.push(gp.key("period_phase"), "a period phase without a quota has no effect: add quota");
            } else if ph.is_forever() || ph.ns() >= period {
                c.push(
                    gp.key("period_phase"),
                    format!(
                        "expected a period phase below the period ({}), got {}",
                        format_duration(period),
                        format_duration(ph.ns())
                    ),
                );
            }
        }
    }
}

fn check_task(c: &mut Checker, tp: &KeyPath, t: &TaskSpec, cpus: u32) {
    if !(-20..=19).contains(&t.nice) {
        c.push(tp.key("nice"), format!("expected a nice value in -20..=19, got {}", t.nice));
    }
    if let Some(sl) = t.slice {
        c.slice_range(tp.key("slice"), sl, "slice");
    }
    if let Some(aff) = &t.affinity {
        let ap = tp.key("affinity");
        if aff.is_empty() {
            c.push(ap.clone(), "expected at least one CPU (omit affinity to allow all CPUs)");
        }
        for (k, &cpu) in aff.iter().enumerate() {
            if cpu >= cpus {
                let range = if cpus == 0 { "none".to_string() } else { format!("0..={}", cpus - 1) };
                let plural = if cpus == 1 { "" } else { "s" };
                c.push(ap.index(k), format!("affinity names CPU {cpu} but the host has {cpus} CPU{plural} ({range})"));
            } else if let Some(j) = aff[..k].iter().position(|&o| o == cpu) {
                c.push(ap.index(k), format!("CPU {cpu} is listed twice (also at affinity[{j}])"));
            }
        }
    }
    if let Some(cpu) = t.parent_cpu {
        if cpu >= cpus {
            c.push(tp.key("parent_cpu"), format!("parent_cpu names CPU {cpu} but the host has {cpus} CPUs"));
        }
    }
    if let Some(ex) = &t.existing {
        let ep = tp.key("existing");
        if let Some(cpu) = ex.cpu.filter(|&cpu| cpu >= cpus) {
            c.push(ep.key("cpu"), format!("cpu names CPU {cpu} but the host has {cpus} CPUs"));
        }
        // se_weight(): the largest load_avg an entity of this weight reaches.
        let weight = match t.policy {
            PolicySpec::Idle => crate::sched::weight::WEIGHT_IDLEPRIO,
            _ => crate::sched::weight::nice_weight(t.nice),
        };
        if ex.load_avg > weight {
            c.push(ep.key("load_avg"), format!("load_avg {} is above the task's weight ({weight})", ex.load_avg));
        }
        for (key, v) in [("runnable_avg", ex.runnable_avg), ("util_avg", ex.util_avg)] {
            if v > 1024 {
                c.push(ep.key(key), format!("{key} {v} is above SCHED_CAPACITY_SCALE (1024)"));
            }
        }
    }
    let start_ok = match t.start {
        Some(st) => c.finite(&tp.key("start"), st, false, "start"),
        None => true,
    };
    if let Some(sp) = t.stop {
        if c.finite(&tp.key("stop"), sp, false, "stop") && start_ok {
            let st = t.start.map_or(0, |d| d.ns());
            if sp.ns() <= st {
                c.push(
                    tp.key("stop"),
                    format!("stop ({}) must be after start ({})", format_duration(sp.ns()), format_duration(st)),
                );
            }
        }
    }
    let pp = tp.key("program");
    if t.program.is_empty() {
        c.push(pp.clone(), "expected at least one step in the program");
    }
    check_ops(c, &pp, &t.program, 0, false);
}

/// Whether a step never finishes (so that anything after it is unreachable).
fn never_ends(op: &OpSpec) -> bool {
    match op {
        OpSpec::Run(d) => d.is_forever(),
        OpSpec::Periodic(p) => p.count.is_none(),
        OpSpec::Loop(l) => l.times.is_none() || l.body.iter().any(never_ends),
        OpSpec::Fork(f) => f.program.iter().any(never_ends),
        OpSpec::Spin(_)
        | OpSpec::Sleep(_)
        | OpSpec::SchedYield(_)
        | OpSpec::YieldTo(_)
        | OpSpec::PingPong(_)
        | OpSpec::Pipe(_) // an endless one ends when its peer exits
        | OpSpec::Lock(_)
        | OpSpec::Unlock(_)
        | OpSpec::IpiWait(_)
        | OpSpec::TlbShootdown(_)
        | OpSpec::Halt(_)
        | OpSpec::Wake(_)
        | OpSpec::WaitWakeup(_)
        | OpSpec::Cgroup(_) => false,
    }
}

/// Whether a program uses guest locks (vCPU-only steps; a fork's children are checked apart).
fn uses_locks(ops: &[OpSpec]) -> bool {
    ops.iter().any(|o| match o {
        OpSpec::Lock(_) | OpSpec::Unlock(_) | OpSpec::IpiWait(_) | OpSpec::TlbShootdown(_) | OpSpec::Halt(_) => true,
        OpSpec::Loop(l) => uses_locks(&l.body),
        _ => false,
    })
}

/// Every `ipi_wait` step of a program with its key path.
fn ipi_targets<'a>(seq: &KeyPath, ops: &'a [OpSpec], out: &mut Vec<(KeyPath, &'a str)>) {
    for (i, op) in ops.iter().enumerate() {
        match op {
            OpSpec::IpiWait(t) => out.push((seq.index(i).key("ipi_wait"), t.as_str())),
            OpSpec::TlbShootdown(ts) => {
                for (j, t) in ts.iter().enumerate() {
                    out.push((seq.index(i).key("tlb_shootdown").index(j), t.as_str()));
                }
            }
            OpSpec::Loop(l) => ipi_targets(&seq.index(i).key("loop").key("body"), &l.body, out),
            _ => {}
        }
    }
}

/// Every `wake` step of a program (loops included) with the key path of its task.
fn wake_targets<'a>(seq: &KeyPath, ops: &'a [OpSpec], out: &mut Vec<(KeyPath, &'a str)>) {
    for (i, op) in ops.iter().enumerate() {
        match op {
            OpSpec::Wake(w) => out.push((seq.index(i).key("wake").key("task"), w.task.as_str())),
            OpSpec::Loop(l) => wake_targets(&seq.index(i).key("loop").key("body"), &l.body, out),
            _ => {}
        }
    }
}

/// Every `yield_to` step of a program with its key path, and whether a fork's children run it.
fn yield_to_targets<'a>(seq: &KeyPath, ops: &'a [OpSpec], child: bool, out: &mut Vec<(KeyPath, &'a str, bool)>) {
    for (i, op) in ops.iter().enumerate() {
        match op {
            OpSpec::YieldTo(t) => out.push((seq.index(i).key("yield_to"), t.as_str(), child)),
            OpSpec::PingPong(p) => out.push((seq.index(i).key("ping_pong").key("peer"), p.peer.as_str(), child)),
            OpSpec::Loop(l) => yield_to_targets(&seq.index(i).key("loop").key("body"), &l.body, child, out),
            OpSpec::Fork(f) => yield_to_targets(&seq.index(i).key("fork").key("program"), &f.program, true, out),
            _ => {}
        }
    }
}

/// Checks each step of `ops`; `child`: the program of a fork step's children.
fn check_ops(c: &mut Checker, seq: &KeyPath, ops: &[OpSpec], depth: usize, child: bool) {
    let mut unreachable_reported = false;
    for (i, op) in ops.iter().enumerate() {
        let op_path = seq.index(i);
        if i > 0 && !unreachable_reported && never_ends(&ops[i - 1]) {
            c.push(op_path.clone(), "unreachable: the previous step never ends");
            unreachable_reported = true;
        }
        match op {
            OpSpec::Run(d) => {
                if d.ns() == 0 {
                    c.push(
                        op_path.key("run"),
                        "run must be greater than 0 (expected a duration like \"300us\" or \"forever\")",
                    );
                }
            }
            OpSpec::Spin(d) => {
                c.finite(&op_path.key("spin"), *d, true, "spin");
            }
            OpSpec::Sleep(d) => {
                c.finite(&op_path.key("sleep"), *d, true, "sleep");
            }
            OpSpec::SchedYield(n) => {
                if *n == 0 {
                    c.push(op_path.key("sched_yield"), "expected a sched_yield count of at least 1");
                }
            }
            OpSpec::YieldTo(_) => {} // targets are checked against the task list in `check`
            OpSpec::Lock(n) | OpSpec::Unlock(n) => {
                if n.is_empty() {
                    c.push(op_path.clone(), "expected a lock name");
                }
            }
            OpSpec::IpiWait(_) => {} // checked against the task list in `check`
            OpSpec::TlbShootdown(ts) => {
                if ts.is_empty() {
                    c.push(op_path.key("tlb_shootdown"), "expected at least one vCPU to send the shootdown IPI to");
                }
                for (j, t) in ts.iter().enumerate() {
                    if ts[..j].contains(t) {
                        c.push(op_path.key("tlb_shootdown").index(j), format!("{t:?} is named twice"));
                    }
                }
            }
            OpSpec::Halt(d) => {
                c.finite(&op_path.key("halt"), *d, true, "halt");
            }
            OpSpec::PingPong(p) => {
                let pp = op_path.key("ping_pong");
                if p.rounds == 0 {
                    c.push(pp.key("rounds"), "expected at least 1 round");
                }
                c.finite(&pp.key("work"), p.work, true, "ping_pong work");
                c.finite(&pp.key("spin"), p.spin, true, "ping_pong spin");
            }
            OpSpec::Periodic(p) => check_periodic(c, &op_path.key("periodic"), p),
            OpSpec::Loop(l) => check_loop(c, &op_path.key("loop"), l, depth + 1, child),
            OpSpec::Pipe(p) => {
                let pp = op_path.key("pipe");
                if p.rounds == Some(0) {
                    c.push(
                        pp.key("rounds"),
                        "expected at least 1 round (omit rounds to exchange messages until stopped)",
                    );
                }
                c.finite(&pp.key("work"), p.work, true, "pipe work");
                if let Some(b) = p.block_cost {
                    c.finite(&pp.key("block_cost"), b, false, "pipe block_cost");
                }
                if let Some(j) = p.work_jitter {
                    if c.finite(&pp.key("work_jitter"), j, false, "pipe work_jitter") && j.ns() > p.work.ns() {
                        c.push(
                            pp.key("work_jitter"),
                            format!(
                                "pipe work_jitter {} is larger than work {}: expected at most the work, so that no message costs less than 0",
                                format_duration(j.ns()),
                                format_duration(p.work.ns())
                            ),
                        );
                    }
                }
            }
            OpSpec::Fork(f) => check_fork(c, &op_path.key("fork"), f, depth),
            OpSpec::Wake(_) => {}   // the task is checked against the task list in `check`
            OpSpec::Cgroup(_) => {} // the path is checked against [[cgroups]] in `check`
            OpSpec::WaitWakeup(n) => {
                if *n == 0 {
                    c.push(op_path.key("wait_wakeup"), "expected a wait_wakeup count of at least 1");
                }
            }
        }
        if child {
            let what = match op {
                OpSpec::Fork(_) => Some("fork (a fork's children cannot fork: nested forks are not modeled)"),
                OpSpec::Pipe(_) => Some("pipe (a fork's children have no pipe peers)"),
                OpSpec::PingPong(_) => Some("ping_pong (a fork's children have no ping-pong peers)"),
                OpSpec::Wake(_) | OpSpec::WaitWakeup(_) => {
                    Some("wake or wait_wakeup (a fork's children are not named tasks)")
                }
                OpSpec::Lock(_)
                | OpSpec::Unlock(_)
                | OpSpec::IpiWait(_)
                | OpSpec::TlbShootdown(_)
                | OpSpec::Halt(_) => Some("guest code (a fork's children are not vCPUs)"),
                _ => None,
            };
            if let Some(what) = what {
                c.push(op_path, format!("a fork's children cannot run {what}"));
            }
        }
    }
}

fn check_fork(c: &mut Checker, fp: &KeyPath, f: &ForkSpec, depth: usize) {
    if f.children == 0 || f.children > MAX_FORK_CHILDREN {
        c.push(fp.key("children"), format!("expected 1..={MAX_FORK_CHILDREN} children, got {}", f.children));
    }
    if let Some(n) = &f.name {
        if n.is_empty() {
            c.push(fp.key("name"), "a fork's name must not be empty (omit it for the parent's name + \"/child\")");
        } else if n.chars().any(char::is_control) {
            c.push(fp.key("name"), format!("fork name {n:?} contains a control character"));
        }
    }
    let pp = fp.key("program");
    if f.program.is_empty() {
        c.push(pp.clone(), "expected at least one step in the children's program");
    } else if !f.program.iter().any(takes_time) {
        // Children that take no time would exit at the instant they are forked.
        c.push(
            pp.clone(),
            "expected the children's program to contain a step that takes time (run, spin, sleep or periodic)",
        );
    }
    check_ops(c, &pp, &f.program, depth, true);
}

fn check_periodic(c: &mut Checker, pp: &KeyPath, p: &PeriodicSpec) {
    let run_ok = c.finite(&pp.key("run"), p.run, true, "periodic run");
    let period_ok = c.finite(&pp.key("period"), p.period, true, "periodic period");
    if run_ok && period_ok && p.run.ns() > p.period.ns() {
        c.push(
            pp.key("run"),
            format!(
                "periodic run ({}) must not exceed the period ({})",
                format_duration(p.run.ns()),
                format_duration(p.period.ns())
            ),
        );
    }
    if p.count == Some(0) {
        c.push(pp.key("count"), "expected a periodic count of at least 1 (omit it to repeat forever)");
    }
}

fn check_loop(c: &mut Checker, lp: &KeyPath, l: &LoopSpec, depth: usize, child: bool) {
    if depth > MAX_LOOP_DEPTH {
        c.push(lp.clone(), format!("loops nest too deeply (at most {MAX_LOOP_DEPTH} levels)"));
        return;
    }
    if l.times == Some(0) {
        c.push(lp.key("times"), "expected loop times of at least 1 (omit it to loop forever)");
    }
    if l.body.is_empty() {
        c.push(lp.key("body"), "expected at least one step in the loop body");
    } else if l.times.is_none() && !l.body.iter().any(takes_time) {
        // An endless loop of nothing but sched_yield() would repeat forever at one instant.
        c.push(
            lp.key("body"),
            "expected an endless loop to contain a step that takes time (run, spin, sleep or periodic)",
        );
    }
    check_ops(c, &lp.key("body"), &l.body, depth, child);
}

/// Whether a step advances simulated time (run, spin, sleep, periodic, or a loop with such).
fn takes_time(op: &OpSpec) -> bool {
    match op {
        OpSpec::Run(_)
        | OpSpec::Spin(_)
        | OpSpec::Sleep(_)
        | OpSpec::Periodic(_)
        | OpSpec::PingPong(_)
        | OpSpec::Pipe(_)
        | OpSpec::Halt(_)
        | OpSpec::WaitWakeup(_) => true,
        OpSpec::SchedYield(_)
        | OpSpec::Wake(_)
        | OpSpec::Cgroup(_)
        | OpSpec::YieldTo(_)
        | OpSpec::Lock(_)
        | OpSpec::Unlock(_)
        | OpSpec::IpiWait(_)
        | OpSpec::TlbShootdown(_) => false,
        OpSpec::Loop(l) => l.body.iter().any(takes_time),
        OpSpec::Fork(f) => f.program.iter().any(takes_time),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::apply_variant;

    const GOOD: &str = r#"version = 1
name = "t"
duration = "1s"
[host]
cpus = 2
[[tasks]]
name = "a"
affinity = [0, 1]
program = [ { loop = { times = 3, body = [ { spin = "300us" }, { sleep = "700us" } ] } }, { run = "forever" } ]
"#;

    fn err(text: &str) -> ScenarioError {
        parse_scenario("f.toml", text).unwrap_err()
    }

    #[test]
    fn good_parses() {
        let s = parse_scenario("f.toml", GOOD).unwrap();
        assert_eq!(s.tasks[0].program.len(), 2);
    }

    #[test]
    fn display_format() {
        let e = ScenarioError { file: "x.toml".into(), line: 3, column: 7, message: "boom".into() };
        assert_eq!(e.to_string(), "x.toml:3:7: boom");
    }

    #[test]
    fn loop_without_time_is_rejected() {
        let text = "version = 1\nname = \"x\"\nduration = \"1ms\"\n[[tasks]]\nname = \"a\"\nprogram = [{ loop = { body = [{ sched_yield = 1 }] } }]\n";
        let e = parse_scenario("y.toml", text).unwrap_err();
        assert_eq!(e.line, 6, "{e}");
        assert!(e.message.contains("takes time"), "{e}");
    }

    #[test]
    fn unreachable_after_forever() {
        let t = GOOD.replace("{ run = \"forever\" } ]", "{ run = \"forever\" }, { spin = \"1ms\" } ]");
        let e = err(&t);
        assert!(e.message.contains("tasks[0].program[2]: unreachable: the previous step never ends"), "{e}");
        assert_eq!(e.line, 9);
    }

    #[test]
    fn unreachable_after_endless_loop() {
        let t = GOOD.replace("times = 3, ", "");
        let e = err(&t);
        assert!(e.message.contains("tasks[0].program[1]: unreachable"), "{e}");
    }

    #[test]
    fn nesting_limit() {
        let mut prog = String::from("{ spin = \"1ms\" }");
        for _ in 0..17 {
            prog = format!("{{ loop = {{ times = 1, body = [ {prog} ] }} }}");
        }
        let t = GOOD.replace(
            "program = [ { loop = { times = 3, body = [ { spin = \"300us\" }, { sleep = \"700us\" } ] } }, { run = \"forever\" } ]",
            &format!("program = [ {prog} ]"),
        );
        let e = err(&t);
        assert!(e.message.contains("nest too deeply"), "{e}");
        // 16 levels are fine.
        let mut prog = String::from("{ spin = \"1ms\" }");
        for _ in 0..16 {
            prog = format!("{{ loop = {{ times = 1, body = [ {prog} ] }} }}");
        }
        let t = GOOD.replace(
            "program = [ { loop = { times = 3, body = [ { spin = \"300us\" }, { sleep = \"700us\" } ] } }, { run = \"forever\" } ]",
            &format!("program = [ {prog} ]"),
        );
        parse_scenario("f.toml", &t).unwrap();
    }

    #[test]
    fn ranges() {
        for (from, to, needle) in [
            ("cpus = 2", "cpus = 0", "host.cpus"),
            ("cpus = 2", "cpus = 2\nhz = 200", "host.hz"),
            ("cpus = 2", "cpus = 2\nbase_slice = \"50us\"", "host.base_slice"),
            ("cpus = 2", "cpus = 2\ntimer_slack = \"2s\"", "host.timer_slack"),
            ("version = 1", "version = 2", "version"),
            ("name = \"t\"", "name = \"\"", "name"),
            ("duration = \"1s\"", "duration = \"forever\"", "duration"),
            ("duration = \"1s\"", "duration = 0", "duration"),
            ("name = \"a\"", "name = \"a\"\nnice = 20", "tasks[0].nice"),
            ("name = \"a\"", "name = \"a\"\nslice = \"200ms\"", "tasks[0].slice"),
            ("name = \"a\"", "name = \"a\\u0007\"", "tasks[0].name"),
            ("name = \"a\"", "name = \"a\"\nstart = \"2ms\"\nstop = \"1ms\"", "tasks[0].stop"),
            ("name = \"a\"", "name = \"a\"\nstart = \"forever\"", "tasks[0].start"),
            ("affinity = [0, 1]", "affinity = []", "tasks[0].affinity"),
            ("affinity = [0, 1]", "affinity = [1, 1]", "tasks[0].affinity[1]"),
            ("times = 3", "times = 0", "tasks[0].program[0].loop.times"),
            ("{ spin = \"300us\" }", "{ spin = \"forever\" }", "tasks[0].program[0].loop.body[0].spin"),
            ("{ sleep = \"700us\" }", "{ sleep = 0 }", "tasks[0].program[0].loop.body[1].sleep"),
            ("{ sleep = \"700us\" }", "{ sched_yield = 0 }", "tasks[0].program[0].loop.body[1].sched_yield"),
            (
                "{ sleep = \"700us\" }",
                "{ periodic = { run = \"2ms\", period = \"1ms\", count = 2 } }",
                "tasks[0].program[0].loop.body[1].periodic.run",
            ),
            ("{ run = \"forever\" }", "{ run = 0 }", "tasks[0].program[1].run"),
        ] {
            let t = GOOD.replace(from, to);
            assert_ne!(t, GOOD, "{from}");
            let e = err(&t);
            assert!(e.message.starts_with(&format!("{needle}: ")), "{to}: {e}");
        }
    }

    #[test]
    fn period_phase_needs_a_quota_and_stays_inside_the_period() {
        let at_end = |extra: &str| format!("{GOOD}\n[[cgroups]]\npath = \"/q\"\n{extra}");
        parse_scenario("f.toml", &at_end("quota = \"20ms\"\nperiod_phase = \"99ms\"\n")).unwrap();
        let e = err(&at_end("period_phase = \"10ms\"\n"));
        assert!(e.message.starts_with("cgroups[0].period_phase: a period phase without a quota"), "{e}");
        let e = err(&at_end("quota = \"20ms\"\nperiod = \"50ms\"\nperiod_phase = \"50ms\"\n"));
        assert!(
            e.message.starts_with("cgroups[0].period_phase: expected a period phase below the period (50ms)"),
            "{e}"
        );
        let e = err(&at_end("max = \"20000 40000\"\nperiod_phase = \"41ms\"\n"));
        assert!(e.message.contains("below the period (40ms)"), "{e}");
    }

    #[test]
    fn a_cgroup_step_names_a_declared_cgroup() {
        let with = |step: &str| {
            GOOD.replace("{ run = \"forever\" }", &format!("{step}, {{ run = \"forever\" }}"))
                + "[[cgroups]]\npath = \"/q\"\n"
        };
        parse_scenario("f.toml", &with("{ cgroup = \"/q\" }")).unwrap();
        parse_scenario("f.toml", &with("{ cgroup = \"/\" }")).unwrap();
        let e = err(&with("{ cgroup = \"/nope\" }"));
        assert_eq!(e.message, "tasks[0].program[1].cgroup: cgroup \"/nope\" is not declared in [[cgroups]]");
        assert_eq!(e.line, 9, "{e}");
    }

    #[test]
    fn start_after_end_is_allowed() {
        let t = GOOD.replace("name = \"a\"", "name = \"a\"\nstart = \"5s\"");
        parse_scenario("f.toml", &t).unwrap();
    }

    #[test]
    fn validate_without_text_names_path() {
        let mut s = parse_scenario("f.toml", GOOD).unwrap();
        apply_variant(&mut s, "cpus", "1").unwrap();
        let e = validate("f.toml", None, &s).unwrap_err();
        assert_eq!((e.line, e.column), (0, 0));
        assert!(
            e.message.starts_with("tasks[0].affinity[1]: affinity names CPU 1 but the host has 1 CPU (0..=0)"),
            "{e}"
        );
        let e = validate("f.toml", Some(GOOD), &s).unwrap_err();
        assert_eq!((e.line, e.column), (8, 16));
    }
}
