//! Tools above the domains: what `rdmasim fabric` and `rdmasim doctor` ask of a fabric, and the
//! rounds of the TSUBAME2.0 study. They use the fabric, the flow engine and the packet engine;
//! nothing below uses them.
//!
//! - [`fabric_report`]: build or import a fabric, route it, summarise it and its routes per link.
//! - [`doctor`]: which links are suspects, from what operators collect, and what each costs.
//! - [`rounds`]: many rounds of flows on one routed fabric (the TSUBAME2.0 study's benchmarks).
pub mod doctor;
pub mod fabric_report;
pub mod rounds;
