//! What the time-order merge (`merge.rs`) holds: a record with its strings interned ([`Held`]),
//! and how it is given to the sink when released ([`Render`]: a [`RecordView`] borrowing the
//! names and a field buffer reused from record to record).
//!
//! A Perfetto trace names the same few hundred comms and event fields millions of times; each is
//! interned once ([`Names`]) and a record carries numbers only, so a record costs no allocation
//! between the decoded event and the sink (an other event's field list comes from a pool).

use crate::import::record::{PrevState, TraceSink, WakeKind};
use crate::import::view::{Fields, PayloadView, RecordView};
use std::fmt::Write;

/// An interned string: a comm, an event name, a field name or a string value.
pub type Name = u32;

/// Names interned at start, in this order (their ids are the constants below).
const FIXED: [&str; 7] =
    ["<...>", "<idle>", "", "task_rename", "task_newtask", "sched_process_fork", "sched_process_free"];
pub const UNKNOWN: Name = 0;
pub const IDLE: Name = 1;
pub const EMPTY: Name = 2;
pub const TASK_RENAME: Name = 3;
pub const TASK_NEWTASK: Name = 4;
pub const PROCESS_FORK: Name = 5;
pub const PROCESS_FREE: Name = 6;

/// FNV-1a of the bytes.
fn fnv(s: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in s.as_bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
    }
    h
}

/// Strings to dense ids, in first-seen order: an open-addressing table over a `Vec` (FNV-1a,
/// linear probing, doubled at half full), looked up only, never iterated.
#[derive(Debug)]
pub struct Names {
    /// id + 1 per slot (0: empty); the length is a power of two.
    table: Vec<u32>,
    names: Vec<Box<str>>,
    /// Whether the name can be a task's comm (not empty, not `<...>`-like).
    comm: Vec<bool>,
}

impl Default for Names {
    fn default() -> Self {
        let mut n = Names { table: vec![0; 64], names: Vec::new(), comm: Vec::new() };
        for s in FIXED {
            n.intern(s);
        }
        n
    }
}

impl Names {
    /// The slot holding `s`, or the empty slot where it goes.
    fn slot(&self, s: &str) -> usize {
        let mask = self.table.len() - 1;
        let mut i = fnv(s) as usize & mask;
        loop {
            match self.table[i] {
                0 => return i,
                id if *self.names[id as usize - 1] == *s => return i,
                _ => i = (i + 1) & mask,
            }
        }
    }

    pub fn intern(&mut self, s: &str) -> Name {
        let i = self.slot(s);
        if self.table[i] != 0 {
            return self.table[i] - 1;
        }
        let id = self.names.len() as Name;
        self.names.push(s.into());
        self.comm.push(!s.is_empty() && !s.starts_with('<'));
        self.table[i] = id + 1;
        if self.names.len() * 2 > self.table.len() {
            self.table = vec![0; self.table.len() * 2];
            for k in 0..self.names.len() {
                let j = self.slot(&self.names[k]);
                self.table[j] = k as u32 + 1;
            }
        }
        id
    }

    pub fn get(&self, n: Name) -> &str {
        &self.names[n as usize]
    }

    /// Whether `n` names a task (a record printing `<...>` or nothing teaches no name).
    pub fn is_comm(&self, n: Name) -> bool {
        self.comm[n as usize]
    }
}

/// A number field's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Val {
    Int(i64),
    Uint(u64),
    /// Printed in hex, without `0x` (`task_newtask`'s `clone_flags`).
    Hex(u64),
}

/// An other event's fields as the sink reads them ([`Fields::Spans`]): names and values printed
/// into one text when the event is decoded (a string value is not interned: a generic event's
/// values are as many as its records).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FieldList {
    pub text: String,
    pub spans: Vec<[u32; 4]>,
}

impl FieldList {
    fn field(&mut self, name: &str, value: impl FnOnce(&mut String)) {
        let a = self.text.len() as u32;
        self.text.push_str(name);
        let b = self.text.len() as u32;
        value(&mut self.text);
        self.spans.push([a, b, b, self.text.len() as u32]);
    }

    pub fn push(&mut self, name: &str, v: Val) {
        self.field(name, |t| {
            let _ = match v {
                Val::Int(i) => write!(t, "{i}"),
                Val::Uint(u) => write!(t, "{u}"),
                Val::Hex(x) => write!(t, "{x:x}"),
            };
        });
    }

    pub fn push_str(&mut self, name: &str, v: &str) {
        self.field(name, |t| t.push_str(v));
    }

    pub fn view(&self) -> Fields<'_> {
        Fields::Spans { text: &self.text, spans: &self.spans }
    }

    pub fn clear(&mut self) {
        self.text.clear();
        self.spans.clear();
    }
}

/// The payload of a held record ([`crate::import::record::SchedPayload`] with names interned).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Body {
    Switch {
        prev_comm: Name,
        prev_pid: i32,
        prev_prio: i32,
        prev_state: PrevState,
        next_comm: Name,
        next_pid: i32,
        next_prio: i32,
    },
    Wakeup {
        kind: WakeKind,
        comm: Name,
        pid: i32,
        prio: i32,
        target_cpu: i32,
        success: Option<i32>,
    },
    /// `running` and `load` are Perfetto's own fields (the record's `extra`).
    Migrate {
        comm: Name,
        pid: i32,
        prio: i32,
        orig_cpu: i32,
        dest_cpu: i32,
        running: Option<i32>,
        load: Option<u32>,
    },
    Other {
        event: Name,
        fields: Box<FieldList>,
    },
}

/// A record waiting in the merge (its CPU is its queue's).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Held {
    pub ts: u64,
    /// The current task ([`super::bundle::UNRESOLVED`] until released for a compact record).
    pub pid: i32,
    pub flags: Option<u8>,
    pub body: Body,
}

/// Gives released records to the sink as views; keeps a pool of field lists for the next other
/// events.
#[derive(Debug, Default)]
pub struct Render {
    /// A migration's `extra` fields.
    extra: FieldList,
    /// Boxed as the records hold them (a record stays small; the list moves in and out whole).
    #[allow(clippy::vec_box)]
    pool: Vec<Box<FieldList>>,
}

impl Render {
    /// An empty field list (from the pool).
    pub fn fields(&mut self) -> Box<FieldList> {
        self.pool.pop().unwrap_or_default()
    }

    /// A field list back to the pool.
    pub fn recycle(&mut self, mut fields: Box<FieldList>) {
        fields.clear();
        self.pool.push(fields);
    }

    /// Gives `h` (resolved, with the current task's `comm`) of `cpu` to the sink as record `line`.
    pub fn emit(
        &mut self,
        h: Held,
        cpu: u32,
        comm: Name,
        line: u64,
        names: &Names,
        sink: &mut (impl TraceSink + ?Sized),
    ) {
        let n = |id: Name| names.get(id);
        let event = match &h.body {
            Body::Switch { .. } => "sched_switch",
            Body::Wakeup { kind: WakeKind::Waking, .. } => "sched_waking",
            Body::Wakeup { kind: WakeKind::Wakeup, .. } => "sched_wakeup",
            Body::Wakeup { kind: WakeKind::WakeupNew, .. } => "sched_wakeup_new",
            Body::Migrate { running, load, .. } => {
                self.extra.clear();
                if let Some(r) = running {
                    self.extra.push("running", Val::Int(i64::from(*r)));
                }
                if let Some(l) = load {
                    self.extra.push("load", Val::Uint(u64::from(*l)));
                }
                "sched_migrate_task"
            }
            Body::Other { event, .. } => n(*event),
        };
        let payload = match h.body {
            Body::Switch { prev_comm, prev_pid, prev_prio, prev_state, next_comm, next_pid, next_prio } => {
                PayloadView::Switch {
                    prev_comm: n(prev_comm),
                    prev_pid,
                    prev_prio,
                    prev_state,
                    next_comm: n(next_comm),
                    next_pid,
                    next_prio,
                    extra: Fields::NONE,
                }
            }
            Body::Wakeup { kind, comm, pid, prio, target_cpu, success } => {
                PayloadView::Wakeup { kind, comm: n(comm), pid, prio, target_cpu, success, extra: Fields::NONE }
            }
            Body::Migrate { comm, pid, prio, orig_cpu, dest_cpu, .. } => {
                PayloadView::MigrateTask { comm: n(comm), pid, prio, orig_cpu, dest_cpu, extra: self.extra.view() }
            }
            Body::Other { ref fields, .. } => PayloadView::Other { fields: fields.view(), text: None },
        };
        let view = RecordView { ts_ns: h.ts, cpu, pid: h.pid, comm: n(comm), event, line, flags: h.flags, payload };
        sink.record_view(&view);
        if let Body::Other { fields, .. } = h.body {
            self.recycle(fields);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_keep_their_ids_through_growth() {
        let mut n = Names::default();
        assert_eq!((n.intern("<...>"), n.intern("<idle>"), n.intern("")), (UNKNOWN, IDLE, EMPTY));
        let ids: Vec<Name> = (0..1000).map(|i| n.intern(&format!("task-{i}"))).collect();
        for (i, &id) in ids.iter().enumerate() {
            assert_eq!(n.intern(&format!("task-{i}")), id);
            assert_eq!(n.get(id), format!("task-{i}"));
        }
        assert!(n.is_comm(ids[0]) && !n.is_comm(UNKNOWN) && !n.is_comm(EMPTY));
    }
}
