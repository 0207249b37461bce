//! The fabric: the graph (nodes, ports, links with their properties), its generators and file
//! formats, routing, static analysis, and the packet engine's channels and switches.
pub mod analysis;
pub mod attachment;
pub mod build;
pub mod channel;
pub mod compute_hosts;
pub mod disable;
pub mod forward;
pub mod from_scenario;
pub mod generate;
pub mod graph;
pub mod host_names;
pub mod link_events;
pub mod lid_assign;
pub mod net;
pub mod io;
pub mod port;
pub mod rate;
pub mod resolve;
pub mod rerouted;
pub mod routing;
pub mod select;
pub mod sl2vl;
pub mod switch;
pub mod switch_fifo;
pub mod topology;
