//! The fabric: links (rate, width, encoding, delay, credits, errors), switches, topologies.
pub mod channel;
pub mod forward;
pub mod port;
pub mod rate;
pub mod switch;
pub mod switch_fifo;
pub mod topology;
