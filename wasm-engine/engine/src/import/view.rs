//! [`RecordView`]: a [`TraceRecord`] whose strings are borrowed, for importers that keep their
//! names elsewhere (the Perfetto importer's interned comms and event names) and would otherwise
//! allocate every comm, event name and field of every record only for the sink to intern them
//! again. [`TraceSink::record_view`](super::record::TraceSink::record_view) takes it; a sink that
//! only implements `record` gets an owned copy ([`RecordView::to_record`]). A `TraceRecord` is
//! viewed without copying ([`TraceRecord::view`]).

use super::record::{PrevState, SchedPayload, TraceRecord, WakeKind};

/// Fields as `(name, value)` pairs: the owned pairs of a [`TraceRecord`], or names and values
/// as byte spans of one text (an importer renders them into a buffer it reuses).
#[derive(Clone, Copy, Debug)]
pub enum Fields<'a> {
    Pairs(&'a [(String, String)]),
    /// Each field as `[name start, name end, value start, value end]` in `text`.
    Spans {
        text: &'a str,
        spans: &'a [[u32; 4]],
    },
}

impl<'a> Fields<'a> {
    pub const NONE: Fields<'static> = Fields::Pairs(&[]);

    pub fn len(&self) -> usize {
        match self {
            Fields::Pairs(p) => p.len(),
            Fields::Spans { spans, .. } => spans.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Field `i` as (name, value).
    pub fn at(&self, i: usize) -> (&'a str, &'a str) {
        match *self {
            Fields::Pairs(p) => (p[i].0.as_str(), p[i].1.as_str()),
            Fields::Spans { text, spans } => {
                let [a, b, c, d] = spans[i];
                (&text[a as usize..b as usize], &text[c as usize..d as usize])
            }
        }
    }

    pub fn iter(self) -> impl Iterator<Item = (&'a str, &'a str)> {
        (0..self.len()).map(move |i| self.at(i))
    }

    /// The value of the first field named `name`.
    pub fn get(self, name: &str) -> Option<&'a str> {
        self.iter().find(|(n, _)| *n == name).map(|(_, v)| v)
    }

    pub fn to_pairs(self) -> Vec<(String, String)> {
        self.iter().map(|(n, v)| (n.to_string(), v.to_string())).collect()
    }
}

/// [`SchedPayload`] with borrowed strings.
#[derive(Clone, Copy, Debug)]
pub enum PayloadView<'a> {
    Switch {
        prev_comm: &'a str,
        prev_pid: i32,
        prev_prio: i32,
        prev_state: PrevState,
        next_comm: &'a str,
        next_pid: i32,
        next_prio: i32,
        extra: Fields<'a>,
    },
    Wakeup {
        kind: WakeKind,
        comm: &'a str,
        pid: i32,
        prio: i32,
        target_cpu: i32,
        success: Option<i32>,
        extra: Fields<'a>,
    },
    MigrateTask {
        comm: &'a str,
        pid: i32,
        prio: i32,
        orig_cpu: i32,
        dest_cpu: i32,
        extra: Fields<'a>,
    },
    Other {
        fields: Fields<'a>,
        text: Option<&'a str>,
    },
}

/// [`TraceRecord`] with borrowed strings (the same fields, the same meaning).
#[derive(Clone, Copy, Debug)]
pub struct RecordView<'a> {
    pub ts_ns: u64,
    pub cpu: u32,
    pub pid: i32,
    pub comm: &'a str,
    pub event: &'a str,
    pub line: u64,
    pub flags: Option<u8>,
    pub payload: PayloadView<'a>,
}

impl TraceRecord {
    /// The record as a view (nothing copied).
    pub fn view(&self) -> RecordView<'_> {
        let payload = match &self.payload {
            SchedPayload::Switch {
                prev_comm,
                prev_pid,
                prev_prio,
                prev_state,
                next_comm,
                next_pid,
                next_prio,
                extra,
            } => PayloadView::Switch {
                prev_comm,
                prev_pid: *prev_pid,
                prev_prio: *prev_prio,
                prev_state: *prev_state,
                next_comm,
                next_pid: *next_pid,
                next_prio: *next_prio,
                extra: Fields::Pairs(extra),
            },
            SchedPayload::Wakeup { kind, comm, pid, prio, target_cpu, success, extra } => PayloadView::Wakeup {
                kind: *kind,
                comm,
                pid: *pid,
                prio: *prio,
                target_cpu: *target_cpu,
                success: *success,
                extra: Fields::Pairs(extra),
            },
            SchedPayload::MigrateTask { comm, pid, prio, orig_cpu, dest_cpu, extra } => PayloadView::MigrateTask {
                comm,
                pid: *pid,
                prio: *prio,
                orig_cpu: *orig_cpu,
                dest_cpu: *dest_cpu,
                extra: Fields::Pairs(extra),
            },
            SchedPayload::Other { fields, text } => {
                PayloadView::Other { fields: Fields::Pairs(fields), text: text.as_deref() }
            }
        };
        RecordView {
            ts_ns: self.ts_ns,
            cpu: self.cpu,
            pid: self.pid,
            comm: &self.comm,
            event: &self.event,
            line: self.line,
            flags: self.flags,
            payload,
        }
    }
}

impl RecordView<'_> {
    /// An owned copy.
    pub fn to_record(&self) -> TraceRecord {
        let payload = match self.payload {
            PayloadView::Switch {
                prev_comm,
                prev_pid,
                prev_prio,
                prev_state,
                next_comm,
                next_pid,
                next_prio,
                extra,
            } => SchedPayload::Switch {
                prev_comm: prev_comm.to_string(),
                prev_pid,
                prev_prio,
                prev_state,
                next_comm: next_comm.to_string(),
                next_pid,
                next_prio,
                extra: extra.to_pairs(),
            },
            PayloadView::Wakeup { kind, comm, pid, prio, target_cpu, success, extra } => SchedPayload::Wakeup {
                kind,
                comm: comm.to_string(),
                pid,
                prio,
                target_cpu,
                success,
                extra: extra.to_pairs(),
            },
            PayloadView::MigrateTask { comm, pid, prio, orig_cpu, dest_cpu, extra } => SchedPayload::MigrateTask {
                comm: comm.to_string(),
                pid,
                prio,
                orig_cpu,
                dest_cpu,
                extra: extra.to_pairs(),
            },
            PayloadView::Other { fields, text } => {
                SchedPayload::Other { fields: fields.to_pairs(), text: text.map(str::to_string) }
            }
        };
        TraceRecord {
            ts_ns: self.ts_ns,
            cpu: self.cpu,
            pid: self.pid,
            comm: self.comm.to_string(),
            event: self.event.to_string(),
            line: self.line,
            flags: self.flags,
            payload,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_viewed_and_copied_back_is_equal() {
        let rec = TraceRecord {
            ts_ns: 5,
            cpu: 1,
            pid: 7,
            comm: "a".into(),
            event: "sched_stat_runtime".into(),
            line: 3,
            flags: Some(1),
            payload: SchedPayload::Other { fields: vec![("comm".into(), "a".into())], text: None },
        };
        assert_eq!(rec.view().to_record(), rec);
        let text = "pid12runtime40";
        let f = Fields::Spans { text, spans: &[[0, 3, 3, 5], [5, 12, 12, 14]] };
        assert_eq!(f.get("runtime"), Some("40"));
        assert_eq!(
            f.to_pairs(),
            vec![("pid".to_string(), "12".to_string()), ("runtime".to_string(), "40".to_string())]
        );
    }
}
