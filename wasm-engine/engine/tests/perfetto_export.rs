//! A simulated run as a Perfetto trace (`obs::perfetto`), read back by the Perfetto importer:
//!
//! * the same numbers of `sched_switch`, `sched_waking`/`sched_wakeup`, `sched_wakeup_new` and
//!   `sched_migrate_task` as the model's log has switches, wakeups, new-task wakeups and
//!   migrations, and no record skipped nor any span cut short (no discontinuity);
//! * the same per-task CPU time, exactly: the importer's timeline spans against the model's
//!   summary closed at the trace's last record (a trace ends with its last record, the model's
//!   summary at the scenario's end; closing both at the same instant leaves no tolerance);
//! * the thread groups (a cgroup's tasks in one process) and the `TrackEvent` part decoded with
//!   the generated types: four counter tracks per task whose values are the log's samples,
//!   one instant per pick with its "why" words, one per placement and migration.
#![allow(clippy::disallowed_methods)] // reads scenario files

use prost::Message;
use schedlab_engine::import::perfetto::import_perfetto;
use schedlab_engine::import::perfetto::pb::debug_annotation::Value as AnnValue;
use schedlab_engine::import::perfetto::pb::trace_packet::Data;
use schedlab_engine::import::perfetto::pb::track_descriptor::StaticOrDynamicName;
use schedlab_engine::import::perfetto::pb::track_event::{CounterValueField, NameField, Type};
use schedlab_engine::import::perfetto::pb::Trace;
use schedlab_engine::import::timeline::TraceTimeline;
use schedlab_engine::import::TraceStore;
use schedlab_engine::obs::log::{EventKind, NO_TASK};
use schedlab_engine::obs::perfetto::{export, CGROUP_PID_BASE, MODEL_RELEASE, TASK_PID_BASE};
use schedlab_engine::obs::summary::Summary;
use schedlab_engine::sim::Simulation;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

fn run(path: &str) -> Simulation {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(path);
    let text = std::fs::read_to_string(&file).expect("scenario");
    let (_, mut sim) = schedlab_engine::load(path, &text, &[]).expect("loads");
    sim.run();
    sim
}

fn kind_count(sim: &Simulation, k: EventKind) -> u64 {
    sim.fair.log.events.kind.iter().filter(|&x| x == k as u8).count() as u64
}

/// CPU time per pid from the importer's timeline spans (idle left out; a slot reused by a
/// fork's child sums over its generations, as the model's summary sums over the slot).
fn cpu_time(store: &TraceStore) -> BTreeMap<i32, u64> {
    let tl = TraceTimeline::build(store);
    assert_eq!(tl.discontinuities, 0, "every record names the task its CPU runs");
    let mut m = BTreeMap::new();
    for i in 0..tl.task.len() {
        let t = &store.tasks[tl.task[i] as usize];
        if t.pid != 0 {
            *m.entry(t.pid).or_insert(0) += tl.end[i] - tl.start[i];
        }
    }
    m
}

/// `path` run and exported; `want` says which of wakeups, migrations and cgroups it has.
fn check(path: &str, want: [bool; 3]) {
    let [want_wakeups, want_migrations, want_cgroups] = want;
    let sim = run(path);
    let bytes = export(&sim);
    let mut store = TraceStore::new();
    let stats = import_perfetto(&bytes, &mut store);
    assert!(store.skipped.is_empty(), "{path}: {:?}", store.skipped);
    assert_eq!(stats.skipped_packets, 0, "{path}");
    assert_eq!(stats.merge_inversions, 0, "{path}");
    assert_eq!(stats.kernel.as_deref(), Some(MODEL_RELEASE), "{path}");
    assert_eq!(store.meta.get("cpus"), Some(&sim.cpus.len().to_string()), "{path}");

    // Counts.
    let wakeups = kind_count(&sim, EventKind::Wakeup);
    let migrations = kind_count(&sim, EventKind::Migrate);
    assert_eq!(store.count("sched_switch"), kind_count(&sim, EventKind::Switch), "{path}");
    assert_eq!(store.count("sched_waking"), wakeups, "{path}");
    assert_eq!(store.count("sched_wakeup"), wakeups, "{path}");
    assert_eq!(store.count("sched_wakeup_new"), kind_count(&sim, EventKind::WakeupNew), "{path}");
    assert_eq!(store.count("sched_migrate_task"), migrations, "{path}");
    assert_eq!(store.count("sched_process_exit"), kind_count(&sim, EventKind::Exit), "{path}");
    assert_eq!(wakeups > 0, want_wakeups, "{path}: wakeups {wakeups}");
    assert_eq!(migrations > 0, want_migrations, "{path}: migrations {migrations}");

    // Per-task CPU time, the model's summary closed where the trace ends.
    let names: Vec<String> = sim.tasks.iter().map(|t| t.cfg.name.clone()).collect();
    let model = Summary::from_log(&sim.fair.log, &names, sim.cpus.len() as u32, store.last_ts);
    assert_eq!(model.switches, store.count("sched_switch"), "{path}: the summary's switches");
    let got = cpu_time(&store);
    for (i, t) in model.tasks.iter().enumerate() {
        let pid = TASK_PID_BASE + i as i32;
        assert_eq!(got.get(&pid).copied().unwrap_or(0), t.cpu_time_ns, "{path}: {} CPU time", t.name);
    }
    assert!(got.keys().all(|&p| p >= TASK_PID_BASE && p < TASK_PID_BASE + names.len() as i32), "{path}");
    let total: u64 = got.values().sum();
    assert!(total > 0, "{path}");

    // Names and thread groups.
    for (i, t) in sim.tasks.iter().enumerate() {
        let pid = TASK_PID_BASE + i as i32;
        let task = store.tasks.iter().find(|x| x.pid == pid).unwrap_or_else(|| panic!("{path}: pid {pid}"));
        assert_eq!(store.task_comm(task), t.cfg.name, "{path}");
        let tgid = if t.cfg.tg == 0 { pid } else { CGROUP_PID_BASE + t.cfg.tg as i32 };
        assert_eq!(task.tgid, Some(tgid), "{path}: {}", t.cfg.name);
    }
    assert_eq!(sim.tasks.iter().any(|t| t.cfg.tg != 0), want_cgroups, "{path}");

    // The TrackEvent part.
    let trace = Trace::decode(&bytes[..]).expect("decodes");
    let mut track_names: BTreeMap<u64, (Option<u64>, String)> = BTreeMap::new();
    let mut counters: BTreeMap<u64, Vec<(u64, i64)>> = BTreeMap::new();
    let mut instants: BTreeMap<String, Vec<(u64, String)>> = BTreeMap::new();
    let mut threads = BTreeSet::new();
    for p in &trace.packet {
        match &p.data {
            Some(Data::TrackDescriptor(d)) => {
                if let Some(th) = &d.thread {
                    threads.insert(th.tid.expect("tid"));
                }
                let name = match &d.static_or_dynamic_name {
                    Some(StaticOrDynamicName::Name(n)) => n.clone(),
                    None => String::new(),
                };
                track_names.insert(d.uuid.expect("uuid"), (d.parent_uuid, name));
            }
            Some(Data::TrackEvent(e)) => {
                let ts = p.timestamp.expect("timestamped");
                let track = e.track_uuid.expect("on a track");
                match e.r#type {
                    Some(t) if t == Type::Counter as i32 => {
                        let Some(CounterValueField::CounterValue(v)) = e.counter_value_field else { panic!("value") };
                        counters.entry(track).or_default().push((ts, v));
                    }
                    Some(t) if t == Type::Instant as i32 => {
                        let (_, track_name) = &track_names[&track];
                        let Some(NameField::Name(title)) = &e.name_field else { panic!("named") };
                        let why = e.debug_annotations.iter().find_map(|a| match &a.value {
                            Some(AnnValue::StringValue(s)) => Some(s.clone()),
                            _ => None,
                        });
                        let why = why.expect("a why");
                        assert!(!why.is_empty(), "{title}");
                        let kind = track_name.split_whitespace().nth(2).expect("CPU n kind").to_string();
                        instants.entry(kind).or_default().push((ts, title.clone()));
                    }
                    other => panic!("{path}: track event type {other:?}"),
                }
            }
            _ => {}
        }
    }
    assert_eq!(threads.len(), sim.tasks.len(), "{path}: a thread track per task");
    // Every task's vruntime counter: the distinct successive values of its samples.
    let s = &sim.fair.log.samples;
    for task in 0..sim.tasks.len() as u32 {
        let mut want: Vec<(u64, i64)> = Vec::new();
        for i in (0..s.t.len()).filter(|&i| s.task[i] == task) {
            if want.last().map(|w| w.1) != Some(s.vruntime[i] as i64) {
                want.push((s.t[i], s.vruntime[i] as i64));
            }
        }
        let vr = track_names
            .iter()
            .find(|(_, (parent, name))| name == "vruntime" && parent.is_some_and(|p| p == 0x1_0000_0000 + task as u64))
            .map(|(&u, _)| u)
            .expect("a vruntime track");
        assert_eq!(counters.get(&vr).cloned().unwrap_or_default(), want, "{path}: task {task} vruntime");
    }
    assert_eq!(instants.get("picks").map_or(0, Vec::len), sim.fair.log.picks.t.len(), "{path}: picks");
    let placements = kind_count(&sim, EventKind::SelectRq) + migrations;
    assert_eq!(instants.get("placements").map_or(0, Vec::len) as u64, placements, "{path}: placements");
    let balance = (0..sim.fair.log.events.t.len())
        .filter(|&i| sim.fair.log.events.kind[i] == EventKind::Balance as u8 && sim.fair.log.events.task[i] == NO_TASK)
        .count();
    assert_eq!(instants.get("balance").map_or(0, Vec::len), balance, "{path}: balance passes");
    eprintln!(
        "{path}: {} bytes; {} switches, {wakeups} wakeups, {migrations} migrations, {} picks, {} placements, {balance} balance passes; {} counter values",
        bytes.len(),
        store.count("sched_switch"),
        sim.fair.log.picks.t.len(),
        placements,
        counters.values().map(Vec::len).sum::<usize>()
    );
}

#[test]
fn gallery_run_round_trips() {
    check("scenarios/gallery/sleeper-vs-hog.toml", [true, false, false]);
}

#[test]
fn fork_burst_round_trips() {
    // Children exit and their slots are reused: each exit's pid comes back as a new task.
    check("scenarios/gallery/fork-burst.toml", [true, true, false]);
}

#[test]
fn smp_run_with_migrations_round_trips() {
    check("scenarios/linux-6.18-smp/sleepers-and-hogs-smp.toml", [true, true, false]);
}

#[test]
fn cgroup_run_round_trips() {
    check("scenarios/linux-6.18-smp/cgroup-shares-smp.toml", [false, true, true]);
    check("scenarios/lessons/cgroup-levels.toml", [true, false, true]);
}

/// CFS bandwidth: throttled tasks leave their CPU (`R+`) and come back.
#[test]
fn bandwidth_run_round_trips() {
    check("scenarios/linux-6.18/bandwidth-30-of-100.toml", [false, false, true]);
}

/// The same run gives the same bytes.
#[test]
fn export_is_deterministic() {
    let a = export(&run("scenarios/gallery/spread-unpinned.toml"));
    let b = export(&run("scenarios/gallery/spread-unpinned.toml"));
    assert_eq!(a, b);
}
