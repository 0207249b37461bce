//! The flow-level engine (DESIGN.md, "Fabric"): the flows of a `flows` workload over the same
//! routed fabric as the packet engine, each following its LFT route, at max-min fair rates
//! recomputed only where an arrival or a departure changes them. `docs/flow.md` documents the
//! model, what it leaves out and how it compares with the packet engine.
//!
//! - [`paths`]: each flow's route through the LFTs, as directed links.
//! - [`link_model`]: what a link carries per second and what a message puts on the wire.
//! - [`maxmin`]: max-min fair rates by progressive filling.
//! - [`hol`]: head-of-line blocking as equal-rate groups in the filling (`[flow] hol`).
//! - [`engine`]: the event loop of arrivals and departures.
//! - [`fixed`]: given flows on a routed fabric, all at time 0: when each is through.
//! - [`run`]: a scenario's `flows` workload on the flow engine, with the packet engine's tables.
pub mod engine;
pub mod fixed;
pub mod hol;
pub mod link_model;
pub mod maxmin;
pub mod paths;
pub mod run;
