//! One regular `FtraceEvent` (its generated prost type) as a held record's payload
//! ([`Body`](super::held::Body): the record's `SchedPayload` with comms and event names interned and
//! an other event's fields printed), with the kernel's event and field names; `prev_state` decoded; the name of an event outside the trimmed oneof.
//!
//! * `sched_switch`, `sched_waking` / `sched_wakeup` / `sched_wakeup_new`, `sched_migrate_task`
//!   become the typed payloads (`sched_migrate_task`'s Perfetto-only `running` and `load` go to
//!   `extra`);
//! * `sched_process_exit/free/fork/exec`, `task_newtask`, `task_rename`, `cpu_frequency`,
//!   `cpu_idle`, `softirq_*`, `irq_handler_*` become other events with their fields in proto
//!   order, named as the kernel's format files name them (so the store's fork/exit bookkeeping
//!   reads `child_pid`, `pid`, `comm` as it does for text);
//! * `generic` (`GenericFtraceEvent`: an event Perfetto has no typed proto for, e.g.
//!   `sched_stat_runtime`) becomes an other event of its `event_name` with its fields;
//! * any other event is kept as an other event without fields, named from the upstream oneof
//!   (`names.rs`), or `ftrace_event_<field>` for a number the table lacks.

use super::held::{Body, Name, Names, Render, Val, UNKNOWN};
use super::names::FTRACE_EVENTS;
use super::pb::ftrace_event::Event;
use crate::import::payload::numeric_state;
use crate::import::record::{PrevState, WakeKind};
use prost::encoding::{decode_key, skip_field, DecodeContext};

/// How `prev_state` numbers are read: the report bits of kernels 4.14 and later
/// (`TASK_REPORT`: S 0x01 … I 0x80, preempted `TASK_REPORT_MAX` 0x100), or, for older kernels,
/// only the values every version agrees on ([`numeric_state`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StateLayout {
    Report414,
    Old,
}

impl StateLayout {
    /// From `SystemInfo.utsname.release` (`"4.19.113-perf+"`); a trace without it is read with the
    /// 4.14+ layout, the only one of kernels still in use.
    pub fn from_release(release: &str) -> StateLayout {
        let mut it = release.split(|c: char| !c.is_ascii_digit()).filter(|s| !s.is_empty());
        let major: u32 = it.next().and_then(|s| s.parse().ok()).unwrap_or(0);
        let minor: u32 = it.next().and_then(|s| s.parse().ok()).unwrap_or(0);
        if (major, minor) >= (4, 14) {
            StateLayout::Report414
        } else {
            StateLayout::Old
        }
    }

    pub fn decode(self, raw: i64) -> PrevState {
        match self {
            StateLayout::Old => numeric_state(raw),
            StateLayout::Report414 => match raw {
                0 => PrevState::Runnable,
                0x100 => PrevState::Preempted,
                n if (1..=0xff).contains(&n) => PrevState::Blocked(n as u16),
                n => PrevState::Raw(n),
            },
        }
    }
}

/// The name of field `num` of `FtraceEvent`'s event oneof upstream.
pub fn event_name(num: u32) -> std::borrow::Cow<'static, str> {
    match FTRACE_EVENTS.binary_search_by_key(&num, |&(n, _)| n) {
        Ok(i) => FTRACE_EVENTS[i].1.into(),
        Err(_) => format!("ftrace_event_{num}").into(),
    }
}

/// The oneof member of a serialised `FtraceEvent` that the generated type did not know: the
/// first field other than `timestamp` (1), `pid` (2) and `common_flags` (5). Read with prost's
/// key decoder; None for an event without one (or damaged).
pub fn unknown_event_field(mut b: &[u8]) -> Option<u32> {
    while !b.is_empty() {
        let (tag, wt) = decode_key(&mut b).ok()?;
        if !matches!(tag, 1 | 2 | 5) {
            return Some(tag);
        }
        skip_field(wt, tag, &mut b, DecodeContext::default()).ok()?;
    }
    None
}

/// Builds the payloads of one bundle's events: names interned, field lists from the pool.
pub struct Bodies<'a> {
    pub names: &'a mut Names,
    pub render: &'a mut Render,
    pub layout: StateLayout,
}

/// A typed event's field: a number, or a string (empty when absent).
#[derive(Clone, Copy)]
enum F<'a> {
    V(Val),
    S(&'a Option<String>),
}

fn int<T: Into<i64> + Default>(v: Option<T>) -> F<'static> {
    F::V(Val::Int(v.unwrap_or_default().into()))
}

fn uint<T: Into<u64> + Default>(v: Option<T>) -> F<'static> {
    F::V(Val::Uint(v.unwrap_or_default().into()))
}

impl Bodies<'_> {
    fn comm(&mut self, c: &Option<String>) -> Name {
        c.as_deref().map_or(UNKNOWN, |c| self.names.intern(c))
    }

    fn other(&mut self, event: &str, fields: &[(&str, F<'_>)]) -> Body {
        let mut list = self.render.fields();
        for &(k, v) in fields {
            match v {
                F::V(v) => list.push(k, v),
                F::S(s) => list.push_str(k, s.as_deref().unwrap_or_default()),
            }
        }
        Body::Other { event: self.names.intern(event), fields: list }
    }

    /// The payload of a decoded event.
    pub fn body(&mut self, ev: Event) -> Body {
        let layout = self.layout;
        match ev {
            Event::SchedSwitch(e) => Body::Switch {
                prev_comm: self.comm(&e.prev_comm),
                prev_pid: e.prev_pid.unwrap_or_default(),
                prev_prio: e.prev_prio.unwrap_or_default(),
                prev_state: layout.decode(e.prev_state.unwrap_or_default()),
                next_comm: self.comm(&e.next_comm),
                next_pid: e.next_pid.unwrap_or_default(),
                next_prio: e.next_prio.unwrap_or_default(),
            },
            Event::SchedWaking(e) => self.wake(WakeKind::Waking, &e.comm, e.pid, e.prio, e.success, e.target_cpu),
            Event::SchedWakeup(e) => self.wake(WakeKind::Wakeup, &e.comm, e.pid, e.prio, e.success, e.target_cpu),
            Event::SchedWakeupNew(e) => self.wake(WakeKind::WakeupNew, &e.comm, e.pid, e.prio, e.success, e.target_cpu),
            Event::SchedMigrateTask(e) => Body::Migrate {
                comm: self.comm(&e.comm),
                pid: e.pid.unwrap_or_default(),
                prio: e.prio.unwrap_or_default(),
                orig_cpu: e.orig_cpu.unwrap_or_default(),
                dest_cpu: e.dest_cpu.unwrap_or_default(),
                running: e.running,
                load: e.load,
            },
            Event::SchedProcessExit(e) => {
                let comm = F::S(&e.comm);
                self.other(
                    "sched_process_exit",
                    &[("comm", comm), ("pid", int(e.pid)), ("tgid", int(e.tgid)), ("prio", int(e.prio))],
                )
            }
            Event::SchedProcessFree(e) => {
                let comm = F::S(&e.comm);
                self.other("sched_process_free", &[("comm", comm), ("pid", int(e.pid)), ("prio", int(e.prio))])
            }
            Event::SchedProcessFork(e) => {
                let (pc, cc) = (F::S(&e.parent_comm), F::S(&e.child_comm));
                self.other(
                    "sched_process_fork",
                    &[("comm", pc), ("pid", int(e.parent_pid)), ("child_comm", cc), ("child_pid", int(e.child_pid))],
                )
            }
            Event::SchedProcessExec(e) => {
                let file = F::S(&e.filename);
                self.other(
                    "sched_process_exec",
                    &[("filename", file), ("pid", int(e.pid)), ("old_pid", int(e.old_pid))],
                )
            }
            Event::TaskNewtask(e) => {
                let comm = F::S(&e.comm);
                self.other(
                    "task_newtask",
                    &[
                        ("pid", int(e.pid)),
                        ("comm", comm),
                        ("clone_flags", F::V(Val::Hex(e.clone_flags.unwrap_or_default()))),
                        ("oom_score_adj", int(e.oom_score_adj)),
                    ],
                )
            }
            Event::TaskRename(e) => {
                let (old, new) = (F::S(&e.oldcomm), F::S(&e.newcomm));
                self.other(
                    "task_rename",
                    &[("pid", int(e.pid)), ("oldcomm", old), ("newcomm", new), ("oom_score_adj", int(e.oom_score_adj))],
                )
            }
            Event::CpuFrequency(e) => {
                self.other("cpu_frequency", &[("state", uint(e.state)), ("cpu_id", uint(e.cpu_id))])
            }
            Event::CpuIdle(e) => self.other("cpu_idle", &[("state", uint(e.state)), ("cpu_id", uint(e.cpu_id))]),
            Event::SoftirqEntry(e) => self.other("softirq_entry", &[("vec", uint(e.vec))]),
            Event::SoftirqExit(e) => self.other("softirq_exit", &[("vec", uint(e.vec))]),
            Event::SoftirqRaise(e) => self.other("softirq_raise", &[("vec", uint(e.vec))]),
            Event::IrqHandlerEntry(e) => {
                let name = F::S(&e.name);
                self.other("irq_handler_entry", &[("irq", int(e.irq)), ("name", name)])
            }
            Event::IrqHandlerExit(e) => self.other("irq_handler_exit", &[("irq", int(e.irq)), ("ret", int(e.ret))]),
            Event::Generic(g) => {
                use super::pb::generic_ftrace_event::field::Value;
                let mut list = self.render.fields();
                for fl in &g.field {
                    let k = fl.name.as_deref().unwrap_or_default();
                    match &fl.value {
                        Some(Value::StrValue(s)) => list.push_str(k, s),
                        Some(Value::IntValue(i)) => list.push(k, Val::Int(*i)),
                        Some(Value::UintValue(u)) => list.push(k, Val::Uint(*u)),
                        None => list.push_str(k, ""),
                    }
                }
                let event = self.names.intern(g.event_name.as_deref().unwrap_or("generic"));
                Body::Other { event, fields: list }
            }
        }
    }

    fn wake(
        &mut self,
        kind: WakeKind,
        comm: &Option<String>,
        pid: Option<i32>,
        prio: Option<i32>,
        success: Option<i32>,
        target: Option<i32>,
    ) -> Body {
        Body::Wakeup {
            kind,
            comm: self.comm(comm),
            pid: pid.unwrap_or_default(),
            prio: prio.unwrap_or_default(),
            target_cpu: target.unwrap_or_default(),
            success,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_by_kernel() {
        let new = StateLayout::from_release("5.10.43-android12-9");
        assert_eq!(new, StateLayout::Report414);
        assert_eq!(StateLayout::from_release("4.9.1"), StateLayout::Old);
        assert_eq!(StateLayout::from_release(""), StateLayout::Old);
        assert_eq!(new.decode(0x100), PrevState::Preempted);
        assert_eq!(new.decode(0x82), PrevState::Blocked(0x82));
        assert_eq!(new.decode(0x1000), PrevState::Raw(0x1000));
        assert_eq!(StateLayout::Old.decode(0x100), PrevState::Raw(0x100));
    }

    #[test]
    fn names_of_events_outside_the_trimmed_oneof() {
        assert_eq!(event_name(4), "sched_switch");
        assert_eq!(event_name(21), "ipi_entry");
        assert_eq!(event_name(99_999), "ftrace_event_99999");
        // timestamp 1 (varint), pid 2, then ipi_entry (21, length-delimited, empty).
        assert_eq!(unknown_event_field(&[0x08, 0x05, 0x10, 0x01, 0xaa, 0x01, 0x00]), Some(21));
        assert_eq!(unknown_event_field(&[0x08, 0x05]), None);
    }
}
