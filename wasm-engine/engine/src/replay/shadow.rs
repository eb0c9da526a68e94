//! Shadow re-simulation: the workload a trace shows, written as an ordinary scenario (so every
//! variant, the CLI and the web app apply to it), then run and held against the trace.
//!
//! Each fair-class task of the trace becomes a task of the scenario with its inferred program
//! (`observe`), its nice value from `prio`, pinned to the CPU it ran on most, started when it
//! was first seen. An optional layout file gives what a trace cannot show: the cgroup each
//! task ran in, the cgroups' shares and bandwidth, and CONFIG_HZ.
//!
//! Named shortcuts: real-time and idle-class tasks are left out (the engine models the fair
//! class; their CPU time shows up as the model running fair tasks instead), one CPU per task
//! (no load balancing in the engine), timer slack 0 (the observed sleeps include it).

use super::observe::{Observed, ShadowOp};
use crate::scenario::schema::{CgroupSpec, HostSpec, LoopSpec, OpSpec, ScenarioFile, TaskSpec, SCENARIO_VERSION};
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
}

impl Layout {
    /// Parses a layout file, with the error located as for scenarios.
    pub fn parse(file: &str, text: &str) -> Result<Layout, String> {
        toml::from_str(text).map_err(|e| {
            let off = e.span().map_or(0, |r| r.start);
            let line = text[..off.min(text.len())].matches('\n').count() + 1;
            let col = off - text[..off.min(text.len())].rfind('\n').map_or(0, |i| i + 1) + 1;
            format!("{file}:{line}:{col}: {}", e.message().trim_end())
        })
    }
}

/// The scenario task for each observed task (None: left out), and the scenario.
pub struct Shadow {
    pub scenario: ScenarioFile,
    /// Observed task index → scenario task id.
    pub task_of: Vec<Option<u32>>,
}

/// Writes the observed workload as a scenario named `name`.
pub fn shadow_scenario(obs: &Observed, layout: &Layout, name: &str) -> Result<Shadow, String> {
    let t0 = obs.t0.ok_or("the trace has no records")?;
    let duration = obs.t1.saturating_sub(t0).max(1);
    // Unique names: the comm, or comm-pid where comms repeat.
    let mut count: BTreeMap<&str, u32> = BTreeMap::new();
    for t in &obs.tasks {
        *count.entry(t.comm.as_str()).or_default() += 1;
    }
    let mut tasks = Vec::new();
    let mut task_of = vec![None; obs.tasks.len()];
    for (i, t) in obs.tasks.iter().enumerate() {
        let Some(cpu) = t.main_cpu() else { continue };
        if !t.is_fair() || t.runtime_ns == 0 {
            continue;
        }
        let comm = if t.comm.is_empty() { "<...>" } else { t.comm.as_str() };
        let mut name =
            if count.get(comm).copied().unwrap_or(0) > 1 { format!("{comm}-{}", t.pid) } else { comm.to_string() };
        // A reused pid with the same comm: the later task gets a generation suffix.
        let base = name.clone();
        let mut generation = 1;
        while tasks.iter().any(|x: &TaskSpec| x.name == name) {
            generation += 1;
            name = format!("{base}.{generation}");
        }
        let cgroup = layout.tasks.get(&name).or_else(|| layout.tasks.get(comm)).cloned();
        // A task that exits after a last phase (since its last sleep) in which it yielded or
        // was preempted: when it exits is a fact of the workload (a timeout, work paced in
        // wall time), how much CPU it got on the way was the scheduler's doing. So it is
        // killed at its exit time, and that last phase becomes open-ended demand: a hog, or a
        // loop of its mean burst and a yield if it yielded. Replaying the CPU time it got as
        // its demand would let any scheduler reproduce the real shares. A last phase that ran
        // uninterrupted is replayed as it is, and the task is killed at its exit time too.
        // Named shortcut: the phases before are replayed as recorded (open loop), so a
        // periodic task the model serves faster than the kernel did finishes its recorded
        // periods early and then idles; its share cannot come out higher than recorded.
        let last_sleep = t.ops.iter().rposition(|o| matches!(o, ShadowOp::Sleep(_))).map_or(0, |i| i + 1);
        let open_tail = t.preempted_since_block > 0 || t.ops[last_sleep..].contains(&ShadowOp::Yield);
        let (ops, tail) = match t.exit_ns {
            Some(_) if open_tail => (&t.ops[..last_sleep], Some(&t.ops[last_sleep..])),
            _ => (&t.ops[..], None),
        };
        let mut program: Vec<OpSpec> = ops
            .iter()
            .map(|op| match *op {
                ShadowOp::Run(ns) => OpSpec::Run(DurationSpec(ns)),
                ShadowOp::Yield => OpSpec::SchedYield(1),
                ShadowOp::Sleep(ns) => OpSpec::Sleep(DurationSpec(ns)),
            })
            .collect();
        if let Some(tail) = tail {
            let cpu: u64 = tail.iter().map(|o| if let ShadowOp::Run(ns) = o { *ns } else { 0 }).sum();
            let yields = tail.iter().filter(|o| **o == ShadowOp::Yield).count() as u64;
            if let Some(mean) = cpu.checked_div(yields) {
                let mean = mean.max(1);
                program.push(OpSpec::Loop(LoopSpec {
                    times: None,
                    body: vec![OpSpec::Run(DurationSpec(mean)), OpSpec::SchedYield(1)],
                }));
            } else {
                program.push(OpSpec::Run(DurationSpec::FOREVER));
            }
        } else if t.runs_on {
            program.push(OpSpec::Run(DurationSpec::FOREVER));
        }
        task_of[i] = Some(tasks.len() as u32);
        tasks.push(TaskSpec {
            name,
            nice: t.prio - 120,
            policy: Default::default(),
            slice: None,
            affinity: Some(vec![cpu]),
            cgroup,
            vm: None,
            session: None,
            start: Some(DurationSpec(t.first_ns.saturating_sub(t0))),
            stop: t.exit_ns.map(|x| DurationSpec(x.saturating_sub(t0).max(1))),
            program,
        });
    }
    if tasks.is_empty() {
        return Err("the trace shows no fair-class task running (no sched_switch records?)".into());
    }
    for (comm, path) in &layout.tasks {
        if !tasks.iter().any(|t| &t.name == comm || t.name.starts_with(&format!("{comm}-"))) {
            return Err(format!("layout: task {comm:?} (in {path}) is not in the trace"));
        }
    }
    let scenario = ScenarioFile {
        schema: None,
        version: SCENARIO_VERSION,
        name: name.to_string(),
        description: Some(format!(
            "Shadow re-simulation of {name}: the trace's tasks with their observed bursts, yields and sleeps."
        )),
        seed: 0,
        duration: DurationSpec(duration),
        host: HostSpec {
            cpus: obs.cpus.max(1),
            hz: layout.hz.unwrap_or(250),
            timer_slack: Some(DurationSpec(0)),
            ..Default::default()
        },
        kernel: Default::default(),
        cgroups: layout.cgroups.clone(),
        vms: Vec::new(),
        tasks,
    };
    crate::scenario::validate(name, None, &scenario).map_err(|e| e.to_string())?;
    Ok(Shadow { scenario, task_of })
}
