//! Counters, statistics and result tables.
pub mod capture;
pub mod stats;
pub mod tables;
