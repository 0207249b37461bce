//! PM over Ethernet (seeds/003, PM/Ethernet-HXB on PACS-CS): lossy Gigabit Ethernet with
//! store-and-forward switches, E1000 NICs on PCI-X, the host's per-packet cost, the PM
//! protocol (reliable ordered datagrams, the sequence-indexed receive array, trunking over up
//! to 9 NICs) and relay routing on the 3-D hyper-crossbar. Its own layer beside the IB packet
//! engine, on the same event queue, time, random streams and fabric generators (docs/pm.md).
pub mod cabling;
pub mod capture;
pub mod frame;
pub mod framing;
pub mod host;
pub mod host_buses;
pub mod host_cost;
pub mod kernel_path;
pub mod link;
pub mod mpi;
pub mod net;
pub mod nic;
pub mod pm;
pub mod pm_config;
pub mod pm_receive_array;
pub mod pm_resend;
pub mod pm_resender;
pub mod relay;
pub mod results;
pub mod run;
pub mod switch;
pub mod switch_hol;
pub mod switch_profiles;
pub mod trunk;
pub mod workload;
pub mod world;
