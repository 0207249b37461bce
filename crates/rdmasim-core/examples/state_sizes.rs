//! Prints the bytes of the packet engine's state per switch port, per HCA and QP, and per
//! packet in flight (docs/bench.md, "Memory at 8192 hosts"): the sizes of the structures a
//! fabric holds one of per part, as the compiler lays them out.
//!
//! `cargo run --release --example state_sizes`
use std::mem::size_of;

use rdmasim_core::fabric::channel::Channel;
use rdmasim_core::fabric::port::Port;
use rdmasim_core::fabric::switch::{OutLink, OutPort, Queued};
use rdmasim_core::hca::qp::Qp;
use rdmasim_core::hca::Hca;
use rdmasim_core::host::{CpuThread, Host};
use rdmasim_core::wire::in_flight::Packet;

fn main() {
    let (ch, port, out, link) = (size_of::<Channel>(), size_of::<Port>(), size_of::<OutPort>(), size_of::<OutLink>());
    println!("per switch port: {} B (channel {ch}, port {port}, output queues {out}, output link {link}), plus 1 B per LID of its switch's forwarding table", ch + port + out + link);
    println!("per host: HCA {} B, its link's channel and port {} B, host {} B, thread {} B each, QP {} B each", size_of::<Hca>(), ch + port, size_of::<Host>(), size_of::<CpuThread>(), size_of::<Qp>());
    println!("per packet in flight: {} B in the packet store, {} B a switch output queue entry while it waits there", size_of::<Packet>(), size_of::<Queued>());
}
