//! The simulation: tasks running behaviour programs on a host of CPUs, driven by an ordered
//! event queue, with the fair class (`crate::sched`) making every scheduling decision.
//!
//! `Simulation` is the long-lived handle the CLI and the wasm bindings hold: load a
//! scenario, `run_until` a time (in as many calls as wanted), read the columnar log.

pub mod config;
mod dispatch;
pub mod event;
mod exit;
mod fork;
pub mod ipi;
pub mod kvm;
mod pipe;
pub mod program;
pub mod pvlock;
mod schedule;
mod smp;
mod switch_clock;
mod sync;
mod wake_step;
mod wakeup;

use crate::cost::cputimer::{CputimerCost, CputimerLine};
use crate::obs::log::{EventKind, SwitchReason, NO_TASK};
use crate::rng::SeedTree;
use crate::scenario::schema::PolicySpec;
use crate::sched::bandwidth::BwTimer;
use crate::sched::entity::{EntityId, SchedEntity};
use crate::sched::fair::Fair;
use crate::sched::weight::LoadWeight;
use config::SimConfig;
use event::{Ev, EventQueue};
use program::Cursor;

/// Lifecycle state of a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskState {
    /// Not created yet.
    New,
    /// Queued, waiting for a CPU.
    Runnable,
    /// On a CPU.
    Running,
    /// Blocked (its entity may still be queued as delayed).
    Sleeping,
    /// Task-based CFS throttle: off the queue, on its cfs_rq's limbo list.
    Throttled,
    /// Gone.
    Exited,
}

/// The phase of a token ping-pong segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PpPhase {
    /// Working with the token.
    Work,
    /// Spinning while waiting for it.
    Spin,
}

/// Per-task counters (what `schedlab simulate --json` reports).
#[derive(Debug, Clone, Default)]
pub struct TaskStats {
    /// Times the task left a CPU.
    pub switches_out: u64,
    /// Times it left a CPU while still runnable (preempted or yielded).
    pub switches_out_runnable: u64,
    /// sched_yield() calls.
    pub yields: u64,
    /// yield_to() calls that yielded.
    pub yields_to: u64,
    /// Directed-yield hypercalls issued by ping-pong waits.
    pub hypercalls: u64,
    /// Token hand-offs made.
    pub handoffs: u64,
    /// Wakeups from sleep.
    pub wakeups: u64,
    /// Wakeup (or creation) → first run latencies, in ns.
    pub wakeup_latencies: Vec<u64>,
    /// Completed sleeps (periods of a run/sleep loop).
    pub sleeps: u64,
    /// Pipe messages written.
    pub pipe_writes: u64,
    /// Children forked.
    pub forks: u64,
}

/// One simulated task.
#[derive(Debug, Clone)]
pub struct Task {
    /// Static configuration.
    pub cfg: config::TaskConfig,
    /// Its sched_entity.
    pub se: EntityId,
    /// Lifecycle state.
    pub state: TaskState,
    /// CPU it runs or last ran on.
    pub cpu: u32,
    /// Program interpreter.
    pub cursor: Cursor,
    /// When the current on-CPU segment began (for charging run steps).
    pub seg_start: u64,
    /// Generation of the pending wakeup timer (stale timers are ignored).
    pub wake_gen: u32,
    /// When it was last woken and has not run since.
    pub woken_at: Option<u64>,
    /// Counters.
    pub stats: TaskStats,
    /// This task's random stream seed (reserved: no behaviour is random yet).
    pub seed: u64,
    /// A system call in progress under a cost model: Some(whether it ends in schedule()).
    pub syscall_pending: Option<bool>,
    /// A pipe read found its pipe empty and is spending the step's `block_cost` before it
    /// blocks (`sim/pipe.rs`).
    pub pipe_block_started: bool,
    /// A process started by the scenario execs its program at its first run (`sched_exec()`
    /// under `smp = "fair"`: exec balancing may move it, `sim/smp.rs`).
    pub exec_pending: bool,
    /// Token ping-pong: holds the token.
    pub token: bool,
    /// Token ping-pong: hand-offs left (None: not inside a ping-pong step).
    pub pp_left: Option<u64>,
    /// Token ping-pong: CPU time left in the current work or spin segment, and which.
    pub pp_seg: Option<(PpPhase, u64)>,
    /// Bytes waiting in this task's pipe (written by its pipe peer, not read yet).
    pub pipe_bytes: u64,
    /// Blocked in `pipe_read()` on the pipe `peer` writes: Some(peer).
    pub pipe_wait: Option<u32>,
    /// Children of its last fork step that have not exited yet (it waits while > 0).
    pub wait_children: u32,
    /// Wakeups sent by other tasks' `wake` steps and not yet consumed by a `wait_wakeup`.
    pub wakeups_pending: u64,
    /// Blocked in a `wait_wakeup` step.
    pub wakeup_wait: bool,
    /// CPU time of its earlier incarnations (a fork child forked again gets a fresh entity).
    pub exec_before: u64,
}

/// Per-CPU simulation state beyond the scheduler's rq.
#[derive(Debug, Clone, Default)]
pub struct Cpu {
    /// Generation of the pending Work event.
    pub work_gen: u64,
    /// Whether the periodic tick is armed (NO_HZ idle stops it).
    pub tick_armed: bool,
    /// Idle time accumulated so far.
    pub idle_ns: u64,
    /// Start of the current idle period, if idle.
    pub idle_since: Option<u64>,
    /// A preempting wakeup's switch is due (`Ev::Resched`), with the runqueue clock
    /// `__schedule()` will use: the clock's last update, at the wakeup or a tick since
    /// (`rq_clock_skip_update()`). Until then the running task's program stands still.
    pub switch_due: Option<u64>,
    /// When that switch is due.
    pub switch_at: u64,
}

/// A simulation run: the handle the CLI and the bindings keep.
#[derive(Debug, Clone)]
pub struct Simulation {
    /// Configuration.
    pub cfg: SimConfig,
    /// Scheduler state and the observation log.
    pub fair: Fair,
    /// Tasks (id = index).
    pub tasks: Vec<Task>,
    /// CPUs.
    pub cpus: Vec<Cpu>,
    /// Pending events.
    pub queue: EventQueue,
    /// Run the invariant checker after every event (tests).
    pub check_invariants: bool,
    /// The process cputimer's cache line (profiling-timer contention model).
    pub cputimer: CputimerLine,
    /// Constants of the contention model.
    pub cputimer_cost: CputimerCost,
    /// KVM guests: vCPU state, guest locks, directed yield.
    pub kvm: kvm::KvmState,
    /// Scratch for the ticks of one jiffy.
    tick_batch: Vec<u32>,
}

impl Simulation {
    /// Creates a simulation at time 0 with every task's creation scheduled.
    pub fn new(cfg: SimConfig) -> Simulation {
        let ncpus = cfg.host.ncpus;
        let mut fair = Fair::new(ncpus, cfg.features, cfg.params);
        let seeds = SeedTree::new(cfg.seed);
        let mut tasks = Vec::with_capacity(cfg.tasks.len());
        let mut queue = EventQueue::default();
        for (i, t) in cfg.tasks.iter().enumerate() {
            let id = i as u32;
            let cpu = t.affinity[0];
            fair.ents.push(task_entity(id, t, cfg.params.base_slice, cpu));
            tasks.push(Task {
                cfg: t.clone(),
                se: id,
                state: TaskState::New,
                cpu,
                cursor: Cursor::seeded(seeds.sub_seed("task", id as u64)),
                seg_start: 0,
                wake_gen: 0,
                woken_at: None,
                stats: TaskStats::default(),
                seed: seeds.sub_seed("task", id as u64),
                syscall_pending: None,
                pipe_block_started: false,
                exec_pending: false,
                token: false,
                pp_left: None,
                pp_seg: None,
                pipe_bytes: 0,
                pipe_wait: None,
                wait_children: 0,
                wakeups_pending: 0,
                wakeup_wait: false,
                exec_before: 0,
            });
            // A fork step's child has no start of its own: its parent's fork starts it.
            if t.parent.is_none() {
                queue.push(t.start_ns, Ev::Start { task: id });
            }
            if let Some(stop) = t.stop_ns {
                queue.push(stop, Ev::Stop { task: id });
            }
        }
        fair.throttle_mode = cfg.throttle;
        fair.group_shares = cfg.group_shares;
        fair.pelt_tracking = cfg.group_shares == crate::sched::group_pelt::GroupShares::Pelt;
        for g in &cfg.cgroups {
            let tg = fair.add_task_group(&g.path, g.parent, g.shares);
            if let Some(q) = g.quota_ns {
                fair.set_bandwidth(tg, q, g.period_ns, g.burst_ns);
                fair.tgs[tg as usize].bw.as_mut().expect("just set").phase = g.period_phase_ns;
            }
        }
        let cpus = (0..ncpus).map(|_| Cpu { idle_since: Some(0), ..Default::default() }).collect();
        let cputimer = CputimerLine::new(ncpus);
        let mut sim = Simulation {
            cfg,
            fair,
            tasks,
            cpus,
            queue,
            check_invariants: false,
            cputimer,
            cputimer_cost: CputimerCost::default(),
            kvm: kvm::KvmState::default(),
            tick_batch: Vec::new(),
        };
        sim.kvm.on_spin = sim.cfg.on_spin;
        sim.kvm.ipi_aware = sim.cfg.ipi_aware;
        sim.kvm.relaxed_boost = sim.cfg.relaxed_boost;
        sim.kvm.apicv = sim.cfg.apicv;
        sim.kvm.pv_sched_yield = sim.cfg.pv_sched_yield;
        sim.kvm.exit_cost = sim.cfg.exit_cost;
        sim.kvm.vm_ple = sim.cfg.vm_ple.clone();
        sim.kvm.locks = vec![None; sim.cfg.locks.len()];
        sim.kvm.pv_spinlock = sim.cfg.pv_spinlock;
        sim.kvm.pv_spin_threshold = sim.cfg.pv_spin_threshold;
        sim.kvm.pv.queue = vec![Default::default(); sim.cfg.locks.len()];
        sim.kvm.vms = vec![Vec::new(); sim.cfg.vms.len()];
        sim.kvm.last_boosted = vec![0; sim.cfg.vms.len()];
        sim.kvm.vcpu = vec![kvm::VcpuState::default(); sim.tasks.len()];
        for (i, t) in sim.cfg.tasks.iter().enumerate() {
            if let Some(vm) = t.vm {
                let v = &mut sim.kvm.vcpu[i];
                v.vm = Some(vm);
                v.idx = sim.kvm.vms[vm as usize].len() as u32;
                v.ple_window = sim.cfg.vm_ple[vm as usize].window;
                sim.kvm.vms[vm as usize].push(i as u32);
            }
        }
        for id in 0..sim.tasks.len() as u32 {
            let cpu = sim.tasks[id as usize].cpu;
            sim.move_to_cpu(id, cpu);
        }
        sim.init_smp().expect("the host was checked by SimConfig::from_scenario");
        // Read where PELT is tracked (free tasks, or group shares from PELT).
        for a in &sim.cfg.host.cfs_rq_avg {
            sim.fair.start_cfs_rq_avg(a.cpu, a.load_avg, a.runnable_avg, a.util_avg);
        }
        sim
    }

    /// Current simulated time.
    pub fn now(&self) -> u64 {
        self.fair.now
    }

    /// Processes every event before `t` (capped at the scenario duration), then sets the
    /// clock to `t`. Can be called repeatedly with increasing times.
    pub fn run_until(&mut self, t: u64) {
        let end = t.min(self.cfg.duration_ns);
        while let Some(et) = self.queue.peek_time() {
            if et >= end {
                break;
            }
            let (et, ev) = self.queue.pop().expect("peeked");
            debug_assert!(et >= self.fair.now, "time went backwards");
            self.fair.now = et;
            if let Ev::Tick { cpu } = ev {
                let mut cpus = std::mem::take(&mut self.tick_batch);
                cpus.push(cpu);
                self.queue.pop_ticks_at(et, &mut cpus);
                // The CPUs' ticks of one jiffy, in CPU order: see `EventQueue::pop_ticks_at`.
                cpus.sort_unstable();
                if self.cfg.host.tick_order_machine {
                    self.jiffy(et, &cpus);
                } else {
                    for &cpu in &cpus {
                        self.step(et, Ev::Tick { cpu });
                    }
                }
                cpus.clear();
                self.tick_batch = cpus;
            } else {
                self.step(et, ev);
            }
        }
        if end > self.fair.now {
            self.fair.now = end;
        }
    }

    /// One event, then what follows every event: pending reschedules, bandwidth work, the
    /// per-CPU counters and (in tests) the invariants.
    fn step(&mut self, et: u64, ev: Ev) {
        self.handle(ev);
        self.after(et, ev, &[]);
    }

    /// What follows an event: the reschedules pending on every CPU but `hold`'s, bandwidth
    /// work, the per-CPU counters and (in tests) the invariants.
    fn after(&mut self, et: u64, ev: Ev, hold: &[u32]) {
        self.process_resched(hold);
        self.drain_bandwidth(hold);
        self.fair.record_cpu_counters();
        if self.check_invariants && hold.is_empty() {
            if let Err(e) = crate::check::check(self) {
                panic!("invariant violated at t={} after {:?}: {e}", et, ev);
            }
        }
    }

    /// `host.tick_order = "machine"`: the CPUs' ticks of one jiffy (`cpus`, in CPU order),
    /// each `sched_tick()` then its interrupt's exit: the SCHED softirq where the tick raised
    /// it, then the switch the tick asked for. On the machine the ticks fire within a few µs of each other and the CPUs
    /// exit them concurrently: a CPU with no balance pass due switches about 11 µs after its
    /// tick, one with a pass after the pass, and a pass detaches 19–21 µs after its tick
    /// (`docs/kernel-6.18.44-findings.md`, "The tick's switch waits for the CPU's softirq").
    /// So every CPU without a pass switches first; then the passes run, the busiest CPU's
    /// first (a pass that finds its own CPU the busiest ends before another CPU's detaches
    /// from it: named shortcut for passes that run at once); then the held switches.
    fn jiffy(&mut self, et: u64, cpus: &[u32]) {
        let mut raised = Vec::new();
        for &cpu in cpus {
            if self.on_tick(cpu) {
                raised.push(cpu);
            }
            self.after(et, Ev::Tick { cpu }, &raised);
        }
        let kicked = self.fair.smp.as_deref().is_some_and(|s| !s.lb.ilb_pending.is_empty());
        if raised.is_empty() && !kicked {
            return;
        }
        // Busiest first: more runnable tasks, then CPU order (stable sort).
        raised.sort_by_key(|&c| std::cmp::Reverse(self.fair.rqs[c as usize].nr_running));
        for &cpu in &raised {
            self.balance_softirq(cpu);
        }
        self.balance_kicked();
        self.after(et, Ev::Tick { cpu: cpus[0] }, &[]);
    }

    /// Runs the whole scenario.
    pub fn run(&mut self) {
        self.run_until(self.cfg.duration_ns);
    }

    fn handle(&mut self, ev: Ev) {
        match ev {
            // `host.tick_order = "cpu"`: this CPU's tick, its SCHED softirq at the tick's exit,
            // then the idle load balancer's softirq it kicked (IPI latency 0) and the stopper
            // work any of them queued, before the next CPU's tick.
            Ev::Tick { cpu } => {
                let busy = self.running_task(cpu).is_some();
                if self.on_tick(cpu) {
                    self.balance_softirq(cpu);
                }
                if busy {
                    self.balance_kicked();
                }
            }
            Ev::HrTick { cpu, gen } => {
                if gen == self.cpus[cpu as usize].work_gen {
                    self.on_hrtick(cpu)
                }
            }
            Ev::Work { cpu, gen } => {
                if gen == self.cpus[cpu as usize].work_gen {
                    self.dispatch(cpu);
                }
            }
            Ev::Wake { task, gen } => {
                if gen == self.tasks[task as usize].wake_gen && self.tasks[task as usize].state == TaskState::Sleeping {
                    self.wake_up(task);
                }
            }
            Ev::Start { task } => {
                if self.tasks[task as usize].state == TaskState::New {
                    match self.tasks[task as usize].cfg.existing {
                        Some(ex) => self.wake_up_existing(task, ex),
                        None => self.wake_up_new(task, self.tasks[task as usize].cfg.parent_cpu),
                    }
                }
            }
            Ev::Stop { task } => self.kill(task),
            Ev::BwPeriod { tg } => {
                if let Some(next) = self.fair.bw_period_timer(tg) {
                    self.queue.push(next, Ev::BwPeriod { tg });
                }
            }
            Ev::BwSlack { tg } => self.fair.bw_slack_timer(tg),
            Ev::IpiHandle { task } => self.on_ipi_handle(task),
            Ev::Resched { cpu, at } => {
                // Not by generation: other CPUs' events (a token handed over, a guest lock
                // released) re-arm this CPU's work without cancelling its switch.
                let c = &self.cpus[cpu as usize];
                if c.switch_due.is_some() && c.switch_at == at {
                    self.on_resched(cpu);
                }
            }
            Ev::ThrottleWork { cpu, gen } => {
                if gen == self.cpus[cpu as usize].work_gen {
                    self.on_throttle_work(cpu);
                }
            }
        }
    }

    /// Arms the bandwidth timers the scheduler asked for and brings the task states of
    /// throttled and unthrottled tasks up to date.
    fn drain_bandwidth(&mut self, hold: &[u32]) {
        for t in std::mem::take(&mut self.fair.bw_timers) {
            match t {
                // Never in the past: armed at a switch whose clock read earlier
                // (`sim::switch_clock`), a period boundary may fall before now.
                BwTimer::Period { tg, at } => self.queue.push(at.max(self.fair.now), Ev::BwPeriod { tg }),
                BwTimer::Slack { tg, at } => self.queue.push(at.max(self.fair.now), Ev::BwSlack { tg }),
            }
        }
        for se in std::mem::take(&mut self.fair.unthrottled_tasks) {
            let task = self.fair.task_of(se) as usize;
            if self.tasks[task].state == TaskState::Throttled {
                self.tasks[task].state = TaskState::Runnable;
            }
        }
        // Unthrottles can raise resched on idle CPUs.
        self.process_resched(hold);
    }

    /// Reschedules every CPU whose TIF_NEED_RESCHED is set, in CPU order (the return to user
    /// space after the interrupt or syscall that raised it). A wakeup's preemption switches
    /// `host.wakeup_switch_latency` later (see `delay_wakeup_switch`); the rest at once.
    fn process_resched(&mut self, hold: &[u32]) {
        let mut held = Vec::new();
        while !self.fair.resched_pending.is_empty() {
            let mut cpus = std::mem::take(&mut self.fair.resched_pending);
            cpus.sort_unstable();
            cpus.dedup();
            for cpu in cpus {
                if hold.contains(&cpu) {
                    held.push(cpu);
                    continue;
                }
                if let Some(reason) = self.fair.rqs[cpu as usize].need_resched {
                    // A task inside a modeled system call is preempted when it returns to user
                    // space (PREEMPT_NONE), not before.
                    let in_call =
                        self.running_task(cpu).is_some_and(|t| self.tasks[t as usize].syscall_pending.is_some());
                    if self.cpus[cpu as usize].switch_due.is_some() {
                        // Its switch is already on the way.
                    } else if reason == SwitchReason::WakeupPreempt && !in_call && self.delay_wakeup_switch(cpu) {
                    } else if !in_call {
                        self.schedule(cpu, reason);
                    }
                }
            }
        }
        self.fair.resched_pending.extend(held);
    }

    pub(crate) fn running_task(&self, cpu: u32) -> Option<u32> {
        self.fair.rqs[cpu as usize].curr.map(|se| self.fair.task_of(se))
    }

    /// The periodic tick: `sched_tick()` → `task_tick_fair()`, then `sched_balance_trigger()`:
    /// whether the SCHED softirq was raised (its caller runs it: `handle` under `tick_order =
    /// "cpu"`, [`Simulation::jiffy`] under "machine").
    fn on_tick(&mut self, cpu: u32) -> bool {
        let Some(task) = self.running_task(cpu) else {
            self.cpus[cpu as usize].tick_armed = false; // NO_HZ idle: the tick stops.
            self.fair.nohz_balance_enter_idle(cpu);
            return false;
        };
        self.fair.log.event(self.fair.now, EventKind::Tick, cpu, task, NO_TASK, 0);
        if let Some(clock) = self.cpus[cpu as usize].switch_due.as_mut() {
            // The tick updates the runqueue clock: a delayed switch reads this one.
            *clock = self.fair.now;
        }
        self.fair.task_tick(cpu);
        let next = self.fair.now + self.cfg.params.tick_nsec;
        self.queue.push(next, Ev::Tick { cpu });
        self.sched_balance_trigger(cpu)
    }

    /// HRTICK: `hrtick()` → `task_tick_fair(queued=1)` → resched.
    fn on_hrtick(&mut self, cpu: u32) {
        if self.running_task(cpu).is_none() {
            return;
        }
        self.fair.task_tick(cpu);
        if self.fair.rqs[cpu as usize].nr_running > 1 {
            self.fair.resched(cpu, SwitchReason::Tick);
        }
    }

    fn arm_tick(&mut self, cpu: u32) {
        if self.cpus[cpu as usize].tick_armed {
            return;
        }
        self.cpus[cpu as usize].tick_armed = true;
        let (tick, phase) = (self.cfg.params.tick_nsec, self.cfg.params.tick_phase);
        // The next tick after now, on the grid that starts at `host.tick_phase`.
        let next = match self.fair.now.checked_sub(phase) {
            Some(since) => phase + (since / tick + 1) * tick,
            None => phase,
        };
        self.queue.push(next, Ev::Tick { cpu });
    }

    fn move_to_cpu(&mut self, task: u32, cpu: u32) {
        let t = &mut self.tasks[task as usize];
        t.cpu = cpu;
        self.fair.set_task_rq(t.se, t.cfg.tg, cpu);
    }

    /// CPU time of a task so far as it was charged (`sum_exec_runtime`, with the running
    /// segment and, for a fork child, its earlier incarnations). The summary's CPU time is the
    /// switches' (as a trace's); the two differ by the switch gaps (`switch_clock`), 0 by
    /// default.
    pub fn cpu_time(&self, task: u32) -> u64 {
        let t = &self.tasks[task as usize];
        let e = &self.fair.ents[t.se as usize];
        let mut ns = t.exec_before + e.sum_exec_runtime;
        if t.state == TaskState::Running {
            ns += self.fair.now - e.exec_start;
        }
        ns
    }

    /// Idle time of a CPU so far (including the current idle period).
    pub fn idle_time(&self, cpu: u32) -> u64 {
        let c = &self.cpus[cpu as usize];
        c.idle_ns + c.idle_since.map(|s| self.fair.now - s).unwrap_or(0)
    }
}

/// A task's fresh sched_entity, as `__sched_fork()` leaves it: its weight (nice or
/// SCHED_IDLE), its slice, nothing else; on `cpu`'s root cfs_rq until `set_task_rq`. A task that
/// existed before the run has the averages it brings instead of a new task's.
pub(crate) fn task_entity(id: u32, t: &config::TaskConfig, base_slice: u64, cpu: u32) -> SchedEntity {
    let load = match t.policy {
        PolicySpec::Idle => LoadWeight::idle(),
        _ => LoadWeight::for_nice(t.nice),
    };
    let slice = t.slice_ns.unwrap_or(base_slice);
    let mut se = SchedEntity::new_task(id, load, slice, t.slice_ns.is_some(), cpu, t.policy == PolicySpec::Idle);
    if let Some(ex) = &t.existing {
        se.avg = crate::sched::group_pelt::existing_entity_avg(ex);
    }
    se
}
