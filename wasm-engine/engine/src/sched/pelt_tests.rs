//! Unit tests of `sched/pelt.rs` (the bit-exact check against the machine is `tests/pelt.rs`).

use super::*;

const MS: u64 = 1024 * 1024; // one PELT period in ns

/// An entity that is queued and running for `periods` whole periods from `sa`, updated every
/// period as the tick would.
fn run(sa: &mut SchedAvg, periods: u64, weight: u64) {
    for _ in 0..periods {
        let now = sa.last_update_time + MS;
        __update_load_avg_se(now, sa, weight, true, 1, true);
    }
}

#[test]
fn decay_halves_in_32_periods() {
    // LOAD_AVG_MAX after 32 periods: one shift, then y^0 = 0xffffffff / 2^32 takes one more.
    assert_eq!(decay_load(LOAD_AVG_MAX as u64, LOAD_AVG_PERIOD), 23870);
    // A shift per half-life, then y^0 = 0xffffffff / 2^32 takes off 2^-32 of what is left.
    assert_eq!(decay_load(1 << 40, 32), (1 << 39) - (1 << 7));
    assert_eq!(decay_load(1 << 40, 64), (1 << 38) - (1 << 6));
    // y^0 loses one unit to the table's 0xffffffff, y^n < 1 always.
    assert_eq!(decay_load(1024, 0), 1023);
    assert_eq!(decay_load(1024, 1), 1002);
    // Past 63 half-lives everything is gone (at 63, u64::MAX is down to 1 and y^0 takes it).
    assert_eq!(decay_load(u64::MAX, LOAD_AVG_PERIOD * 63 + 1), 0);
    assert_eq!(decay_load(u64::MAX, LOAD_AVG_PERIOD * 63), 0);
    assert_eq!(decay_load(u64::MAX, LOAD_AVG_PERIOD * 62), 2);
}

#[test]
fn table_is_y_to_the_n() {
    assert_eq!(RUNNABLE_AVG_Y_N_INV.len(), LOAD_AVG_PERIOD as usize);
    // y^16 = 2^-1/2 and y^8 = 2^-1/4, in 32-bit fixed point.
    assert_eq!(RUNNABLE_AVG_Y_N_INV[16], 0xb504f333);
    assert_eq!(RUNNABLE_AVG_Y_N_INV[8], 0xd744fcc9);
    assert_eq!(RUNNABLE_AVG_Y_N_INV[31], 0x82cd8698);
    // Strictly decreasing, the last one above one half.
    assert!(RUNNABLE_AVG_Y_N_INV.windows(2).all(|w| w[0] > w[1]));
    assert!(RUNNABLE_AVG_Y_N_INV[31] > 0x8000_0000);
    assert_eq!(PELT_MIN_DIVIDER, 46718);
}

#[test]
fn accumulate_segments_of_one_and_many_periods() {
    // One boundary: the old period's end decayed once, no full period between, d3 as is.
    assert_eq!(__accumulate_pelt_segments(1, 1024, 0), decay_load(1024, 1) as u32);
    // Very many periods: d1 is gone and the full periods sum to LOAD_AVG_MAX - 1024.
    assert_eq!(__accumulate_pelt_segments(10_000, 1024, 0), LOAD_AVG_MAX - 1024);
}

#[test]
fn less_than_1024_ns_changes_nothing_and_backwards_resets() {
    let mut sa = SchedAvg { last_update_time: 10 * MS, ..Default::default() };
    let before = sa;
    assert!(!__update_load_avg_se(10 * MS + 1023, &mut sa, 1 << 20, true, 1, true));
    assert_eq!(sa, before);
    // 1500 ns: one unit accrues, the 476 ns remainder stays in now - last_update_time.
    assert!(!__update_load_avg_se(10 * MS + 1500, &mut sa, 1 << 20, true, 1, true));
    assert_eq!(sa.last_update_time, 10 * MS + 1024);
    assert_eq!((sa.load_sum, sa.runnable_sum, sa.util_sum, sa.period_contrib), (1, 1024, 1024, 1));
    assert!(!__update_load_avg_se(5, &mut sa, 1 << 20, true, 1, true));
    assert_eq!(sa.last_update_time, 5);
}

#[test]
fn full_running_entity_converges_to_1024() {
    let mut sa = SchedAvg::default();
    run(&mut sa, 2000, 1 << 20);
    assert_eq!(sa.period_contrib, 0);
    assert_eq!(sa.util_avg, 1024);
    assert_eq!(sa.runnable_avg, 1024);
    // load_avg is the weight (1024 scale) times the fraction of time queued; load_sum counts
    // units (util_sum counts units << 10), so its rounding shows: one below the weight.
    assert_eq!(sa.load_avg, 1023);
    assert!(sa.load_sum < PELT_MIN_DIVIDER as u64);
    // Half-way through a period the divider follows period_contrib and the average stays.
    let now = sa.last_update_time + MS / 2;
    __update_load_avg_se(now, &mut sa, 1 << 20, true, 1, true);
    assert_eq!(sa.period_contrib, 512);
    assert_eq!(sa.util_avg, 1024);
}

#[test]
fn nice_weight_scales_load_not_util() {
    let mut sa = SchedAvg::default();
    // nice 5: 335 at 1024 scale.
    run(&mut sa, 2000, 335 << 10);
    assert_eq!(sa.load_avg, 334);
    assert_eq!(sa.util_avg, 1024);
}

#[test]
fn runnable_but_waiting_has_no_util() {
    let mut sa = SchedAvg::default();
    for _ in 0..2000 {
        let now = sa.last_update_time + MS;
        __update_load_avg_se(now, &mut sa, 1 << 20, true, 1, false);
    }
    assert_eq!((sa.load_avg, sa.runnable_avg, sa.util_avg), (1023, 1024, 0));
}

#[test]
fn blocked_entity_halves_every_32_periods() {
    let mut sa = SchedAvg::default();
    run(&mut sa, 2000, 1 << 20);
    let start = sa.last_update_time;
    assert!(__update_load_avg_blocked_se(start + 32 * MS, &mut sa, 1 << 20));
    assert!((511..=512).contains(&sa.util_avg), "{}", sa.util_avg);
    assert!(__update_load_avg_blocked_se(start + 64 * MS, &mut sa, 1 << 20));
    assert!((255..=256).contains(&sa.util_avg), "{}", sa.util_avg);
    // Fully decayed after 63 half-lives.
    assert!(__update_load_avg_blocked_se(start + 3000 * MS, &mut sa, 1 << 20));
    assert_eq!((sa.load_sum, sa.util_sum, sa.load_avg, sa.util_avg), (0, 0, 0, 0));
}

#[test]
fn cfs_rq_load_is_its_weight_and_runnable_its_count() {
    let mut sa = SchedAvg::default();
    // Two nice-0 tasks queued, one running.
    for _ in 0..2000 {
        let now = sa.last_update_time + MS;
        __update_load_avg_cfs_rq(now, &mut sa, 2 << 20, 2, true);
    }
    // The integer steps settle one above 2 x 1024 here (the per-entity sums settle one below,
    // above): the averages are exact only to a unit.
    assert_eq!((sa.load_avg, sa.runnable_avg, sa.util_avg), (2049, 2049, 1024));
    // No load: neither runnable nor running time accrues, even with curr set.
    let before = sa;
    __update_load_avg_cfs_rq(sa.last_update_time + 3 * MS, &mut sa, 0, 2, true);
    assert!(sa.util_avg < before.util_avg && sa.runnable_avg < before.runnable_avg);
    assert_eq!(scale_load_down(1), 2);
    assert_eq!(scale_load_down(0), 0);
}
