//! KVM guests on the modeled host (first part): vCPU threads, guest spinlocks, pause-loop
//! exiting (PLE) and `kvm_vcpu_on_spin()` directed yield (virt/kvm/kvm_main.c, 6.12+ single
//! loop), with the `last_boosted_vcpu` bug of 6.12–6.18 and its 6.19-rc1 fix.
//!
//! A vCPU is a host task marked with a VM. Its guest program takes and releases named
//! spinlocks; a vCPU waiting for a lock spins with PAUSE, and every `ple_window` of spinning
//! (4096 cycles at 3 GHz ≈ 1.37 µs, doubled at each exit, reset when the vCPU thread is
//! scheduled back in) the CPU exits to KVM, which looks for a vCPU of the same VM to yield to.
//! Lock-holder preemption is not scripted: it happens when the host preempts a holder.
//!
//! Named model shortcuts: guest code inside a lock is kernel mode (CPL 0), the rest user mode.
//! The lock is `virt_spin_lock()`'s test-and-set lock unless the guest has PV spinlocks
//! (`pvlock.rs`).

use super::event::Ev;
use super::{Simulation, TaskState};
use crate::obs::log::{EventKind, SwitchReason, YieldToReason};

/// The default base PLE window: `ple_window` = 4096 cycles, at a 3 GHz TSC (ns); the
/// `kvm_ple_window` knob overrides it.
pub const PLE_WINDOW_NS: u64 = 1_365;
/// `ple_window_grow` = 2 (the window doubles at each PAUSE exit).
pub const PLE_WINDOW_GROW: u32 = 2;
/// A cap on the grown window (`ple_window_max` is UINT_MAX cycles; capped here at ~1.4 s).
pub const PLE_WINDOW_MAX_NS: u64 = 1_400_000_000;
/// The kvm_intel module's default `ple_window` in cycles: `ple_window_grow` and
/// `ple_window_shrink` below it are factors, at or above it cycle counts.
pub const PLE_WINDOW_CYCLES: u32 = 4096;
/// TSC cycles per ns of the modeled host (3 GHz).
pub const TSC_CYCLES_PER_NS: u64 = 3;

/// One VM's pause-loop-exiting settings (kvm_intel `ple_gap`/`ple_window*` module
/// parameters, or the VM's `KVM_X86_DISABLE_EXITS_PAUSE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PleConfig {
    /// PAUSE exits on.
    pub ple: bool,
    /// Base window (ns).
    pub window: u64,
    /// `ple_window_grow`.
    pub grow: u32,
    /// `ple_window_shrink`.
    pub shrink: u32,
    /// `ple_window_max` (ns).
    pub max: u64,
}

impl Default for PleConfig {
    fn default() -> Self {
        PleConfig { ple: true, window: PLE_WINDOW_NS, grow: PLE_WINDOW_GROW, shrink: 0, max: PLE_WINDOW_MAX_NS }
    }
}

impl PleConfig {
    /// Models `__grow_ple_window()` (arch/x86/kvm/vmx/vmx.c): a modifier below the module's
    /// base window multiplies, otherwise adds cycles; 0 resets to the base (1 keeps it).
    pub fn grow(&self, val: u64) -> u64 {
        let g = self.grow;
        let next = if g < 1 {
            self.window
        } else if g < PLE_WINDOW_CYCLES {
            val.saturating_mul(g as u64)
        } else {
            val.saturating_add(g as u64 / TSC_CYCLES_PER_NS)
        };
        next.min(self.max.max(self.window))
    }

    /// Models `__shrink_ple_window()`, called when the vCPU is scheduled in: a modifier of 0
    /// resets to the base; below the module's base window it divides, otherwise subtracts
    /// cycles; never below the base.
    pub fn shrink(&self, val: u64) -> u64 {
        let s = self.shrink;
        let next = if s < 1 {
            self.window
        } else if s < PLE_WINDOW_CYCLES {
            val / s as u64
        } else {
            val.saturating_sub(s as u64 / TSC_CYCLES_PER_NS)
        };
        next.max(self.window)
    }
}

/// Which `kvm_vcpu_on_spin()`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OnSpin {
    /// 6.12–6.18: stores the loop offset as `last_boosted_vcpu` (the bug).
    #[default]
    Mainline,
    /// 6.19-rc1 fix (Wanpeng Li's patch 6/10): stores the vCPU index.
    Fixed,
}

/// Per-vCPU KVM state (`struct kvm_vcpu` fields used by directed yield).
#[derive(Debug, Clone, Default)]
pub struct VcpuState {
    /// VM index (None: not a vCPU).
    pub vm: Option<u32>,
    /// Index within the VM.
    pub idx: u32,
    /// `preempted`: descheduled while runnable.
    pub preempted: bool,
    /// `preempted_in_kernel`: it was at CPL 0 then.
    pub preempted_in_kernel: bool,
    /// Currently in guest kernel mode (holding or spinning on a lock).
    pub in_kernel: bool,
    /// `spin_loop.in_spin_loop`.
    pub in_spin_loop: bool,
    /// `spin_loop.dy_eligible`.
    pub dy_eligible: bool,
    /// Current PLE window (ns).
    pub ple_window: u64,
    /// Spinning on this lock (or IPI wait key), with this much of the window left (CPU ns).
    pub spin: Option<(u32, u64)>,
    /// IPI state.
    pub ipi: super::ipi::IpiState,
    /// Blocked in HLT (an IPI kicks it).
    pub halted: bool,
    /// VM-exit cost not yet charged (added to the next spin window).
    pub exit_debt: u64,
    /// In a guest spin-wait (between GuestSpin and GuestSpinEnd).
    pub waiting: bool,
    /// CPU time spun in the current PV qspinlock wait (against the spin threshold).
    pub spun: u64,
    /// Halted in `pv_wait()` on this lock.
    pub pv_wait: Option<u32>,
}

/// KVM state of the simulation.
#[derive(Debug, Clone, Default)]
pub struct KvmState {
    /// Lock holders by lock id.
    pub locks: Vec<Option<u32>>,
    /// vCPU task ids per VM, in vCPU index order.
    pub vms: Vec<Vec<u32>>,
    /// `kvm->last_boosted_vcpu` per VM.
    pub last_boosted: Vec<u32>,
    /// Per task.
    pub vcpu: Vec<VcpuState>,
    /// The on_spin implementation.
    pub on_spin: OnSpin,
    /// PLE exits.
    pub ple_exits: u64,
    /// Directed yields that yielded.
    pub directed_yields: u64,
    /// Wanpeng Li's IPI-aware candidate filter and tracking.
    pub ipi_aware: bool,
    /// `enable_relaxed_boost` (default: true).
    pub relaxed_boost: bool,
    /// APICv/IPIv: ICR writes do not exit, so nothing is tracked.
    pub apicv: bool,
    /// IPIs sent.
    pub ipis: u64,
    /// The guest uses the PV sched_yield hypercall after IPIs to preempted vCPUs.
    pub pv_sched_yield: bool,
    /// KVM_HC_SCHED_YIELD hypercalls made.
    pub pv_yields: u64,
    /// CPU time of one VM exit and re-entry (ns), charged for pause-loop exits and, without
    /// APICv, for ICR writes.
    pub exit_cost: u64,
    /// Pause-loop-exiting settings per VM.
    pub vm_ple: Vec<PleConfig>,
    /// The guest's locks are PV qspinlocks (`KVM_FEATURE_PV_UNHALT`), not test-and-set.
    pub pv_spinlock: bool,
    /// The PV qspinlock's `SPIN_THRESHOLD` as CPU time (ns).
    pub pv_spin_threshold: u64,
    /// PV qspinlock queues and counters.
    pub pv: super::pvlock::PvLocks,
}

impl Simulation {
    /// vCPU bookkeeping when `task` leaves a CPU (`kvm_sched_out`).
    pub(crate) fn kvm_sched_out(&mut self, task: u32, still_runnable: bool) {
        let v = &mut self.kvm.vcpu[task as usize];
        if v.vm.is_some() && still_runnable {
            v.preempted = true;
            v.preempted_in_kernel = v.in_kernel;
        }
    }

    /// vCPU bookkeeping when `task` gets a CPU (`kvm_sched_in`, with the VMX sched-in hook's
    /// `shrink_ple_window()`; by default `ple_window_shrink` = 0 resets the window).
    pub(crate) fn kvm_sched_in(&mut self, task: u32) {
        let v = &mut self.kvm.vcpu[task as usize];
        if let Some(vm) = v.vm {
            v.halted = false;
            v.pv_wait = None;
            v.preempted = false;
            v.ple_window = self.kvm.vm_ple[vm as usize].shrink(v.ple_window);
        }
    }

    /// A guest lock acquisition by the running `task`: returns the time its spin window ends,
    /// or None when it got the lock (the program moves on). Without `kvm_pv_spinlock` the
    /// lock is `virt_spin_lock()`'s test-and-set lock; with it, the PV qspinlock (`pvlock.rs`).
    pub(crate) fn guest_lock(&mut self, cpu: u32, task: u32, lock: u32) -> Option<u64> {
        if self.kvm.pv_spinlock {
            return self.guest_lock_pv(cpu, task, lock);
        }
        loop {
            if self.kvm.locks[lock as usize].is_none() {
                self.take_lock(cpu, task, lock);
                return None;
            }
            if let Some(t) = self.ple_spin(cpu, task, lock) {
                return Some(t);
            }
        }
    }

    /// `task` takes the free `lock`.
    pub(crate) fn take_lock(&mut self, cpu: u32, task: u32, lock: u32) {
        self.kvm.locks[lock as usize] = Some(task);
        self.end_spin_wait(cpu, task, lock);
        let v = &mut self.kvm.vcpu[task as usize];
        v.spin = None;
        v.in_kernel = true;
        self.fair.log.event(self.fair.now, EventKind::GuestLock, cpu, task, lock, 0);
    }

    /// Ends a spin-wait of `task` (if it was waiting) in the log.
    pub(crate) fn end_spin_wait(&mut self, cpu: u32, task: u32, key: u32) {
        let v = &mut self.kvm.vcpu[task as usize];
        if v.waiting {
            v.waiting = false;
            self.fair.log.event(self.fair.now, EventKind::GuestSpinEnd, cpu, task, key, 0);
        }
    }

    /// One step of a PAUSE spin-wait in guest kernel mode: Some(time the current PLE window
    /// ends, or u64::MAX when the vCPU lost its CPU in a directed yield), or None after a
    /// pause-loop exit that left it running (the caller re-checks what it waits for).
    pub(crate) fn ple_spin(&mut self, cpu: u32, task: u32, key: u32) -> Option<u64> {
        self.ple_spin_capped(cpu, task, key, u64::MAX)
    }

    /// `ple_spin()` with a new spin window cut to at most `cap` of CPU time (the PV
    /// qspinlock's spin threshold; u64::MAX: no cap). A cut window ends without a pause-loop
    /// exit: the caller decides what comes next.
    pub(crate) fn ple_spin_capped(&mut self, cpu: u32, task: u32, key: u32, cap: u64) -> Option<u64> {
        let now = self.fair.now;
        let cfg = self.kvm.vm_ple[self.kvm.vcpu[task as usize].vm.unwrap_or(0) as usize];
        let ple = cfg.ple;
        let v = &mut self.kvm.vcpu[task as usize];
        v.in_kernel = true;
        if !v.waiting {
            v.waiting = true;
            self.fair.log.event(now, EventKind::GuestSpin, cpu, task, key, 0);
        }
        let v = &mut self.kvm.vcpu[task as usize];
        if !ple {
            // ple_gap = 0: PAUSE never exits; the vCPU spins until the lock is released or
            // the IPI handled (it is told) or the host preempts it (or until the cap).
            v.spin = Some((key, cap));
            return Some(now.saturating_add(cap));
        }
        let window = v.ple_window.max(1);
        match v.spin {
            Some((_, left)) if left > 0 => return Some(now + left),
            Some(_) => {}
            None => {
                // The cost of the exit that ended the last window (or of the IPI send) is
                // spent here, before the vCPU spins again: named shortcut, see `exit_cost`.
                let w = (window + std::mem::take(&mut v.exit_debt)).min(cap);
                v.spin = Some((key, w));
                return Some(now + w);
            }
        }
        // The window ran out: PAUSE-loop exit into kvm_vcpu_on_spin().
        v.spin = None;
        v.exit_debt += self.kvm.exit_cost;
        v.ple_window = cfg.grow(window);
        self.kvm.ple_exits += 1;
        self.fair.log.event(now, EventKind::PleExit, cpu, task, key, 0);
        if self.kvm_vcpu_on_spin(cpu, task) {
            self.schedule(cpu, SwitchReason::Yield);
            if self.running_task(cpu) != Some(task) {
                return Some(u64::MAX);
            }
            self.cpus[cpu as usize].work_gen += 1;
        }
        None
    }

    /// A guest lock release by `task`. Test-and-set: every spinner on a CPU notices at once;
    /// PV qspinlock: the head of the queue (`guest_unlock_pv()`). Returns whether `task` lost
    /// its CPU (the PV kick's directed yield).
    pub(crate) fn guest_unlock(&mut self, cpu: u32, task: u32, lock: u32) -> bool {
        if self.kvm.locks[lock as usize] == Some(task) {
            self.kvm.locks[lock as usize] = None;
        }
        self.kvm.vcpu[task as usize].in_kernel = false;
        self.fair.log.event(self.fair.now, EventKind::GuestUnlock, cpu, task, lock, 0);
        if self.kvm.pv_spinlock {
            return self.guest_unlock_pv(cpu, task, lock);
        }
        let spinners: Vec<u32> = (0..self.tasks.len() as u32)
            .filter(|&t| {
                self.tasks[t as usize].state == TaskState::Running
                    && t != task
                    && matches!(self.kvm.vcpu[t as usize].spin, Some((l, _)) if l == lock)
            })
            .collect();
        for t in spinners {
            self.notice_release(t);
        }
        false
    }

    /// The running spinner `t` sees what it waits for now: its CPU re-runs its program.
    pub(crate) fn notice_release(&mut self, t: u32) {
        let c = self.tasks[t as usize].cpu;
        self.charge_segment(t);
        self.cpus[c as usize].work_gen += 1;
        let gen = self.cpus[c as usize].work_gen;
        self.queue.push(self.fair.now, Ev::Work { cpu: c, gen });
    }

    /// The per-candidate filter. Mainline: skip a vCPU preempted in guest user mode. Wanpeng
    /// Li's IPI-aware filter (round 1): the vCPU `me` just sent an IPI to wins; a pending
    /// posted interrupt (APICv) wins; otherwise it must be preempted, in kernel mode. Round 2
    /// (relaxed): preempted is enough. A first match in scan order wins, not the "highest
    /// priority" one.
    fn candidate_ok(&self, me: u32, t: u32, first_round: bool) -> Option<YieldToReason> {
        let v = &self.kvm.vcpu[t as usize];
        // kvm_arch_dy_has_pending_interrupt(): with APICv, a posted interrupt waiting for
        // the vCPU also makes it a candidate.
        let pending = self.kvm.apicv && v.ipi.pending_from_any;
        if !self.kvm.ipi_aware {
            return match (v.preempted, v.preempted_in_kernel, pending) {
                (false, _, _) => Some(YieldToReason::NotPreempted),
                (true, true, _) => Some(YieldToReason::PreemptedInKernel),
                (true, false, true) => Some(YieldToReason::PendingInterrupt),
                (true, false, false) => None,
            };
        }
        if !first_round {
            return v.preempted.then_some(YieldToReason::Relaxed);
        }
        if self.is_ipi_receiver(me, t) {
            return Some(YieldToReason::IpiReceiver);
        }
        if pending {
            return Some(YieldToReason::PendingInterrupt);
        }
        (v.preempted && v.preempted_in_kernel).then_some(YieldToReason::PreemptedInKernel)
    }

    /// Models `kvm_vcpu_eligible_for_directed_yield()`: a vCPU inside its own spin loop is
    /// eligible every other time it is looked at.
    fn eligible_for_directed_yield(&mut self, t: u32) -> bool {
        let v = &mut self.kvm.vcpu[t as usize];
        let eligible = !v.in_spin_loop || v.dy_eligible;
        if v.in_spin_loop {
            v.dy_eligible = !v.dy_eligible;
        }
        eligible
    }

    /// Models `kvm_vcpu_on_spin(me, yield_to_kernel_mode = true)` (single loop, 6.12+).
    /// Returns whether it yielded (the caller then schedules).
    pub(crate) fn kvm_vcpu_on_spin(&mut self, cpu: u32, me: u32) -> bool {
        let Some(vm) = self.kvm.vcpu[me as usize].vm else { return false };
        let vcpus = self.kvm.vms[vm as usize].clone();
        let n = vcpus.len() as u32;
        if n < 2 {
            return false;
        }
        let my_idx = self.kvm.vcpu[me as usize].idx;
        self.kvm.vcpu[me as usize].in_spin_loop = true;
        let mut tries: i32 = 3;
        let mut yielded = false;
        // Wanpeng Li's series adds a relaxed second round (enable_relaxed_boost); `tries` is
        // shared by both rounds, as in the patch.
        let rounds = if self.kvm.ipi_aware && self.kvm.relaxed_boost { 2 } else { 1 };
        'rounds: for round in 0..rounds {
            let start = self.kvm.last_boosted[vm as usize] + 1;
            for i in 0..n {
                let idx = (start + i) % n;
                if idx == my_idx {
                    continue;
                }
                let t = vcpus[idx as usize];
                // `ready`: runnable but not running.
                if self.tasks[t as usize].state != TaskState::Runnable {
                    continue;
                }
                let Some(reason) = self.candidate_ok(me, t, round == 0) else { continue };
                if !self.eligible_for_directed_yield(t) {
                    continue;
                }
                let r = self.yield_to_ret(cpu, me, t);
                self.fair.log.event(self.fair.now, EventKind::YieldTo, cpu, me, t, reason.val(r > 0));
                if r > 0 {
                    self.kvm.last_boosted[vm as usize] = match self.kvm.on_spin {
                        OnSpin::Mainline => i,
                        OnSpin::Fixed => idx,
                    };
                    self.kvm.directed_yields += 1;
                    yielded = true;
                    break 'rounds;
                }
                if r < 0 {
                    tries -= 1;
                    if tries == 0 {
                        break 'rounds;
                    }
                }
            }
        }
        let v = &mut self.kvm.vcpu[me as usize];
        v.in_spin_loop = false;
        v.dy_eligible = false;
        yielded
    }
}
