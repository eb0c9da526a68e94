//! Perfetto protobuf import (`import::perfetto`).
//!
//! * The three third-party Perfetto traces (`perfetto/` under `SCHEDLAB_THIRD_PARTY_TRACES`: a
//!   22-CPU desktop written by systing with `compact_sched` only, a Galaxy S20 on Android 11, an
//!   Android 12 emulator) against the counts of their `counts.json`, which two independent
//!   decoders agree on: every sched event count, the CPUs holding sched events and their switch
//!   counts, the distinct pids, the first and last sched timestamps, packets and bundles.
//! * The repository's own fixtures: captures of `traces/linux-6.18` re-encoded as Perfetto by
//!   the engine's encoder (regular events, and `compact_sched`), imported back: the same
//!   switches, wakeups and per-task CPU time as the original.
#![allow(clippy::disallowed_methods)] // reads trace files
mod common;

use schedlab_engine::import::perfetto::{import_perfetto, PerfettoStats};
use schedlab_engine::import::{ImportStats, ImportSummary, TraceStore};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// What counts.json counts, computed from the store.
fn counted(store: &TraceStore, stats: &PerfettoStats) -> BTreeMap<&'static str, Value> {
    let mut m = BTreeMap::new();
    for ev in [
        "sched_switch",
        "sched_waking",
        "sched_wakeup",
        "sched_wakeup_new",
        "sched_migrate_task",
        "sched_process_exit",
        "sched_process_fork",
        "sched_process_free",
    ] {
        m.insert(ev, Value::from(store.count(ev)));
    }
    m.insert("sched_switch_compact", Value::from(stats.compact_switches));
    m.insert("sched_waking_compact", Value::from(stats.compact_wakings));
    m.insert("sched_switch_regular", Value::from(store.count("sched_switch") - stats.compact_switches));
    m.insert("sched_waking_regular", Value::from(store.count("sched_waking") - stats.compact_wakings));
    m.insert("packets", Value::from(stats.packets));
    m.insert("ftrace_bundles", Value::from(stats.ftrace_bundles));
    m.insert("compact_sched_bundles", Value::from(stats.compact_sched_bundles));
    m.insert("compressed_packet_containers", Value::from(stats.compressed_containers));
    m.insert("bundles_with_lost_events", Value::from(store.lost.len() as u64));
    // Sched events: switches, wakeups, migrations, process exit/fork/free.
    let sched_others: BTreeSet<u32> = ["sched_process_exit", "sched_process_fork", "sched_process_free"]
        .iter()
        .filter_map(|e| store.events.id(e))
        .collect();
    let mut ts: Vec<u64> = Vec::new();
    ts.extend(&store.switches.ts);
    ts.extend(&store.wakeups.ts);
    ts.extend(&store.migrations.ts);
    let mut cpus: BTreeSet<u32> = BTreeSet::new();
    cpus.extend(&store.switches.cpu);
    cpus.extend(&store.wakeups.cpu);
    cpus.extend(&store.migrations.cpu);
    for i in 0..store.others.ts.len() {
        if sched_others.contains(&store.others.event[i]) {
            ts.push(store.others.ts[i]);
            cpus.insert(store.others.cpu[i]);
        }
    }
    let (first, last) = (ts.iter().min().copied().unwrap_or(0), ts.iter().max().copied().unwrap_or(0));
    m.insert("sched_ts_first", Value::from(first));
    m.insert("sched_ts_last", Value::from(last));
    m.insert("span_ns", Value::from(last - first));
    m.insert("cpus", Value::from(cpus.len()));
    m.insert("cpu_ids", Value::from(cpus.iter().copied().collect::<Vec<_>>()));
    let mut per_cpu: BTreeMap<String, u64> = BTreeMap::new();
    for &c in &store.switches.cpu {
        *per_cpu.entry(c.to_string()).or_default() += 1;
    }
    m.insert("sched_switch_per_cpu", serde_json::to_value(per_cpu).unwrap());
    // Switch prev/next and wakee pids (a compact switch's prev is the previous next, or −1 when
    // unknown, which counts.json does not count).
    let pid = |t: &u32| store.tasks[*t as usize].pid;
    let mut pids: BTreeSet<i32> = BTreeSet::new();
    pids.extend(store.switches.prev.iter().map(pid));
    pids.extend(store.switches.next.iter().map(pid));
    pids.extend(store.wakeups.wakee.iter().map(pid));
    pids.remove(&-1);
    m.insert("distinct_pids", Value::from(pids.len()));
    m
}

#[test]
fn third_party_traces_match_their_counts() {
    let Some(dir) = common::third_party("perfetto_counts", "Perfetto traces of systing and Microsoft's test data")
    else {
        return;
    };
    let dir = dir.join("perfetto");
    let counts: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("counts.json")).expect("counts.json"))
        .expect("counts.json parses");
    let files = counts.as_object().expect("an object of files");
    assert_eq!(files.len(), 3, "counts.json lists the three traces");
    for (name, want) in files {
        let bytes = std::fs::read(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut store = TraceStore::new();
        // The CLI's and the worker's chunk sizes, and one odd size: the same store.
        let stats = import_perfetto(&bytes, &mut store);
        assert_eq!(stats.error, None, "{name}");
        assert!(store.skipped.is_empty(), "{name}: skipped {:?}", store.skipped);
        let got = counted(&store, &stats);
        let mut checked = 0;
        for (key, value) in &got {
            if let Some(w) = want.get(*key) {
                assert_eq!(value, w, "{name}: {key}");
                checked += 1;
            }
        }
        assert!(checked >= 20, "{name}: only {checked} keys compared");
        eprintln!(
            "{name}: sched_switch {} (compact {}), sched_waking {}, sched_wakeup {}, sched_wakeup_new {}, cpus {}, pids {}, span {} ns, exit {}, free {}; {} records, {} merge inversions",
            got["sched_switch"],
            got["sched_switch_compact"],
            got["sched_waking"],
            got["sched_wakeup"],
            got["sched_wakeup_new"],
            got["cpus"],
            got["distinct_pids"],
            got["span_ns"],
            got["sched_process_exit"],
            got["sched_process_free"],
            stats.records,
            stats.merge_inversions
        );
        let summary = ImportSummary::new(
            &ImportStats {
                bytes: stats.bytes,
                records: stats.records,
                binary: Some("Perfetto protobuf trace"),
                ..Default::default()
            },
            &store,
        );
        assert_eq!(summary.total_events, stats.records);
        assert_eq!(summary.out_of_order, 0, "{name}: each CPU's records in time order");
        assert!(summary.tasks.iter().any(|t| t.comm != "<...>"), "{name}: task names");
        // Thread groups from the process tree: the Android 12 trace's lists threads with their
        // tgid, so some process has several threads on the thread-state tracks (the S20's and
        // systing's list processes only).
        let mut groups: BTreeMap<i32, usize> = BTreeMap::new();
        for t in store.tasks.iter().filter(|t| t.pid != 0) {
            if let Some(g) = t.tgid {
                *groups.entry(g).or_default() += 1;
            }
        }
        let grouped = store.tasks.iter().filter(|t| t.tgid.is_some()).count();
        eprintln!("{name}: {grouped} of {} tasks with a thread group, {} groups", store.tasks.len(), groups.len());
        if name.starts_with("ms_android12") {
            assert!(groups.values().filter(|&&n| n > 1).count() >= 10, "{name}: processes with two threads or more");
        }
    }
}

/// CPU time per task (pid, generation) from the replay timeline's spans (idle left out). (Not
/// keyed by the comm chain: the encoder gives every record of a task its last comm.)
fn cpu_time(store: &TraceStore) -> BTreeMap<(i32, u32), u64> {
    let tl = schedlab_engine::import::timeline::TraceTimeline::build(store);
    let mut m = BTreeMap::new();
    for i in 0..tl.task.len() {
        let t = &store.tasks[tl.task[i] as usize];
        if t.pid != 0 {
            *m.entry((t.pid, t.generation)).or_insert(0) += tl.end[i] - tl.start[i];
        }
    }
    m
}

/// The counts a round trip keeps.
fn sched_counts(store: &TraceStore) -> BTreeMap<&'static str, u64> {
    ["sched_switch", "sched_waking", "sched_wakeup", "sched_wakeup_new", "sched_migrate_task"]
        .into_iter()
        .map(|e| (e, store.count(e)))
        .collect()
}

/// Our captures, re-encoded in both forms and in chunks of the CLI's and the worker's sizes,
/// import back with the same counts and per-task CPU time.
#[test]
fn our_captures_round_trip_through_perfetto() {
    use schedlab_engine::import::perfetto::encode::{encode, Form};
    use schedlab_engine::import::perfetto::PerfettoImporter;
    for capture in [
        "linux-6.18/nice-0-vs-2/trace.txt",
        "linux-6.18-smp/sleepers-and-hogs-smp/trace.txt",
        "capture-example/trace.txt",
    ] {
        let text = std::fs::read(common::traces().join(capture)).expect("capture");
        let (orig, _) = schedlab_engine::import::import_text(&text);
        assert!(orig.count("sched_switch") > 500, "{capture}");
        let want = (sched_counts(&orig), cpu_time(&orig));
        let orig_gaps = schedlab_engine::import::timeline::TraceTimeline::build(&orig).discontinuities;
        for form in [Form::Regular, Form::Compact] {
            let bytes = encode(&orig, form);
            for chunk in [1 << 20, 4 << 20, 4093] {
                let mut back = TraceStore::new();
                let mut imp = PerfettoImporter::new();
                for c in bytes.chunks(chunk) {
                    imp.feed(c, &mut back);
                }
                imp.finish(&mut back);
                assert!(back.skipped.is_empty(), "{capture} {form:?}: {:?}", back.skipped);
                assert_eq!(imp.stats().merge_inversions, 0);
                assert_eq!(sched_counts(&back), want.0, "{capture} {form:?}");
                let got = cpu_time(&back);
                if form == Form::Regular || orig_gaps == 0 || want.0["sched_waking"] == 0 {
                    assert_eq!(got, want.1, "{capture} {form:?}: per-task CPU time");
                } else {
                    // compact_sched does not carry a waking's waker: it is taken to be the CPU's
                    // current task. Where the capture's own records name another current task
                    // than its switches (`orig_gaps` missing switch-outs), the timeline ends a
                    // span at a different record: a few µs at most per task.
                    assert_eq!(got.keys().collect::<Vec<_>>(), want.1.keys().collect::<Vec<_>>());
                    for (k, v) in &got {
                        assert!(
                            v.abs_diff(want.1[k]) <= 10_000,
                            "{capture} {form:?}: task {k:?}: {v} vs {}",
                            want.1[k]
                        );
                    }
                }
                if form == Form::Compact {
                    assert_eq!(imp.stats().compact_switches, want.0["sched_switch"]);
                    assert_eq!(imp.stats().compact_wakings, want.0["sched_waking"]);
                }
                // Other events (sched_stat_runtime as GenericFtraceEvent, fork and exit) too.
                assert_eq!(back.records, orig.records, "{capture} {form:?}");
            }
            eprintln!(
                "{capture} {form:?}: {} bytes of text → {} bytes of Perfetto; counts {:?}",
                text.len(),
                bytes.len(),
                want.0
            );
        }
    }
}

/// The committed fixtures are what the encoder writes from their captures, and read back with
/// their counts.
#[test]
fn committed_fixtures_are_the_encoders_output() {
    use schedlab_engine::import::perfetto::encode::{encode, Form};
    let dir = common::repo_root().join("wasm-engine/engine/tests/fixtures/perfetto");
    for (fixture, capture, form) in [
        ("nice-0-vs-2.compact.pftrace", "linux-6.18/nice-0-vs-2/trace.txt", Form::Compact),
        ("capture-example.pftrace", "capture-example/trace.txt", Form::Regular),
    ] {
        let (orig, _) = schedlab_engine::import::import_text(&std::fs::read(common::traces().join(capture)).unwrap());
        let committed = std::fs::read(dir.join(fixture)).expect("fixture");
        assert!(
            committed == encode(&orig, form),
            "{fixture} differs from the encoder's output: regenerate it (tests/fixtures/README.md)"
        );
        let mut back = TraceStore::new();
        let stats = import_perfetto(&committed, &mut back);
        assert_eq!(stats.error, None);
        assert_eq!(sched_counts(&back), sched_counts(&orig), "{fixture}");
        assert_eq!(back.records, orig.records, "{fixture}");
    }
}

/// Damage is located and never a panic: every cut of a fixture, and flipped bytes.
#[test]
fn damaged_traces_give_located_skips() {
    let bytes = std::fs::read(
        common::repo_root().join("wasm-engine/engine/tests/fixtures/perfetto/nice-0-vs-2.compact.pftrace"),
    )
    .unwrap();
    let mut whole = TraceStore::new();
    let full = import_perfetto(&bytes, &mut whole).records;
    // Cut inside the second packet: the first packet (the process tree) reads, the rest is one
    // located error.
    let mut s = TraceStore::new();
    let st = import_perfetto(&bytes[..bytes.len() / 2], &mut s);
    let err = st.error.expect("a cut trace is an error");
    assert!(err.contains("byte ") && err.contains("ends"), "{err}");
    assert!(s.skipped.keys().any(|r| r.contains("the file ends")), "{:?}", s.skipped);
    assert!(st.records < full);
    // Flipped bytes at many places: never a panic, records never more than the whole file's
    // plus what garbage may frame.
    let mut rng = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..200 {
        let mut b = bytes.clone();
        for _ in 0..4 {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            let i = (rng % b.len() as u64) as usize;
            b[i] ^= (rng >> 32) as u8 | 1;
        }
        let mut s = TraceStore::new();
        let st = import_perfetto(&b, &mut s);
        assert_eq!(st.records, s.records);
        for (reason, g) in &s.skipped {
            assert!(!reason.is_empty() && g.count > 0);
        }
    }
}

/// `compressed_packets` (zlib, as traced writes them) and `zstd_compressed_packets` containers
/// read as the packets they hold.
#[test]
fn compressed_containers_read_as_their_packets() {
    use prost::encoding::{encode_key, encode_varint, WireType};
    let bytes =
        std::fs::read(common::repo_root().join("wasm-engine/engine/tests/fixtures/perfetto/capture-example.pftrace"))
            .unwrap();
    let mut plain = TraceStore::new();
    let want = import_perfetto(&bytes, &mut plain);
    let container = |field: u32, data: Vec<u8>| {
        let mut packet = Vec::new();
        encode_key(field, WireType::LengthDelimited, &mut packet);
        encode_varint(data.len() as u64, &mut packet);
        packet.extend_from_slice(&data);
        let mut trace = Vec::new();
        encode_key(1, WireType::LengthDelimited, &mut trace);
        encode_varint(packet.len() as u64, &mut trace);
        trace.extend_from_slice(&packet);
        trace
    };
    let zlib = container(50, miniz_oxide::deflate::compress_to_vec_zlib(&bytes, 6));
    let mut z = TraceStore::new();
    let got = import_perfetto(&zlib, &mut z);
    assert_eq!(got.compressed_containers, 1);
    assert_eq!(got.packets, want.packets, "the container is not a packet of its own");
    assert_eq!((z.records, sched_counts(&z)), (plain.records, sched_counts(&plain)));
    assert!(z.skipped.is_empty());
    // Damaged compressed data: one located skip, no records.
    let mut bad = miniz_oxide::deflate::compress_to_vec_zlib(&bytes, 6);
    bad.truncate(bad.len() / 3);
    let mut d = TraceStore::new();
    import_perfetto(&container(50, bad), &mut d);
    assert_eq!(d.records, 0);
    assert!(d.skipped.keys().any(|r| r.starts_with("compressed_packets that inflate")), "{:?}", d.skipped);
    assert_eq!(d.skipped.values().next().unwrap().examples[0].0, 0, "located at the container's byte offset");
}
