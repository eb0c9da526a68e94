//! [`Column`]: one column of the observation log, in segments that never move.
//!
//! A long run appends hundreds of megabytes of rows. In a `Vec`, every doubling copies the
//! whole column into a new block. Natively the allocator moves large blocks by remapping pages,
//! but wasm's linear memory has no such thing: `realloc` copies, and on the 64-CPU benchmark
//! (`schedlab bench`, (b)) that copying was 14 % of the wasm run (V8 profile of a 3 s run:
//! 211 ms in `realloc`).
//!
//! A column is a list of segments of doubling capacity: segment `k` holds `BASE << k` rows.
//! A row never moves once written, the number of allocations is the same as a `Vec`'s (so the
//! linear memory grows as often: fixed-size chunks of 64 Ki rows made it grow a thousand times
//! and V8 spent 23 % of the run in `memory.grow` and the collector it triggers), and a small
//! run stays small. Together with the wasm builds' allocator (`schedlab-wasm-alloc`, which
//! grows the memory in large steps) it took (b) for 5 simulated seconds from 1.95 s to 1.80 s
//! in wasm (WASI in Node 20, median of 5; natively 1.20 s before and after).
//!
//! Rows are read by index (`col[i]`, `col.get(i)`), in order (`iter`, `iter_range`), by segment
//! (`segments`, `segment`: whole-table scans), or by binary search (`partition_point`), the
//! operations the log's readers use.

use std::ops::Index;

/// log2 of the first segment's rows.
const LOG_BASE: u32 = 8;
/// Rows in the first segment; segment `k` holds `BASE << k`.
const BASE: usize = 1 << LOG_BASE;

/// The first row of segment `k`.
#[inline]
fn seg_start(k: usize) -> usize {
    BASE * ((1usize << k) - 1)
}

/// The segment of row `i` and the row's offset in it.
#[inline]
fn locate(i: usize) -> (usize, usize) {
    let j = (i >> LOG_BASE) + 1;
    let k = (usize::BITS - 1 - j.leading_zeros()) as usize;
    (k, i - seg_start(k))
}

/// An append-only column of `Copy` values in segments of doubling size.
#[derive(Debug, Clone)]
pub struct Column<T> {
    /// The full segments: segment `k` holds `BASE << k` rows.
    full: Vec<Vec<T>>,
    /// The segment being filled (segment `full.len()`), kept apart so an append touches
    /// nothing else.
    cur: Vec<T>,
    /// `cur`'s size when full: `BASE << full.len()` (0 before the first row).
    cur_cap: usize,
}

impl<T> Default for Column<T> {
    fn default() -> Self {
        Column { full: Vec::new(), cur: Vec::new(), cur_cap: 0 }
    }
}

impl<T: Copy> Column<T> {
    /// An empty column.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends one row.
    #[inline]
    pub fn push(&mut self, v: T) {
        if self.cur.len() == self.cur_cap {
            self.next_segment();
        }
        self.cur.push(v);
    }

    #[cold]
    #[inline(never)]
    fn next_segment(&mut self) {
        if self.cur_cap != 0 {
            self.full.push(std::mem::take(&mut self.cur));
        }
        self.cur_cap = BASE << self.full.len();
        self.cur = Vec::with_capacity(self.cur_cap);
    }

    /// The segment `k` (`cur` when `k` is the last).
    #[inline]
    fn seg(&self, k: usize) -> Option<&Vec<T>> {
        match self.full.get(k) {
            Some(s) => Some(s),
            None if k == self.full.len() => Some(&self.cur),
            None => None,
        }
    }

    /// Every segment in order, the one being filled last.
    fn segs(&self) -> impl DoubleEndedIterator<Item = &Vec<T>> + '_ {
        self.full.iter().chain(std::iter::once(&self.cur))
    }

    /// Number of rows.
    #[inline]
    pub fn len(&self) -> usize {
        seg_start(self.full.len()) + self.cur.len()
    }

    /// Whether the column has no rows.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Row `i`, if there is one.
    #[inline]
    pub fn get(&self, i: usize) -> Option<T> {
        let (k, o) = locate(i);
        self.seg(k).and_then(|s| s.get(o)).copied()
    }

    /// The segments as slices, in order: columns of one table have the same length, so their
    /// segments line up and can be zipped (a whole-table scan without per-row indexing).
    pub fn segments(&self) -> impl DoubleEndedIterator<Item = &[T]> + '_ {
        self.segs().map(|s| s.as_slice())
    }

    /// Segment `k` as a slice, if there is one.
    #[inline]
    pub fn segment(&self, k: usize) -> Option<&[T]> {
        self.seg(k).map(|s| s.as_slice())
    }

    /// Every row, in order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = T> + '_ {
        self.segs().flat_map(|s| s.iter().copied())
    }

    /// Rows `lo..hi`, in order (clamped to the column).
    pub fn iter_range(&self, lo: usize, hi: usize) -> impl Iterator<Item = T> + '_ {
        let hi = hi.min(self.len());
        let lo = lo.min(hi);
        let k0 = if lo == hi { self.full.len() + 1 } else { locate(lo).0 };
        self.segs()
            .skip(k0)
            .enumerate()
            .map_while(move |(d, s)| {
                let start = seg_start(k0 + d);
                (start < hi).then(|| {
                    let a = lo.saturating_sub(start);
                    let b = (hi - start).min(s.len());
                    s[a..b].iter().copied()
                })
            })
            .flatten()
    }

    /// The index of the first row for which `pred` is false, given that `pred` is true for a
    /// prefix of the column and false after it (as `slice::partition_point`).
    pub fn partition_point(&self, mut pred: impl FnMut(&T) -> bool) -> usize {
        // The first full segment whose last row fails `pred` holds the point; if there is
        // none, the segment being filled does.
        let k = self.full.partition_point(|s| s.last().is_some_and(&mut pred));
        let seg = self.full.get(k).unwrap_or(&self.cur);
        seg_start(k) + seg.partition_point(pred)
    }
}

impl<T> Index<usize> for Column<T> {
    type Output = T;
    #[inline]
    fn index(&self, i: usize) -> &T {
        let (k, o) = locate(i);
        match self.full.get(k) {
            Some(s) => &s[o],
            None => {
                assert!(k == self.full.len(), "row {i} out of range");
                &self.cur[o]
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn column<T: Copy>(rows: impl IntoIterator<Item = T>) -> Column<T> {
        let mut c = Column::new();
        for v in rows {
            c.push(v);
        }
        c
    }

    fn range<T: Copy>(c: &Column<T>, lo: usize, hi: usize) -> Vec<T> {
        c.iter_range(lo, hi).collect()
    }

    const CHUNK: usize = 1 << 16;

    #[test]
    fn segments_double_from_base() {
        assert_eq!(locate(0), (0, 0));
        assert_eq!(locate(BASE - 1), (0, BASE - 1));
        assert_eq!(locate(BASE), (1, 0));
        assert_eq!(locate(3 * BASE - 1), (1, 2 * BASE - 1));
        assert_eq!(locate(3 * BASE), (2, 0));
        let c: Column<u32> = column(0..(7 * BASE as u32));
        assert_eq!(c.segs().map(|s| s.len()).collect::<Vec<_>>(), vec![BASE, 2 * BASE, 4 * BASE]);
        assert!(c.segs().enumerate().all(|(k, s)| s.capacity() == BASE << k));
        let mut one = Column::new();
        one.push(7u8);
        assert_eq!((one.len(), one[0], one.get(0), one.get(1)), (1, 7, Some(7), None));
        assert!(Column::<u8>::new().is_empty() && Column::<u8>::new().get(0).is_none());
    }

    #[test]
    fn rows_across_segment_boundaries_read_back_in_order() {
        let n = 3 * CHUNK + 17;
        let c: Column<u64> = column((0..n as u64).map(|x| x * 3));
        assert_eq!(c.len(), n);
        assert_eq!(c[CHUNK - 1], 3 * (CHUNK as u64 - 1));
        assert_eq!(c[CHUNK], 3 * CHUNK as u64);
        assert_eq!(c.get(n), None);
        assert_eq!(c.get(n - 1), Some(3 * (n as u64 - 1)));
        assert_eq!(c.iter().count(), n);
        let r = range(&c, CHUNK - 2, 2 * CHUNK + 3);
        assert_eq!(r.len(), CHUNK + 5);
        assert_eq!(r[0], 3 * (CHUNK as u64 - 2));
        assert_eq!(*r.last().unwrap(), 3 * (2 * CHUNK as u64 + 2));
        assert!(range(&c, 5, 5).is_empty());
        assert_eq!(range(&c, n - 1, n + 10), vec![3 * (n as u64 - 1)]);
        for lo in [0, 1, BASE - 1, BASE, 3 * BASE + 5] {
            for hi in [lo, lo + 1, 3 * BASE, 3 * BASE + 1, 40 * BASE, n] {
                let want: Vec<u64> = (lo.min(hi)..hi).map(|x| 3 * x as u64).collect();
                assert_eq!(range(&c, lo, hi), want, "{lo}..{hi}");
            }
        }
    }

    #[test]
    fn partition_point_matches_the_slice_one() {
        let n = 2 * CHUNK + 5;
        let c: Column<u64> = column((0..n as u64).map(|x| x / 7));
        let v: Vec<u64> = c.iter().collect();
        for t in [0u64, 1, 9362, 9363, (CHUNK / 7) as u64, (n / 7) as u64, (n / 7 + 1) as u64, u64::MAX] {
            assert_eq!(c.partition_point(|&x| x < t), v.partition_point(|&x| x < t), "t={t}");
        }
        assert_eq!(Column::<u64>::new().partition_point(|_| true), 0);
    }
}
