//! Static analysis of a routed fabric: route counts per link, unroutable pairs, loops.
