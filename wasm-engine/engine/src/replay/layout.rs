//! The layout file of a replay (`schedlab replay --cgroups FILE`, the shadow panel's "Layout
//! file…"): what a trace cannot show (cgroups and their knobs, which task ran in which,
//! affinities, CONFIG_HZ, the CPUs' starting averages), parsed with errors located in it, and
//! the per-CPU kernel threads a trace's names bind to their CPU.

use crate::scenario::load::{first_issue, HZ_VALUES, MAX_CPUS};
use crate::scenario::locate::{toml_tree, KeyPath, Seg};
use crate::scenario::schema::{CfsRqAvgSpec, CgroupSpec, HostSpec, OpSpec, ScenarioFile, TaskSpec, SCENARIO_VERSION};
use crate::scenario::units::DurationSpec;
use serde::Deserialize;
use std::collections::BTreeMap;

/// The layout file (`--cgroups FILE`, TOML): what the trace cannot show.
///
/// ```toml
/// hz = 250
/// [[cgroups]]
/// path = "/sl_A"
/// shares = 2048
/// [tasks]
/// k_a = "/sl_A"
/// [[cfs_rq_avg]]        # optional: CPU 1's root cfs_rq at the trace's start
/// cpu = 1
/// runnable_avg = 1137
/// util_avg = 400
/// load_avg = 400
/// ```
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Layout {
    /// CONFIG_HZ of the traced machine (default 250).
    #[serde(default)]
    pub hz: Option<u32>,
    /// cgroups, parents first, as in a scenario.
    #[serde(default)]
    pub cgroups: Vec<CgroupSpec>,
    /// comm (or "comm-pid") → cgroup path.
    #[serde(default)]
    pub tasks: BTreeMap<String, String>,
    /// comm (or "comm-pid") → the CPUs it may run on (`taskset -c`), which a trace cannot
    /// show. Tasks not named here may run on every CPU the trace covers, except per-CPU
    /// kernel threads (see [`per_cpu_kthread`]).
    #[serde(default)]
    pub affinity: BTreeMap<String, Vec<u32>>,
    /// `"observed"`: pin each task to the CPU it ran on most, with timed sleeps instead of
    /// causal wakeups (the shadow before issue 18; `schedlab replay --pin observed`);
    /// `"free"` (default): tasks run where the model places them.
    #[serde(default)]
    pub pin: Pin,
    /// Each listed CPU's root cfs_rq averages at the trace's first record (`[[cfs_rq_avg]]`
    /// with `cpu`, `load_avg`, `runnable_avg`, `util_avg`; default: none, all zero): the
    /// blocked load and utilization the time before the trace left there, which a trace cannot
    /// show. The shadow scenario starts its CPUs with them (`host.cfs_rq_avg`).
    #[serde(default)]
    pub cfs_rq_avg: Vec<CfsRqAvgSpec>,
    /// The file name and text it was parsed from, to locate errors found later.
    #[serde(skip)]
    source: Option<(String, String)>,
}

/// Where the shadow's tasks may run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Pin {
    /// Every CPU the trace covers (or the layout's `affinity`), placed and balanced by the
    /// model (`smp = "fair"`), each `sched_wakeup` a modeled task raised a `wake` step of it.
    #[default]
    Free,
    /// Each task on the CPU it ran on most, sleeps as observed (`smp = "static"`).
    Observed,
}

impl Pin {
    /// Parses `--pin`'s value.
    pub fn parse(s: &str) -> Result<Pin, String> {
        match s {
            "free" => Ok(Pin::Free),
            "observed" => Ok(Pin::Observed),
            _ => Err(format!("--pin: expected \"free\" or \"observed\", got {s:?}")),
        }
    }
}

/// The CPU a per-CPU kernel thread is bound to, read from its name (`ksoftirqd/1`,
/// `kworker/0:2`, `kworker/1:1H`, `migration/0`, `cpuhp/1`, `rcuc/0`, `idle_inject/1`):
/// `kthread_create_on_cpu()` names them after their CPU, and the trace shows no affinity. An
/// unbound worker (`kworker/u8:0`) is not bound. Named shortcut: recognised by name only.
pub fn per_cpu_kthread(comm: &str) -> Option<u32> {
    let (base, rest) = comm.split_once('/')?;
    if !matches!(base, "ksoftirqd" | "kworker" | "migration" | "cpuhp" | "rcuc" | "idle_inject" | "watchdog") {
        return None;
    }
    let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
    let tail = &rest[digits.len()..];
    let ok = !digits.is_empty() && (tail.is_empty() || (base == "kworker" && tail.starts_with(':')));
    ok.then(|| digits.parse().ok()).flatten()
}

/// `file:line:column: message` at byte `off` of `text` (the column in bytes).
fn located(file: &str, text: &str, off: usize, message: &str) -> String {
    let off = off.min(text.len());
    let before = text.as_bytes()[..off].iter().filter(|&&b| b == b'\n').count();
    let col = off - text[..off].rfind('\n').map_or(0, |i| i + 1) + 1;
    format!("{file}:{}:{col}: {}", before + 1, message.trim_end())
}

impl Layout {
    /// Parses a layout file, with the error located as for scenarios: syntax, then what a
    /// scenario would refuse of it (`hz`, the cgroups), then a task placed in an undeclared
    /// cgroup.
    pub fn parse(file: &str, text: &str) -> Result<Layout, String> {
        let mut layout: Layout = toml::from_str(text).map_err(|e| {
            let off = e.span().map_or(0, |r| r.start);
            let off = if text.is_char_boundary(off.min(text.len())) { off } else { 0 };
            located(file, text, off, e.message())
        })?;
        layout.source = Some((file.to_string(), text.to_string()));
        if let Some(hz) = layout.hz.filter(|hz| !HZ_VALUES.contains(hz)) {
            let msg = format!("hz: expected CONFIG_HZ to be one of 100, 250, 300, 1000, got {hz}");
            return Err(layout.error_at(&KeyPath::root().key("hz"), false, &msg));
        }
        // The cgroups are checked as a scenario holding them checks them; their key paths
        // (`cgroups[1].shares`) are the same in both files.
        let probe = ScenarioFile {
            schema: None,
            version: SCENARIO_VERSION,
            name: "layout".into(),
            description: None,
            seed: 0,
            duration: DurationSpec(1),
            // The CPUs a trace covers are known only with the trace (checked there).
            host: HostSpec {
                cpus: layout.cfs_rq_avg.iter().map(|a| a.cpu.saturating_add(1)).max().unwrap_or(1).min(MAX_CPUS),
                cfs_rq_avg: layout.cfs_rq_avg.clone(),
                ..HostSpec::default()
            },
            kernel: Default::default(),
            cgroups: layout.cgroups.clone(),
            vms: Vec::new(),
            tasks: vec![TaskSpec {
                name: "probe".into(),
                nice: 0,
                policy: Default::default(),
                slice: None,
                affinity: None,
                parent_cpu: None,
                cgroup: None,
                vm: None,
                session: None,
                start: None,
                existing: None,
                stop: None,
                program: vec![OpSpec::Run(DurationSpec::FOREVER)],
            }],
        };
        if let Some((path, msg)) = first_issue(&probe) {
            // `host.cfs_rq_avg[i]…` of the probe is `cfs_rq_avg[i]…` of the layout.
            let path = match path.0.split_first() {
                Some((Seg::Key(k), rest)) if k == "host" => KeyPath(rest.to_vec()),
                _ => path,
            };
            return Err(layout.error_at(&path, false, &format!("{path}: {msg}")));
        }
        for (comm, cpus) in &layout.affinity {
            if cpus.is_empty() {
                let msg = format!("affinity.{comm}: expected at least one CPU");
                return Err(layout.error_at(&KeyPath::root().key("affinity").key(comm), false, &msg));
            }
        }
        for (comm, cgroup) in &layout.tasks {
            if cgroup != "/" && !layout.cgroups.iter().any(|c| &c.path == cgroup) {
                let msg = format!("tasks.{comm}: cgroup {cgroup:?} is not declared in [[cgroups]]");
                return Err(layout.error_at(&KeyPath::root().key("tasks").key(comm), false, &msg));
            }
        }
        Ok(layout)
    }

    /// An error about the value (or key) at `path`, located in the layout file when it came
    /// from one.
    pub(super) fn error_at(&self, path: &KeyPath, at_key: bool, message: &str) -> String {
        match &self.source {
            Some((file, text)) => {
                let off = toml_tree(text).and_then(|t| t.locate(path, at_key)).unwrap_or(0);
                located(file, text, off, message)
            }
            None => format!("layout: {message}"),
        }
    }
}
