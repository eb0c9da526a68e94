//! Shadow re-simulation: the workload a trace shows, written as an ordinary scenario (so every
//! variant, the CLI and the web app apply to it), then run and held against the trace.
//!
//! Each fair-class task of the trace becomes a task of the scenario with its inferred program
//! (`observe`) and its nice value from `prio`, started when it was first seen: forked there when
//! the trace shows its fork (`sched_wakeup_new`), else as a task that existed before the trace
//! (`existing`: it wakes as a sleeper, with PELT averages from its observed share of the trace,
//! [`existing_averages`]). Tasks run free, placed and balanced by the model (`smp = "fair"`),
//! each `sched_wakeup` raised in a modeled task's context replayed as that task's `wake` step;
//! `--pin observed` pins each where it ran most, with timed sleeps. An optional layout file
//! gives what a trace cannot show: the cgroup each task ran in, the cgroups' shares and
//! bandwidth, affinities, and CONFIG_HZ.
//!
//! Every trace that imports with a fair-class task in a `sched_switch` makes a scenario that
//! loads (issue 16; the `replay` fuzz target holds it): each fair-class task named by a
//! `sched_switch` is modeled, even one that ran 0 ns; zero-length sleeps and runs are kept as
//! 1 ns steps (`observe`'s module docs say why); names are made unique and free of control
//! characters; times and durations stay finite, a task stops after it starts. What the
//! replay still refuses is located: at the trace (`file:line:0`, the record's source line for
//! text, its record number for `.dat`), or at the layout file's key.
//!
//! A sleeper whose bursts end by the clock rather than when its work is done (a frame loop, a
//! timed poll, `workers sleeper`'s spin on CLOCK_MONOTONIC) gets less CPU in a burst the
//! kernel preempted, and it keeps its period. [`wall_paced`] tells such a task from its
//! preempted bursts, and its bursts are replayed as `spin` steps (wall-clock), not as `run`
//! steps (CPU time). Replaying them as CPU time made the model's sleepers lose their period
//! whenever it preempted them where the kernel had not: `two-sleepers-and-hog` (issue 16).
//!
//! Named shortcuts: real-time and idle-class tasks are left out (the engine models the fair
//! class; their CPU time shows up as the model running fair tasks instead), the averages of
//! tasks from before the trace ([`existing_averages`]), timer slack 0 (the observed sleeps
//! include it), and the length of a wall-paced burst the kernel preempted ([`wall_paced`]).

pub use super::layout::{per_cpu_kthread, Layout, Pin};
use super::observe::{Observed, ObservedTask, ShadowOp};
use crate::scenario::load::{first_issue, MAX_SWITCH_GAP_NS};
use crate::scenario::locate::{KeyPath, Seg};
use crate::scenario::schema::{
    CgroupSpec, CpuSwitchGapsSpec, ExistingSpec, HostSpec, LoopSpec, OpSpec, ScenarioFile, TaskSpec, WakeSpec,
    SCENARIO_VERSION,
};
use crate::scenario::units::DurationSpec;
use std::collections::BTreeMap;

/// [`wall_paced`] needs at least this many bursts of each kind (preempted during the burst, and
/// not), each between two blocks, to judge a task.
pub const WALL_PACED_MIN_BURSTS: usize = 8;

/// Whether a task's bursts are paced by the wall clock (named inference, not fitted to a
/// capture): a burst that runs until the clock says so gets less CPU when it is preempted,
/// one that runs until its work is done gets the same. So a task is taken as wall-paced when
/// at least three quarters of its preempted bursts got less CPU than the lowest tenth of its
/// unpreempted ones, with at least [`WALL_PACED_MIN_BURSTS`] of each (bursts between two
/// blocks). Returns the median unpreempted burst: the length given to each burst the kernel
/// preempted, whose own length the trace cannot show (named shortcut).
pub fn wall_paced(t: &ObservedTask) -> Option<u64> {
    let mut whole = Vec::new();
    let mut preempted = Vec::new();
    for &(i, pre) in &t.block_bursts {
        let ShadowOp::Run(ns) = t.ops[i] else { continue };
        if i == 0 || !t.ops[i - 1].blocks() {
            continue;
        }
        if pre {
            preempted.push(ns);
        } else {
            whole.push(ns);
        }
    }
    if whole.len() < WALL_PACED_MIN_BURSTS || preempted.len() < WALL_PACED_MIN_BURSTS {
        return None;
    }
    whole.sort_unstable();
    let low = whole[whole.len() / 10];
    let short = preempted.iter().filter(|&&ns| ns < low).count();
    (4 * short >= 3 * preempted.len()).then(|| whole[whole.len() / 2])
}

/// The PELT averages a task that existed before the trace brings to its first wakeup (named
/// shortcut): the kernel's decayed history is not in the trace, so each average is the task's
/// observed share of the trace up to its exit, runnable (not seen blocked, the time before
/// it was first seen counted as blocked) for `load_avg` (times its weight) and `runnable_avg`,
/// running for `util_avg`: what PELT settles at for a steady workload. A new task's averages
/// (its full weight as load) would make a long-lived sleeper look like a hog to the
/// balancer for the first hundred milliseconds.
/// The layout's cgroups, with the period timer's phase the trace shows (its first
/// `hrtimer_expire_entry` of `sched_cfs_period_timer`, `ObsEvent::BandwidthTimer`) given to the
/// group under a quota, when the layout has one and does not set it. Named shortcut: with more
/// than one such group the trace does not say whose timer it is, and the phases stay 0.
fn with_period_phase(cgroups: &[CgroupSpec], obs: &Observed, t0: u64) -> Vec<CgroupSpec> {
    let mut out = cgroups.to_vec();
    let first = obs.events.iter().find_map(|e| match e.ev {
        crate::replay::decisions::ObsEvent::BandwidthTimer { .. } => Some(e.ts),
        _ => None,
    });
    let mut with_quota = out.iter_mut().filter(|g| g.quota.is_some() || g.max.is_some());
    if let (Some(g), None, Some(at)) = (with_quota.next(), with_quota.next(), first) {
        if g.period_phase.is_none() {
            let period = crate::scenario::load::cgroup_period_ns(g);
            g.period_phase = Some(DurationSpec(at.saturating_sub(t0) % period.max(1)));
        }
    }
    out
}

fn existing_averages(t: &ObservedTask, t0: u64, t1: u64) -> ExistingSpec {
    let end = t.exit_ns.unwrap_or(t1).clamp(t0, t1.max(t0));
    let span = end.saturating_sub(t0).max(1);
    let blocked = t.first_ns.saturating_sub(t0).saturating_add(t.blocked_ns).min(span);
    let runnable = span - blocked;
    let running = t.runtime_ns.min(runnable);
    let weight = crate::sched::weight::nice_weight(t.prio.saturating_sub(120));
    let part = |scale: u64, ns: u64| (u128::from(scale) * u128::from(ns) / u128::from(span)) as u64;
    ExistingSpec {
        cpu: None,
        load_avg: part(weight, runnable),
        runnable_avg: part(1024, runnable),
        util_avg: part(1024, running),
    }
}

/// The scenario task for each observed task (None: left out), and the scenario.
pub struct Shadow {
    pub scenario: ScenarioFile,
    /// Observed task index → scenario task id.
    pub task_of: Vec<Option<u32>>,
    /// Tasks forked in the trace that the layout puts in another cgroup than their parent,
    /// with no `cgroup_attach_task` of theirs in the trace: they start in their layout cgroup,
    /// though they moved there at a time the trace does not show (scenario names).
    pub unseen_moves: Vec<String>,
    /// Where the trace's ticks fall in each of the scenario's tick periods
    /// (`Observed::tick_phase`), read once here; None when it shows no tick records.
    pub trace_tick_phase: Option<u64>,
}

impl Shadow {
    /// The scenario's tick period (ns).
    pub fn tick_ns(&self) -> u64 {
        1_000_000_000 / u64::from(self.scenario.host.hz.max(1))
    }
}

/// What a trace is called in errors.
fn source(obs: &Observed) -> &str {
    if obs.source.is_empty() {
        "trace"
    } else {
        &obs.source
    }
}

/// An error at the record on `line` of the trace (the record number for `.dat`; column unknown).
pub fn trace_error(obs: &Observed, line: u64, message: &str) -> String {
    format!("{}:{line}:0: {message}", source(obs))
}

/// The longest time a shadow scenario holds: 2^62 ns (146 years). A trace's times past it (a
/// garbled timestamp; the text importers read up to 18446744073 s) are cut there, so that the
/// simulation's time arithmetic (a step ends at now + its length) stays within 64 bits.
const LONGEST: u64 = 1 << 62;

/// The shortest burst of an endless yield loop (the open tail of a task that yielded before it
/// exited). Each turn of a real `sched_yield()` loop costs at least the system call and the
/// `schedule()` it runs, about a microsecond; a trace that shows less between yields (0 ns in
/// µs-resolution text, or the 1 ns a zero-length run is kept as) shows its clock's resolution,
/// and a loop of 1 ns turns would cost the simulation an event per simulated nanosecond (the
/// `replay` fuzz target's timeout). No capture we have yields more often than every 11 µs.
const MIN_LOOP_BURST_NS: u64 = 1_000;

/// A finite step of at least 1 ns (the observed steps already are, see `observe`) and at most
/// [`LONGEST`].
fn step(ns: u64) -> DurationSpec {
    DurationSpec(ns.clamp(1, LONGEST))
}

/// A task name: the comm with control characters escaped (`\t`, `\u{1}`), never empty.
fn printable(comm: &str) -> String {
    if comm.is_empty() {
        return "<...>".into();
    }
    comm.chars().map(|c| if c.is_control() { c.escape_default().to_string() } else { c.to_string() }).collect()
}

/// Writes the observed workload as a scenario named `name`.
pub fn shadow_scenario(obs: &Observed, layout: &Layout, name: &str) -> Result<Shadow, String> {
    let src = source(obs);
    let t0 = obs.t0.ok_or_else(|| format!("{src}: the trace has no records"))?;
    if let Some(line) = obs.too_many_cpus_at {
        let msg = format!(
            "this record names a CPU beyond {} distinct CPUs, the most the model simulates",
            crate::scenario::load::MAX_CPUS
        );
        return Err(trace_error(obs, line, &msg));
    }
    if obs.switches == 0 {
        return Err(format!(
            "{src}: the trace has no sched_switch records, so there is no schedule to replay \
             (capture them: trace-cmd record -e sched:sched_switch)"
        ));
    }
    let duration = obs.t1.saturating_sub(t0).clamp(1, LONGEST);
    let names: Vec<String> = obs.tasks.iter().map(|t| printable(&t.comm)).collect();
    let ncpus = obs.cpus.max(1);
    // Named shortcut: the sched domains hold 512 CPUs (`sched::topology::MAX_CPUS`); a trace
    // of more CPUs is replayed pinned where each task ran most.
    let free = layout.pin == Pin::Free && ncpus as usize <= crate::sched::topology::MAX_CPUS;
    let plans = plan_tasks(obs, &names);
    let causal = causal_wakeups(obs, &plans, free);
    let mut tasks = Vec::new();
    // Per scenario task: the observed task, and the source line of each program step.
    let mut origin: Vec<(usize, Vec<u64>)> = Vec::new();
    let mut task_of = vec![None; obs.tasks.len()];
    let mut unseen_moves = Vec::new();
    for (i, t) in obs.tasks.iter().enumerate() {
        let Some(plan) = &plans[i] else { continue };
        let name = plan.name.clone();
        let comm = names[i].as_str();
        let cpu = t.main_cpu().expect("modeled tasks ran");
        let (cgroup, unseen_move) = task_cgroup(obs, layout, &plans, &names, i);
        if unseen_move {
            unseen_moves.push(name.clone());
        }
        let (program, lines) = task_program(obs, layout, t, plan, &plans, &causal);
        let affinity = if free {
            layout
                .affinity
                .get(&name)
                .or_else(|| layout.affinity.get(comm))
                .cloned()
                .or_else(|| per_cpu_kthread(comm).filter(|&c| c < ncpus).map(|c| vec![c]))
                .unwrap_or_else(|| (0..ncpus).collect())
        } else {
            vec![cpu]
        };
        // Forked on its parent's CPU when the trace shows the fork; else it existed before the
        // trace and first wakes from the first CPU the trace shows it on (where it is pinned).
        let parent_cpu = if free { t.forked_on.filter(|&c| c < ncpus) } else { None };
        let existing = t.forked_on.is_none().then(|| ExistingSpec {
            cpu: if free { t.first_cpu.filter(|&c| c < ncpus) } else { Some(cpu) },
            ..existing_averages(t, t0, obs.t1)
        });
        let start = t.first_ns.saturating_sub(t0).min(LONGEST - 1);
        task_of[i] = Some(tasks.len() as u32);
        origin.push((i, lines));
        tasks.push(TaskSpec {
            name,
            nice: t.prio - 120,
            policy: Default::default(),
            slice: None,
            affinity: Some(affinity),
            parent_cpu,
            cgroup,
            vm: None,
            session: None,
            start: Some(DurationSpec(start)),
            existing,
            // After its start even when the trace's records are out of order across CPUs.
            stop: t.exit_ns.map(|x| DurationSpec(x.saturating_sub(t0).clamp(start + 1, LONGEST))),
            program,
        });
    }
    if tasks.is_empty() {
        let ran = obs.tasks.iter().filter(|t| t.pid != 0 && t.main_cpu().is_some()).count();
        return Err(format!(
            "{src}: no fair-class task (prio 100..=139) appears in the trace's sched_switch records \
             ({ran} tasks other than idle do, none fair-class), so there is nothing for the fair-class model to replay"
        ));
    }
    check_layout_against_trace(layout, &tasks, obs)?;
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
            // As the trace shows them (`HostSpec::wakeup_switch_latency`: the wakee pays for
            // the gap), at most what a scenario takes: a median beyond 1 ms is no switch's.
            wakeup_switch_latency: obs.wakeup_switch_latency().map(|g| DurationSpec(g.min(MAX_SWITCH_GAP_NS))),
            schedule_clock_lead: obs.schedule_clock_lead().map(|g| DurationSpec(g.min(MAX_SWITCH_GAP_NS))),
            // Each CPU's own, where it has enough gaps and they differ from the pooled ones.
            cpu_switch_gaps: (0..obs.cpus.max(1))
                .filter_map(|cpu| {
                    let (wakeup, lead) = obs.cpu_switch_gaps(cpu);
                    let own = |g: Option<u64>, pooled: Option<u64>| {
                        g.filter(|&g| Some(g) != pooled).map(|g| DurationSpec(g.min(MAX_SWITCH_GAP_NS)))
                    };
                    let wakeup = own(wakeup, obs.wakeup_switch_latency());
                    let lead = own(lead, obs.schedule_clock_lead());
                    (wakeup.is_some() || lead.is_some()).then_some(CpuSwitchGapsSpec {
                        cpu,
                        wakeup_switch_latency: wakeup,
                        schedule_clock_lead: lead,
                    })
                })
                .collect(),
            cfs_rq_avg: layout.cfs_rq_avg.clone(),
            ..Default::default()
        },
        // Free tasks are placed and balanced as the kernel does (`smp = "fair"`, the
        // default); pinned to where each ran most, there is nothing to decide and the shadow
        // keeps the static rule (no PELT tracking, any CPU count).
        kernel: crate::scenario::schema::KernelSpec {
            smp: (!free).then_some(crate::scenario::schema::SmpSpec::Static),
            ..Default::default()
        },
        cgroups: with_period_phase(&layout.cgroups, obs, t0),
        vms: Vec::new(),
        tasks,
    };
    // The generator makes nothing a scenario refuses (the `replay` fuzz target holds it); were
    // it to, the error names the trace record the offending step came from.
    if let Some((path, msg)) = first_issue(&scenario) {
        return Err(issue_at_trace(obs, &origin, &path, &msg));
    }
    let mut shadow = Shadow { scenario, task_of, unseen_moves, trace_tick_phase: None };
    shadow.trace_tick_phase = obs.tick_phase(shadow.tick_ns());
    Ok(shadow)
}

/// The first pass's verdict on an observed task that is modeled: its scenario name, and how
/// many of its steps are replayed as recorded (the rest, an open tail, becomes open-ended
/// demand).
struct Plan {
    name: String,
    /// Steps replayed as recorded, and whether an open tail follows.
    kept: usize,
    open_tail: bool,
}

/// The modeled tasks (None: left out), their unique names (the comm, or comm-pid where comms
/// repeat, with a generation suffix for a reused pid), and the part of each one's steps that is
/// replayed as recorded.
fn plan_tasks(obs: &Observed, names: &[String]) -> Vec<Option<Plan>> {
    let mut count: BTreeMap<&str, u32> = BTreeMap::new();
    for n in names {
        *count.entry(n.as_str()).or_default() += 1;
    }
    let mut plans: Vec<Option<Plan>> = Vec::with_capacity(obs.tasks.len());
    let mut taken: Vec<String> = Vec::new();
    for (i, t) in obs.tasks.iter().enumerate() {
        // Every fair-class task a sched_switch names (`main_cpu` is None only for tasks seen
        // in wakeups or migrations alone), even one that ran 0 ns: its switches are picks.
        if t.main_cpu().is_none() || !t.is_fair() {
            plans.push(None);
            continue;
        }
        let comm = names[i].as_str();
        let mut name =
            if count.get(comm).copied().unwrap_or(0) > 1 { format!("{comm}-{}", t.pid) } else { comm.to_string() };
        // A reused pid with the same comm: the later task gets a generation suffix.
        let base = name.clone();
        let mut generation = 1;
        while taken.contains(&name) {
            generation += 1;
            name = format!("{base}.{generation}");
        }
        taken.push(name.clone());
        // A task that exits after a last phase (since its last sleep) in which it yielded or
        // was preempted: when it exits is a fact of the workload (a timeout, work paced in
        // wall time), how much CPU it got on the way was the scheduler's doing. So it is
        // killed at its exit time, and that last phase becomes open-ended demand: a hog, or a
        // loop of its mean burst and a yield if it yielded. Replaying the CPU time it got as
        // its demand would let any scheduler reproduce the real shares. A last phase that ran
        // uninterrupted is replayed as it is, and the task is killed at its exit time too.
        // Named shortcut: the phases before are replayed as recorded (open loop for timed
        // sleeps), so a periodic task the model serves faster than the kernel did finishes
        // its recorded periods early and then idles; its share cannot come out higher than
        // recorded.
        let last_sleep = t.ops.iter().rposition(ShadowOp::blocks).map_or(0, |i| i + 1);
        let open_tail =
            t.exit_ns.is_some() && (t.preempted_since_block > 0 || t.ops[last_sleep..].contains(&ShadowOp::Yield));
        // A move into a cgroup in that last phase is kept as recorded, with what ran before it.
        let last_move = t.ops.iter().rposition(|o| matches!(o, ShadowOp::Cgroup(_))).map_or(0, |i| i + 1);
        let kept = if open_tail { last_sleep.max(last_move) } else { t.ops.len() };
        plans.push(Some(Plan { name, kept, open_tail }));
    }
    plans
}

/// The causal wakeups replayed as `wake` and `wait_wakeup` steps (free tasks only): the waker
/// and the wakee are modeled and the waker's `wake` is in its recorded part. Any other wait is
/// replayed as the timed sleep it was.
fn causal_wakeups(obs: &Observed, plans: &[Option<Plan>], free: bool) -> Vec<bool> {
    let mut causal = vec![false; obs.causal_wakeups as usize];
    if free {
        for (i, t) in obs.tasks.iter().enumerate() {
            let Some(plan) = &plans[i] else { continue };
            for op in &t.ops[..plan.kept] {
                if let ShadowOp::Wake { id, wakee, .. } = *op {
                    causal[id as usize] = plans[wakee as usize].is_some();
                }
            }
        }
    }
    causal
}

/// The cgroup a modeled task starts in, and whether it moved there at a time the trace does not
/// show. A task with a recorded move into a cgroup the scenario has starts in its parent's
/// group, as `cgroup_post_fork()` leaves it (the root when the fork is not in the trace), and
/// moves with a `cgroup` step; else it is in its layout cgroup. A task forked in the trace into
/// another group than its parent's, with no move recorded, moved unseen.
fn task_cgroup(
    obs: &Observed,
    layout: &Layout,
    plans: &[Option<Plan>],
    names: &[String],
    i: usize,
) -> (Option<String>, bool) {
    let t = &obs.tasks[i];
    let name = plans[i].as_ref().map_or("", |p| p.name.as_str());
    let kept = plans[i].as_ref().map_or(0, |p| p.kept);
    let moves =
        t.ops[..kept].iter().any(|o| matches!(*o, ShadowOp::Cgroup(p) if known_cgroup(obs, layout, p).is_some()));
    let layout_cgroup =
        |i: usize, name: &str| layout.tasks.get(name).or_else(|| layout.tasks.get(names[i].as_str())).cloned();
    let parents =
        t.parent.and_then(|p| layout_cgroup(p as usize, plans[p as usize].as_ref().map_or("", |pl| pl.name.as_str())));
    let own = layout_cgroup(i, name);
    let recorded = t.ops.iter().any(|o| matches!(o, ShadowOp::Cgroup(_)));
    let unseen = !recorded && t.parent.is_some() && own.as_deref().unwrap_or("/") != parents.as_deref().unwrap_or("/");
    (if moves { parents } else { own }, unseen)
}

/// The path of a cgroup a task moved into (`Observed::cgroup_paths[p]`) when the scenario has
/// it (the root or a layout cgroup).
fn known_cgroup<'a>(obs: &'a Observed, layout: &Layout, p: u32) -> Option<&'a str> {
    let path = obs.cgroup_paths.get(p as usize).map(String::as_str).unwrap_or("");
    (path == "/" || layout.cgroups.iter().any(|g| g.path == path)).then_some(path)
}

/// A modeled task's program and the source line of each step: its recorded steps (a
/// wall-paced task's whole bursts as spins, causal wakeups as `wake` and `wait_wakeup`, moves
/// into known cgroups as `cgroup` steps), then its open tail as open-ended demand, or running
/// on when the trace ends with it still demanding CPU.
fn task_program(
    obs: &Observed,
    layout: &Layout,
    t: &ObservedTask,
    plan: &Plan,
    plans: &[Option<Plan>],
    causal: &[bool],
) -> (Vec<OpSpec>, Vec<u64>) {
    let ops = &t.ops[..plan.kept];
    // A wall-paced task's bursts are spins: as long as each ran, or the median whole burst
    // where the kernel preempted it.
    // Only whole bursts (the first, or one after a block), as `wall_paced` judges them;
    // one split by a wakeup or a yield stays as it is.
    let mut spins = BTreeMap::new();
    if let Some(median) = wall_paced(t) {
        for &(i, pre) in &t.block_bursts {
            let whole = i == 0 || t.ops[i - 1].blocks();
            if let (ShadowOp::Run(ns), true) = (t.ops[i], whole) {
                spins.insert(i, if pre { median } else { ns });
            }
        }
    }
    let mut program = Vec::new();
    let mut lines = Vec::new();
    for (k, (op, &line)) in ops.iter().zip(&t.op_lines).enumerate() {
        let step = match *op {
            ShadowOp::Run(_) if spins.contains_key(&k) => OpSpec::Spin(step(spins[&k])),
            ShadowOp::Run(ns) => OpSpec::Run(step(ns)),
            ShadowOp::Yield => OpSpec::SchedYield(1),
            ShadowOp::Sleep(ns) => OpSpec::Sleep(step(ns)),
            ShadowOp::Wait { id, .. } if causal[id as usize] => OpSpec::WaitWakeup(1),
            ShadowOp::Wait { ns, .. } => OpSpec::Sleep(step(ns)),
            ShadowOp::Wake { id, wakee, sync } if causal[id as usize] => OpSpec::Wake(WakeSpec {
                task: plans[wakee as usize].as_ref().expect("causal wakees are modeled").name.clone(),
                sync,
            }),
            ShadowOp::Wake { .. } => continue,
            ShadowOp::Handoff { id } if causal[id as usize] => OpSpec::WaitWakeup(1),
            ShadowOp::Handoff { .. } => continue,
            ShadowOp::Cgroup(p) => match known_cgroup(obs, layout, p) {
                Some(path) => OpSpec::Cgroup(path.to_string()),
                None => continue,
            },
        };
        program.push(step);
        lines.push(line);
    }
    if plan.open_tail {
        let tail = &t.ops[plan.kept..];
        let cpu: u64 =
            tail.iter().map(|o| if let ShadowOp::Run(ns) = o { *ns } else { 0 }).fold(0, u64::saturating_add);
        let yields = tail.iter().filter(|o| **o == ShadowOp::Yield).count() as u64;
        if let Some(mean) = cpu.checked_div(yields) {
            program.push(OpSpec::Loop(LoopSpec {
                times: None,
                body: vec![OpSpec::Run(step(mean.max(MIN_LOOP_BURST_NS))), OpSpec::SchedYield(1)],
            }));
        } else {
            program.push(OpSpec::Run(DurationSpec::FOREVER));
        }
        lines.push(t.exit_line);
    } else if t.runs_on {
        program.push(OpSpec::Run(DurationSpec::FOREVER));
        lines.push(t.op_lines.last().copied().unwrap_or(t.first_line));
    }
    if program.is_empty() {
        // Only wakes of tasks left out: it ran, for 1 ns at least.
        program.push(OpSpec::Run(DurationSpec(1)));
        lines.push(t.first_line);
    }
    (program, lines)
}

/// What the layout file names that the trace does not have: a task, or a CPU of
/// `[[cfs_rq_avg]]`; located at the layout file's key.
fn check_layout_against_trace(layout: &Layout, tasks: &[TaskSpec], obs: &Observed) -> Result<(), String> {
    let src = source(obs);
    for (comm, path) in &layout.tasks {
        if !tasks.iter().any(|t| &t.name == comm || t.name.starts_with(&format!("{comm}-"))) {
            let msg = format!("task {comm:?} (in {path}) is not in the trace {src}");
            return Err(layout.error_at(&KeyPath::root().key("tasks").key(comm), true, &msg));
        }
    }
    for (i, a) in layout.cfs_rq_avg.iter().enumerate() {
        if a.cpu >= obs.cpus.max(1) {
            let msg =
                format!("cfs_rq_avg[{i}].cpu: CPU {} is not in the trace {src} ({} CPUs)", a.cpu, obs.cpus.max(1));
            return Err(layout.error_at(&KeyPath::root().key("cfs_rq_avg").index(i).key("cpu"), false, &msg));
        }
    }
    Ok(())
}

/// A problem of the shadow scenario at `path`, located at the trace record the offending step
/// came from (`origin`: per scenario task, the observed task and each step's source line).
fn issue_at_trace(obs: &Observed, origin: &[(usize, Vec<u64>)], path: &KeyPath, msg: &str) -> String {
    let line = match path.0.as_slice() {
        [Seg::Key(k), Seg::Index(t), rest @ ..] if k == "tasks" && *t < origin.len() => {
            let (i, lines) = &origin[*t];
            match rest {
                [Seg::Key(p), Seg::Index(s), ..] if p == "program" => lines.get(*s).copied(),
                _ => None,
            }
            .unwrap_or(obs.tasks[*i].first_line)
        }
        _ => obs.tasks.iter().map(|t| t.first_line).min().unwrap_or(0),
    };
    trace_error(obs, line, &format!("the shadow scenario's {path}: {msg}"))
}

#[cfg(test)]
mod tests;
