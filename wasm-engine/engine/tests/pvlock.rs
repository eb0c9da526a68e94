//! The guest's PV qspinlock (`kvm_pv_spinlock`, `sim/pvlock.rs`) against the test-and-set
//! lock a guest without `KVM_FEATURE_PV_UNHALT` uses: waiters take the lock in arrival
//! order, halt after the spin threshold, and the unlock kicks a halted head with
//! `KVM_HC_KICK_CPU`, whose `kvm_sched_yield()` yields to it when it is ready.

use schedlab_engine::obs::log::{EventKind, YieldToReason};
use schedlab_engine::obs::summary::Summary;
use schedlab_engine::sim::Simulation;

mod common;

fn run_text(text: &str, v: &[(&str, &str)]) -> Simulation {
    common::run_text("pvlock.toml", text, v)
}

/// (time, task) of every guest lock acquisition.
fn acquisitions(sim: &Simulation) -> Vec<(u64, u32)> {
    let e = &sim.fair.log.events;
    (0..e.kind.len()).filter(|&i| e.kind[i] == EventKind::GuestLock as u8).map(|i| (e.t[i], e.task[i])).collect()
}

/// vcpu0 holds L for 10 ms from the start; vcpu1 asks for it at 100 µs on its own CPU.
const LONG_HOLD: &str = r#"version = 1
name = "pv-long-hold"
duration = "20ms"
[host]
cpus = 2
[[tasks]]
name = "vcpu0"
vm = "vm"
affinity = [0]
program = [{ lock = "L" }, { run = "10ms" }, { unlock = "L" }, { run = "forever" }]
[[tasks]]
name = "vcpu1"
vm = "vm"
affinity = [1]
program = [{ run = "100us" }, { lock = "L" }, { run = "5us" }, { unlock = "L" }, { run = "forever" }]
"#;

#[test]
fn a_waiter_halts_after_the_spin_threshold_and_the_unlock_kicks_it() {
    let tas = run_text(LONG_HOLD, &[]);
    let pv = run_text(LONG_HOLD, &[("kvm_pv_spinlock", "true")]);
    let (st, sp) = (Summary::of(&tas), Summary::of(&pv));
    println!(
        "test-and-set: vcpu1 {} sleeps, {} ns of CPU; PV: vcpu1 {} sleeps, {} wakeups, {} ns of CPU, {} pv_wait halts, {} kicks",
        st.tasks[1].sleeps, st.tasks[1].cpu_time_ns, sp.tasks[1].sleeps, sp.tasks[1].wakeups, sp.tasks[1].cpu_time_ns,
        pv.kvm.pv.waits, pv.kvm.pv.kicks
    );
    // Test-and-set: vcpu1 spins the whole 9.9 ms on its CPU.
    assert_eq!(st.tasks[1].sleeps, 0);
    assert!(st.tasks[1].cpu_time_ns > 19_000_000, "{}", st.tasks[1].cpu_time_ns);
    // PV: it spins the threshold (1.529 ms), halts, and is kicked at the unlock at 10 ms.
    assert_eq!((pv.kvm.pv.waits, pv.kvm.pv.kicks, sp.tasks[1].sleeps, sp.tasks[1].wakeups), (1, 1, 1, 1));
    let threshold = schedlab_engine::sim::pvlock::PV_SPIN_THRESHOLD_NS;
    assert_eq!(threshold, 1_529_173);
    let idle = 10_000_000 - 100_000 - threshold;
    assert_eq!(sp.tasks[1].cpu_time_ns, 20_000_000 - idle, "vcpu1 is off its CPU from the halt to the kick");
    let acq = acquisitions(&pv);
    assert_eq!(acq, vec![(0, 0), (10_000_000, 1)], "the kicked head takes the lock as soon as it runs");
    // Both vCPUs are alone on their CPUs: kvm_sched_yield()'s yield_to() returns -ESRCH.
    assert_eq!(pv.kvm.pv.kick_yields, 0);
    // The threshold is a knob.
    let short = run_text(LONG_HOLD, &[("kvm_pv_spinlock", "true"), ("kvm_pv_spin_threshold", "200us")]);
    let ss = Summary::of(&short);
    assert_eq!(ss.tasks[1].cpu_time_ns, 20_000_000 - (10_000_000 - 100_000 - 200_000));
}

/// Four vCPUs on four CPUs; vcpu0 holds L for 1 ms; the others ask for it in the order
/// vcpu3, vcpu2, vcpu1 (100, 200, 300 µs), each holding it 50 µs.
const QUEUE: &str = r#"version = 1
name = "pv-fifo"
duration = "3ms"
[host]
cpus = 4
[[tasks]]
name = "vcpu0"
vm = "vm"
affinity = [0]
program = [{ lock = "L" }, { run = "1ms" }, { unlock = "L" }, { run = "forever" }]
[[tasks]]
name = "vcpu1"
vm = "vm"
affinity = [1]
program = [{ run = "300us" }, { lock = "L" }, { run = "50us" }, { unlock = "L" }, { run = "forever" }]
[[tasks]]
name = "vcpu2"
vm = "vm"
affinity = [2]
program = [{ run = "200us" }, { lock = "L" }, { run = "50us" }, { unlock = "L" }, { run = "forever" }]
[[tasks]]
name = "vcpu3"
vm = "vm"
affinity = [3]
program = [{ run = "100us" }, { lock = "L" }, { run = "50us" }, { unlock = "L" }, { run = "forever" }]
"#;

#[test]
fn the_queued_lock_passes_in_arrival_order() {
    let pv = run_text(QUEUE, &[("kvm_pv_spinlock", "true")]);
    let acq = acquisitions(&pv);
    println!("PV qspinlock acquisitions: {acq:?}");
    assert_eq!(acq, vec![(0, 0), (1_000_000, 3), (1_050_000, 2), (1_100_000, 1)]);
    // No one halted: 1 ms of waiting is under the threshold.
    assert_eq!(pv.kvm.pv.waits, 0);
    // The test-and-set lock gives the same times to whoever looks first: not arrival order.
    let tas = acquisitions(&run_text(QUEUE, &[]));
    println!("test-and-set acquisitions: {tas:?}");
    assert_eq!(tas.len(), 4);
    assert_ne!(tas.iter().map(|a| a.1).collect::<Vec<_>>(), vec![0, 3, 2, 1]);
}

/// One CPU, two vCPUs: vcpu1 asks for L while vcpu0 holds it and halts; vcpu0's unlock kicks
/// it onto the same CPU, so `kvm_sched_yield()` yields vcpu0's CPU to it.
const SAME_CPU: &str = r#"version = 1
name = "pv-kick-yield"
duration = "10ms"
[host]
cpus = 1
[[tasks]]
name = "vcpu0"
vm = "vm"
program = [{ run = "100us" }, { lock = "L" }, { run = "4ms" }, { unlock = "L" }, { run = "forever" }]
[[tasks]]
name = "vcpu1"
vm = "vm"
program = [{ run = "200us" }, { lock = "L" }, { run = "5us" }, { unlock = "L" }, { run = "forever" }]
"#;

#[test]
fn the_kick_yields_to_a_ready_head_on_the_same_cpu() {
    let pv = run_text(SAME_CPU, &[("kvm_pv_spinlock", "true"), ("kvm_pv_spin_threshold", "100us")]);
    let e = &pv.fair.log.events;
    let kicks: Vec<(u32, u32, i64)> = (0..e.kind.len())
        .filter(|&i| e.kind[i] == EventKind::YieldTo as u8 && e.val[i] >> 1 == YieldToReason::PvKick as i64)
        .map(|i| (e.task[i], e.arg[i], e.val[i] & 1))
        .collect();
    println!("PV kicks (from, to, yielded): {kicks:?}; acquisitions {:?}", acquisitions(&pv));
    assert_eq!(pv.kvm.pv.waits, 1);
    assert_eq!(kicks, vec![(0, 1, 1)], "vcpu0 kicks vcpu1 and yields to it");
    assert_eq!(pv.kvm.pv.kick_yields, 1);
    let acq = acquisitions(&pv);
    assert_eq!(acq.len(), 2);
    assert_eq!(acq[1].1, 1);
    let unlock = (0..e.kind.len())
        .find(|&i| e.kind[i] == EventKind::GuestUnlock as u8 && e.task[i] == 0)
        .map(|i| e.t[i])
        .expect("vcpu0 unlocks");
    assert_eq!(acq[1].0, unlock, "the yield hands the CPU to the kicked head at once");
}

#[test]
fn a_stopped_waiter_leaves_the_queue() {
    // vcpu3 queues first (100 µs) and is stopped at 500 µs, before vcpu0's unlock at 1 ms.
    let text = QUEUE.replace("affinity = [3]\n", "affinity = [3]\nstop = \"500us\"\n");
    let pv = run_text(&text, &[("kvm_pv_spinlock", "true")]);
    let acq = acquisitions(&pv);
    println!("PV qspinlock acquisitions with vcpu3 stopped: {acq:?}");
    assert_eq!(acq, vec![(0, 0), (1_000_000, 2), (1_050_000, 1)]);
}
