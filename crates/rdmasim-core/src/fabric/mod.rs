//! The fabric: links (rate, width, encoding, delay, credits, errors), switches, topologies.
pub mod rate;
