//! Counters, statistics and result tables.
pub mod capture;
pub mod columns;
pub mod perftest_lat;
pub mod stats;
pub mod tables;
