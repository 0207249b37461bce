//! Routing: forwarding tables for a `FabricGraph`, one engine per file behind one signature
//! (as OpenSM's `osm_ucast_*.c`), dispatched by name in [`engine`]; [`subnets`] routes each
//! rail of a multi-rail fabric with its own engine. Every engine routes a switch's own LID to
//! port 0.
//!
//! - [`minhop`]: OpenSM's default, equal to it entry by entry: least-hop ports, the least
//!   loaded first ([`least_loaded`], in [`opensm_order`], over [`port_hops`] columns).
//! - [`updn`]: OpenSM's Up*/Down* over the same builder, roots given or detected
//!   ([`updn_roots`]); minhop where it finds none.
//! - [`ftree`]: OpenSM's fat-tree engine, minhop where it gives up as OpenSM does.
//! - [`sssp`], [`dfsssp`]: OpenSM's shortest paths with weights updated per destination, and
//!   its virtual layers (SLs per path) that break credit loops.
//! - [`minhop_mod`]: any graph; shortest paths, ties broken by the destination LID.
//! - [`dmodk`]: fat trees; D-mod-K up, the downward path down.
//! - [`dor`]: the hyper-crossbar; each crossbar reaches its row, hosts relay X then Y then Z.
//!
//! [`shortest`] holds the BFS the first two share; [`path`] follows the tables.
pub mod compare;
pub mod dfsssp;
pub mod dmodk;
pub mod dor;
pub mod engine;
pub mod ftree;
pub mod least_loaded;
pub mod minhop;
pub mod minhop_mod;
pub mod opensm_order;
pub mod outcome;
pub mod path;
pub mod port_hops;
pub mod roots;
pub mod shortest;
pub mod sssp;
pub mod subnets;
pub mod updn;
pub mod updn_roots;

pub use engine::{Engine, EngineOutput, Fallback, PathSls, RouteOptions};
pub use subnets::{route, Routing, SubnetRouting};
