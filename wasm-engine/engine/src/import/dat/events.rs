//! From a record's payload to a [`TraceRecord`]: the event id (`common_type`) selects the
//! format; the scheduler tracepoints become typed payloads, everything else `name=value` pairs
//! in format order (`bprint`'s message is rendered from its trace_printk format).

use std::collections::BTreeMap;

use super::bytes::Endian;
use super::cmdlines::comm_of;
use super::fields::{read_i64, read_str, read_u64, render};
use super::format::{parse_format, EventFormat, Field, FieldKind};
use super::header::RawFormat;
use super::kallsyms::Symbols;
use super::printfmt::{conversions, field_conversions, render_int, Conv, StateTable};
use crate::import::record::{trace_flags, PrevState, SchedPayload, TraceRecord, WakeKind};

enum Kind {
    Switch { idx: [usize; 7], states: Option<StateTable> },
    Wakeup { kind: WakeKind, idx: [usize; 4], success: Option<usize> },
    Migrate { idx: [usize; 5] },
    Bprint,
    Other,
}

struct EventDef {
    format: EventFormat,
    kind: Kind,
    /// The print fmt conversion of each field (same order as `format.fields`).
    convs: Vec<Option<Conv>>,
}

/// A format as read from the file, parsed on first use.
enum Slot {
    Raw(RawFormat),
    Ready(Box<EventDef>),
    Bad(String),
}

/// The events a file defines, by id.
pub struct EventTable {
    by_id: BTreeMap<u32, Slot>,
    common_type: Field,
    common_pid: Field,
    common_flags: Field,
    common_preempt_count: Field,
    printk: BTreeMap<u64, String>,
    long_size: usize,
    /// The file's kallsyms, for `%ps`-style fields (empty when no format prints a symbol).
    symbols: Symbols,
}

fn indices<const N: usize>(f: &EventFormat, names: [&str; N]) -> Option<[usize; N]> {
    let mut out = [0usize; N];
    for (o, n) in out.iter_mut().zip(names) {
        *o = f.fields.iter().position(|x| x.name == n)?;
    }
    Some(out)
}

fn classify(f: &EventFormat) -> Kind {
    let sched = f.system == "sched";
    let wake = |kind| {
        let idx = indices(f, ["comm", "pid", "prio", "target_cpu"])?;
        let success = f.fields.iter().position(|x| x.name == "success");
        Some(Kind::Wakeup { kind, idx, success })
    };
    let k = match (sched, f.name.as_str()) {
        (true, "sched_switch") => {
            indices(f, ["prev_comm", "prev_pid", "prev_prio", "prev_state", "next_comm", "next_pid", "next_prio"])
                .map(|idx| Kind::Switch { idx, states: StateTable::from_print_fmt(&f.print_fmt) })
        }
        (true, "sched_waking") => wake(WakeKind::Waking),
        (true, "sched_wakeup") => wake(WakeKind::Wakeup),
        (true, "sched_wakeup_new") => wake(WakeKind::WakeupNew),
        (true, "sched_migrate_task") => {
            indices(f, ["comm", "pid", "prio", "orig_cpu", "dest_cpu"]).map(|idx| Kind::Migrate { idx })
        }
        (false, "bprint") if f.system == "ftrace" && f.field("fmt").is_some() && f.field("buf").is_some() => {
            Some(Kind::Bprint)
        }
        _ => None,
    };
    k.unwrap_or(Kind::Other)
}

impl EventTable {
    pub fn new(formats: Vec<RawFormat>, printk: BTreeMap<u64, String>, long_size: usize, symbols: Symbols) -> Self {
        let default = |name: &str, offset, size, signed| Field {
            name: name.into(),
            type_name: "int".into(),
            offset,
            size,
            signed,
            kind: FieldKind::Int,
        };
        // The common fields are the same in every format: take them from the first one.
        let first = formats.iter().find_map(|r| parse_format(&r.system, &r.text, r.at).ok());
        let common = |name: &str| first.as_ref().and_then(|f| f.field(name).cloned());
        let common_type = common("common_type").unwrap_or_else(|| default("common_type", 0, 2, false));
        let common_pid = common("common_pid").unwrap_or_else(|| default("common_pid", 4, 4, true));
        let common_flags = common("common_flags").unwrap_or_else(|| default("common_flags", 2, 1, false));
        let common_preempt_count =
            common("common_preempt_count").unwrap_or_else(|| default("common_preempt_count", 3, 1, false));
        let mut by_id = BTreeMap::new();
        for f in formats {
            by_id.insert(f.id, Slot::Raw(f));
        }
        EventTable { by_id, common_type, common_pid, common_flags, common_preempt_count, printk, long_size, symbols }
    }

    pub fn len(&self) -> usize {
        self.by_id.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_id.is_empty()
    }

    /// The definition of event `id`, parsing its format on first use.
    fn def(&mut self, id: u32) -> Result<&EventDef, String> {
        let slot = self.by_id.get_mut(&id).ok_or_else(|| format!("a known event id, found {id}"))?;
        if let Slot::Raw(r) = slot {
            *slot = match parse_format(&r.system, &r.text, r.at) {
                Ok(f) => {
                    let convs_by_name = field_conversions(&f.print_fmt);
                    let convs = f
                        .fields
                        .iter()
                        .map(|x| convs_by_name.iter().find(|(n, _)| *n == x.name).map(|(_, c)| c.clone()))
                        .collect();
                    let kind = classify(&f);
                    Slot::Ready(Box::new(EventDef { format: f, kind, convs }))
                }
                Err(e) => Slot::Bad(format!("a parsable format for event id {id} ({e})")),
            };
        }
        match slot {
            Slot::Ready(d) => Ok(d),
            Slot::Bad(e) => Err(e.clone()),
            Slot::Raw(_) => Err(format!("a parsable format for event id {id}")),
        }
    }

    /// The record for one payload, or why it could not be made.
    pub fn decode(
        &mut self,
        data: &[u8],
        e: Endian,
        ts_ns: u64,
        cpu: u32,
        line: u64,
        cmdlines: &BTreeMap<i32, String>,
    ) -> Result<TraceRecord, String> {
        let id = read_u64(&self.common_type, data, e).ok_or("a record too short for its event id")?;
        let id = u32::try_from(id).map_err(|_| format!("an event id, found {id}"))?;
        let common_pid = self.common_pid.clone();
        let pid = read_i64(&common_pid, data, e).ok_or("a record too short for common_pid")? as i32;
        let long_size = self.long_size;
        let printk = std::mem::take(&mut self.printk);
        let symbols = std::mem::take(&mut self.symbols);
        let out = self.def(id).map(|def| build(def, data, e, &printk, long_size, &symbols));
        self.printk = printk;
        self.symbols = symbols;
        let (event, payload) = out??;
        // common_flags holds the kernel's TRACE_FLAG_* bits: irqs-off 0x01, need-resched-lazy
        // 0x02, need-resched 0x04, hardirq 0x08, softirq 0x10, preempt-need-resched 0x20, NMI
        // 0x40. Any need-resched bit is need-resched, as any letter of the text form is (`n`,
        // `N`, `p`, `l`, `L`, `b`, `B`: `trace_flags::from_text`).
        let depth = read_u64(&self.common_preempt_count, data, e).unwrap_or(0) as u8;
        let flags = read_u64(&self.common_flags, data, e).map(|f| {
            let f = f as u8;
            let f = (f & 0x1d) | if f & 0x22 != 0 { 0x04 } else { 0 } | if f & 0x40 != 0 { 0x08 } else { 0 };
            trace_flags::with_preempt_depth(f, depth)
        });
        Ok(TraceRecord { ts_ns, cpu, pid, comm: comm_of(cmdlines, pid), event, line, flags, payload })
    }
}

/// The event name and payload of one record.
fn build(
    def: &EventDef,
    data: &[u8],
    e: Endian,
    printk: &BTreeMap<u64, String>,
    long_size: usize,
    symbols: &Symbols,
) -> Result<(String, SchedPayload), String> {
    {
        let f = &def.format;
        let short = || format!("a {} record of at least {} bytes, found {}", f.name, min_len(f), data.len());
        if data.len() < min_len(f) {
            return Err(short());
        }
        let s = |i: usize| read_str(&f.fields[i], data, e).unwrap_or_default();
        let n = |i: usize| read_i64(&f.fields[i], data, e).unwrap_or_default();
        let payload = match &def.kind {
            Kind::Switch { idx, states } => {
                let raw = n(idx[3]);
                SchedPayload::Switch {
                    extra: Vec::new(),
                    prev_comm: s(idx[0]),
                    prev_pid: n(idx[1]) as i32,
                    prev_prio: n(idx[2]) as i32,
                    prev_state: states.as_ref().map_or(PrevState::Raw(raw), |t| t.decode(raw)),
                    next_comm: s(idx[4]),
                    next_pid: n(idx[5]) as i32,
                    next_prio: n(idx[6]) as i32,
                }
            }
            Kind::Wakeup { kind, idx, success } => SchedPayload::Wakeup {
                extra: Vec::new(),
                kind: *kind,
                comm: s(idx[0]),
                pid: n(idx[1]) as i32,
                prio: n(idx[2]) as i32,
                target_cpu: n(idx[3]) as i32,
                success: success.map(|i| n(i) as i32),
            },
            Kind::Migrate { idx } => SchedPayload::MigrateTask {
                extra: Vec::new(),
                comm: s(idx[0]),
                pid: n(idx[1]) as i32,
                prio: n(idx[2]) as i32,
                orig_cpu: n(idx[3]) as i32,
                dest_cpu: n(idx[4]) as i32,
            },
            Kind::Bprint => bprint(f, data, e, printk, long_size),
            Kind::Other => SchedPayload::Other {
                fields: f
                    .fields
                    .iter()
                    .zip(&def.convs)
                    .filter(|(x, _)| !x.name.starts_with("common_"))
                    .map(|(x, c)| (x.name.clone(), render_field(x, data, e, c.as_ref(), symbols)))
                    .collect(),
                text: None,
            },
        };
        Ok((f.name.clone(), payload))
    }
}

/// A field as `TP_printk` renders it; a `%ps`-style pointer as its symbol when the file's
/// kallsyms has one.
fn render_field(x: &Field, data: &[u8], e: Endian, c: Option<&Conv>, symbols: &Symbols) -> String {
    if let Some(ext) = c.filter(|c| c.conv == 'p').and_then(|c| c.ext).filter(|x| "sSfF".contains(*x)) {
        if let Some(name) = read_u64(x, data, e).and_then(|a| symbols.render(a, ext)) {
            return name;
        }
    }
    render(x, data, e, c)
}

/// `bprint`: `ip`, then the message its trace_printk format gives to the binary arguments in
/// `buf` (`text`; absent when the format address is unknown).
fn bprint(f: &EventFormat, data: &[u8], e: Endian, printk: &BTreeMap<u64, String>, long_size: usize) -> SchedPayload {
    let get = |name| f.field(name);
    let ip = get("ip").and_then(|x| read_u64(x, data, e)).unwrap_or(0);
    let fmt_addr = get("fmt").and_then(|x| read_u64(x, data, e)).unwrap_or(0);
    let buf = get("buf").and_then(|x| data.get(x.offset..)).unwrap_or_default();
    let text = printk.get(&fmt_addr).map(|fmt| vbin_printf(fmt, buf, e, long_size));
    SchedPayload::Other { fields: vec![("ip".into(), format!("0x{ip:x}"))], text }
}

/// The smallest record that holds every fixed field.
fn min_len(f: &EventFormat) -> usize {
    f.fields
        .iter()
        .filter(|x| !(matches!(x.kind, FieldKind::Array { .. }) && x.size == 0))
        .map(|x| x.offset.saturating_add(x.size))
        .max()
        .unwrap_or(0)
}

/// Formats trace_printk's binary arguments: each integer stored at its natural alignment (4
/// bytes, or 8 for `ll` and for `l` on 64-bit), strings inline and NUL-terminated then padded to
/// 4 bytes. Stops quietly when the buffer runs out. A trailing newline is dropped.
pub fn vbin_printf(fmt: &str, buf: &[u8], e: Endian, long_size: usize) -> String {
    let mut out = String::new();
    let mut pos = 0usize;
    let mut rest = fmt;
    while let Some(i) = rest.find('%') {
        out.push_str(&rest[..i]);
        rest = &rest[i + 1..];
        if let Some(r) = rest.strip_prefix('%') {
            out.push('%');
            rest = r;
            continue;
        }
        // The conversion spec runs to its conversion letter.
        let end = rest
            .find(|c: char| c.is_ascii_alphabetic() && !matches!(c, 'l' | 'h' | 'z' | 'L' | 'j' | 't' | 'q'))
            .map(|j| j + 1)
            .unwrap_or(rest.len());
        let spec = &rest[..end];
        rest = &rest[end..];
        let Some(conv) = conversions(&format!("%{spec}")).into_iter().next() else {
            break;
        };
        if conv.conv == 'p' {
            // %pS and friends: the extension letters are part of the format.
            rest = rest.trim_start_matches(|c: char| c.is_ascii_alphanumeric());
        }
        if conv.conv == 's' {
            let Some(s) = buf.get(pos..) else { break };
            let n = s.iter().position(|&b| b == 0).unwrap_or(s.len());
            out.push_str(&String::from_utf8_lossy(&s[..n]));
            pos = (pos + n + 1 + 3) & !3;
            continue;
        }
        let size = if spec.contains("ll") || spec.contains('L') || spec.contains('q') {
            8
        } else if spec.contains('l') || spec.contains('z') || conv.conv == 'p' {
            long_size
        } else {
            4
        };
        pos = (pos + size - 1) & !(size - 1);
        let Some(u) = e.uint(buf, pos, size) else { break };
        pos += size;
        let i = if size == 4 { i64::from(u as u32 as i32) } else { u as i64 };
        out.push_str(&render_int(i, u, matches!(conv.conv, 'd' | 'i'), &conv));
    }
    out.push_str(rest);
    while out.ends_with('\n') {
        out.pop();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vbin_arguments() {
        let mut b = Vec::new();
        b.extend_from_slice(&3u32.to_le_bytes());
        b.extend_from_slice(b"ab\0\0");
        b.extend_from_slice(&(-2i32).to_le_bytes());
        b.extend_from_slice(&[0; 4]);
        b.extend_from_slice(&7u64.to_le_bytes());
        let s = vbin_printf("cpu: %u name=%s d=%d ll=%05llu %%\n", &b, Endian::Little, 8);
        assert_eq!(s, "cpu: 3 name=ab d=-2 ll=00007 %");
        // Runs out of arguments: stops, no panic.
        assert_eq!(vbin_printf("%u %u", &[1, 0, 0, 0], Endian::Little, 4), "1 ");
    }
}
