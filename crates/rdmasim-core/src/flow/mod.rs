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
//! - [`rounds`]: many rounds of equal flows on one routed fabric (the TSUBAME2.0 sweeps), each
//!   round's time from [`round_time`], its flows from [`round_patterns`], bad links from
//!   [`bad_links`] and the stalls an erroring link causes from [`tail_loss`]; with a pair's
//!   payload split over its rails by their rates, the round's time from [`rail_share`].
//! - [`rank_by_rank`]: the pairwise Alltoall with no barrier between steps, at max-min rates
//!   re-solved as flows come and go; [`rank_by_rank_steps`]: the same dependencies with each
//!   transfer at its step's rate, cheap enough for 1300 ranks. Both time each transfer's
//!   rendezvous ([`rendezvous`]) from the verbs' fixed latencies ([`latency`], which the flow
//!   engine's [`run`] puts around each flow too).
//! - [`host_routes`]: host-to-host routes traced once for a sweep's many cases.
pub mod engine;
pub mod fixed;
pub mod hol;
pub mod host_routes;
pub mod link_model;
pub mod link_outages;
pub mod maxmin;
pub mod paths;
pub mod rail_share;
pub mod latency;
pub mod rendezvous;
pub mod rank_by_rank;
pub mod rank_by_rank_steps;
pub mod run;
pub mod bad_links;
pub mod barrier;
pub mod round_patterns;
pub mod round_time;
pub mod stamps;
pub mod tail_loss;
