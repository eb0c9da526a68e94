//! Byte-level helpers shared by the text line parsers: timestamps (`secs.frac` with any number of
//! decimals up to 9, as the tracefs `trace_clock`s, `trace-cmd report -t` and `perf script --ns`
//! print them), integers, whitespace tokens, and located errors.
//!
//! Everything works on `&str` slices of one line with byte offsets, never allocating.

/// A parse failure inside one line: 0-based byte offset and what was expected there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Located {
    pub at: usize,
    pub expected: &'static str,
}

pub(crate) fn err<T>(at: usize, expected: &'static str) -> Result<T, Located> {
    Err(Located { at, expected })
}

/// Byte offset of `sub` inside `line` (`sub` must be a subslice of `line`).
pub(crate) fn offset_in(line: &str, sub: &str) -> usize {
    (sub.as_ptr() as usize).saturating_sub(line.as_ptr() as usize)
}

/// `secs.frac` → ns with integer arithmetic. 0 to 9 decimals (`544.830864` is µs resolution,
/// `544.830864123` ns); no decimals means the clock prints raw counts (`counter`, `x86-tsc`), kept
/// as they are.
pub fn parse_ts_ns(s: &str) -> Option<u64> {
    let b = s.as_bytes();
    let dot = b.iter().position(|&c| c == b'.');
    let (int, frac) = match dot {
        Some(d) => (&b[..d], &b[d + 1..]),
        None => (b, &b[..0]),
    };
    if int.is_empty() || frac.len() > 9 || (dot.is_some() && frac.is_empty()) {
        return None;
    }
    let secs = parse_u64_bytes(int)?;
    if dot.is_none() {
        return Some(secs);
    }
    let mut f = parse_u64_bytes(frac)?;
    for _ in frac.len()..9 {
        f *= 10;
    }
    secs.checked_mul(1_000_000_000)?.checked_add(f)
}

fn parse_u64_bytes(b: &[u8]) -> Option<u64> {
    if b.is_empty() || b.len() > 20 {
        return None;
    }
    let mut v: u64 = 0;
    for &c in b {
        if !c.is_ascii_digit() {
            return None;
        }
        v = v.checked_mul(10)?.checked_add(u64::from(c - b'0'))?;
    }
    Some(v)
}

/// Unsigned decimal.
pub fn parse_u64(s: &str) -> Option<u64> {
    parse_u64_bytes(s.as_bytes())
}

/// Signed decimal (`-22574`).
pub fn parse_i64(s: &str) -> Option<i64> {
    match s.strip_prefix('-') {
        Some(rest) => {
            let v = parse_u64(rest)?;
            if v <= i64::MAX as u64 + 1 {
                Some((v as i128).wrapping_neg() as i64)
            } else {
                None
            }
        }
        None => parse_u64(s).and_then(|v| i64::try_from(v).ok()),
    }
}

/// Signed 32-bit decimal.
pub fn parse_i32(s: &str) -> Option<i32> {
    parse_i64(s).and_then(|v| i32::try_from(v).ok())
}

/// Index of the first non-space (space or tab) byte at or after `i`.
pub(crate) fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && (b[i] == b' ' || b[i] == b'\t') {
        i += 1;
    }
    i
}

/// Index of the first space or tab at or after `i` (or the end).
pub(crate) fn token_end(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && b[i] != b' ' && b[i] != b'\t' {
        i += 1;
    }
    i
}

/// `[123]` candidates: positions of `[` that follow a space and enclose only digits, followed by
/// a space. Returns (index of `[`, index after `]`, the number).
pub(crate) fn bracket_numbers(line: &str) -> impl Iterator<Item = (usize, usize, u32)> + '_ {
    let b = line.as_bytes();
    let mut from = 0;
    std::iter::from_fn(move || {
        while let Some(rel) = b[from..].iter().position(|&c| c == b'[') {
            let i = from + rel;
            from = i + 1;
            if i == 0 || (b[i - 1] != b' ' && b[i - 1] != b'\t') {
                continue;
            }
            let mut j = i + 1;
            let mut v: u32 = 0;
            while j < b.len() && b[j].is_ascii_digit() && j - i <= 9 {
                v = v * 10 + u32::from(b[j] - b'0');
                j += 1;
            }
            if j == i + 1 || j >= b.len() || b[j] != b']' || v > super::record::MAX_CPU {
                continue;
            }
            if j + 1 < b.len() && b[j + 1] != b' ' && b[j + 1] != b'\t' {
                continue;
            }
            return Some((i, j + 1, v));
        }
        None
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_exact() {
        assert_eq!(parse_ts_ns("544.830864"), Some(544_830_864_000));
        assert_eq!(parse_ts_ns("544.830864123"), Some(544_830_864_123));
        assert_eq!(parse_ts_ns("0.000001"), Some(1_000));
        assert_eq!(parse_ts_ns("12"), Some(12));
        assert_eq!(parse_ts_ns("1.5"), Some(1_500_000_000));
        assert_eq!(parse_ts_ns("1.0123456789"), None);
        assert_eq!(parse_ts_ns("1."), None);
        assert_eq!(parse_ts_ns(".5"), None);
        assert_eq!(parse_ts_ns("1a.5"), None);
        assert_eq!(parse_ts_ns("99999999999999999999.0"), None);
    }

    #[test]
    fn integers() {
        assert_eq!(parse_i64("-22574"), Some(-22574));
        assert_eq!(parse_i64("-9223372036854775808"), Some(i64::MIN));
        assert_eq!(parse_i64("9223372036854775808"), None);
        assert_eq!(parse_i32("-"), None);
        assert_eq!(parse_u64("18446744073709551615"), Some(u64::MAX));
        assert_eq!(parse_u64("18446744073709551616"), None);
    }

    #[test]
    fn brackets() {
        let v: Vec<_> = bracket_numbers("a [x] b [001] d..2. [12]").collect();
        assert_eq!(v, vec![(8, 13, 1), (20, 24, 12)]);
    }
}
