//! Holds a shadow re-simulation against the trace it came from: per task, observed and
//! simulated CPU time, share and switches; overall, how much of the observed CPU time the model
//! had the same task on the same CPU ("per-decision agreement", time-weighted).

use super::decisions::{decisions, DecisionReport};
use super::observe::Observed;
use super::shadow::{shadow_scenario, Layout, Shadow};
use crate::obs::query::cpu_slices;
use crate::obs::summary::Summary;
use crate::scenario::load::first_issue;
use crate::sim::{config::SimConfig, Simulation};
use serde::Serialize;

/// One task, observed and simulated.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct TaskReport {
    pub name: String,
    pub pid: i32,
    /// The CPU it ran on most in the trace (its share is among the tasks of that CPU).
    pub cpu: u32,
    pub observed_ns: u64,
    pub simulated_ns: u64,
    /// CPU time over the trace's window (one CPU = 100 %).
    pub observed_cpu_pct: f64,
    pub simulated_cpu_pct: f64,
    /// `sched_migrate_task` records of it, and migrations in the model.
    pub observed_migrations: u64,
    pub simulated_migrations: u64,
    /// Share of the modeled tasks' CPU time on the task's CPU.
    pub observed_share_pct: f64,
    pub simulated_share_pct: f64,
    pub observed_switches: u64,
    pub simulated_switches: u64,
    /// `sched_yield()` calls inferred from the trace, and made in the model.
    pub observed_yields: u64,
    pub simulated_yields: u64,
    /// Its bursts are replayed as wall-clock spins (`shadow::wall_paced`), not as CPU time.
    pub wall_paced: bool,
}

/// A task the shadow leaves out (real-time or idle class, or never ran).
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct LeftOut {
    pub comm: String,
    pub pid: i32,
    pub prio: i32,
    pub runtime_ns: u64,
}

/// `schedlab replay --json`.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct ReplayReport {
    pub scenario: String,
    pub variants: Vec<(String, String)>,
    pub window_ns: u64,
    pub cpus: u32,
    pub tasks: Vec<TaskReport>,
    pub left_out: Vec<LeftOut>,
    /// Of the modeled tasks' observed CPU time, the part during which the model ran the same
    /// task on the same CPU (%).
    pub agreement_pct: f64,
    /// Largest |simulated − observed| share over the tasks (percentage points).
    pub max_share_error_pp: f64,
    /// Largest |simulated − observed| CPU time over the tasks, in percentage points of one
    /// CPU over the window.
    pub max_cpu_error_pp: f64,
    /// Where tasks ran: `"free"` (placed and balanced by the model) or `"observed"` (each
    /// pinned where it ran most; `--pin observed`).
    pub pin: String,
    /// Causal wakeups (raised by a modeled task in task context) replayed as `wake` steps.
    pub causal_wakeups: u64,
    /// The switch gaps the shadow ran with (`host.wakeup_switch_latency` and
    /// `host.schedule_clock_lead`: measured on the trace, or a variant's), ns; 0 when the
    /// trace could not show them.
    pub wakeup_switch_latency_ns: u64,
    pub schedule_clock_lead_ns: u64,
    /// The CPUs whose own gaps the shadow ran with instead (`host.cpu_switch_gaps`: the
    /// medians of that CPU's gaps alone, or a variant's): (CPU, wakeup gap, clock lead), ns.
    pub cpu_switch_gaps_ns: Vec<(u32, u64, u64)>,
    /// Where the trace's ticks fall in each tick period, from its first record
    /// (`Observed::tick_phase`), ns; None when it shows no tick records.
    pub trace_tick_phase_ns: Option<u64>,
    /// Where the shadow's ticks fall (`host.tick_phase`: 0, or a variant's, `tick_phase=trace`
    /// for the trace's), ns.
    pub tick_phase_ns: u64,
    /// Of the real wakeups the per-decision replay scored, the share where the model's
    /// `select_task_rq()` chose the CPU the kernel did (%; `decisions.placements`).
    pub placement_agreement_pct: f64,
    /// The model's picks along the real schedule (`decisions`).
    pub decisions: DecisionReport,
    /// Tasks forked in the trace that the layout puts in another cgroup than their parent
    /// while the trace shows no `cgroup_attach_task` of theirs: each is in its layout cgroup
    /// from its fork, where the kernel moved it later (`Shadow::unseen_moves`).
    pub unseen_moves: Vec<String>,
}

/// Builds the shadow scenario, applies `variants`, runs it and compares. An error names where
/// it lies: the trace (`file:line:0`, see `shadow`), the layout file, or the variants.
pub fn replay(
    obs: &Observed,
    layout: &Layout,
    name: &str,
    variants: &[(String, String)],
) -> Result<(Shadow, ReplayReport), String> {
    replay_run(obs, layout, name, variants).map(|(shadow, report, _)| (shadow, report))
}

/// [`replay`], with the shadow's run kept (the browser's "shadow as B": the run compared with
/// the trace as a second capture).
pub fn replay_run(
    obs: &Observed,
    layout: &Layout,
    name: &str,
    variants: &[(String, String)],
) -> Result<(Shadow, ReplayReport, Simulation), String> {
    let mut shadow = shadow_scenario(obs, layout, name)?;
    let tick_ns = shadow.tick_ns();
    for (k, v) in variants {
        // `tick_phase=trace`: the ticks where the trace's were (`Observed::tick_phase`).
        let v = match (k.as_str(), v.trim()) {
            ("tick_phase", "trace") => format!(
                "{}ns",
                shadow
                    .trace_tick_phase
                    .ok_or("--variant tick_phase=trace: the trace shows no tick records (their latency flags)")?
            ),
            _ => v.clone(),
        };
        crate::scenario::apply_variant(&mut shadow.scenario, k, &v).map_err(|e| format!("--variant {e}"))?;
    }
    // An `hz` variant changes the period the trace's phase is read in.
    if shadow.tick_ns() != tick_ns {
        shadow.trace_tick_phase = obs.tick_phase(shadow.tick_ns());
    }
    // The shadow scenario itself is valid (`shadow_scenario` checks it): what is wrong now
    // came with the variants.
    let given = || variants.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(" ");
    if let Some((path, msg)) = first_issue(&shadow.scenario) {
        return Err(format!("--variant {}: the shadow scenario's {path}: {msg}", given()));
    }
    let cfg = SimConfig::from_scenario(&shadow.scenario).map_err(|e| format!("--variant {}: {e}", given()))?;
    let decisions = decisions(obs, &shadow, cfg.clone());
    let mut sim = Simulation::new(cfg);
    sim.run();
    let report = compare(obs, &shadow, &sim, variants, decisions);
    Ok((shadow, report, sim))
}

/// Holds a run of the shadow scenario (to its end, or to any time before) against the trace.
pub fn compare(
    obs: &Observed,
    shadow: &Shadow,
    sim: &Simulation,
    variants: &[(String, String)],
    decisions: DecisionReport,
) -> ReplayReport {
    let t0 = obs.t0.unwrap_or(0);
    let sum = Summary::of(sim);
    let ncpus = sim.cpus.len() as u32;
    // Per CPU: the modeled tasks' observed and simulated CPU time (the share denominators).
    let mut obs_on = vec![0u64; ncpus as usize];
    let mut sim_on = vec![0u64; ncpus as usize];
    let mut rows = Vec::new();
    for (i, t) in obs.tasks.iter().enumerate() {
        let Some(id) = shadow.task_of[i] else { continue };
        let cpu = t.main_cpu().unwrap_or(0).min(ncpus.saturating_sub(1));
        let s = &sum.tasks[id as usize];
        // Saturating: a malformed trace can show runs that overlap, up to the end of the clock.
        obs_on[cpu as usize] = obs_on[cpu as usize].saturating_add(t.runtime_ns);
        sim_on[cpu as usize] = sim_on[cpu as usize].saturating_add(s.cpu_time_ns);
        rows.push((i, id, cpu));
    }
    // a ≤ b throughout; with a past 2^53 ns the rounding can land a hair above 100.
    let pct = |a: u64, b: u64| if b == 0 { 0.0 } else { (100.0 * a as f64 / b as f64).min(100.0) };
    let window = obs.t1.saturating_sub(t0);
    let cpu_pct = |ns: u64| if window == 0 { 0.0 } else { 100.0 * ns as f64 / window as f64 };
    let mut observed_migrations = vec![0u64; obs.tasks.len()];
    for e in &obs.events {
        if let super::decisions::ObsEvent::Migrate { task, .. } = e.ev {
            observed_migrations[task as usize] += 1;
        }
    }
    let tasks: Vec<TaskReport> = rows
        .iter()
        .map(|&(i, id, cpu)| {
            let t = &obs.tasks[i];
            let s = &sum.tasks[id as usize];
            TaskReport {
                name: shadow.scenario.tasks[id as usize].name.clone(),
                pid: t.pid,
                cpu,
                observed_ns: t.runtime_ns,
                simulated_ns: s.cpu_time_ns,
                observed_cpu_pct: cpu_pct(t.runtime_ns),
                simulated_cpu_pct: cpu_pct(s.cpu_time_ns),
                observed_migrations: observed_migrations[i],
                simulated_migrations: s.migrations,
                observed_share_pct: pct(t.runtime_ns, obs_on[cpu as usize]),
                simulated_share_pct: pct(s.cpu_time_ns, sim_on[cpu as usize]),
                observed_switches: t.switches_out,
                simulated_switches: s.switches_out,
                observed_yields: t.yields,
                simulated_yields: s.yields,
                wall_paced: shadow.scenario.tasks[id as usize]
                    .program
                    .iter()
                    .any(|o| matches!(o, crate::scenario::schema::OpSpec::Spin(_))),
            }
        })
        .collect();
    let left_out = obs
        .tasks
        .iter()
        .enumerate()
        .filter(|(i, t)| shadow.task_of[*i].is_none() && t.pid != 0 && t.runtime_ns > 0)
        .map(|(_, t)| LeftOut { comm: t.comm.clone(), pid: t.pid, prio: t.prio, runtime_ns: t.runtime_ns })
        .collect();
    // Time-weighted agreement: walk each CPU's observed runs against the simulated slices.
    let slices = cpu_slices(&sim.fair.log, ncpus, 0, sim.now().max(1), 1, sim.now());
    let (mut same, mut total) = (0u64, 0u64);
    for cpu in 0..ncpus {
        let sim_runs: Vec<(u64, u64, u32)> = (0..slices.len())
            .filter(|&k| slices.cpu[k] as u32 == cpu)
            .map(|k| (slices.start[k], slices.end[k], slices.task[k]))
            .collect();
        let mut j = 0;
        for r in obs.runs.iter().filter(|r| r.cpu == cpu) {
            let Some(id) = shadow.task_of[r.task as usize] else { continue };
            let (a, b) = (r.start - t0, r.end - t0);
            total = total.saturating_add(b - a);
            while j < sim_runs.len() && sim_runs[j].1 <= a {
                j += 1;
            }
            let mut k = j;
            while k < sim_runs.len() && sim_runs[k].0 < b {
                let (s, e, task) = sim_runs[k];
                if task == id {
                    same = same.saturating_add(e.min(b) - s.max(a));
                }
                k += 1;
            }
        }
    }
    // A CPU on which the trace shows the modeled tasks running 0 ns (a task that ran only for
    // 0 ns, replayed as 1 ns) has no observed share to hold the model's against.
    let max_err = tasks
        .iter()
        .filter(|t| obs_on[t.cpu as usize] > 0)
        .map(|t| (t.simulated_share_pct - t.observed_share_pct).abs())
        .fold(0.0, f64::max);
    let max_cpu_err = tasks.iter().map(|t| (t.simulated_cpu_pct - t.observed_cpu_pct).abs()).fold(0.0, f64::max);
    let causal_wakeups = shadow
        .scenario
        .tasks
        .iter()
        .map(|t| t.program.iter().filter(|o| matches!(o, crate::scenario::schema::OpSpec::Wake(_))).count() as u64)
        .sum();
    ReplayReport {
        max_cpu_error_pp: max_cpu_err,
        pin: if shadow.scenario.kernel.smp.is_some() { "observed" } else { "free" }.to_string(),
        causal_wakeups,
        wakeup_switch_latency_ns: sim.cfg.host.wakeup_switch_latency_ns,
        schedule_clock_lead_ns: sim.cfg.host.schedule_clock_lead_ns,
        cpu_switch_gaps_ns: shadow
            .scenario
            .host
            .cpu_switch_gaps
            .iter()
            .filter_map(|g| sim.cfg.host.cpu_switch_gaps.get(g.cpu as usize).map(|&(w, l)| (g.cpu, w, l)))
            .collect(),
        trace_tick_phase_ns: shadow.trace_tick_phase,
        tick_phase_ns: sim.cfg.params.tick_phase,
        placement_agreement_pct: decisions.placements.agreement_pct,
        unseen_moves: shadow.unseen_moves.clone(),
        scenario: shadow.scenario.name.clone(),
        variants: variants.to_vec(),
        window_ns: obs.t1.saturating_sub(t0),
        cpus: ncpus,
        tasks,
        left_out,
        agreement_pct: pct(same, total),
        max_share_error_pp: max_err,
        decisions,
    }
}
