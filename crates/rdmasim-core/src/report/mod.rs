//! Counters, statistics and result tables.
