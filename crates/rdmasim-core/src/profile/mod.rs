//! Hardware profiles: a named set of NIC, link, switch and host parameters, each with its source.
//!
//! `params.rs` lists every parameter once, with its part and doc; `define.rs` generates from
//! that list the typed parts (`NicParams`, `LinkParams`, `SwitchParams`, `HostParams`) that
//! `HwProfile` holds, their sources, the all-optional override struct a scenario may give
//! (`[hardware.overrides]`, flat keys, unknown keys rejected), and the source table `rdmasim
//! profiles` prints. `builtin.rs` holds the named profiles' values and sources; `parts.rs`
//! says what a part is; `host.rs` the named hosts laid over a profile's host part.
mod builtin;
mod define;
pub mod host;
mod params;
pub mod parts;

pub use builtin::{builtin, by_name, names};
pub use params::*;

/// One row of `rdmasim profiles`.
#[derive(Clone, Debug, serde::Serialize)]
pub struct ParamRow {
    pub profile: String,
    pub parameter: &'static str,
    /// The node it belongs to in a fabric (profile/parts.rs).
    pub part: parts::Part,
    pub value: serde_json::Value,
    pub overridden: bool,
    pub source: &'static str,
    pub doc: &'static str,
}
