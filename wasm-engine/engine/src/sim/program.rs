//! Task behaviour programs: the scenario's steps compiled to a flat instruction list and a
//! small interpreter that says what the task does next.

use crate::rng::SplitMix64;
use crate::scenario::schema::{ForkSpec, OpSpec};

/// The fork steps of a program in the order `Program::compile` numbers their children: the
/// steps in order, loop bodies where they stand (a fork's own program has no fork).
pub fn fork_steps(ops: &[OpSpec]) -> Vec<&ForkSpec> {
    fn walk<'a>(ops: &'a [OpSpec], out: &mut Vec<&'a ForkSpec>) {
        for op in ops {
            match op {
                OpSpec::Fork(f) => out.push(f),
                OpSpec::Loop(l) => walk(&l.body, out),
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    walk(ops, &mut out);
    out
}

/// One compiled instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Instr {
    /// Consume CPU time (u64::MAX: forever).
    Run(u64),
    /// Run for `ns` ± `half` of CPU time, uniformly drawn from the task's seeded stream when
    /// the step begins (a pipe step's `work_jitter`).
    RunJitter { ns: u64, half: u64 },
    /// Busy-wait until this much wall time has passed since the step began.
    Spin(u64),
    /// Block for this long (timer slack is added by the host).
    Sleep(u64),
    /// Call sched_yield().
    Yield,
    /// Call yield_to(task id).
    YieldTo(u32),
    /// Token ping-pong with a peer task.
    PingPong(PingPongStep),
    /// Take guest lock (id).
    Lock(u32),
    /// Release guest lock (id).
    Unlock(u32),
    /// Send IPIs to a set of vCPU tasks (index into `Program::sets`) and wait until all are
    /// handled.
    IpiWait(u32),
    /// Guest HLT for at most this long (ns).
    Halt(u64),
    /// Start of a loop: `times` (None = forever), `period` for periodic loops, `end` = pc of
    /// the matching LoopEnd.
    LoopStart { times: Option<u64>, period: Option<u64>, end: u32 },
    /// End of a loop body; jumps back to `start` + 1.
    LoopEnd { start: u32 },
    /// Write one byte to `peer`'s pipe (`pipe_write()`), inside a pipe step's loop whose
    /// LoopEnd is at `end` (a failed write, the peer gone, ends the step).
    PipeWrite { peer: u32, end: u32 },
    /// Read one byte from this task's pipe, written by `peer` (`pipe_read()`): blocks while it
    /// is empty, after `block_cost` ns of CPU; end of file (the peer gone) ends the step
    /// (LoopEnd at `end`).
    PipeRead { peer: u32, end: u32, block_cost: u64 },
    /// Fork the children of `Program::forks[i]`.
    Fork(u32),
    /// Wait until the children of `Program::forks[i]` have all exited (`do_wait()`).
    Wait(u32),
    /// Wake a task (id) blocked in (or later reaching) a `WaitWakeup`; `sync`: `WF_SYNC`.
    Wake { task: u32, sync: bool },
    /// Block until another task's `Wake` (a wakeup sent earlier is consumed at once).
    WaitWakeup,
    /// Move the task into task group `tg` (0: the root).
    Cgroup(u32),
}

/// The CPU costs of a pipe step (ns): each message's work and its jitter, and a read that
/// blocks.
#[derive(Debug, Clone, Copy)]
struct PipeCost {
    work: u64,
    jitter: u64,
    block: u64,
}

/// The children of one fork step: task slots allocated when the scenario is loaded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ForkStep {
    /// Task id of the first child; the others follow it.
    pub first: u32,
    /// How many children each execution forks.
    pub children: u32,
}

/// A compiled token ping-pong step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PingPongStep {
    /// The peer task.
    pub peer: u32,
    /// Hand-offs to make.
    pub rounds: u64,
    /// CPU time of each work segment (ns).
    pub work: u64,
    /// CPU time spun before each directed yield (ns).
    pub spin: u64,
    /// Starts with the token.
    pub first: bool,
}

/// What a program's steps name: tasks, guest locks and cgroups (task-group order).
struct Names<'a> {
    tasks: &'a [&'a str],
    locks: &'a [String],
    cgroups: &'a [&'a str],
}

/// A compiled program.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Program {
    /// The instructions; running past the last one exits the task.
    pub code: Vec<Instr>,
    /// Target sets of IPI waits (task ids, in send order), indexed by `Instr::IpiWait`.
    pub sets: Vec<Vec<u32>>,
    /// Fork steps, indexed by `Instr::Fork`.
    pub forks: Vec<ForkStep>,
}

impl Program {
    /// Compiles scenario steps; `names` resolves yield_to targets and pipe peers to task ids
    /// and `locks` guest lock names to lock ids. The children of the program's fork steps
    /// (in the order of [`fork_steps`]) get consecutive task ids from `first_child`.
    pub fn compile(ops: &[OpSpec], names: &[&str], locks: &[String], first_child: u32) -> Program {
        Self::compile_with_cgroups(ops, names, locks, first_child, &[])
    }

    /// [`Program::compile`], with the cgroup paths in task-group order (task group `i + 1`;
    /// "/" is the root, 0) that `cgroup` steps name.
    pub fn compile_with_cgroups(
        ops: &[OpSpec],
        names: &[&str],
        locks: &[String],
        first_child: u32,
        cgroups: &[&str],
    ) -> Program {
        let mut p = Program::default();
        let mut next_child = first_child;
        p.emit(ops, &Names { tasks: names, locks, cgroups }, &mut next_child);
        p
    }

    fn emit(&mut self, ops: &[OpSpec], n: &Names<'_>, next_child: &mut u32) {
        let (names, locks) = (n.tasks, n.locks);
        for op in ops {
            match op {
                OpSpec::Run(d) => self.code.push(Instr::Run(d.ns())),
                OpSpec::Spin(d) => self.code.push(Instr::Spin(d.ns())),
                OpSpec::Sleep(d) => self.code.push(Instr::Sleep(d.ns())),
                OpSpec::SchedYield(n) => {
                    for _ in 0..*n {
                        self.code.push(Instr::Yield);
                    }
                }
                OpSpec::YieldTo(t) => {
                    let id = names.iter().position(|n| n == t).expect("validated yield_to target") as u32;
                    self.code.push(Instr::YieldTo(id));
                }
                OpSpec::PingPong(p) => {
                    let peer = names.iter().position(|n| *n == p.peer).expect("validated ping_pong peer") as u32;
                    self.code.push(Instr::PingPong(PingPongStep {
                        peer,
                        rounds: p.rounds,
                        work: p.work.ns(),
                        spin: p.spin.ns(),
                        first: p.first,
                    }));
                }
                OpSpec::Lock(n) => {
                    self.code.push(Instr::Lock(locks.iter().position(|l| l == n).expect("known lock") as u32))
                }
                OpSpec::Unlock(n) => {
                    self.code.push(Instr::Unlock(locks.iter().position(|l| l == n).expect("known lock") as u32))
                }
                OpSpec::IpiWait(t) => self.ipi_wait(std::slice::from_ref(t), names),
                OpSpec::TlbShootdown(ts) => self.ipi_wait(ts, names),
                OpSpec::Halt(d) => self.code.push(Instr::Halt(d.ns())),
                OpSpec::Loop(l) => self.emit_loop(l.times, None, |p| p.emit(&l.body, n, next_child)),
                OpSpec::Periodic(pd) => {
                    let run = pd.run.ns();
                    self.emit_loop(pd.count, Some(pd.period.ns()), |p| p.code.push(Instr::Run(run)))
                }
                OpSpec::Pipe(p) => {
                    let peer = names.iter().position(|n| *n == p.peer).expect("validated pipe peer") as u32;
                    let cost = PipeCost {
                        work: p.work.ns(),
                        jitter: p.work_jitter.map_or(0, |d| d.ns()),
                        block: p.block_cost.map_or(0, |d| d.ns()),
                    };
                    self.pipe(peer, p.rounds, cost, p.first);
                }
                OpSpec::Fork(f) => {
                    self.forks.push(ForkStep { first: *next_child, children: f.children });
                    *next_child += f.children;
                    let i = self.forks.len() as u32 - 1;
                    self.code.extend([Instr::Fork(i), Instr::Wait(i)]);
                }
                OpSpec::Wake(w) => {
                    let task = names.iter().position(|n| *n == w.task).expect("validated wake task") as u32;
                    self.code.push(Instr::Wake { task, sync: w.sync });
                }
                OpSpec::WaitWakeup(k) => {
                    for _ in 0..*k {
                        self.code.push(Instr::WaitWakeup);
                    }
                }
                OpSpec::Cgroup(path) => {
                    let tg = if path == "/" {
                        0
                    } else {
                        n.cgroups.iter().position(|c| c == path).expect("validated cgroup path") as u32 + 1
                    };
                    self.code.push(Instr::Cgroup(tg));
                }
            }
        }
    }

    /// A pipe step: a loop of `rounds` (None: forever) round trips; the task that starts
    /// works, writes, reads; the other reads, works, writes.
    fn pipe(&mut self, peer: u32, rounds: Option<u64>, cost: PipeCost, first: bool) {
        let start = self.code.len();
        let work =
            if cost.jitter > 0 { Instr::RunJitter { ns: cost.work, half: cost.jitter } } else { Instr::Run(cost.work) };
        self.emit_loop(rounds, None, |p| {
            let (read, write) =
                (Instr::PipeRead { peer, end: 0, block_cost: cost.block }, Instr::PipeWrite { peer, end: 0 });
            let body = if first { [work, write, read] } else { [read, work, write] };
            p.code.extend(body);
        });
        let end = self.code.len() as u32 - 1;
        for ins in &mut self.code[start..] {
            if let Instr::PipeRead { end: e, .. } | Instr::PipeWrite { end: e, .. } = ins {
                *e = end;
            }
        }
    }

    fn ipi_wait(&mut self, targets: &[String], names: &[&str]) {
        let set =
            targets.iter().map(|t| names.iter().position(|n| n == t).expect("validated IPI target") as u32).collect();
        self.sets.push(set);
        self.code.push(Instr::IpiWait(self.sets.len() as u32 - 1));
    }

    fn emit_loop(&mut self, times: Option<u64>, period: Option<u64>, body: impl FnOnce(&mut Program)) {
        let start = self.code.len() as u32;
        self.code.push(Instr::LoopStart { times, period, end: 0 });
        body(self);
        let end = self.code.len() as u32;
        self.code.push(Instr::LoopEnd { start });
        if let Instr::LoopStart { end: e, .. } = &mut self.code[start as usize] {
            *e = end;
        }
    }
}

/// What a task does next, as decided by `Cursor::next`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Keep the CPU until this absolute time (if nothing preempts it).
    BusyUntil(u64),
    /// Block until this absolute time.
    SleepUntil(u64),
    /// Call sched_yield().
    Yield,
    /// Call yield_to(task id).
    YieldTo(u32),
    /// At a ping-pong instruction (the simulation drives it; `finish_step` moves on).
    PingPong(PingPongStep),
    /// At a guest lock acquisition (the simulation drives it; `finish_step` moves on).
    Lock(u32),
    /// Release a guest lock.
    Unlock(u32),
    /// At an IPI send-and-wait to a set of vCPU tasks (`Program::sets` index; the simulation
    /// drives it).
    IpiWait(u32),
    /// Guest HLT: block until an IPI or this absolute time.
    HaltUntil(u64),
    /// Write a byte to the peer's pipe (the cursor has moved on; `end` as in `Instr`).
    PipeWrite { peer: u32, end: u32 },
    /// At a pipe read (the simulation drives it: `finish_step` once a byte is read,
    /// `break_loop(end)` at end of file).
    PipeRead { peer: u32, end: u32, block_cost: u64 },
    /// Fork the children of a fork step (`Program::forks` index; the cursor has moved on).
    Fork(u32),
    /// At the wait for a fork step's children (the simulation drives it: `finish_step` once
    /// they have all exited).
    Wait(u32),
    /// Wake a task (the cursor has moved on).
    Wake { task: u32, sync: bool },
    /// At a wait for a wakeup (the simulation drives it: `finish_step` once woken, or at once
    /// when a wakeup is pending).
    WaitWakeup,
    /// Move the task into task group `tg` (a `cgroup` step: `sched_move_task()`).
    Cgroup(u32),
    /// The program ended.
    Exit,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Frame {
    start: u32,
    iter: u64,
    anchor: u64,
}

/// Interpreter state of one task.
#[derive(Debug, Clone, Default)]
pub struct Cursor {
    pc: u32,
    frames: Vec<Frame>,
    /// CPU time left in the current Run step (None: step not begun).
    run_left: Option<u64>,
    /// Wall-clock end of the current Spin step (None: step not begun).
    spin_until: Option<u64>,
    /// The task's seeded stream (`RunJitter`).
    rng: SplitMix64,
}

impl Cursor {
    /// A cursor at the program's start drawing from the task's seeded stream.
    pub fn seeded(seed: u64) -> Self {
        Cursor { rng: SplitMix64::new(seed), ..Cursor::default() }
    }

    /// Charges `ran` ns of CPU time to the current Run step.
    pub fn charge(&mut self, ran: u64) {
        if let Some(left) = self.run_left.as_mut() {
            if *left != u64::MAX {
                *left = left.saturating_sub(ran);
            }
        }
    }

    /// Moves past the current instruction (a step the simulation drives, once it is done).
    pub fn finish_step(&mut self) {
        self.advance();
    }

    /// Steps back to the instruction just taken (a system call that must first spend time,
    /// then take effect when the cursor runs again).
    pub fn rewind(&mut self) {
        self.pc -= 1;
    }

    /// Leaves the loop whose LoopEnd is at `end` at once (a pipe step ended by its peer's
    /// exit): the program goes on after it.
    pub fn break_loop(&mut self, end: u32) {
        self.frames.pop();
        self.pc = end;
        self.advance();
    }

    fn advance(&mut self) {
        self.pc += 1;
        self.run_left = None;
        self.spin_until = None;
    }

    /// Runs the interpreter at time `now` (the task is on a CPU) until a step takes time.
    pub fn next(&mut self, prog: &Program, now: u64) -> Step {
        // Bounded: each iteration advances pc or completes a loop iteration; an empty loop
        // body is rejected by the scenario validator, so a loop always reaches a timed step.
        loop {
            let Some(&ins) = prog.code.get(self.pc as usize) else { return Step::Exit };
            match ins {
                Instr::Run(ns) => {
                    let left = *self.run_left.get_or_insert(ns);
                    if left == 0 {
                        self.advance();
                        continue;
                    }
                    return Step::BusyUntil(if left == u64::MAX { u64::MAX } else { now + left });
                }
                Instr::RunJitter { ns, half } => {
                    let rng = &mut self.rng;
                    let left = *self.run_left.get_or_insert_with(|| ns - half + rng.below(2 * half + 1));
                    if left == 0 {
                        self.advance();
                        continue;
                    }
                    return Step::BusyUntil(now + left);
                }
                Instr::Spin(ns) => {
                    let until = *self.spin_until.get_or_insert(now + ns);
                    if now >= until {
                        self.advance();
                        continue;
                    }
                    return Step::BusyUntil(until);
                }
                Instr::Sleep(ns) => {
                    self.advance();
                    return Step::SleepUntil(now + ns);
                }
                Instr::Yield => {
                    self.advance();
                    return Step::Yield;
                }
                Instr::YieldTo(t) => {
                    self.advance();
                    return Step::YieldTo(t);
                }
                Instr::PingPong(p) => return Step::PingPong(p),
                Instr::Lock(l) => return Step::Lock(l),
                Instr::IpiWait(t) => return Step::IpiWait(t),
                Instr::Halt(ns) => {
                    self.advance();
                    return Step::HaltUntil(now + ns);
                }
                Instr::Unlock(l) => {
                    self.advance();
                    return Step::Unlock(l);
                }
                Instr::PipeWrite { peer, end } => {
                    self.advance();
                    return Step::PipeWrite { peer, end };
                }
                Instr::PipeRead { peer, end, block_cost } => return Step::PipeRead { peer, end, block_cost },
                Instr::Fork(f) => {
                    self.advance();
                    return Step::Fork(f);
                }
                Instr::Wait(f) => return Step::Wait(f),
                Instr::Wake { task, sync } => {
                    self.advance();
                    return Step::Wake { task, sync };
                }
                Instr::WaitWakeup => return Step::WaitWakeup,
                Instr::Cgroup(tg) => {
                    self.advance();
                    return Step::Cgroup(tg);
                }
                Instr::LoopStart { times, .. } => {
                    if times == Some(0) {
                        if let Instr::LoopStart { end, .. } = ins {
                            self.pc = end;
                        }
                        self.advance();
                        continue;
                    }
                    self.frames.push(Frame { start: self.pc, iter: 0, anchor: now });
                    self.advance();
                }
                Instr::LoopEnd { start } => {
                    let Instr::LoopStart { times, period, .. } = prog.code[start as usize] else {
                        unreachable!("LoopEnd points at a LoopStart")
                    };
                    let f = self.frames.last_mut().expect("loop frame");
                    debug_assert_eq!(f.start, start);
                    f.iter += 1;
                    let boundary = period.map(|p| f.anchor + p * f.iter);
                    if times.is_some_and(|t| f.iter >= t) {
                        self.frames.pop();
                        self.advance();
                    } else {
                        self.pc = start;
                        self.advance();
                    }
                    if let Some(b) = boundary {
                        if b > now {
                            return Step::SleepUntil(b);
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::schema::{LoopSpec, PeriodicSpec};
    use crate::scenario::units::DurationSpec;

    #[test]
    fn loop_of_run_and_sleep() {
        let prog = Program::compile(
            &[OpSpec::Loop(LoopSpec {
                times: Some(2),
                body: vec![OpSpec::Run(DurationSpec(10)), OpSpec::Sleep(DurationSpec(5))],
            })],
            &[],
            &[],
            0,
        );
        let mut c = Cursor::default();
        assert_eq!(c.next(&prog, 0), Step::BusyUntil(10));
        c.charge(10);
        assert_eq!(c.next(&prog, 10), Step::SleepUntil(15));
        assert_eq!(c.next(&prog, 15), Step::BusyUntil(25));
        c.charge(10);
        assert_eq!(c.next(&prog, 25), Step::SleepUntil(30));
        assert_eq!(c.next(&prog, 30), Step::Exit);
    }

    #[test]
    fn pipe_compiles_to_a_loop_and_ends_early_at_end_of_file() {
        use crate::scenario::schema::PipeSpec;
        let pipe = |first| {
            OpSpec::Pipe(PipeSpec {
                peer: "b".into(),
                rounds: Some(2),
                work: DurationSpec(10),
                first,
                work_jitter: None,
                block_cost: None,
            })
        };
        let names = ["a", "b"];
        // The task that starts works, writes, reads; the other reads, works, writes.
        let prog = Program::compile(&[pipe(true)], &names, &[], 2);
        let end = 4;
        assert_eq!(
            prog.code,
            vec![
                Instr::LoopStart { times: Some(2), period: None, end },
                Instr::Run(10),
                Instr::PipeWrite { peer: 1, end },
                Instr::PipeRead { peer: 1, end, block_cost: 0 },
                Instr::LoopEnd { start: 0 },
            ]
        );
        let prog = Program::compile(&[pipe(false), OpSpec::Sleep(DurationSpec(5))], &names, &[], 2);
        assert_eq!(prog.code[1], Instr::PipeRead { peer: 1, end, block_cost: 0 });
        let mut c = Cursor::default();
        assert_eq!(c.next(&prog, 0), Step::PipeRead { peer: 1, end, block_cost: 0 });
        c.finish_step();
        assert_eq!(c.next(&prog, 0), Step::BusyUntil(10));
        c.charge(10);
        assert_eq!(c.next(&prog, 10), Step::PipeWrite { peer: 1, end });
        assert_eq!(c.next(&prog, 10), Step::PipeRead { peer: 1, end, block_cost: 0 });
        // End of file: the step is over, the program goes on.
        c.break_loop(end);
        assert_eq!(c.next(&prog, 10), Step::SleepUntil(15));
        assert_eq!(c.next(&prog, 15), Step::Exit);
    }

    #[test]
    fn fork_steps_number_their_children_in_order() {
        use crate::scenario::schema::ForkSpec;
        let fork = |n| OpSpec::Fork(ForkSpec { children: n, name: None, program: vec![OpSpec::Run(DurationSpec(1))] });
        let ops =
            [fork(3), OpSpec::Loop(LoopSpec { times: Some(2), body: vec![fork(2), OpSpec::Sleep(DurationSpec(1))] })];
        assert_eq!(fork_steps(&ops).iter().map(|f| f.children).collect::<Vec<_>>(), vec![3, 2]);
        let prog = Program::compile(&ops, &[], &[], 7);
        assert_eq!(prog.forks, vec![ForkStep { first: 7, children: 3 }, ForkStep { first: 10, children: 2 }]);
        let mut c = Cursor::default();
        assert_eq!(c.next(&prog, 0), Step::Fork(0));
        assert_eq!(c.next(&prog, 0), Step::Wait(0));
        c.finish_step();
        assert_eq!(c.next(&prog, 0), Step::Fork(1));
    }

    #[test]
    fn periodic_sleeps_to_boundary() {
        let prog = Program::compile(
            &[OpSpec::Periodic(PeriodicSpec { run: DurationSpec(3), period: DurationSpec(10), count: Some(2) })],
            &[],
            &[],
            0,
        );
        let mut c = Cursor::default();
        assert_eq!(c.next(&prog, 100), Step::BusyUntil(103));
        c.charge(3);
        assert_eq!(c.next(&prog, 103), Step::SleepUntil(110));
        assert_eq!(c.next(&prog, 110), Step::BusyUntil(113));
        c.charge(3);
        assert_eq!(c.next(&prog, 113), Step::SleepUntil(120));
        assert_eq!(c.next(&prog, 120), Step::Exit);
    }
}
