//! Static analysis of a routed fabric: route counts per link, unroutable pairs, loops.
//!
//! Nothing here simulates: it follows the LFTs of a [`RoutedFabric`](crate::fabric::graph::RoutedFabric).
//! - [`paths`]: one route, hop by hop, or why there is none.
//! - [`components`]: the endpoints (cabled HCA ports with a LID) and the connected components
//!   (rails) that decide which pairs should be routable.
//! - [`reach`]: for one destination LID, every switch's outcome, each switch walked once.
//! - [`summary`]: counts, link speeds, degraded and down links, unroutable pairs, loops.
//! - [`loads`]: routes per directed link for all-to-all traffic.
//! - [`ebb`]: effective bisection bandwidth over seeded patterns ([`crate::traffic::patterns`]), each flow
//!   given its share of its busiest link ([`flow_shares`]).
//! - [`credit_loops`]: cycles of the channel dependency graph of each VL.
pub mod components;
pub mod credit_loops;
pub mod ebb;
pub mod flow_shares;
pub mod loads;
pub mod paths;
pub mod reach;
pub mod summary;
#[cfg(test)]
pub(crate) mod test_fabrics;

pub use components::{Components, Endpoint};
pub use credit_loops::{check_credit_loops, CreditLoop, CreditLoopCheck};
pub use ebb::{effective_bisection_bandwidth, EbbOptions, EbbReport};
pub use crate::traffic::patterns::PatternKind;
pub use flow_shares::{FlowShares, Weighting};
pub use loads::{count_routes, link_loads, loads_from_counts, LinkLoads, RouteCounts};
pub use paths::{trace_route, trace_route_into, Hop, RouteError};
pub use reach::{DestinationWalk, Reach};
pub use summary::{summarize, FabricSummary};
