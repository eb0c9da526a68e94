//! What the time-order merge (`merge.rs`) holds: a record with its strings interned ([`Held`]),
//! and how it is given to the sink when released ([`Render`]: a [`RecordView`] borrowing the
//! names and a field buffer reused from record to record).
//!
//! A Perfetto trace names the same few hundred comms and event fields millions of times; each is
//! interned once ([`Names`]) and a record carries numbers only, so a record costs no allocation
//! between the decoded event and the sink (an other event's field list comes from a pool).

use crate::import::record::{PrevState, TraceSink, WakeKind};
use crate::import::view::{Fields, PayloadView, RecordView};
use std::collections::HashMap;
use std::fmt::Write;
use std::hash::{BuildHasherDefault, Hasher};

/// An interned string: a comm, an event name, a field name or a string value.
pub type Name = u32;

/// Names interned at start, in this order (their ids are the constants below).
const FIXED: [&str; 12] = [
    "<...>",
    "<idle>",
    "",
    "task_rename",
    "task_newtask",
    "sched_process_fork",
    "sched_process_free",
    "pid",
    "newcomm",
    "child_pid",
    "child_comm",
    "comm",
];
pub const UNKNOWN: Name = 0;
pub const IDLE: Name = 1;
pub const EMPTY: Name = 2;
pub const TASK_RENAME: Name = 3;
pub const TASK_NEWTASK: Name = 4;
pub const PROCESS_FORK: Name = 5;
pub const PROCESS_FREE: Name = 6;
pub const PID: Name = 7;
pub const NEWCOMM: Name = 8;
pub const CHILD_PID: Name = 9;
pub const CHILD_COMM: Name = 10;
pub const COMM: Name = 11;

/// FNV-1a over the bytes: a hasher with no random seed (ids are given in first-seen order; the
/// map is only looked up, never iterated).
#[derive(Default)]
pub struct Fnv(u64);

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        let mut h = if self.0 == 0 { 0xcbf2_9ce4_8422_2325 } else { self.0 };
        for &b in bytes {
            h = (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
        }
        self.0 = h;
    }
}

/// Strings to dense ids, in first-seen order.
#[derive(Debug)]
pub struct Names {
    ids: HashMap<Box<str>, Name, BuildHasherDefault<Fnv>>,
    names: Vec<Box<str>>,
    /// Whether the name can be a task's comm (not empty, not `<...>`-like).
    comm: Vec<bool>,
}

impl Default for Names {
    fn default() -> Self {
        let mut n = Names { ids: HashMap::default(), names: Vec::new(), comm: Vec::new() };
        for s in FIXED {
            n.intern(s);
        }
        n
    }
}

impl Names {
    pub fn intern(&mut self, s: &str) -> Name {
        if let Some(&id) = self.ids.get(s) {
            return id;
        }
        let id = self.names.len() as Name;
        self.names.push(s.into());
        self.comm.push(!s.is_empty() && !s.starts_with('<'));
        self.ids.insert(s.into(), id);
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

/// A field value as decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Val {
    Int(i64),
    Uint(u64),
    /// Printed in hex, without `0x` (`task_newtask`'s `clone_flags`).
    Hex(u64),
    /// A string: bytes `start..end` of its [`FieldList`]'s text.
    Text(u32, u32),
}

/// An other event's fields: names interned, values numbers or spans of one text (a string value
/// is not interned: a generic event's values are as many as its records).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FieldList {
    pub fields: Vec<(Name, Val)>,
    pub text: String,
}

impl FieldList {
    pub fn push(&mut self, name: Name, v: Val) {
        self.fields.push((name, v));
    }

    pub fn push_str(&mut self, name: Name, v: &str) {
        let a = self.text.len() as u32;
        self.text.push_str(v);
        self.fields.push((name, Val::Text(a, self.text.len() as u32)));
    }

    /// The value of the first field `name`.
    pub fn get(&self, name: Name) -> Option<Val> {
        self.fields.iter().find(|(n, _)| *n == name).map(|&(_, v)| v)
    }

    /// `v` printed as the text importers see it.
    pub fn write(&self, v: Val, out: &mut String) {
        let _ = match v {
            Val::Int(i) => write!(out, "{i}"),
            Val::Uint(u) => write!(out, "{u}"),
            Val::Hex(x) => write!(out, "{x:x}"),
            Val::Text(a, b) => {
                out.push_str(&self.text[a as usize..b as usize]);
                Ok(())
            }
        };
    }

    /// The value printed (a string for the rare reads of a field by name).
    pub fn string(&self, v: Val) -> String {
        let mut s = String::new();
        self.write(v, &mut s);
        s
    }

    pub fn clear(&mut self) {
        self.fields.clear();
        self.text.clear();
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
        fields: FieldList,
    },
}

/// A record waiting in the merge.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Held {
    pub ts: u64,
    pub cpu: u32,
    /// The current task ([`super::bundle::UNRESOLVED`] until released for a compact record).
    pub pid: i32,
    pub flags: Option<u8>,
    pub body: Body,
}

/// Gives released records to the sink as views; keeps the buffers they borrow and a pool of
/// field lists for the next other events.
#[derive(Debug, Default)]
pub struct Render {
    text: String,
    spans: Vec<[u32; 4]>,
    pool: Vec<FieldList>,
}

impl Render {
    /// An empty field list (from the pool).
    pub fn fields(&mut self) -> FieldList {
        self.pool.pop().unwrap_or_default()
    }

    /// A field list back to the pool.
    pub fn recycle(&mut self, mut fields: FieldList) {
        fields.clear();
        self.pool.push(fields);
    }

    fn put(&mut self, list: &FieldList, key: &str, v: Val) {
        let a = self.text.len() as u32;
        self.text.push_str(key);
        let b = self.text.len() as u32;
        list.write(v, &mut self.text);
        self.spans.push([a, b, b, self.text.len() as u32]);
    }

    /// Gives `h` (resolved, with the current task's `comm`) to the sink as record `line`.
    pub fn emit(&mut self, h: Held, comm: Name, line: u64, names: &Names, sink: &mut (impl TraceSink + ?Sized)) {
        self.text.clear();
        self.spans.clear();
        let n = |id: Name| names.get(id);
        let event = match &h.body {
            Body::Switch { .. } => "sched_switch",
            Body::Wakeup { kind: WakeKind::Waking, .. } => "sched_waking",
            Body::Wakeup { kind: WakeKind::Wakeup, .. } => "sched_wakeup",
            Body::Wakeup { kind: WakeKind::WakeupNew, .. } => "sched_wakeup_new",
            Body::Migrate { running, load, .. } => {
                let none = FieldList::default();
                if let Some(r) = running {
                    self.put(&none, "running", Val::Int(i64::from(*r)));
                }
                if let Some(l) = load {
                    self.put(&none, "load", Val::Uint(u64::from(*l)));
                }
                "sched_migrate_task"
            }
            Body::Other { event, fields } => {
                for &(k, v) in &fields.fields {
                    self.put(fields, n(k), v);
                }
                n(*event)
            }
        };
        let fields = Fields::Spans { text: &self.text, spans: &self.spans };
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
                PayloadView::MigrateTask { comm: n(comm), pid, prio, orig_cpu, dest_cpu, extra: fields }
            }
            Body::Other { .. } => PayloadView::Other { fields, text: None },
        };
        let view =
            RecordView { ts_ns: h.ts, cpu: h.cpu, pid: h.pid, comm: n(comm), event, line, flags: h.flags, payload };
        sink.record_view(&view);
        if let Body::Other { fields, .. } = h.body {
            self.recycle(fields);
        }
    }
}
