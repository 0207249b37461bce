//! Topology generators: one file per family, each returning a `FabricGraph` (fabric/graph.rs).
