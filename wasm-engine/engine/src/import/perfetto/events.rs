//! One regular `FtraceEvent` (its generated prost type) as a [`SchedPayload`], with the kernel's
//! event and field names; `prev_state` decoded; the name of an event outside the trimmed oneof.
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

use super::names::FTRACE_EVENTS;
use super::pb::ftrace_event::Event;
use crate::import::payload::numeric_state;
use crate::import::record::{PrevState, SchedPayload, WakeKind};
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
pub fn event_name(num: u32) -> String {
    match FTRACE_EVENTS.binary_search_by_key(&num, |&(n, _)| n) {
        Ok(i) => FTRACE_EVENTS[i].1.to_string(),
        Err(_) => format!("ftrace_event_{num}"),
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

fn f(k: &str, v: impl ToString) -> (String, String) {
    (k.to_string(), v.to_string())
}

fn s(v: &Option<String>) -> String {
    v.clone().unwrap_or_default()
}

fn n<T: Default + Copy + ToString>(v: Option<T>) -> String {
    v.unwrap_or_default().to_string()
}

/// (event name, payload) of a decoded event.
pub fn payload(ev: Event, layout: StateLayout) -> (String, SchedPayload) {
    let (name, p) = typed(ev, layout);
    (name.into_owned(), p)
}

fn typed(ev: Event, layout: StateLayout) -> (std::borrow::Cow<'static, str>, SchedPayload) {
    let other = |fields: Vec<(String, String)>| SchedPayload::Other { fields, text: None };
    let wake = |kind, comm: Option<String>, pid: Option<i32>, prio: Option<i32>, success, target: Option<i32>| {
        SchedPayload::Wakeup {
            kind,
            comm: comm.unwrap_or_else(|| "<...>".to_string()),
            pid: pid.unwrap_or_default(),
            prio: prio.unwrap_or_default(),
            target_cpu: target.unwrap_or_default(),
            success,
            extra: Vec::new(),
        }
    };
    match ev {
        Event::SchedSwitch(e) => (
            "sched_switch".into(),
            SchedPayload::Switch {
                prev_comm: e.prev_comm.unwrap_or_else(|| "<...>".to_string()),
                prev_pid: e.prev_pid.unwrap_or_default(),
                prev_prio: e.prev_prio.unwrap_or_default(),
                prev_state: layout.decode(e.prev_state.unwrap_or_default()),
                next_comm: e.next_comm.unwrap_or_else(|| "<...>".to_string()),
                next_pid: e.next_pid.unwrap_or_default(),
                next_prio: e.next_prio.unwrap_or_default(),
                extra: Vec::new(),
            },
        ),
        Event::SchedWaking(e) => {
            ("sched_waking".into(), wake(WakeKind::Waking, e.comm, e.pid, e.prio, e.success, e.target_cpu))
        }
        Event::SchedWakeup(e) => {
            ("sched_wakeup".into(), wake(WakeKind::Wakeup, e.comm, e.pid, e.prio, e.success, e.target_cpu))
        }
        Event::SchedWakeupNew(e) => {
            ("sched_wakeup_new".into(), wake(WakeKind::WakeupNew, e.comm, e.pid, e.prio, e.success, e.target_cpu))
        }
        Event::SchedMigrateTask(e) => {
            let mut extra = Vec::new();
            if let Some(r) = e.running {
                extra.push(f("running", r));
            }
            if let Some(l) = e.load {
                extra.push(f("load", l));
            }
            (
                "sched_migrate_task".into(),
                SchedPayload::MigrateTask {
                    comm: e.comm.unwrap_or_else(|| "<...>".to_string()),
                    pid: e.pid.unwrap_or_default(),
                    prio: e.prio.unwrap_or_default(),
                    orig_cpu: e.orig_cpu.unwrap_or_default(),
                    dest_cpu: e.dest_cpu.unwrap_or_default(),
                    extra,
                },
            )
        }
        Event::SchedProcessExit(e) => (
            "sched_process_exit".into(),
            other(vec![f("comm", s(&e.comm)), f("pid", n(e.pid)), f("tgid", n(e.tgid)), f("prio", n(e.prio))]),
        ),
        Event::SchedProcessFree(e) => {
            ("sched_process_free".into(), other(vec![f("comm", s(&e.comm)), f("pid", n(e.pid)), f("prio", n(e.prio))]))
        }
        Event::SchedProcessFork(e) => (
            "sched_process_fork".into(),
            other(vec![
                f("comm", s(&e.parent_comm)),
                f("pid", n(e.parent_pid)),
                f("child_comm", s(&e.child_comm)),
                f("child_pid", n(e.child_pid)),
            ]),
        ),
        Event::SchedProcessExec(e) => (
            "sched_process_exec".into(),
            other(vec![f("filename", s(&e.filename)), f("pid", n(e.pid)), f("old_pid", n(e.old_pid))]),
        ),
        Event::TaskNewtask(e) => (
            "task_newtask".into(),
            other(vec![
                f("pid", n(e.pid)),
                f("comm", s(&e.comm)),
                f("clone_flags", format!("{:x}", e.clone_flags.unwrap_or_default())),
                f("oom_score_adj", n(e.oom_score_adj)),
            ]),
        ),
        Event::TaskRename(e) => (
            "task_rename".into(),
            other(vec![
                f("pid", n(e.pid)),
                f("oldcomm", s(&e.oldcomm)),
                f("newcomm", s(&e.newcomm)),
                f("oom_score_adj", n(e.oom_score_adj)),
            ]),
        ),
        Event::CpuFrequency(e) => {
            ("cpu_frequency".into(), other(vec![f("state", n(e.state)), f("cpu_id", n(e.cpu_id))]))
        }
        Event::CpuIdle(e) => ("cpu_idle".into(), other(vec![f("state", n(e.state)), f("cpu_id", n(e.cpu_id))])),
        Event::SoftirqEntry(e) => ("softirq_entry".into(), other(vec![f("vec", n(e.vec))])),
        Event::SoftirqExit(e) => ("softirq_exit".into(), other(vec![f("vec", n(e.vec))])),
        Event::SoftirqRaise(e) => ("softirq_raise".into(), other(vec![f("vec", n(e.vec))])),
        Event::IrqHandlerEntry(e) => {
            ("irq_handler_entry".into(), other(vec![f("irq", n(e.irq)), f("name", s(&e.name))]))
        }
        Event::IrqHandlerExit(e) => ("irq_handler_exit".into(), other(vec![f("irq", n(e.irq)), f("ret", n(e.ret))])),
        Event::Generic(g) => {
            use super::pb::generic_ftrace_event::field::Value;
            let fields = g
                .field
                .into_iter()
                .map(|fl| {
                    let v = match fl.value {
                        Some(Value::StrValue(s)) => s,
                        Some(Value::IntValue(i)) => i.to_string(),
                        Some(Value::UintValue(u)) => u.to_string(),
                        None => String::new(),
                    };
                    (fl.name.unwrap_or_default(), v)
                })
                .collect();
            (g.event_name.unwrap_or_else(|| "generic".to_string()).into(), other(fields))
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
