//! [`PidTable`]: a map keyed by pid for the importers' per-record lookups (the store's live task
//! of a pid, the Perfetto importer's comm and prio of a pid). Pids `0..PID_MAX_LIMIT` (the
//! kernel's `PID_MAX_LIMIT`, 4 Mi on 64-bit) are indexed directly in pages of [`PAGE`] entries
//! allocated when first written, so a trace's memory follows the pid ranges it uses; any other
//! number (a negative pid of a damaged or synthetic record) goes to an ordered map. Lookups only:
//! nothing iterates it, so nothing depends on an order.

use std::collections::BTreeMap;

/// Entries per page.
pub const PAGE: usize = 1024;
/// The kernel's `PID_MAX_LIMIT` on 64-bit (`4 * 1024 * 1024`): pids below it are paged.
pub const PID_MAX_LIMIT: i32 = 4 << 20;

#[derive(Clone, Debug)]
pub struct PidTable<T> {
    pages: Vec<Option<Box<[Option<T>]>>>,
    other: BTreeMap<i32, Option<T>>,
}

impl<T> Default for PidTable<T> {
    fn default() -> Self {
        PidTable { pages: Vec::new(), other: BTreeMap::new() }
    }
}

impl<T: Copy> PidTable<T> {
    pub fn get(&self, pid: i32) -> Option<T> {
        if (0..PID_MAX_LIMIT).contains(&pid) {
            let p = pid as usize;
            self.pages.get(p / PAGE)?.as_ref()?[p % PAGE]
        } else {
            self.other.get(&pid).copied().flatten()
        }
    }

    pub fn insert(&mut self, pid: i32, v: T) {
        *self.slot(pid) = Some(v);
    }

    /// The entry of `pid`, to read or write in place.
    pub fn slot(&mut self, pid: i32) -> &mut Option<T> {
        if (0..PID_MAX_LIMIT).contains(&pid) {
            let p = pid as usize;
            if self.pages.len() <= p / PAGE {
                self.pages.resize_with(p / PAGE + 1, || None);
            }
            let page = self.pages[p / PAGE].get_or_insert_with(|| vec![None; PAGE].into_boxed_slice());
            &mut page[p % PAGE]
        } else {
            self.other.entry(pid).or_insert(None)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paged_and_other_pids() {
        let mut t = PidTable::default();
        assert_eq!(t.get(5), None);
        t.insert(5, 1u32);
        t.insert(4_000_000, 2);
        t.insert(-1, 3);
        t.insert(i32::MAX, 4);
        assert_eq!(
            (t.get(5), t.get(6), t.get(4_000_000), t.get(-1), t.get(i32::MAX)),
            (Some(1), None, Some(2), Some(3), Some(4))
        );
        *t.slot(-1) = None;
        assert_eq!(t.get(-1), None);
        assert_eq!(t.pages.iter().filter(|p| p.is_some()).count(), 2, "only the pages written");
    }
}
