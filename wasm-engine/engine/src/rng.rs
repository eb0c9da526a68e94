//! Seeded randomness: one scenario seed split into independent sub-seeds per component.
//!
//! SplitMix64 (Steele, Lea, Flood 2014) both as the generator and as the mixing function
//! that derives a component's sub-seed from (scenario seed, component name, index). Each
//! component draws from its own stream (NI_RANDOM's newidle balance, a pipe step's
//! `work_jitter` from its task's), so adding randomness to one does not perturb another's.

/// A SplitMix64 generator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        mix(self.0)
    }

    /// Uniform integer in `[0, n)` (n > 0), by rejection (no modulo bias).
    pub fn below(&mut self, n: u64) -> u64 {
        assert!(n > 0);
        let zone = u64::MAX - u64::MAX % n;
        loop {
            let v = self.next_u64();
            if v < zone {
                return v % n;
            }
        }
    }
}

fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Derives sub-seeds from one scenario seed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeedTree {
    root: u64,
}

impl SeedTree {
    /// The tree of a scenario seed.
    pub fn new(seed: u64) -> Self {
        SeedTree { root: seed }
    }

    /// The sub-seed of component `name`, instance `index`.
    pub fn sub_seed(&self, name: &str, index: u64) -> u64 {
        let mut h = self.root ^ 0x5eed_5eed_5eed_5eed;
        for b in name.bytes() {
            h = mix(h ^ b as u64);
        }
        mix(h ^ mix(index.wrapping_add(0x9e37_79b9_7f4a_7c15)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_distinct() {
        let t = SeedTree::new(42);
        assert_eq!(t.sub_seed("task", 0), SeedTree::new(42).sub_seed("task", 0));
        assert_ne!(t.sub_seed("task", 0), t.sub_seed("task", 1));
        assert_ne!(t.sub_seed("task", 0), t.sub_seed("cpu", 0));
        let mut a = SplitMix64::new(7);
        let mut b = SplitMix64::new(7);
        for _ in 0..100 {
            assert_eq!(a.next_u64(), b.next_u64());
        }
        for _ in 0..1000 {
            assert!(a.below(10) < 10);
        }
    }
}
