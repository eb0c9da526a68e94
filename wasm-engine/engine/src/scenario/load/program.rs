//! A program's steps: each checked where it stands (loops, forks, periodic steps, what can
//! follow what), and the walks that find the steps naming other tasks or cgroups.

use super::{Checker, MAX_FORK_CHILDREN, MAX_LOOP_DEPTH};
use crate::scenario::locate::KeyPath;
use crate::scenario::schema::{ForkSpec, LoopSpec, OpSpec, PeriodicSpec, PipeSpec};
use crate::scenario::units::format_duration;

/// Every `cgroup` step of a program (loops and a fork's children included) with its key path.
pub(super) fn cgroup_steps<'a>(seq: &KeyPath, ops: &'a [OpSpec], out: &mut Vec<(KeyPath, &'a str)>) {
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
pub(super) fn pipes_of<'a>(seq: &KeyPath, ops: &'a [OpSpec], out: &mut Vec<(KeyPath, &'a PipeSpec)>) {
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
pub(super) fn forks_of<'a>(seq: &KeyPath, ops: &'a [OpSpec], out: &mut Vec<(KeyPath, &'a ForkSpec)>) {
    for (i, op) in ops.iter().enumerate() {
        match op {
            OpSpec::Fork(f) => out.push((seq.index(i).key("fork"), f)),
            OpSpec::Loop(l) => forks_of(&seq.index(i).key("loop").key("body"), &l.body, out),
            _ => {}
        }
    }
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
pub(super) fn uses_locks(ops: &[OpSpec]) -> bool {
    ops.iter().any(|o| match o {
        OpSpec::Lock(_) | OpSpec::Unlock(_) | OpSpec::IpiWait(_) | OpSpec::TlbShootdown(_) | OpSpec::Halt(_) => true,
        OpSpec::Loop(l) => uses_locks(&l.body),
        _ => false,
    })
}

/// Every `ipi_wait` step of a program with its key path.
pub(super) fn ipi_targets<'a>(seq: &KeyPath, ops: &'a [OpSpec], out: &mut Vec<(KeyPath, &'a str)>) {
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
pub(super) fn wake_targets<'a>(seq: &KeyPath, ops: &'a [OpSpec], out: &mut Vec<(KeyPath, &'a str)>) {
    for (i, op) in ops.iter().enumerate() {
        match op {
            OpSpec::Wake(w) => out.push((seq.index(i).key("wake").key("task"), w.task.as_str())),
            OpSpec::Loop(l) => wake_targets(&seq.index(i).key("loop").key("body"), &l.body, out),
            _ => {}
        }
    }
}

/// Every `yield_to` step of a program with its key path, and whether a fork's children run it.
pub(super) fn yield_to_targets<'a>(
    seq: &KeyPath,
    ops: &'a [OpSpec],
    child: bool,
    out: &mut Vec<(KeyPath, &'a str, bool)>,
) {
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
pub(super) fn check_ops(c: &mut Checker, seq: &KeyPath, ops: &[OpSpec], depth: usize, child: bool) {
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
