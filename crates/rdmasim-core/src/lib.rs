//! rdmasim-core: a deterministic, packet-level simulator of RDMA fabrics.
//!
//! Layers (data flows down, results flow up):
//! - [`engine`]: simulated time (integer picoseconds), the event queue, seeded RNGs.
//! - [`wire`]: InfiniBand / RoCEv2 headers as plain structs with exact sizes; bytes only for captures.
//! - [`fabric`]: links (rate, width, encoding, delay, credits, errors), switches, topologies.
//! - [`hca`]: queue pairs and the RC transport, CQs, the NIC's send scheduler, hardware profiles.
//! - [`host`]: the CPU side: posting, busy or event-driven polling, CPU time accounting.
//! - [`workload`]: perftest equivalents (and later study workloads).
//! - [`flow`]: the flow-level engine, max-min fair rates over the same routed fabric.
//! - [`report`]: counters, latency statistics, result tables.
//! - [`scenario`]: the TOML scenario format and its validation.
//! - [`api`]: the small surface the Python binding and the CLI use.

pub mod api;
pub mod apps;
pub mod bench;
pub mod engine;
pub mod ether;
pub mod fabric;
pub mod flow;
pub mod hca;
pub mod mpi;
pub mod ids;
pub mod host;
pub mod report;
pub mod prepare;
pub mod profile;
pub mod run;
pub mod scenario;
pub mod sim;
pub mod traffic;
pub mod verbs;
pub mod wire;
pub mod world;
pub mod workload;
