//! PM over Ethernet (seeds/003, PM/Ethernet-HXB on PACS-CS): lossy Gigabit Ethernet with
//! store-and-forward switches, E1000 NICs on PCI-X, the host's per-packet cost, the PM
//! protocol (reliable ordered datagrams, the sequence-indexed receive array, trunking over up
//! to 9 NICs) and relay routing on the 3-D hyper-crossbar. Its own layer beside the IB packet
//! engine, on the same event queue, time, random streams and fabric generators (docs/pm.md).
pub mod framing;
pub mod link;
pub mod switch;
pub mod switch_profiles;
pub mod host_cost;
pub mod nic;
