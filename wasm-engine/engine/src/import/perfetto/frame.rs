//! A Perfetto `Trace` split into its packets, fed in chunks of any size.
//!
//! A trace file is a serialised `Trace` message: `repeated TracePacket packet = 1`, i.e. a run of
//! field-1 length-delimited records. The framing is read with prost's own wire primitives
//! (`prost::encoding::{decode_key, decode_varint, skip_field}`), never by hand; each packet's bytes
//! are then decoded by the generated types (`packet.rs`). A packet split across chunks is
//! buffered until it is whole. Other top-level fields are skipped (as protobuf skips unknown
//! fields). Damage that loses the framing (an invalid key, a group wire type, a length past
//! [`MAX_PACKET`]) stops the split with a [`FrameError`] naming the byte offset; an input ending
//! inside a packet is reported by [`Framer::finish`].

use prost::encoding::{decode_key, decode_varint, skip_field, DecodeContext, WireType};

/// The largest packet accepted (Perfetto's writers chunk far below this; a larger length is
/// damage, and buffering it would hold the whole file).
pub const MAX_PACKET: u64 = 256 << 20;

/// Where the framing was lost, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FrameError {
    pub offset: u64,
    pub expected: String,
}

impl std::fmt::Display for FrameError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Perfetto trace byte {}: expected {}", self.offset, self.expected)
    }
}

/// Streaming splitter: [`Framer::feed`] calls `packet(offset, bytes)` for every whole packet.
#[derive(Debug, Default)]
pub struct Framer {
    carry: Vec<u8>,
    /// File offset of `carry[0]`.
    base: u64,
    error: Option<FrameError>,
    pub packets: u64,
}

/// A varint at the start of `b` is complete (ends within the bytes at hand, or is already too
/// long to be valid, which `decode_varint` then reports).
fn varint_complete(b: &[u8]) -> bool {
    b.len() >= 10 || b.iter().any(|&x| x & 0x80 == 0)
}

/// One step of the split at the start of `b`.
enum Step<'a> {
    /// A `packet` field: (header length, payload).
    Packet(usize, &'a [u8]),
    /// Another field, `n` bytes long, skipped.
    Skip(usize),
    /// More bytes are needed.
    More,
}

fn step(b: &[u8]) -> Result<Step<'_>, String> {
    if !varint_complete(b) {
        return Ok(Step::More);
    }
    let mut cur = b;
    let (tag, wt) = decode_key(&mut cur).map_err(|e| format!("a field key of Trace ({e})"))?;
    if wt == WireType::LengthDelimited {
        if !varint_complete(cur) {
            return Ok(Step::More);
        }
        let len = decode_varint(&mut cur).map_err(|e| format!("the length of field {tag} ({e})"))?;
        if len > MAX_PACKET {
            return Err(format!(
                "a packet of at most {MAX_PACKET} bytes, found a length of {len} (damaged or not a Perfetto trace)"
            ));
        }
        let head = b.len() - cur.len();
        if (cur.len() as u64) < len {
            return Ok(Step::More);
        }
        let body = &cur[..len as usize];
        return Ok(if tag == 1 { Step::Packet(head, body) } else { Step::Skip(head + len as usize) });
    }
    // A fixed or varint field: skipped whole when its bytes are here.
    let need = match wt {
        WireType::Varint => {
            if !varint_complete(cur) {
                return Ok(Step::More);
            }
            0
        }
        WireType::SixtyFourBit => 8,
        WireType::ThirtyTwoBit => 4,
        _ => {
            return Err(format!(
                "a Trace field (field {tag} has the group wire type {wt:?}: damaged or not a Perfetto trace)"
            ))
        }
    };
    if cur.len() < need {
        return Ok(Step::More);
    }
    skip_field(wt, tag, &mut cur, DecodeContext::default()).map_err(|e| format!("field {tag} ({e})"))?;
    Ok(Step::Skip(b.len() - cur.len()))
}

/// Splits a whole buffer (a decompressed `compressed_packets` payload): every packet to
/// `packet(index_in_buffer, bytes)`; an error names the position inside the buffer.
pub fn split_all(b: &[u8], mut packet: impl FnMut(&[u8])) -> Result<u64, (u64, String)> {
    let mut pos = 0usize;
    let mut n = 0;
    while pos < b.len() {
        match step(&b[pos..]).map_err(|e| (pos as u64, e))? {
            Step::Packet(head, body) => {
                packet(body);
                n += 1;
                pos += head + body.len();
            }
            Step::Skip(k) => pos += k,
            Step::More => return Err((pos as u64, "a whole packet (the data ends inside one)".to_string())),
        }
    }
    Ok(n)
}

impl Framer {
    pub fn new() -> Self {
        Self::default()
    }

    /// Takes the next chunk; `packet(offset, bytes)` for each packet completed.
    pub fn feed(&mut self, chunk: &[u8], mut packet: impl FnMut(u64, &[u8])) {
        if self.error.is_some() {
            self.base += chunk.len() as u64;
            return;
        }
        self.carry.extend_from_slice(chunk);
        let mut pos = 0usize;
        while pos < self.carry.len() {
            match step(&self.carry[pos..]) {
                Ok(Step::Packet(head, body)) => {
                    packet(self.base + pos as u64, body);
                    self.packets += 1;
                    pos += head + body.len();
                }
                Ok(Step::Skip(k)) => pos += k,
                Ok(Step::More) => break,
                Err(expected) => {
                    self.error = Some(FrameError { offset: self.base + pos as u64, expected });
                    self.base += self.carry.len() as u64;
                    self.carry = Vec::new();
                    return;
                }
            }
        }
        self.carry.drain(..pos);
        self.base += pos as u64;
    }

    /// Ends the input: an error if the framing was lost or the input ended inside a packet.
    pub fn finish(&mut self) -> Result<(), FrameError> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        if !self.carry.is_empty() {
            let e = FrameError {
                offset: self.base,
                expected: format!("a whole packet (the file ends {} bytes into one)", self.carry.len()),
            };
            self.error = Some(e.clone());
            return Err(e);
        }
        Ok(())
    }

    /// Bytes consumed so far (whole packets and skipped fields).
    pub fn bytes_done(&self) -> u64 {
        self.base
    }

    pub fn error(&self) -> Option<&FrameError> {
        self.error.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trace(packets: &[&[u8]]) -> Vec<u8> {
        let mut v = Vec::new();
        for p in packets {
            prost::encoding::encode_key(1, WireType::LengthDelimited, &mut v);
            prost::encoding::encode_varint(p.len() as u64, &mut v);
            v.extend_from_slice(p);
        }
        v
    }

    #[test]
    fn any_chunking_gives_the_same_packets() {
        let big = vec![7u8; 300];
        let t = trace(&[b"ab", &big, b"", b"xyz"]);
        for size in [1, 2, 3, 7, 64, t.len()] {
            let mut f = Framer::new();
            let mut got = Vec::new();
            for c in t.chunks(size) {
                f.feed(c, |off, b| got.push((off, b.to_vec())));
            }
            assert_eq!(f.finish(), Ok(()));
            assert_eq!(got.len(), 4, "chunk {size}");
            assert_eq!(got[0], (0, b"ab".to_vec()));
            assert_eq!(got[1].0, 4);
            assert_eq!(got[1].1, big);
            assert_eq!(got[3].1, b"xyz".to_vec());
        }
    }

    #[test]
    fn truncation_and_bad_keys_are_located() {
        let t = trace(&[b"abcd", b"efgh"]);
        let mut f = Framer::new();
        f.feed(&t[..t.len() - 1], |_, _| {});
        assert_eq!(f.finish().unwrap_err().offset, 6);
        let mut f = Framer::new();
        let mut bad = trace(&[b"ok"]);
        bad.extend_from_slice(&[0x0b, 0x00]); // field 1, start-group
        f.feed(&bad, |_, _| {});
        let e = f.finish().unwrap_err();
        assert_eq!(e.offset, 4);
        assert!(e.expected.contains("group"), "{e}");
        let mut f = Framer::new();
        f.feed(&[0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f], |_, _| {});
        assert!(f.finish().unwrap_err().expected.contains("at most"));
    }
}
