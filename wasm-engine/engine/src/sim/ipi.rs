//! Guest IPIs, smp_call_function style, and Wanpeng Li's IPI tracking (x86; v1 patches 7–10).
//!
//! A vCPU sends a fixed unicast IPI to another vCPU of its VM and spins (guest kernel mode,
//! with pause-loop exits) until the receiver has handled it. The receiver handles it
//! `IPI_HANDLE_NS` after it is both running and interrupted (immediately if it is running, else
//! once the host scheduler gives it a CPU). Without APICv the ICR write exits to KVM, which
//! records sender → receiver (`kvm_track_ipi_communication`); the receiver's EOI clears the
//! record (`kvm_clear_ipi_on_eoi`, v1/v2 rules). With APICv/IPIv nothing is tracked.
//! A vCPU blocked in HLT (`halt` step) is kicked: its thread is woken at once. Named
//! shortcuts: delivery to a running receiver takes the host's LAPIC latency between the two
//! pCPUs (`[host.ipi_latency]` by SMT sibling / core / socket, default 0) plus `IPI_HANDLE_NS`,
//! plus, without APICv, one `kvm_exit_cost` for the receiver's kick (the sender pays one for
//! its ICR write); a halted receiver is woken at once (no wakeup latency); a vCPU blocked
//! otherwise (a host `sleep` step) is not woken by an IPI.

use super::event::Ev;
use super::{Simulation, TaskState};
use crate::obs::log::{EventKind, YieldToReason};

/// Time from a running receiver being interrupted to its EOI (handler work; assumed 2 µs).
pub const IPI_HANDLE_NS: u64 = 2_000;
/// `ipi_window_ns` (default 50 ms).
pub const IPI_WINDOW_NS: u64 = 50_000_000;
/// Spin keys of IPI waits are `IPI_KEY | receiver` (lock ids are small).
pub const IPI_KEY: u32 = 0x4000_0000;

/// Per-vCPU IPI state.
#[derive(Debug, Clone, Default)]
pub struct IpiState {
    /// The IPIs of the current wait have been sent.
    pub sent: bool,
    /// Receivers of those IPIs that have not handled them yet.
    pub outstanding: Vec<u32>,
    /// Senders whose IPIs this vCPU has not handled yet.
    pub pending_from: Vec<u32>,
    /// Some IPI is pending here (a posted interrupt with APICv).
    pub pending_from_any: bool,
    /// `last_ipi_sender` (vCPU task, None = −1).
    pub last_sender: Option<u32>,
    /// `last_ipi_receiver`.
    pub last_receiver: Option<u32>,
    /// `pending_ipi`.
    pub pending_ipi: bool,
    /// `ipi_time_ns`.
    pub ipi_time: u64,
}

impl Simulation {
    /// Models `kvm_vcpu_is_ipi_receiver(me, v)`.
    pub(crate) fn is_ipi_receiver(&self, me: u32, v: u32) -> bool {
        let m = &self.kvm.vcpu[me as usize].ipi;
        m.pending_ipi && m.last_receiver == Some(v) && self.fair.now - m.ipi_time <= IPI_WINDOW_NS
    }

    /// An IPI wait by the running `task` on the target set `set` of its program: returns when
    /// its spin window ends, or None when every IPI has been handled (the program moves on).
    pub(crate) fn guest_ipi_wait(&mut self, cpu: u32, task: u32, set: u32) -> Option<u64> {
        loop {
            let ipi = &mut self.kvm.vcpu[task as usize].ipi;
            if ipi.sent && ipi.outstanding.is_empty() {
                ipi.sent = false;
                let first = self.tasks[task as usize].cfg.program.sets[set as usize][0];
                self.end_spin_wait(cpu, task, IPI_KEY | first);
                let v = &mut self.kvm.vcpu[task as usize];
                v.spin = None;
                v.in_kernel = false;
                return None;
            }
            if !ipi.sent {
                ipi.sent = true;
                let targets = self.tasks[task as usize].cfg.program.sets[set as usize].clone();
                for &t in &targets {
                    self.send_ipi(cpu, task, t);
                }
                // kvm_smp_send_call_func_ipi(): one hypercall, for the first preempted target.
                if self.kvm.pv_sched_yield {
                    if let Some(&t) = targets.iter().find(|&&t| self.pv_target(t)) {
                        if self.pv_sched_yield(cpu, task, t) {
                            return Some(u64::MAX);
                        }
                    }
                }
                continue;
            }
            let key = IPI_KEY | ipi.outstanding[0];
            if let Some(t) = self.ple_spin(cpu, task, key) {
                return Some(t);
            }
        }
    }

    /// Whether steal time shows vCPU `t` preempted and KVM sees it ready.
    fn pv_target(&self, t: u32) -> bool {
        self.kvm.vcpu[t as usize].preempted && self.tasks[t as usize].state == TaskState::Runnable
    }

    /// The guest's PV sched_yield (`kvm_smp_send_call_func_ipi()`): right after the IPI, if
    /// the steal-time area says the receiver is preempted, the sender makes the
    /// KVM_HC_SCHED_YIELD hypercall; KVM's `kvm_sched_yield()` yields to the receiver's vCPU
    /// when it is ready. True when the sender lost its CPU.
    fn pv_sched_yield(&mut self, cpu: u32, task: u32, target: u32) -> bool {
        self.kvm.pv_yields += 1;
        self.kvm_sched_yield(cpu, task, target, YieldToReason::PvSchedYield).unwrap_or(false)
    }

    /// Models `kvm_sched_yield()` (arch/x86/kvm/x86.c), for KVM_HC_SCHED_YIELD and
    /// KVM_HC_KICK_CPU: `yield_to()` the vCPU `target` if it is ready. None when it did not
    /// yield, else Some(whether `task` lost its CPU).
    pub(crate) fn kvm_sched_yield(&mut self, cpu: u32, task: u32, target: u32, reason: YieldToReason) -> Option<bool> {
        let r = self.yield_to_ret(cpu, task, target);
        self.fair.log.event(self.fair.now, EventKind::YieldTo, cpu, task, target, reason.val(r > 0));
        if r <= 0 {
            return None;
        }
        self.kvm.directed_yields += 1;
        self.schedule(cpu, crate::sim::SwitchReason::Yield);
        if self.running_task(cpu) != Some(task) {
            return Some(true);
        }
        self.cpus[cpu as usize].work_gen += 1;
        Some(false)
    }

    fn send_ipi(&mut self, cpu: u32, task: u32, target: u32) {
        let now = self.fair.now;
        self.kvm.ipis += 1;
        self.kvm.vcpu[task as usize].ipi.outstanding.push(target);
        let r = &mut self.kvm.vcpu[target as usize].ipi;
        r.pending_from.push(task);
        r.pending_from_any = true;
        if !self.kvm.apicv {
            self.kvm.vcpu[task as usize].exit_debt += self.kvm.exit_cost;
            // kvm_track_ipi_communication: the ICR write exited to KVM.
            self.kvm.vcpu[target as usize].ipi.last_sender = Some(task);
            let s = &mut self.kvm.vcpu[task as usize].ipi;
            s.last_receiver = Some(target);
            s.pending_ipi = true;
            s.ipi_time = now;
        }
        self.fair.log.event(now, EventKind::IpiSend, cpu, task, target, 0);
        if self.tasks[target as usize].state == TaskState::Running {
            // Without posted interrupts a running receiver is kicked out of the guest (a VM
            // exit) for the injection; with APICv the interrupt is posted without one.
            // Either way a physical IPI crosses the host (the kick, or the posted-interrupt
            // notification): its latency depends on where the two pCPUs sit.
            let kick = if self.kvm.apicv { 0 } else { self.kvm.exit_cost };
            let wire = self.cfg.host.ipi_latency(cpu, self.tasks[target as usize].cpu);
            self.queue.push(now + wire + IPI_HANDLE_NS + kick, Ev::IpiHandle { task: target });
        } else {
            // A halted receiver is kicked; it handles the IPI once it runs.
            self.kick_halted(target, cpu);
        }
    }

    /// The receiver got a CPU with IPIs pending: it handles them after `IPI_HANDLE_NS`.
    pub(crate) fn ipi_on_sched_in(&mut self, task: u32) {
        if !self.kvm.vcpu[task as usize].ipi.pending_from.is_empty() {
            self.queue.push(self.fair.now + IPI_HANDLE_NS, Ev::IpiHandle { task });
        }
    }

    /// The receiver handles its pending IPIs and EOIs them (if it still runs; otherwise it
    /// will when it is scheduled back in).
    pub(crate) fn on_ipi_handle(&mut self, task: u32) {
        if self.tasks[task as usize].state != TaskState::Running {
            return;
        }
        let senders = std::mem::take(&mut self.kvm.vcpu[task as usize].ipi.pending_from);
        if senders.is_empty() {
            return;
        }
        self.kvm.vcpu[task as usize].ipi.pending_from_any = false;
        let now = self.fair.now;
        let cpu = self.tasks[task as usize].cpu;
        for s in senders {
            let out = &mut self.kvm.vcpu[s as usize].ipi.outstanding;
            out.retain(|&r| r != task);
            let done = out.is_empty();
            self.fair.log.event(now, EventKind::IpiHandled, cpu, task, s, 0);
            self.eoi_clear(task);
            // A sender spinning on a CPU notices at once when its last IPI is handled.
            let st = &self.tasks[s as usize];
            if done && st.state == TaskState::Running && self.kvm.vcpu[s as usize].spin.is_some() {
                self.notice_release(s);
                self.kvm.vcpu[s as usize].spin = None;
            }
        }
    }

    /// Models `kvm_clear_ipi_on_eoi()` (v1/v2): the receiver's context is cleared wholesale,
    /// the sender's pending flag if it still points here within the window.
    fn eoi_clear(&mut self, receiver: u32) {
        if self.kvm.apicv {
            return;
        }
        let now = self.fair.now;
        let r = &mut self.kvm.vcpu[receiver as usize].ipi;
        let s = r.last_sender.take();
        r.pending_ipi = false;
        r.last_receiver = None;
        if let Some(s) = s {
            let si = &mut self.kvm.vcpu[s as usize].ipi;
            if si.last_receiver == Some(receiver) && now - si.ipi_time <= IPI_WINDOW_NS {
                si.pending_ipi = false;
            }
        }
    }
}
