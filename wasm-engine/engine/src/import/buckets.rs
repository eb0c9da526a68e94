//! The one rule by which the replay view's window queries (run spans, runqueue depth, thread
//! states) merge what is too short to draw: from item `i`, the items of a time-ordered run that
//! each last less than a bucket and start within a bucket of the first become one; an item
//! lasting a bucket or more stands alone. Each caller names the merged item (the longest, the
//! deepest).

/// The end (exclusive index, end time) of the merged run starting at item `i` of `i..b`, items
/// being `[start(k), end(k))` in time order.
pub(crate) fn merged_run(
    i: usize,
    b: usize,
    bucket: u64,
    start: impl Fn(usize) -> u64,
    end: impl Fn(usize) -> u64,
) -> (usize, u64) {
    let (s, mut e) = (start(i), end(i));
    let mut j = i + 1;
    if e - s < bucket {
        while j < b && start(j) - s < bucket && end(j) - start(j) < bucket {
            e = end(j);
            j += 1;
        }
    }
    (j, e)
}

#[cfg(test)]
mod tests {
    use super::merged_run;

    #[test]
    fn short_items_merge_long_ones_stand_alone() {
        // [0,2) [2,3) [3,4) [4,20) [20,21)
        let iv = [(0, 2), (2, 3), (3, 4), (4, 20), (20, 21)];
        let (s, e) = (|k: usize| iv[k].0, |k: usize| iv[k].1);
        assert_eq!(merged_run(0, 5, 5, s, e), (3, 4));
        assert_eq!(merged_run(3, 5, 5, s, e), (4, 20));
        assert_eq!(merged_run(4, 5, 5, s, e), (5, 21));
        assert_eq!(merged_run(0, 5, 1, s, e), (1, 2));
    }
}
