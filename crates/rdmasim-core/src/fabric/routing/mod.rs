//! Routing: forwarding tables for a `FabricGraph`, one engine per file behind one signature,
//! `fn route(g: &FabricGraph) -> Result<Lfts, GraphError>` (as OpenSM's `osm_ucast_*.c`).
//! Every engine routes a switch's own LID to port 0.
//!
//! - [`minhop_mod`]: any graph; shortest paths, ties broken by the destination LID.
//! - [`dmodk`]: fat trees; D-mod-K up, the downward path down.
//! - [`dor`]: the hyper-crossbar; each crossbar reaches its row, hosts relay X then Y then Z.
//!
//! [`shortest`] holds the BFS the first two share; [`path`] follows the tables.
pub mod dmodk;
pub mod dor;
pub mod minhop_mod;
pub mod path;
pub mod shortest;
