//! Latency statistics: min, median, mean, standard deviation, tail percentiles, max.
use serde::Serialize;

#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct Summary {
    pub count: usize,
    pub min: f64,
    pub median: f64,
    pub avg: f64,
    pub stdev: f64,
    pub p99: f64,
    pub p99_9: f64,
    pub p99_99: f64,
    pub max: f64,
}

/// Nearest-rank percentile of sorted samples (p in 0..=100). (perftest's own report line uses
/// index ceil(n·p) after dropping the top two samples: `report/perftest_lat.rs`.)
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    // The small epsilon keeps 0.99 × 1000 = 990.0000000000001 at rank 990.
    let rank = ((p / 100.0) * sorted.len() as f64 - 1e-9).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// Summary of `samples` (sorted in place). With no samples every statistic is NaN, which the
/// tables write as null / an empty cell: a 0 µs latency would read as a measurement.
pub fn summarize(samples: &mut [f64]) -> Summary {
    if samples.is_empty() {
        let none = f64::NAN;
        return Summary { count: 0, min: none, median: none, avg: none, stdev: none, p99: none, p99_9: none, p99_99: none, max: none };
    }
    samples.sort_by(f64::total_cmp);
    let n = samples.len() as f64;
    let avg = samples.iter().sum::<f64>() / n;
    let var = samples.iter().map(|x| (x - avg) * (x - avg)).sum::<f64>() / n;
    Summary {
        count: samples.len(),
        min: samples[0],
        median: samples[samples.len() / 2],
        avg,
        stdev: var.sqrt(),
        p99: percentile(samples, 99.0),
        p99_9: percentile(samples, 99.9),
        p99_99: percentile(samples, 99.99),
        max: samples[samples.len() - 1],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn percentiles_by_nearest_rank() {
        let mut v: Vec<f64> = (1..=1000).map(|x| x as f64).collect();
        let s = summarize(&mut v);
        assert_eq!(s.min, 1.0);
        assert_eq!(s.max, 1000.0);
        assert_eq!(s.median, 501.0);
        assert_eq!(s.p99, 990.0);
        assert_eq!(s.p99_9, 999.0);
        assert_eq!(s.avg, 500.5);
    }
}
