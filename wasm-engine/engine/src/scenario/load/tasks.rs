//! The `[[tasks]]`' checks: names, affinities, starting averages, start and stop, their programs,
//! and what the programs name (IPI, `yield_to`, `wake` and pipe targets, cgroups, fork
//! children's names).

use super::program::{
    cgroup_steps, check_ops, forks_of, ipi_targets, pipes_of, uses_locks, wake_targets, yield_to_targets,
};
use super::{Checker, MAX_FORK_CHILDREN, MAX_FORK_SLOTS};
use crate::scenario::locate::KeyPath;
use crate::scenario::schema::{PipeSpec, PolicySpec, ScenarioFile, TaskSpec};
use crate::scenario::units::format_duration;

/// Checks every task, and the names each program gives.
pub(super) fn check_tasks(c: &mut Checker, s: &ScenarioFile) {
    let root = KeyPath::root();
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
        check_task(c, &tp, t, s.host.ncpus());
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
        check_pipes(c, s, &tp.key("program"), t);
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
    check_fork_names(c, s, &tasks);
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
