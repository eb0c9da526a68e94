//! The `.dat` decoder against its oracles: for each Linux 6.18 capture (`traces/linux-6.18`),
//! `trace-cmd report` of the same file (`trace-cmd-report.txt`, plugin form) and the kernel's own
//! text of the same buffer (`trace.txt`); for the trappy version 6 sample (third-party: read from
//! the folder named by `SCHEDLAB_THIRD_PARTY_TRACES`, reported as not run without it), counts and
//! lines printed by trace-cmd 3.1.6 (Debian). Plus damaged files: truncated and bit-flipped, never
//! a panic.

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use schedlab_engine::import::dat::{decode_all, DatDecoder};
use schedlab_engine::import::record::{PrevState, SchedPayload, Skipped, TraceRecord, TraceSink};

const CAPTURES: [&str; 5] = ["bandwidth-30-of-100", "cgroup-shares", "nice-0-vs-2", "sleeper-vs-hog", "yield-vs-hog"];

/// A file of the repository's `traces/` folder.
fn read(rel: &str) -> Vec<u8> {
    read_path(&common::traces().join(rel))
}

fn read_path(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[derive(Default)]
struct Collect {
    recs: Vec<TraceRecord>,
    lost: Vec<(u32, u64)>,
    skipped: Vec<Skipped>,
}

impl TraceSink for Collect {
    fn record(&mut self, rec: TraceRecord) {
        self.recs.push(rec);
    }
    fn lost(&mut self, cpu: u32, count: u64, _line: u64) {
        self.lost.push((cpu, count));
    }
    fn skipped(&mut self, s: Skipped) {
        self.skipped.push(s);
    }
}

/// A line of `trace-cmd report` or of tracefs text: `COMM-PID [CPU] (flags) SECS.USECS: EVENT: PAYLOAD`.
#[derive(Debug, PartialEq)]
struct Line {
    comm: String,
    pid: i32,
    cpu: u32,
    ts_us: u64,
    event: String,
    payload: String,
}

fn parse_line(l: &str) -> Option<Line> {
    let b = l.find(" [")?;
    let (task, rest) = l.split_at(b);
    let task = task.trim();
    let dash = task.rfind('-')?;
    let rest = &rest[2..];
    let close = rest.find(']')?;
    let cpu = rest[..close].parse().ok()?;
    let rest = &rest[close + 1..];
    // Optional latency flags, then the timestamp ending in ':'.
    let colon = rest.find(": ")?;
    let ts = rest[..colon].split_whitespace().last()?;
    let (secs, usecs) = ts.split_once('.')?;
    let rest = &rest[colon + 2..];
    let ecolon = rest.find(':')?;
    Some(Line {
        comm: task[..dash].to_string(),
        pid: task[dash + 1..].parse().ok()?,
        cpu,
        ts_us: secs.parse::<u64>().ok()? * 1_000_000 + usecs.parse::<u64>().ok()?,
        event: rest[..ecolon].to_string(),
        payload: rest[ecolon + 1..].trim().to_string(),
    })
}

/// `comm:pid [prio]` of the plugin form → pid.
fn plugin_pid(s: &str) -> i32 {
    let s = s.trim();
    let end = s.rfind(" [").unwrap_or(s.len());
    let colon = s[..end].rfind(':').unwrap();
    s[colon + 1..end].parse().unwrap()
}

/// libtraceevent's plugin letters ("SDTtZXxW", one per bit) → bits; "R" → 0.
fn report_state_bits(s: &str) -> u16 {
    if s == "R" || s == "R+" {
        return 0;
    }
    s.split('|').map(|l| 1u16 << "SDTtZXxW".find(l).unwrap_or_else(|| panic!("state {s}"))).fold(0, |a, b| a | b)
}

fn state_bits(s: &PrevState) -> u16 {
    match s {
        PrevState::Runnable | PrevState::Preempted => 0,
        PrevState::Blocked(b) => *b,
        PrevState::Raw(r) => panic!("undecoded prev_state {r}"),
    }
}

/// The kernel's letters for a state (trace.txt form).
fn state_text(s: &PrevState) -> String {
    match s {
        PrevState::Runnable => "R".into(),
        PrevState::Preempted => "R+".into(),
        PrevState::Blocked(b) => "SDTtXZPI"
            .chars()
            .enumerate()
            .filter(|(i, _)| b & (1 << i) != 0)
            .map(|(_, c)| c.to_string())
            .collect::<Vec<_>>()
            .join("|"),
        PrevState::Raw(r) => r.to_string(),
    }
}

/// What a switch/wakeup line says, as compared: (prev pid, next pid, state bits) or (pid, target).
fn report_key(l: &Line) -> Option<(i32, i32, i32)> {
    match l.event.as_str() {
        "sched_switch" => {
            let (prev, next) = l.payload.split_once(" ==> ")?;
            let (prev, state) = prev.rsplit_once(' ')?;
            Some((plugin_pid(prev), plugin_pid(next), i32::from(report_state_bits(state))))
        }
        "sched_wakeup" | "sched_wakeup_new" => {
            let (task, cpu) = l.payload.rsplit_once(" CPU:")?;
            let task = task.split(" success=").next()?;
            Some((plugin_pid(task), cpu.trim().parse().ok()?, -1))
        }
        _ => None,
    }
}

fn record_key(r: &TraceRecord) -> Option<(i32, i32, i32)> {
    match &r.payload {
        SchedPayload::Switch { prev_pid, next_pid, prev_state, .. } => {
            Some((*prev_pid, *next_pid, i32::from(state_bits(prev_state))))
        }
        SchedPayload::Wakeup { pid, target_cpu, .. } if r.event != "sched_waking" => Some((*pid, *target_cpu, -1)),
        _ => None,
    }
}

/// Both text forms print the nanosecond clock rounded to the nearest microsecond (the kernel's
/// `ns2usecs()` adds 500 before dividing; libtraceevent likewise).
fn us(ns: u64) -> u64 {
    (ns + 500) / 1000
}

fn decode(rel: &str) -> Collect {
    let bytes = read(rel);
    let mut sink = Collect::default();
    let info = decode_all(&bytes, &mut sink).unwrap_or_else(|e| panic!("{rel}: {e}"));
    assert_eq!(info.records as usize, sink.recs.len());
    sink
}

#[test]
fn linux_6_18_captures_match_trace_cmd_report() {
    for cap in CAPTURES {
        let got = decode(&format!("linux-6.18/{cap}/trace.dat"));
        assert!(got.skipped.is_empty(), "{cap}: {:?}", got.skipped.first());
        assert!(got.lost.is_empty(), "{cap}: lost {:?}", got.lost);
        let report = String::from_utf8(read(&format!("linux-6.18/{cap}/trace-cmd-report.txt"))).unwrap();
        let want: Vec<Line> = report.lines().skip(1).map(|l| parse_line(l).unwrap()).collect();
        assert!(want.len() > 2000, "{cap}: {} report lines", want.len());

        let mut want_counts = BTreeMap::new();
        for l in &want {
            *want_counts.entry(l.event.clone()).or_insert(0) += 1;
        }
        let mut got_counts = BTreeMap::new();
        for r in &got.recs {
            *got_counts.entry(r.event.clone()).or_insert(0) += 1;
        }
        assert_eq!(got_counts, want_counts, "{cap}: records per event");

        // Every record, in report order: time (µs), CPU, task, event; and for switches and
        // wakeups the pids, target CPU and prev_state bits.
        assert_eq!(got.recs.len(), want.len());
        for (r, l) in got.recs.iter().zip(&want) {
            let ctx = || format!("{cap}: {r:?} vs {l:?}");
            assert_eq!(us(r.ts_ns), l.ts_us, "{}", ctx());
            assert_eq!(
                (r.cpu, r.pid, r.comm.as_str(), r.event.as_str()),
                (l.cpu, l.pid, l.comm.as_str(), l.event.as_str()),
                "{}",
                ctx()
            );
            assert_eq!(record_key(r), report_key(l), "{}", ctx());
        }
    }
}

/// `R` and `R+` (the report's plugin prints both as `R`) and the kernel's own letters, against
/// `trace.txt`, CPU by CPU (the kernel's text interleaves equal times differently).
#[test]
fn prev_state_letters_match_the_kernel_text() {
    for cap in CAPTURES {
        let got = decode(&format!("linux-6.18/{cap}/trace.dat"));
        let text = String::from_utf8(read(&format!("linux-6.18/{cap}/trace.txt"))).unwrap();
        let mut want: BTreeMap<u32, Vec<(u64, String)>> = BTreeMap::new();
        for l in text.lines().filter(|l| !l.starts_with('#')).filter_map(parse_line) {
            if l.event == "sched_switch" {
                let st = l.payload.split("prev_state=").nth(1).unwrap().split(' ').next().unwrap();
                want.entry(l.cpu).or_default().push((l.ts_us, st.to_string()));
            }
        }
        let mut mine: BTreeMap<u32, Vec<(u64, String)>> = BTreeMap::new();
        for r in &got.recs {
            if let SchedPayload::Switch { prev_state, .. } = &r.payload {
                mine.entry(r.cpu).or_default().push((us(r.ts_ns), state_text(prev_state)));
            }
        }
        assert_eq!(mine.keys().collect::<Vec<_>>(), want.keys().collect::<Vec<_>>(), "{cap}");
        for (cpu, w) in &want {
            let m = &mine[cpu];
            assert_eq!(m.len(), w.len(), "{cap} CPU {cpu}: switches");
            if let Some((a, b)) = m.iter().zip(w).find(|(a, b)| a != b) {
                panic!("{cap} CPU {cpu}: decoded {a:?}, kernel text {b:?}");
            }
        }
    }
}

/// trappy's `tests/trace.dat`: version 6, 32-bit ARM, 8 CPUs. Oracle: `trace-cmd report -i
/// trace.dat` with trace-cmd 3.1.6 (Debian 3.1.6-1) prints 525 records: 501 bprint, 18
/// cdev_update, 6 thermal_temperature; these lines among them:
///   `<idle>-0     [003]  7615.709442: bprint:               0xc044504c: cpu_load: cpu: 3 freq: 800000 load: 0`
///   `kworker/6:2-1633  [006]  7615.881846: thermal_temperature:  thermal_zone=exynos-therm id=0 temp_prev=53808 temp=53875`
///   `kworker/6:2-1633  [006]  7615.881896: cdev_update:          type=gpu-cooling target=0`
#[test]
fn trappy_version_6() {
    let Some(dir) = common::third_party("trappy_version_6", "trappy's trace.dat") else { return };
    let bytes = read_path(&dir.join("trappy/trace.dat"));
    let mut got = Collect::default();
    let info = decode_all(&bytes, &mut got).unwrap();
    assert_eq!((info.version, info.long_size, info.cpus), (6, 4, 8));
    let mut counts = BTreeMap::new();
    for r in &got.recs {
        *counts.entry(r.event.as_str()).or_insert(0) += 1;
    }
    assert_eq!(counts, BTreeMap::from([("bprint", 501), ("cdev_update", 18), ("thermal_temperature", 6)]));
    let first = &got.recs[0];
    assert_eq!((us(first.ts_ns), first.cpu, first.comm.as_str(), first.pid), (7_615_709_442, 3, "<idle>", 0));
    assert_eq!(
        first.payload,
        SchedPayload::Other {
            fields: vec![("ip".into(), "0xc044504c".into())],
            text: Some("cpu_load: cpu: 3 freq: 800000 load: 0".into()),
        }
    );
    let th = got.recs.iter().find(|r| r.event == "thermal_temperature").unwrap();
    assert_eq!((us(th.ts_ns), th.cpu, th.comm.as_str(), th.pid), (7_615_881_846, 6, "kworker/6:2", 1633));
    let f = |p: &SchedPayload| match p {
        SchedPayload::Other { fields, .. } => {
            fields.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(" ")
        }
        _ => String::new(),
    };
    assert_eq!(f(&th.payload), "thermal_zone=exynos-therm id=0 temp_prev=53808 temp=53875");
    let cd = got.recs.iter().find(|r| r.event == "cdev_update").unwrap();
    assert_eq!(f(&cd.payload), "type=gpu-cooling target=0");
    // Timestamp order across CPUs.
    assert!(got.recs.windows(2).all(|w| w[0].ts_ns <= w[1].ts_ns));
}

#[test]
fn streaming_steps_and_progress() {
    let bytes = read("linux-6.18/nice-0-vs-2/trace.dat");
    let mut d = DatDecoder::new(&bytes).unwrap();
    let total = d.bytes_total();
    assert_eq!(total, bytes.len() as u64);
    let mut sink = Collect::default();
    let mut last = d.bytes_consumed();
    assert!(last < total);
    while d.step(&mut sink, 100).unwrap() {
        let now = d.bytes_consumed();
        assert!(now >= last && now <= total);
        last = now;
    }
    assert_eq!(d.bytes_consumed(), total);
    let mut whole = Collect::default();
    decode_all(&bytes, &mut whole).unwrap();
    assert_eq!(sink.recs, whole.recs);
    let info = d.info();
    assert_eq!(
        (info.version, info.compression.as_str(), info.cpus, info.clock.as_str()),
        (7, "zstd 1.5.4", 2, "local")
    );
}

/// Deterministic pseudo-random numbers (SplitMix64).
fn splitmix(seed: u64) -> impl FnMut() -> u64 {
    let mut s = seed;
    move || {
        s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = s;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// Cut a file at many lengths and flip bytes all over the parts the decoder reads: errors or
/// fewer records, no panic. The version 7 file's middle is kallsyms (never decompressed), so its
/// cuts and flips go to the header, the options, the trace data and the strings at the end. The
/// version 6 file is our capture through `trace-cmd convert`, cut to a page per CPU
/// (`tests/fixtures/fuzz/nice-0-vs-2-v6-cut.dat`): damaged all over.
#[test]
fn damaged_files_never_panic() {
    let mut next = splitmix(0x5eed);
    let v6 = read_path(&common::repo_root().join("wasm-engine/engine/tests/fixtures/fuzz/nice-0-vs-2-v6-cut.dat"));
    for (bytes, tail, cuts, flips) in
        [(read("linux-6.18/nice-0-vs-2/trace.dat"), 20_500usize, 150usize, 150usize), (v6, usize::MAX, 400, 400)]
    {
        damage(&bytes, tail, cuts, flips, &mut next);
    }
    // Headers only, garbage, empty.
    for b in [&b""[..], b"\x17\x08\x44tracing", b"\x17\x08\x44tracing7\0\0\x08", &[0xff; 64]] {
        assert!(decode_all(b, &mut Collect::default()).is_err());
    }
}

/// The same for trappy's version 6 file (32-bit ARM, 8 CPUs), damaged all over.
#[test]
fn damaged_third_party_file_never_panics() {
    let Some(dir) = common::third_party("damaged_third_party_file_never_panics", "trappy's trace.dat") else {
        return;
    };
    damage(&read_path(&dir.join("trappy/trace.dat")), usize::MAX, 400, 400, &mut splitmix(0x5eed));
}

/// `cuts` prefixes and `flips` sets of 1–4 flipped bits, at offsets in the first 512 bytes or the
/// last `tail` bytes: each decodes to an error or to records that the info counts, never a panic.
fn damage(bytes: &[u8], tail: usize, cuts: usize, flips: usize, next: &mut impl FnMut() -> u64) {
    let n = bytes.len();
    let tail = tail.min(n);
    // Offsets in the head (first 512 bytes) or the tail.
    let pick = |r: u64| -> usize {
        if r.is_multiple_of(4) {
            (r / 4 % 512) as usize
        } else {
            n - tail + (r / 4 % tail as u64) as usize
        }
    };
    for _ in 0..cuts {
        let cut = pick(next());
        let mut sink = Collect::default();
        if let Ok(info) = decode_all(&bytes[..cut], &mut sink) {
            assert_eq!(info.records as usize, sink.recs.len());
        }
    }
    let mut b = bytes.to_vec();
    for _ in 0..flips {
        let at: Vec<(usize, u8)> = (0..1 + next() % 4).map(|_| (pick(next()), 1u8 << (next() % 8))).collect();
        for &(i, m) in &at {
            b[i] ^= m;
        }
        let _ = decode_all(&b, &mut Collect::default());
        for &(i, m) in &at {
            b[i] ^= m;
        }
    }
}
