//! D6 diagnosis (docs/pm.md): runs seeds/003's all-to-all on one switch and prints, for every
//! switch output, what converged on it (data frames by input, acknowledgements), the deepest
//! queue it reached (frames, bytes and 128 B cells, the BCM5690's cell) and the frames it
//! dropped.
//!
//! `cargo run --release --example d6_queue_trace -- broadcom-12port 2 8800 same [hol=Q] [seed=N] [skew=US]`
use rdmasim_core::ether::frame::FrameKind;
use rdmasim_core::ether::run::PmRun;
use rdmasim_core::ether::switch_hol::{HolLimit, HolState};
use rdmasim_core::ether::world::{Ev, Owner};
use std::collections::BTreeMap;

#[derive(Default)]
struct Out {
    data_by_input: BTreeMap<u16, u64>,
    acks: u64,
    max_frames: usize,
    max_bytes: u32,
    /// Deepest queue in whole cells, when the profile counts cells (switch_hol.rs).
    max_cells: u32,
    /// Queue depth in frames (queued + on the wire) seen by each arriving frame.
    depth_hist: BTreeMap<usize, u64>,
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let profile = a.get(1).map_or("broadcom-12port", String::as_str);
    let nodes: u32 = a.get(2).map_or(2, |s| s.parse().unwrap());
    let bytes: u64 = a.get(3).map_or(8800, |s| s.parse().unwrap());
    let lanes = a.get(4).map_or("same", String::as_str);
    let skew: f64 = a.iter().find_map(|s| s.strip_prefix("skew=")).map_or(20.0, |s| s.parse().unwrap());
    let seed: u64 = a.iter().find_map(|s| s.strip_prefix("seed=")).map_or(1, |s| s.parse().unwrap());
    let toml = format!(
        "engine = \"pm\"\nseed = {seed}\n[ethernet]\nswitch = \"{profile}\"\ntopology = {{ kind = \"single-switch\", hosts = {nodes}, links = 2 }}\n[pm]\npacket_bytes = 8968\nlanes = \"{lanes}\"\n[workload]\nkind = \"alltoall\"\nbytes = {bytes}\nrounds = 20\ncount = 20\nskew_us = {skew:?}\n"
    );
    let mut r = PmRun::from_toml(&toml, "trace.toml").unwrap_or_else(|e| panic!("{e}"));
    let w = &mut r.world;
    // Optional argument `hol=Q`: the BCM5690 SDK's HOL cell limit for Q queues a port.
    if let Some(q) = a.iter().find_map(|s| s.strip_prefix("hol=")) {
        let lim = HolLimit::bcm5690_fair_share(14, q.parse().unwrap());
        let n = w.switches[rdmasim_core::ids::EthSwitchId(0)].ports.len();
        w.switches[rdmasim_core::ids::EthSwitchId(0)].profile.hol = Some(lim);
        w.switches[rdmasim_core::ids::EthSwitchId(0)].hol = Some(HolState::new(n));
        println!("HOL limit {lim:?}");
    }
    let mut outs: BTreeMap<u16, Out> = BTreeMap::new();
    let mut n = 0u64;
    while !w.done {
        let Ok((_, ev)) = w.q.pop_until(rdmasim_core::engine::Time::us(10_000_000)) else { break };
        if let Ev::Arrive(p, f) = ev {
            if let Owner::Switch(_, i) = w.ports[p].owner {
                let fr = *w.frames.get(f);
                if fr.kind != FrameKind::Pause {
                    let out_port = w.ports[fr.to_port].peer.unwrap();
                    let Owner::Switch(_, o) = w.ports[out_port].owner else { unreachable!() };
                    let depth = w.ports[out_port].queue.len();
                    let e = outs.entry(o).or_default();
                    if fr.kind == FrameKind::Ack { e.acks += 1 } else { *e.data_by_input.entry(i).or_default() += 1 }
                    *e.depth_hist.entry(depth).or_default() += 1;
                }
            }
        }
        w.dispatch(ev);
        n += 1;
        let sw = &w.switches[rdmasim_core::ids::EthSwitchId(0)];
        for (o, e) in outs.iter_mut() {
            let port = sw.ports[usize::from(*o)];
            e.max_frames = e.max_frames.max(w.ports[port].queue.len());
            e.max_bytes = e.max_bytes.max(sw.held_out[usize::from(*o)]);
            if let Some(h) = &sw.hol {
                e.max_cells = e.max_cells.max(h.cells_out[usize::from(*o)]);
            }
        }
    }
    let sw = &w.switches[rdmasim_core::ids::EthSwitchId(0)];
    println!("{profile} {nodes} nodes {bytes} B lanes={lanes}: {n} events, done={}, t={:.0} us", w.done, w.q.now().as_us_f64());
    for (o, e) in &outs {
        let port = sw.ports[usize::from(*o)];
        println!(
            "  out {o}: data by input {:?}, acks {}, deepest {} frames / {} B ({} whole cells counted), discards {}, depth seen at arrival {:?}",
            e.data_by_input, e.acks, e.max_frames, e.max_bytes, e.max_cells, w.ports[port].counters.if_out_discards, e.depth_hist
        );
    }
    let sent: u64 = w.chans.iter().map(|c| c.packets_sent).sum();
    let retx: u64 = w.chans.iter().map(|c| c.retransmitted).sum();
    let to: u64 = w.chans.iter().map(|c| c.timeouts).sum();
    let delivered: u64 = w.chans.iter().map(|c| u64::from(c.delivered_msgs)).sum();
    let drops: u64 = sw.ports.iter().map(|&p| w.ports[p].counters.if_out_discards).sum();
    println!("  loss {:.2} % (drops / packets sent), messages delivered {delivered}", 100.0 * drops as f64 / sent.max(1) as f64);
    println!("  packets sent {sent}, retransmitted {retx}, timeouts {to}, whole-switch peak {} B", sw.peak_held);
}
