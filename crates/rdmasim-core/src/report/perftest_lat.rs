//! The latency report as perftest prints it (linux-rdma/perftest, src/perftest_parameters.c,
//! `print_report_lat`), so that a simulated `ib_*_lat` line reads like a real one even when a
//! run has outliers (a lost packet, an RNR wait):
//!
//! - the samples are the iteration times between consecutive posts, `iters - 1` of them (the
//!   last iteration's time is not one of them);
//! - after sorting, the two largest (`LAT_MEASURE_TAIL`) are left out of the median, mean and
//!   standard deviation, and `t_max` is the largest sample left, the second largest of all;
//! - the median of an even count is the mean of the two middle samples;
//! - the standard deviation is taken over deviations truncated to whole microseconds (C `int`
//!   conversion), so sub-microsecond spread prints as 0;
//! - the 99 %, 99.9 % (and, in newer versions, 99.99 %) columns are the samples at index
//!   ceil(count × p) of the sorted samples left.
//!
//! The `latency` table keeps the plain statistics of every sample (`report/stats.rs`).
use serde::Serialize;

/// Samples perftest drops from the top before its statistics.
const LAT_MEASURE_TAIL: usize = 2;

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct PerftestLat {
    pub min: f64,
    pub max: f64,
    pub typical: f64,
    pub avg: f64,
    pub stdev: f64,
    pub p99: f64,
    pub p99_9: f64,
    pub p99_99: f64,
}

/// perftest's statistics of iteration times `per_iteration` (µs, in iteration order). With too
/// few iterations for them (perftest requires at least 5) every figure is NaN.
pub fn perftest_lat(per_iteration: &[f64]) -> PerftestLat {
    let mut delta: Vec<f64> = per_iteration.iter().copied().take(per_iteration.len().saturating_sub(1)).collect();
    if delta.len() <= LAT_MEASURE_TAIL {
        let nan = f64::NAN;
        return PerftestLat { min: nan, max: nan, typical: nan, avg: nan, stdev: nan, p99: nan, p99_9: nan, p99_99: nan };
    }
    delta.sort_by(f64::total_cmp);
    let n = delta.len() - LAT_MEASURE_TAIL;
    let typical = if (n - 1) % 2 == 1 { (delta[n / 2] + delta[n / 2 - 1]) / 2.0 } else { delta[n / 2] };
    let avg = delta[..n].iter().sum::<f64>() / n as f64;
    // `int temp_var = average - delta; int pow_var = pow(temp_var, 2);`: truncated toward zero.
    let squares: f64 = delta[..n].iter().map(|d| (avg - d).trunc().powi(2)).sum();
    let at = |p: f64| delta[((n as f64 * p).ceil() as usize).min(n)];
    PerftestLat {
        min: delta[0],
        max: delta[n],
        typical,
        avg,
        stdev: (squares / n as f64).sqrt(),
        p99: at(0.99),
        p99_9: at(0.999),
        p99_99: at(0.9999),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_two_largest_samples_and_the_last_iteration_are_left_out() {
        // 1000 iterations of 0.71 us, one of them (a lost packet) 250 ms, and a long last one.
        let mut t = vec![0.71; 1000];
        t[500] = 250_000.71;
        t[999] = 9.0;
        let r = perftest_lat(&t);
        assert_eq!((r.min, r.max, r.typical, r.stdev), (0.71, 0.71, 0.71, 0.0));
        assert!((r.avg - 0.71).abs() < 1e-9, "{}", r.avg);
        assert_eq!((r.p99, r.p99_9), (0.71, 0.71));
    }

    #[test]
    fn median_of_an_even_count_and_indices_of_the_tails() {
        // 1..=11 then a last iteration: 11 deltas, 9 after the tail, odd: the middle one.
        let t: Vec<f64> = (1..=12).map(f64::from).collect();
        let r = perftest_lat(&t);
        assert_eq!((r.min, r.max, r.typical, r.avg), (1.0, 10.0, 5.0, 5.0));
        assert_eq!(r.p99, 10.0); // delta[ceil(9 × 0.99)] = delta[9]
        // 10 deltas, 8 after the tail, even: the mean of delta[3] and delta[4].
        let r = perftest_lat(&t[..11]);
        assert_eq!(r.typical, 4.5);
        // Deviations truncated to whole microseconds: 1..=8 around 4.5 give 3,2,1,0,0,1,2,3.
        assert_eq!(r.stdev, (28.0f64 / 8.0).sqrt());
    }

    #[test]
    fn too_few_iterations_give_no_figures() {
        assert!(perftest_lat(&[1.0, 2.0, 3.0]).typical.is_nan());
        assert!(perftest_lat(&[1.0, 2.0, 3.0, 4.0]).typical.is_finite());
    }
}
