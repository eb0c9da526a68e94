//! One `FtraceEventBundle` (one CPU's ftrace events for a stretch of time) as held records
//! (`held.rs`), staged until the whole packet has decoded.
//!
//! * Regular `FtraceEvent`s: `timestamp`, `pid` (the current task: the kernel's `common_pid`),
//!   `common_flags` (the kernel's `trace_flag_type` bits) and the event (`events.rs`).
//! * `compact_sched`: the switch and waking arrays, whose timestamps are delta-encoded (the
//!   first absolute, each next relative to the one before, separately for each array) and whose
//!   comms are indices into the bundle's `intern_table` (each interned once per bundle). A compact
//!   switch omits the previous task and a compact waking its waker: both are resolved when the
//!   record leaves the merge (`tasks.rs`), in time order, so a CPU's stretches written out of
//!   order still chain correctly.
//! * The records go to the time-ordered merge (`merge.rs`) once the packet has decoded whole.
//! * `lost_events` → [`TraceSink::lost`](crate::import::record::TraceSink::lost) with count 0
//!   (Perfetto flags the loss, not its size).
//!
//! Damage (unequal compact arrays, a CPU number above [`MAX_CPU`](crate::import::record::MAX_CPU), an event without timestamp or
//! without an event) is a located skip: the byte offset of the packet.

use super::events::{event_name, unknown_event_field, Bodies, StateLayout};
use super::held::{Body, Held, Name, Names, Render, UNKNOWN};
use super::pb::ftrace_event_bundle::CompactSched;
use super::pb::FtraceEvent;
use super::tasks::UNRESOLVED;
use crate::import::record::WakeKind;
use prost::encoding::{decode_key, decode_varint, skip_field, DecodeContext, WireType};

/// For each regular event of the bundle in `packet` (a serialised `TracePacket`), the oneof field
/// number the generated type did not know (read with prost's key decoder). Only called for a
/// bundle holding such events.
pub fn unknown_fields(packet: &[u8]) -> Vec<Option<u32>> {
    let mut out = Vec::new();
    let mut b = packet;
    let ctx = DecodeContext::default;
    let field = |b: &mut &[u8]| -> Option<(u32, WireType)> { decode_key(b).ok() };
    while let Some((tag, wt)) = field(&mut b) {
        if tag == 1 && wt == WireType::LengthDelimited {
            let Ok(len) = decode_varint(&mut b) else { break };
            let Some((mut bundle, rest)) = b.split_at_checked(len as usize) else { break };
            b = rest;
            while let Some((t, w)) = field(&mut bundle) {
                if t == 2 && w == WireType::LengthDelimited {
                    let Ok(l) = decode_varint(&mut bundle) else { break };
                    let Some((ev, rest)) = bundle.split_at_checked(l as usize) else { break };
                    out.push(unknown_event_field(ev));
                    bundle = rest;
                } else if skip_field(w, t, &mut bundle, ctx()).is_err() {
                    break;
                }
            }
        } else if skip_field(wt, tag, &mut b, ctx()).is_err() {
            break;
        }
    }
    out
}

/// A bundle's records and skips, waiting for the rest of their packet to decode.
#[derive(Debug, Default)]
pub struct Staged {
    pub held: Vec<Held>,
    pub skips: Vec<String>,
}

impl Staged {
    /// Drops what was staged (the packet did not decode), the field lists back to the pool.
    pub fn discard(&mut self, render: &mut Render) {
        for h in self.held.drain(..) {
            if let Body::Other { fields, .. } = h.body {
                render.recycle(fields);
            }
        }
        self.skips.clear();
    }
}

/// Turns one bundle's events into staged records.
pub struct BundleReader<'a> {
    pub names: &'a mut Names,
    pub render: &'a mut Render,
    pub layout: StateLayout,
    pub staged: &'a mut Staged,
    /// The bundle's CPU (at most `MAX_CPU`).
    pub cpu: u32,
    /// The intern table of a compact bundle, interned.
    pub table: &'a mut Vec<Name>,
}

impl BundleReader<'_> {
    fn skip(&mut self, reason: &str) {
        self.staged.skips.push(reason.to_string());
    }

    /// A regular event; `unknown` is the oneof field number of an event the generated type did
    /// not know.
    pub fn event(&mut self, e: FtraceEvent, unknown: Option<u32>) {
        let Some(ts) = e.timestamp else {
            return self.skip("an FtraceEvent timestamp (event skipped)");
        };
        let pid = e.pid.unwrap_or(0) as i32;
        let flags = e.common_flags.map(|f| (f & 0x1f) as u8);
        let body = match e.event {
            Some(ev) => Bodies { names: self.names, render: self.render, layout: self.layout }.body(ev),
            None => match unknown {
                Some(num) => Body::Other { event: self.names.intern(&event_name(num)), fields: self.render.fields() },
                None => return self.skip("an FtraceEvent with an event (none found; event skipped)"),
            },
        };
        self.staged.held.push(Held { ts, pid, flags, body });
    }

    /// The compact arrays; arrays of unequal lengths are skipped whole. Returns (compact
    /// switches, compact wakings) read. The merge orders by time; equal times keep the order
    /// regular events, compact switches, compact wakings.
    pub fn compact(&mut self, cs: &CompactSched) -> (u64, u64) {
        let n = cs.switch_timestamp.len();
        let sw_ok = [
            cs.switch_prev_state.len(),
            cs.switch_next_pid.len(),
            cs.switch_next_prio.len(),
            cs.switch_next_comm_index.len(),
        ]
        .iter()
        .all(|&l| l == n);
        let m = cs.waking_timestamp.len();
        let wk_ok = [cs.waking_pid.len(), cs.waking_target_cpu.len(), cs.waking_prio.len(), cs.waking_comm_index.len()]
            .iter()
            .all(|&l| l == m)
            && (cs.waking_common_flags.is_empty() || cs.waking_common_flags.len() == m);
        self.table.clear();
        for c in &cs.intern_table {
            let id = self.names.intern(c);
            self.table.push(id);
        }
        let comm = |table: &[Name], i: u32| table.get(i as usize).copied().unwrap_or(UNKNOWN);
        if sw_ok {
            let mut t = 0u64;
            for j in 0..n {
                t = t.wrapping_add(cs.switch_timestamp[j]);
                let body = Body::Switch {
                    prev_comm: UNKNOWN,
                    prev_pid: UNRESOLVED,
                    prev_prio: 0,
                    prev_state: self.layout.decode(cs.switch_prev_state[j]),
                    next_comm: comm(self.table, cs.switch_next_comm_index[j]),
                    next_pid: cs.switch_next_pid[j],
                    next_prio: cs.switch_next_prio[j],
                };
                self.staged.held.push(Held { ts: t, pid: UNRESOLVED, flags: None, body });
            }
        } else {
            self.skip("compact_sched switch arrays of equal lengths (the bundle's compact switches skipped)");
        }
        if wk_ok {
            let mut t = 0u64;
            for j in 0..m {
                t = t.wrapping_add(cs.waking_timestamp[j]);
                let body = Body::Wakeup {
                    kind: WakeKind::Waking,
                    comm: comm(self.table, cs.waking_comm_index[j]),
                    pid: cs.waking_pid[j],
                    prio: cs.waking_prio[j],
                    target_cpu: cs.waking_target_cpu[j],
                    success: None,
                };
                let flags = cs.waking_common_flags.get(j).map(|f| (f & 0x1f) as u8);
                self.staged.held.push(Held { ts: t, pid: UNRESOLVED, flags, body });
            }
        } else {
            self.skip("compact_sched waking arrays of equal lengths (the bundle's compact wakings skipped)");
        }
        (if sw_ok { n as u64 } else { 0 }, if wk_ok { m as u64 } else { 0 })
    }
}

/// `TracePacket.ftrace_events`: field 1 of `trace_packet.proto`.
pub const PACKET_FTRACE_EVENTS: u32 = 1;
/// `FtraceEventBundle.event`: field 2 of `ftrace_event_bundle.proto`.
pub const BUNDLE_EVENT: u32 = 2;

/// A packet holding `ftrace_events`, split with prost's wire primitives so that its events are
/// decoded one at a time (`FtraceEvent::decode`) rather than into one vector of the whole bundle:
/// the packet's other fields and the bundles' fields other than `event` are copied out whole,
/// to be decoded by the generated types (several `ftrace_events` fields merge as prost merges
/// them: their fields in order).
#[derive(Debug, Default)]
pub struct Split {
    pub packet_rest: Vec<u8>,
    pub bundle_rest: Vec<u8>,
    /// Each event's bytes as a range of the packet.
    pub events: Vec<(usize, usize)>,
}

/// One field at the start of `b`: (tag, wire type, whole field length, payload start for a
/// length-delimited field); None when the bytes do not hold a whole field.
fn field(b: &[u8]) -> Option<(u32, WireType, usize, usize)> {
    let mut cur = b;
    let (tag, wt) = decode_key(&mut cur).ok()?;
    if wt == WireType::LengthDelimited {
        let len = decode_varint(&mut cur).ok()?;
        let head = b.len() - cur.len();
        let end = head.checked_add(usize::try_from(len).ok()?)?;
        return (end <= b.len()).then_some((tag, wt, end, head));
    }
    skip_field(wt, tag, &mut cur, DecodeContext::default()).ok()?;
    Some((tag, wt, b.len() - cur.len(), 0))
}

impl Split {
    /// Splits `packet`: Some(true) when it holds `ftrace_events`, Some(false) when not, None when
    /// its fields do not split (the caller decodes it whole for prost's own error).
    pub fn split(&mut self, packet: &[u8]) -> Option<bool> {
        self.packet_rest.clear();
        self.bundle_rest.clear();
        self.events.clear();
        let mut bundles = false;
        let mut pos = 0;
        while pos < packet.len() {
            let (tag, wt, len, head) = field(&packet[pos..])?;
            if tag == PACKET_FTRACE_EVENTS && wt == WireType::LengthDelimited {
                bundles = true;
                let (start, end) = (pos + head, pos + len);
                let mut q = start;
                while q < end {
                    let (t, w, l, h) = field(&packet[q..end])?;
                    if t == BUNDLE_EVENT && w == WireType::LengthDelimited {
                        self.events.push((q + h, q + l));
                    } else {
                        self.bundle_rest.extend_from_slice(&packet[q..q + l]);
                    }
                    q += l;
                }
            } else {
                self.packet_rest.extend_from_slice(&packet[pos..pos + len]);
            }
            pos += len;
        }
        Some(bundles)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::perfetto::pb::{ftrace_event, trace_packet::Data, FtraceEventBundle, TracePacket};
    use prost::Message;

    #[test]
    fn a_split_packet_decodes_as_the_whole() {
        let ev = |ts| FtraceEvent {
            timestamp: Some(ts),
            pid: Some(3),
            event: Some(ftrace_event::Event::SoftirqEntry(Default::default())),
            ..Default::default()
        };
        let b = FtraceEventBundle {
            cpu: Some(2),
            event: vec![ev(5), ev(6)],
            lost_events: Some(true),
            ..Default::default()
        };
        let p = TracePacket { timestamp: Some(9), data: Some(Data::FtraceEvents(b.clone())), ..Default::default() };
        let bytes = p.encode_to_vec();
        let mut s = Split::default();
        assert_eq!(s.split(&bytes), Some(true));
        let rest = TracePacket::decode(&s.packet_rest[..]).unwrap();
        assert_eq!((rest.timestamp, rest.data), (Some(9), None));
        let head = FtraceEventBundle::decode(&s.bundle_rest[..]).unwrap();
        assert_eq!((head.cpu, head.lost_events, head.event.len()), (Some(2), Some(true), 0));
        let evs: Vec<FtraceEvent> = s.events.iter().map(|&(a, e)| FtraceEvent::decode(&bytes[a..e]).unwrap()).collect();
        assert_eq!(evs, b.event);
        assert_eq!(s.split(&bytes[..bytes.len() - 1]), None, "a field cut short does not split");
        let other = TracePacket { timestamp: Some(1), ..Default::default() }.encode_to_vec();
        assert_eq!(s.split(&other), Some(false));
    }
}
