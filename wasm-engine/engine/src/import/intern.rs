//! [`Interner`]: strings to dense ids, for the store's comms, event names and field names.

use std::collections::BTreeMap;

/// Strings to dense ids. A small direct-mapped cache of recent ids (by length and end bytes)
/// answers the importers' repeated lookups of the same few event and field names with one
/// comparison; ids are the map's either way.
#[derive(Clone, Debug, Default)]
pub struct Interner {
    ids: BTreeMap<Box<str>, u32>,
    names: Vec<Box<str>>,
    /// id + 1 of a string that hashed to the slot (0: none).
    recent: [u32; RECENT],
}

/// Slots of [`Interner`]'s cache.
const RECENT: usize = 32;

fn recent_slot(s: &str) -> usize {
    let b = s.as_bytes();
    let (first, last) = (b.first().copied().unwrap_or(0), b.last().copied().unwrap_or(0));
    (b.len().wrapping_mul(7) ^ usize::from(first).wrapping_mul(31) ^ usize::from(last).wrapping_mul(131)) % RECENT
}

impl Interner {
    pub fn intern(&mut self, s: &str) -> u32 {
        let slot = recent_slot(s);
        let hint = self.recent[slot];
        if hint != 0 && *self.names[hint as usize - 1] == *s {
            return hint - 1;
        }
        let id = match self.ids.get(s) {
            Some(&id) => id,
            None => {
                let id = self.names.len() as u32;
                self.names.push(s.into());
                self.ids.insert(s.into(), id);
                id
            }
        };
        self.recent[slot] = id + 1;
        id
    }
    pub fn get(&self, id: u32) -> &str {
        &self.names[id as usize]
    }
    pub fn id(&self, s: &str) -> Option<u32> {
        self.ids.get(s).copied()
    }
    pub fn len(&self) -> usize {
        self.names.len()
    }
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cache_never_changes_an_id() {
        let mut i = Interner::default();
        // Same length and end bytes: the same cache slot, different strings.
        let (a, b) = (i.intern("sched_a_x"), i.intern("sched_b_x"));
        assert_ne!(a, b);
        for _ in 0..3 {
            assert_eq!((i.intern("sched_a_x"), i.intern("sched_b_x"), i.intern("")), (a, b, 2));
        }
        assert_eq!((i.get(a), i.id("sched_b_x"), i.len()), ("sched_a_x", Some(b), 3));
    }
}
