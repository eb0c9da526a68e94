//! What the browser's replay view is told about an imported trace, beside the columns: the
//! import report (summary, `.dat` header, timeline and EEVDF-dump facts), the task table, a
//! record and a span as the inspector shows them. Times called `t`, `start` and `end` are ns
//! after the view's origin (the trace's first record). Part of the engine ⇄ UI contract.

use super::align::Alignment;
use super::dat::DatInfo;
use super::inspect::{state_text, view, RecordRef, RecordView};
use super::record::EevdfEntity;
use super::store::TraceStore;
use super::summary::{EevdfTaskRow, ImportSummary};
use super::thread_states::{ThreadState, ThreadStates};
use super::timeline::{TraceTimeline, NONE};
use super::EevdfSample;
use serde::Serialize;
use std::collections::BTreeMap;
use ts_rs::TS;

/// What a trace-cmd `.dat` said about itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct DatReport {
    pub version: u32,
    pub cpus: u32,
    pub clock: String,
    pub compression: String,
    pub page_size: u32,
    pub uname: String,
    pub tracer_version: String,
    pub event_formats: u32,
    pub cmdlines: u32,
    pub records: u64,
    pub lost_events: u64,
    pub skipped: u64,
}

impl From<&DatInfo> for DatReport {
    fn from(d: &DatInfo) -> Self {
        DatReport {
            version: d.version,
            cpus: d.cpus,
            clock: d.clock.clone(),
            compression: d.compression.clone(),
            page_size: d.page_size,
            uname: d.uname.clone(),
            tracer_version: d.tracer_version.clone(),
            event_formats: d.event_formats as u32,
            cmdlines: d.cmdlines as u32,
            records: d.records,
            lost_events: d.lost_events,
            skipped: d.skipped,
        }
    }
}

/// The replay view's timeline of the trace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct TimelineReport {
    /// Trace-clock ns of relative time 0.
    pub origin_ns: u64,
    pub duration_ns: u64,
    pub cpus: u32,
    pub spans: u64,
    /// Spans ended by a record naming another current task (their sched_switch is missing).
    pub missing_switch_outs: u64,
    /// CPU → records whose time was earlier than that CPU's previous record (kept).
    pub out_of_order_by_cpu: BTreeMap<String, u64>,
}

/// The EEVDF samples the view holds (the trace's own dump, or an attached one).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct EevdfReport {
    pub samples: u64,
    pub tasks: Vec<EevdfTaskRow>,
    /// How an attached dump was put on the trace's clock.
    pub alignment: Option<Alignment>,
}

/// `ImportHandle.summary()`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct ImportReport {
    pub summary: ImportSummary,
    pub dat: Option<DatReport>,
    /// Why decoding stopped early (a damaged `.dat`), if it did.
    pub error: Option<String>,
    pub timeline: TimelineReport,
    pub eevdf: EevdfReport,
}

/// Per pid of an EEVDF dump: its comm and how many `S` and `G` lines it has.
pub fn eevdf_tasks(samples: &[EevdfSample]) -> Vec<EevdfTaskRow> {
    let mut rows: BTreeMap<i32, EevdfTaskRow> = BTreeMap::new();
    for e in samples {
        let r = rows.entry(e.pid).or_insert_with(|| EevdfTaskRow {
            pid: e.pid,
            comm: String::new(),
            samples: 0,
            group_samples: 0,
        });
        match &e.entity {
            EevdfEntity::Task { comm, .. } => {
                r.samples += 1;
                if r.comm.is_empty() {
                    r.comm = comm.clone();
                }
            }
            EevdfEntity::Group { .. } => r.group_samples += 1,
        }
    }
    rows.into_values().collect()
}

/// The timeline facts of `store` seen from `origin` to `end` (trace clock).
pub fn timeline_report(store: &TraceStore, tl: Option<&TraceTimeline>, origin: u64, end: u64) -> TimelineReport {
    TimelineReport {
        origin_ns: origin,
        duration_ns: end.saturating_sub(origin),
        cpus: tl.map_or(0, |t| t.ncpus),
        spans: tl.map_or(0, |t| t.len() as u64),
        missing_switch_outs: tl.map_or(0, |t| t.discontinuities),
        out_of_order_by_cpu: store
            .cpus
            .iter()
            .enumerate()
            .filter(|(_, c)| c.out_of_order > 0)
            .map(|(i, c)| (i.to_string(), c.out_of_order))
            .collect(),
    }
}

/// One task generation of the trace; the replay columns' task ids index this table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct TraceTask {
    pub pid: i32,
    pub generation: u32,
    /// The last comm the trace printed for it.
    pub comm: String,
    /// All of them, joined with ` → `.
    pub comms: String,
    pub prio: Option<i32>,
    /// Its process (thread group id) when the trace gives it.
    pub tgid: Option<i32>,
    /// Its time on a CPU over the whole trace (ns).
    pub running_ns: u64,
    /// Its cgroup path (`/sl_A`) where the trace or a layout file says it: the last
    /// `cgroup_attach_task` of it in the trace, its parent's at its fork, else the layout's
    /// `[tasks]` entry ([`super::cgroups::task_cgroups`]).
    pub cgroup: Option<String>,
}

/// The task table of `store`, with each task's running time from `states` (0 without) and
/// its cgroup from the trace, then from `layout` (a layout file's `[tasks]`: comm or
/// `comm-pid` → cgroup path).
pub fn trace_tasks(
    store: &TraceStore,
    states: Option<&ThreadStates>,
    layout: Option<&BTreeMap<String, String>>,
) -> Vec<TraceTask> {
    let mut cgroups = super::cgroups::task_cgroups(store, layout);
    store
        .tasks
        .iter()
        .enumerate()
        .map(|(i, t)| TraceTask {
            cgroup: cgroups[i].take(),
            pid: t.pid,
            generation: t.generation,
            comm: t.comms.last().map_or("<...>", |&c| store.comms.get(c)).to_string(),
            comms: store.task_comm(t),
            prio: t.prio,
            tgid: t.tgid,
            running_ns: states.and_then(|s| s.totals.get(i)).map_or(0, |a| a[ThreadState::Running as usize]),
        })
        .collect()
}

/// A record as the inspector shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct TraceRecordView {
    #[serde(flatten)]
    #[ts(flatten)]
    pub record: RecordView,
    /// ns after the origin.
    pub t: u64,
}

/// `r` of `store`, timed from `origin`.
pub fn record_view(store: &TraceStore, r: RecordRef, origin: u64) -> TraceRecordView {
    let record = view(store, r);
    let t = record.ts_ns.saturating_sub(origin);
    TraceRecordView { record, t }
}

/// A span of the replay view with the switches that began and ended it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct SpanInfo {
    pub index: u32,
    pub cpu: u32,
    pub task: u32,
    pub pid: i32,
    pub comm: String,
    pub prio: Option<i32>,
    pub start: u64,
    pub end: u64,
    /// As the kernel prints the state it ended in (`R`, `R+`, `S`, …, or `running`).
    pub state: String,
    pub state_code: u32,
    pub switch_in: Option<TraceRecordView>,
    pub switch_out: Option<TraceRecordView>,
}

/// Span `index` of `tl`, or None past the end.
pub fn span_info(store: &TraceStore, tl: &TraceTimeline, index: usize, origin: u64) -> Option<SpanInfo> {
    if index >= tl.len() {
        return None;
    }
    let t = &store.tasks[tl.task[index] as usize];
    let sw = |k: u32| (k != NONE).then(|| record_view(store, RecordRef::Switch(k as usize), origin));
    let cpu = tl.cpu_first.partition_point(|&f| f as usize <= index).saturating_sub(1);
    Some(SpanInfo {
        index: index as u32,
        cpu: cpu as u32,
        task: tl.task[index],
        pid: t.pid,
        comm: store.task_comm(t),
        prio: t.prio,
        start: tl.start[index].saturating_sub(origin),
        end: tl.end[index].saturating_sub(origin),
        state: state_text(tl.state[index]),
        state_code: tl.state[index],
        switch_in: sw(tl.switch_in[index]),
        switch_out: sw(tl.switch_out[index]),
    })
}
