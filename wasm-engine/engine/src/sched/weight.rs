//! Load weights and the kernel's fixed-point conversion of real time to virtual time.
//!
//! Models `sched_prio_to_weight[]`/`sched_prio_to_wmult[]` (kernel/sched/core.c) and
//! `__update_inv_weight()`, `__calc_delta()`, `calc_delta_fair()` (kernel/sched/fair.c) of
//! Linux 6.18 on a 64-bit kernel: weights carry `SCHED_FIXEDPOINT_SHIFT` = 10 extra bits and
//! the division is an inverse multiply with the same truncation as the kernel's.

/// `SCHED_FIXEDPOINT_SHIFT`: extra resolution bits of a load weight on 64-bit kernels.
pub const SCHED_FIXEDPOINT_SHIFT: u32 = 10;
/// `NICE_0_LOAD` = scale_load(1024).
pub const NICE_0_LOAD: u64 = 1024 << SCHED_FIXEDPOINT_SHIFT;
/// `WMULT_CONST` = 2^32 − 1.
const WMULT_CONST: u64 = (1u64 << 32) - 1;
/// `WMULT_SHIFT`.
const WMULT_SHIFT: u32 = 32;
/// Weight of SCHED_IDLE tasks: `WEIGHT_IDLEPRIO` = 3 (scaled).
pub const WEIGHT_IDLEPRIO: u64 = 3;
/// Inverse weight of SCHED_IDLE tasks: `WMULT_IDLEPRIO`.
pub const WMULT_IDLEPRIO: u32 = 1_431_655_765;

/// `sched_prio_to_weight[]` of a nice value (clamped to -20..=19), unscaled: 1024 at nice 0.
pub fn nice_weight(nice: i32) -> u64 {
    SCHED_PRIO_TO_WEIGHT[(nice.clamp(-20, 19) + 20) as usize]
}

/// `sched_prio_to_weight[]`, nice −20 … +19.
pub const SCHED_PRIO_TO_WEIGHT: [u64; 40] = [
    88761, 71755, 56483, 46273, 36291, //
    29154, 23254, 18705, 14949, 11916, //
    9548, 7620, 6100, 4904, 3906, //
    3121, 2501, 1991, 1586, 1277, //
    1024, 820, 655, 526, 423, //
    335, 272, 215, 172, 137, //
    110, 87, 70, 56, 45, //
    36, 29, 23, 18, 15,
];

/// `sched_prio_to_wmult[]`, nice −20 … +19 (rounded 2^32 / weight).
pub const SCHED_PRIO_TO_WMULT: [u32; 40] = [
    48388, 59856, 76040, 92818, 118348, //
    147320, 184698, 229616, 287308, 360437, //
    449829, 563644, 704093, 875809, 1099582, //
    1376151, 1717300, 2157191, 2708050, 3363326, //
    4194304, 5237765, 6557202, 8165337, 10153587, //
    12820798, 15790321, 19976592, 24970740, 31350126, //
    39045157, 49367440, 61356676, 76695844, 95443717, //
    119304647, 148102320, 186737708, 238609294, 286331153,
];

/// `scale_load(w)`.
pub const fn scale_load(w: u64) -> u64 {
    w << SCHED_FIXEDPOINT_SHIFT
}

/// `scale_load_down(w)`: 0 stays 0, anything else is at least 2.
pub const fn scale_load_down(w: u64) -> u64 {
    if w == 0 {
        0
    } else {
        let d = w >> SCHED_FIXEDPOINT_SHIFT;
        if d < 2 {
            2
        } else {
            d
        }
    }
}

/// `struct load_weight`: a scaled weight and its (possibly not yet computed) inverse.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoadWeight {
    /// Scaled weight (nice 0 = 1,048,576).
    pub weight: u64,
    /// 2^32 / weight (unscaled), or 0 when it must be recomputed lazily.
    pub inv_weight: u32,
}

impl LoadWeight {
    /// The weight of a SCHED_NORMAL/SCHED_BATCH task at `nice` (set_load_weight()).
    pub fn for_nice(nice: i32) -> LoadWeight {
        debug_assert!((-20..=19).contains(&nice), "nice {nice} out of range");
        let idx = (nice + 20).clamp(0, 39) as usize;
        LoadWeight { weight: scale_load(SCHED_PRIO_TO_WEIGHT[idx]), inv_weight: SCHED_PRIO_TO_WMULT[idx] }
    }

    /// The weight of a SCHED_IDLE task.
    pub fn idle() -> LoadWeight {
        LoadWeight { weight: scale_load(WEIGHT_IDLEPRIO), inv_weight: WMULT_IDLEPRIO }
    }

    /// A weight whose inverse is computed lazily (group entities, update_load_set()).
    pub fn lazy(weight: u64) -> LoadWeight {
        LoadWeight { weight, inv_weight: 0 }
    }

    /// `__update_inv_weight()`: floors (2^32−1)/w, unlike the rounded table values.
    fn ensure_inv_weight(&mut self) {
        if self.inv_weight != 0 {
            return;
        }
        let w = scale_load_down(self.weight);
        self.inv_weight = match w {
            0 => WMULT_CONST as u32,
            w if w >= WMULT_CONST => 1,
            w => (WMULT_CONST / w) as u32,
        };
    }

    /// The 1024-scale weight used in `avg_vruntime` sums (`scale_load_down`).
    pub fn down(&self) -> u64 {
        scale_load_down(self.weight)
    }
}

/// `__calc_delta(delta, weight, lw)` = delta × weight / lw.weight via the inverse multiply.
///
/// Models `__calc_delta()` in kernel/sched/fair.c (v6.12–v6.19, 64-bit): the 32-bit factor is
/// renormalised with right shifts and the final product is a 128-bit multiply truncated by
/// the remaining shift (`mul_u64_u32_shr`).
pub fn calc_delta(delta: u64, weight: u64, lw: &mut LoadWeight) -> u64 {
    let mut fact = scale_load_down(weight);
    let mut shift = WMULT_SHIFT;
    lw.ensure_inv_weight();
    // fact_hi handling: shift the factor down until it fits in 32 bits.
    while fact >> 32 != 0 {
        fact >>= 1;
        shift -= 1;
    }
    fact *= lw.inv_weight as u64;
    while fact >> 32 != 0 {
        fact >>= 1;
        shift -= 1;
    }
    mul_u64_u32_shr(delta, fact as u32, shift)
}

/// `mul_u64_u32_shr(a, mul, shift)` = ⌊a × mul / 2^shift⌋ mod 2^64, for `shift` ≤ 32, in 64-bit
/// arithmetic: the product of `a`'s low half shifted right plus that of its high half
/// shifted left, which is exact because the high half's part is a whole number. This is the
/// kernel's generic form (include/linux/math64.h, used where there is no 128-bit multiply);
/// the result equals the 128-bit product's. In wasm32 it avoids the 128-bit multiply, which
/// is a library call there.
#[inline]
pub fn mul_u64_u32_shr(a: u64, mul: u32, shift: u32) -> u64 {
    debug_assert!(shift <= 32);
    let (lo, hi) = (a & 0xffff_ffff, a >> 32);
    let mut ret = (lo * mul as u64) >> shift;
    if hi != 0 {
        ret = ret.wrapping_add((hi * mul as u64).wrapping_shl(32 - shift));
    }
    ret
}

/// `calc_delta_fair(delta, se)`: real time → the entity's virtual time.
#[inline]
pub fn calc_delta_fair(delta: u64, lw: &mut LoadWeight) -> u64 {
    if lw.weight == NICE_0_LOAD {
        return delta;
    }
    calc_delta(delta, NICE_0_LOAD, lw)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nice_zero_is_identity() {
        let mut lw = LoadWeight::for_nice(0);
        assert_eq!(calc_delta_fair(4_000_000, &mut lw), 4_000_000);
    }

    #[test]
    fn spec_worked_examples() {
        // nice +5: factor 1024/335 via fact = 3,282,124,288 and shift 30.
        let mut lw = LoadWeight::for_nice(5);
        let expect = ((1_000_000u128 * 3_282_124_288u128) >> 30) as u64;
        assert_eq!(calc_delta_fair(1_000_000, &mut lw), expect);
        assert_eq!(expect, 3_056_716); // 1e6 × 3,282,124,288 / 2^30, truncated
                                       // nice −5: fact = 1,409,178,624, shift 32.
        let mut lw = LoadWeight::for_nice(-5);
        assert_eq!(calc_delta_fair(1_000_000, &mut lw), ((1_000_000u128 * 1_409_178_624u128) >> 32) as u64);
    }

    #[test]
    fn mul_u64_u32_shr_equals_the_128_bit_product() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for i in 0..20_000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let a = if i % 3 == 0 { x >> (i % 64) } else { x };
            let (mul, shift) = ((x >> 11) as u32, (i % 33) as u32);
            assert_eq!(
                mul_u64_u32_shr(a, mul, shift),
                ((a as u128 * mul as u128) >> shift) as u64,
                "{a} {mul} {shift}"
            );
        }
    }

    #[test]
    fn nice_two_slice_matches_kernel() {
        // A nice-2 task's 1.4 ms slice in virtual time: 1.4e6 × 1024/655, truncated.
        let mut lw = LoadWeight::for_nice(2);
        let v = calc_delta_fair(1_400_000, &mut lw);
        assert!((2_188_000..2_189_000).contains(&v), "{v}");
    }

    #[test]
    fn lazy_inverse_is_floored() {
        let mut lw = LoadWeight::lazy(scale_load(1024));
        lw.ensure_inv_weight();
        assert_eq!(lw.inv_weight, (WMULT_CONST / 1024) as u32);
        assert_eq!(scale_load_down(1), 2);
        assert_eq!(scale_load_down(0), 0);
    }
}
