//! One ring-buffer page ("sub-buffer") as the kernel wrote it and `header_page` describes it:
//!
//! * `u64 timestamp`: the time of the page's first event;
//! * `commit` (the kernel's long, 4 or 8 bytes): the number of data bytes in the low 27 bits,
//!   bit 31 set if events were lost before this page, bit 30 set if that count is stored as a
//!   long right after the data;
//! * data: events, each starting with a 32-bit header of `type_len` (5 bits) and
//!   `time_delta` (27 bits) (`type_len` in the low bits on little-endian files, in the high bits
//!   on big-endian ones):
//!   * 1..=28: a record of `type_len * 4` bytes follows;
//!   * 0: `array[0]` (u32) is the record length plus 4, the record follows it;
//!   * 29 PADDING: a discarded record of `array[0]` bytes, or, with a zero delta, the end of the
//!     page's data;
//!   * 30 TIME_EXTEND: `array[0] << 27 | time_delta` is added to the time;
//!   * 31 TIME_STAMP: the same value is the absolute time (its 5 high bits taken from the
//!     current time).
//!
//! Every record's time is the page time plus all deltas before and including its own.

use super::bytes::Endian;
use super::format::PageLayout;

pub const TYPE_PADDING: u32 = 29;
pub const TYPE_TIME_EXTEND: u32 = 30;
pub const TYPE_TIME_STAMP: u32 = 31;
const COMMIT_MASK: u64 = (1 << 27) - 1;
const MISSING_EVENTS: u64 = 1 << 31;
const MISSING_STORED: u64 = 1 << 30;
const TS_MSB: u64 = 0xf8 << 56;

/// Events lost before a page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lost {
    None,
    /// The kernel flagged the loss but did not store a count.
    Unknown,
    Count(u64),
}

/// A malformed page: byte offset inside the page and what was expected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PageError {
    pub at: usize,
    pub expected: String,
}

fn perr(at: usize, expected: impl Into<String>) -> PageError {
    PageError { at, expected: expected.into() }
}

/// Decoding position inside one page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PageCursor {
    /// Next header, as an offset from the start of the page.
    pub pos: usize,
    /// End of committed data (offset from the start of the page).
    pub end: usize,
    /// Time of the last event read (the page time before the first).
    pub ts: u64,
}

/// Reads the page header; the cursor is at the first event.
pub fn open_page(page: &[u8], layout: &PageLayout, endian: Endian) -> Result<(PageCursor, Lost), PageError> {
    let ts =
        endian.uint(page, layout.ts_offset, 8).ok_or_else(|| perr(layout.ts_offset, "an 8-byte page timestamp"))?;
    let commit = endian
        .uint(page, layout.commit_offset, layout.commit_size)
        .ok_or_else(|| perr(layout.commit_offset, "the page's commit word"))?;
    let size = (commit & COMMIT_MASK) as usize;
    let end = layout.data_offset.checked_add(size).filter(|&e| e <= page.len()).ok_or_else(|| {
        perr(
            layout.commit_offset,
            format!(
                "a commit size that fits the page ({} data bytes at most), found {size}",
                page.len().saturating_sub(layout.data_offset)
            ),
        )
    })?;
    let lost = if commit & MISSING_EVENTS == 0 {
        Lost::None
    } else if commit & MISSING_STORED != 0 {
        match endian.uint(page, end, layout.commit_size) {
            Some(n) => Lost::Count(n),
            None => return Err(perr(end, "the lost-events count after the page data")),
        }
    } else {
        Lost::Unknown
    };
    Ok((PageCursor { pos: layout.data_offset, end, ts }, lost))
}

/// One record: its time and where its payload lies in the page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RawEvent {
    pub ts: u64,
    pub start: usize,
    pub len: usize,
}

/// The next record of the page (time extends, time stamps and padding are applied and
/// skipped), or `None` at the end of the committed data.
pub fn next_event(page: &[u8], endian: Endian, cur: &mut PageCursor) -> Result<Option<RawEvent>, PageError> {
    loop {
        if cur.pos >= cur.end {
            return Ok(None);
        }
        let at = cur.pos;
        let word = |off: usize, what: &str| -> Result<u32, PageError> {
            if off + 4 > cur.end {
                return Err(perr(off, format!("{what} inside the committed data")));
            }
            endian.u32(page, off).ok_or_else(|| perr(off, what.to_string()))
        };
        let header = word(at, "a 4-byte event header")?;
        let (type_len, delta) = match endian {
            Endian::Little => (header & 0x1f, u64::from(header >> 5)),
            Endian::Big => (header >> 27, u64::from(header & ((1 << 27) - 1))),
        };
        match type_len {
            TYPE_PADDING => {
                if delta == 0 {
                    // Nothing valid after a null padding event.
                    cur.pos = cur.end;
                    return Ok(None);
                }
                let len = word(at + 4, "the padding length")? as usize;
                cur.ts = cur.ts.wrapping_add(delta);
                cur.pos = (at + 4)
                    .checked_add(len)
                    .filter(|&n| n <= cur.end && n > at)
                    .ok_or_else(|| perr(at, format!("a padding length inside the page, found {len}")))?;
            }
            TYPE_TIME_EXTEND | TYPE_TIME_STAMP => {
                let hi = u64::from(word(at + 4, "the time extend word")?);
                let v = (hi << 27).wrapping_add(delta);
                cur.ts = if type_len == TYPE_TIME_STAMP { v | (cur.ts & TS_MSB) } else { cur.ts.wrapping_add(v) };
                cur.pos = at + 8;
            }
            0 => {
                let raw = word(at + 4, "the length word of a long record")? as usize;
                if raw < 4 {
                    return Err(perr(at + 4, format!("a record length of at least 4, found {raw}")));
                }
                let len = (raw - 4 + 3) & !3;
                let start = at + 8;
                let next = start
                    .checked_add(len)
                    .filter(|&n| n <= cur.end)
                    .ok_or_else(|| perr(at + 4, format!("a record of {len} bytes inside the committed data")))?;
                cur.ts = cur.ts.wrapping_add(delta);
                cur.pos = next;
                return Ok(Some(RawEvent { ts: cur.ts, start, len }));
            }
            n => {
                let len = n as usize * 4;
                let start = at + 4;
                if start + len > cur.end {
                    return Err(perr(at, format!("a record of {len} bytes inside the committed data")));
                }
                cur.ts = cur.ts.wrapping_add(delta);
                cur.pos = start + len;
                return Ok(Some(RawEvent { ts: cur.ts, start, len }));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const L8: PageLayout = PageLayout { ts_offset: 0, commit_offset: 8, commit_size: 8, data_offset: 16 };

    fn hdr(type_len: u32, delta: u32) -> [u8; 4] {
        ((delta << 5) | type_len).to_le_bytes()
    }

    /// A page: timestamp, commit, then `data`, padded to 4096 bytes.
    fn page(ts: u64, commit_flags: u64, data: &[u8]) -> Vec<u8> {
        let mut p = Vec::new();
        p.extend_from_slice(&ts.to_le_bytes());
        p.extend_from_slice(&(data.len() as u64 | commit_flags).to_le_bytes());
        p.extend_from_slice(data);
        p.resize(4096, 0);
        p
    }

    fn all(p: &[u8]) -> Result<(Vec<RawEvent>, Lost), PageError> {
        let (mut c, lost) = open_page(p, &L8, Endian::Little)?;
        let mut v = Vec::new();
        while let Some(e) = next_event(p, Endian::Little, &mut c)? {
            v.push(e);
        }
        Ok((v, lost))
    }

    #[test]
    fn deltas_extend_padding_and_absolute_stamps() {
        let mut d = Vec::new();
        d.extend_from_slice(&hdr(2, 10)); // 8-byte record at +10
        d.extend_from_slice(&[1; 8]);
        d.extend_from_slice(&hdr(TYPE_TIME_EXTEND, 5)); // + (3 << 27) + 5
        d.extend_from_slice(&3u32.to_le_bytes());
        d.extend_from_slice(&hdr(1, 7)); // 4-byte record
        d.extend_from_slice(&[2; 4]);
        d.extend_from_slice(&hdr(TYPE_PADDING, 2)); // discarded 8 bytes, delta still counts
        d.extend_from_slice(&8u32.to_le_bytes());
        d.extend_from_slice(&[0; 4]);
        d.extend_from_slice(&hdr(0, 1)); // long record: length word 4 + 6 → 8 bytes aligned
        d.extend_from_slice(&10u32.to_le_bytes());
        d.extend_from_slice(&[3; 8]);
        d.extend_from_slice(&hdr(TYPE_TIME_STAMP, 100)); // absolute: (1 << 27) + 100
        d.extend_from_slice(&1u32.to_le_bytes());
        d.extend_from_slice(&hdr(1, 0));
        d.extend_from_slice(&[4; 4]);
        let base = 1_000_000u64 | (0x08 << 56);
        let p = page(base, 0, &d);
        let (ev, lost) = all(&p).unwrap();
        assert_eq!(lost, Lost::None);
        let t1 = base + 10;
        let t2 = t1 + (3 << 27) + 5 + 7;
        let t3 = t2 + 2 + 1;
        let t4 = ((1u64 << 27) + 100) | (0x08 << 56);
        let ts: Vec<u64> = ev.iter().map(|e| e.ts).collect();
        assert_eq!(ts, vec![t1, t2, t3, t4]);
        assert_eq!((ev[0].start, ev[0].len), (20, 8));
        assert_eq!(p[ev[1].start], 2);
        assert_eq!((p[ev[2].start], ev[2].len), (3, 8));
        assert_eq!(p[ev[3].start], 4);
    }

    #[test]
    fn null_padding_ends_the_page_and_lost_counts() {
        let mut d = Vec::new();
        d.extend_from_slice(&hdr(1, 3));
        d.extend_from_slice(&[9; 4]);
        d.extend_from_slice(&hdr(TYPE_PADDING, 0));
        d.extend_from_slice(&[0xff; 12]);
        let mut p = page(50, MISSING_EVENTS | MISSING_STORED, &d);
        let end = 16 + d.len();
        p[end..end + 8].copy_from_slice(&42u64.to_le_bytes());
        let (ev, lost) = all(&p).unwrap();
        assert_eq!(ev.len(), 1);
        assert_eq!(ev[0].ts, 53);
        assert_eq!(lost, Lost::Count(42));
        let p = page(50, MISSING_EVENTS, &d);
        assert_eq!(all(&p).unwrap().1, Lost::Unknown);
    }

    #[test]
    fn big_endian_headers() {
        let mut p = Vec::new();
        p.extend_from_slice(&7u64.to_be_bytes());
        p.extend_from_slice(&8u32.to_be_bytes());
        p.extend_from_slice(&((1u32 << 27) | 4).to_be_bytes());
        p.extend_from_slice(&[5; 4]);
        let l4 = PageLayout { commit_size: 4, data_offset: 12, ..L8 };
        let (mut c, _) = open_page(&p, &l4, Endian::Big).unwrap();
        let e = next_event(&p, Endian::Big, &mut c).unwrap().unwrap();
        assert_eq!((e.ts, e.start, e.len), (11, 16, 4));
    }

    #[test]
    fn corrupt_pages_are_errors() {
        // Commit larger than the page.
        let mut p = page(0, 0, &[]);
        p[8..16].copy_from_slice(&5000u64.to_le_bytes());
        assert!(all(&p).is_err());
        // Record running past the committed data.
        let mut d = hdr(4, 1).to_vec();
        d.extend_from_slice(&[0; 4]);
        assert!(all(&page(0, 0, &d)).is_err());
        // Long record with a length word under 4, and a truncated header.
        let mut d = hdr(0, 1).to_vec();
        d.extend_from_slice(&2u32.to_le_bytes());
        assert!(all(&page(0, 0, &d)).is_err());
        assert!(all(&page(0, 0, &[1, 0])).is_err());
        // Padding claiming more than the page holds.
        let mut d = hdr(TYPE_PADDING, 1).to_vec();
        d.extend_from_slice(&9999u32.to_le_bytes());
        assert!(all(&page(0, 0, &d)).is_err());
        // A page shorter than its header.
        assert!(open_page(&[0; 10], &L8, Endian::Little).is_err());
    }
}
