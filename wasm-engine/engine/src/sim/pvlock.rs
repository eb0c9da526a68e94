//! The guest's paravirtual queued spinlock (x86 Linux guests on KVM with
//! `KVM_FEATURE_PV_UNHALT`; kernel/locking/qspinlock_paravirt.h, arch/x86/kernel/kvm.c) and
//! the host side of its kick, `KVM_HC_KICK_CPU` (arch/x86/kvm/x86.c), as of Linux 6.18.
//!
//! Without PV unhalt a Linux guest falls back to `virt_spin_lock()`, a test-and-set lock:
//! every waiter spins and whoever sees the release first takes it. That is the model's
//! default (`guest_lock()` in `kvm.rs`). With `kvm_pv_spinlock = true` the lock is the
//! queued (MCS) spinlock with the PV slow path:
//!
//! * Waiters queue in arrival order and the lock passes in that order: a waiter takes it only
//!   once it is at the head of the queue and the lock is free, so a preempted head keeps a
//!   released lock unowned until it runs again (lock-waiter preemption).
//! * A waiter spins with PAUSE (pause-loop exits and directed yield as for any spin) for at
//!   most `SPIN_THRESHOLD` loop iterations (`kvm_pv_spin_threshold`, as CPU time), then
//!   `pv_wait()` halts the vCPU (`kvm_wait()`: HLT, a blocked vCPU thread on the host). An
//!   interrupt wakes it and it spins afresh.
//! * The unlock of a lock whose head has halted kicks the head (`pv_kick()`:
//!   `KVM_HC_KICK_CPU`). KVM wakes the halted vCPU (`kvm_pv_kick_cpu_op()`) and then calls
//!   `kvm_sched_yield()` for it: the unlocker yields to the woken head through `yield_to()`
//!   when the head is ready (woken but not running). This is the path the cover letter of
//!   Wanpeng Li's series means by "the kernel's paravirtual spinlock support … calls
//!   yield_to() to boost the lock holder".
//!
//! Named shortcuts: a halted non-head waiter is woken only by an interrupt or when it is the
//! head at an unlock (`pv_kick_node()` defers its kick to the owner's unlock, as modeled);
//! `pv_wait_early()` (halting early when the previous waiter's vCPU is preempted) is left
//! out; the hypercall's VM exit costs nothing; the head's "spin on the lock word" and the
//! others' "spin on their node" are the same spin here.

use std::collections::VecDeque;

use super::{Simulation, TaskState};
use crate::obs::log::YieldToReason;

/// The default `SPIN_THRESHOLD` as CPU time: 1 << 15 loop iterations of about one PAUSE each,
/// at ~140 cycles per PAUSE (Skylake-SP and later Xeons) on the 3 GHz host: ~1.53 ms.
pub const PV_SPIN_THRESHOLD_NS: u64 = (1 << 15) * 140 / 3;

/// Per-lock queue of waiters (the qspinlock's MCS queue, head first).
#[derive(Debug, Clone, Default)]
pub struct PvLocks {
    /// Waiters per lock id, in arrival order.
    pub queue: Vec<VecDeque<u32>>,
    /// `pv_wait()` halts.
    pub waits: u64,
    /// `KVM_HC_KICK_CPU` hypercalls made by unlockers.
    pub kicks: u64,
    /// Kicks whose `kvm_sched_yield()` yielded to the kicked vCPU.
    pub kick_yields: u64,
}

impl Simulation {
    /// A PV qspinlock acquisition by the running `task`: as `guest_lock()`, Some(time its
    /// spin window ends, or u64::MAX when it lost its CPU or halted), None when it got the
    /// lock.
    pub(crate) fn guest_lock_pv(&mut self, cpu: u32, task: u32, lock: u32) -> Option<u64> {
        loop {
            let q = &mut self.kvm.pv.queue[lock as usize];
            let mine = q.front().is_none_or(|&h| h == task);
            if self.kvm.locks[lock as usize].is_none() && mine {
                if q.front() == Some(&task) {
                    q.pop_front();
                }
                // The next waiter becomes the head: it spins on the lock word afresh.
                if let Some(&next) = self.kvm.pv.queue[lock as usize].front() {
                    self.kvm.vcpu[next as usize].spun = 0;
                }
                self.kvm.vcpu[task as usize].spun = 0;
                self.take_lock(cpu, task, lock);
                return None;
            }
            if !q.contains(&task) {
                q.push_back(task);
                self.kvm.vcpu[task as usize].spun = 0;
            }
            let threshold = self.kvm.pv_spin_threshold;
            let spun = self.kvm.vcpu[task as usize].spun;
            if spun >= threshold {
                self.pv_wait(cpu, task, lock);
                return Some(u64::MAX);
            }
            if let Some(t) = self.ple_spin_capped(cpu, task, lock, threshold - spun) {
                return Some(t);
            }
        }
    }

    /// `pv_wait()` → `kvm_wait()`: HLT. With an interrupt pending the vCPU does not block
    /// (it handles it and spins again); otherwise its thread blocks until a kick or an IPI.
    fn pv_wait(&mut self, cpu: u32, task: u32, lock: u32) {
        self.end_spin_wait(cpu, task, lock);
        let v = &mut self.kvm.vcpu[task as usize];
        v.spin = None;
        v.spun = 0;
        if !v.ipi.pending_from.is_empty() {
            let gen = self.cpus[cpu as usize].work_gen;
            self.queue.push(self.fair.now + super::ipi::IPI_HANDLE_NS, super::event::Ev::Work { cpu, gen });
            return;
        }
        v.halted = true;
        v.pv_wait = Some(lock);
        self.kvm.pv.waits += 1;
        self.block(cpu, task, u64::MAX);
    }

    /// The PV unlock: the lock is free; a running head notices at once; a halted head is
    /// kicked (`KVM_HC_KICK_CPU`) and the unlocker then yields to it (`kvm_sched_yield()`).
    /// Returns whether the unlocker lost its CPU.
    pub(crate) fn guest_unlock_pv(&mut self, cpu: u32, task: u32, lock: u32) -> bool {
        let Some(&head) = self.kvm.pv.queue[lock as usize].front() else { return false };
        let state = self.tasks[head as usize].state;
        if state == TaskState::Running {
            if self.kvm.vcpu[head as usize].spin.is_some() {
                self.notice_release(head);
            }
            return false;
        }
        if !(state == TaskState::Sleeping && self.kvm.vcpu[head as usize].pv_wait == Some(lock)) {
            // Preempted (or halted for another reason): the lock waits for it.
            return false;
        }
        self.kvm.pv.kicks += 1;
        self.kvm.vcpu[head as usize].pv_wait = None;
        self.kick_halted(head, cpu);
        // kvm_sched_yield(): yield to the kicked vCPU if it is ready (woken, not running).
        let lost = self.kvm_sched_yield(cpu, task, head, YieldToReason::PvKick);
        self.kvm.pv.kick_yields += u64::from(lost.is_some());
        lost.unwrap_or(false)
    }
}
