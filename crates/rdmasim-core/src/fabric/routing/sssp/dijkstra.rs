//! One Dijkstra per destination LID over the switch graph, from the destination outwards, with
//! each link's weight raised after every destination by the LIDs whose paths now cross it:
//! later destinations avoid the links earlier ones loaded. OpenSM runs it per LID, not per
//! switch: two HCAs on one switch get different weights and so possibly different paths.
//!
//! For an HCA the search starts at the HCA, one hop (weight 1) before its switch, as OpenSM
//! adds the HCA as an extra vertex after the switches; for a switch's own LID it starts at the
//! switch. A switch's entry is the port towards its Dijkstra predecessor.
use super::heap::DaryHeap;
use super::network::{Network, Target, NO_VERTEX};
use crate::fabric::graph::{FabricGraph, Lfts, NO_LID};

/// OpenSM's "infinity": a switch whose distance reaches it counts as unreachable.
const INF: u64 = 0x7FFF_FFFF;
/// complib's heap as OpenSM's dfsssp builds it.
const HEAP_ARITY: usize = 4;

/// Which link reached a vertex: `(from vertex, index in its links)`, or the HCA's own cable.
#[derive(Clone, Copy, PartialEq)]
enum Via {
    None,
    Link(u32, u32),
    Hca(u8),
}

/// Routes every target in order, raising the link weights as it goes; fills the tables.
pub fn route_all(g: &FabricGraph, net: &mut Network) -> Lfts {
    let mut lfts = Lfts::empty_for(g);
    for &s in &net.switches {
        let lid = g.nodes[s].lid;
        if lid != NO_LID {
            lfts.set(s, lid, 0);
        }
    }
    let n = net.switches.len();
    // Vertex n is the destination HCA when there is one.
    let mut heap = DaryHeap::new(HEAP_ARITY, n + 1);
    let mut dist = vec![INF; n + 1];
    let mut via = vec![Via::None; n + 1];
    let mut done = vec![false; n + 1];
    let mut order: Vec<u32> = Vec::with_capacity(n + 1);
    let mut below = vec![0u64; n + 1];
    for ti in 0..net.targets.len() {
        let t = net.targets[ti];
        dijkstra(net, &t, &mut heap, &mut dist, &mut via, &mut done, &mut order);
        for (&s, reached) in net.switches.iter().zip(&via) {
            let port = match *reached {
                Via::None => continue,
                Via::Link(u, i) => net.links[u as usize][i as usize].to_port,
                Via::Hca(port) => port,
            };
            lfts.set(s, t.lid, port);
        }
        raise_weights(net, &via, &order, &mut below);
    }
    lfts
}

fn dijkstra(net: &Network, t: &Target, heap: &mut DaryHeap, dist: &mut [u64], via: &mut [Via], done: &mut [bool], order: &mut Vec<u32>) {
    let n = net.switches.len();
    heap.clear();
    order.clear();
    dist.fill(INF);
    via.fill(Via::None);
    done.fill(false);
    for v in 0..n as u32 {
        heap.insert(v, INF);
    }
    let source = match t.switch_port {
        Some(_) => {
            heap.insert(n as u32, INF);
            n as u32
        }
        None => t.switch,
    };
    dist[source as usize] = 0;
    heap.set_key(source, 0);
    while let Some(cur) = heap.pop() {
        let c = cur as usize;
        done[c] = true;
        order.push(cur);
        if c == n {
            // The HCA's one cable, weight 1, to its switch.
            let (s, port) = (t.switch as usize, t.switch_port.unwrap_or(0));
            if !done[s] && dist[c] + 1 < dist[s] {
                dist[s] = dist[c] + 1;
                via[s] = Via::Hca(port);
                heap.set_key(t.switch, dist[s]);
            }
            continue;
        }
        for (i, link) in net.links[c].iter().enumerate() {
            let to = link.to as usize;
            if link.to == NO_VERTEX || done[to] {
                continue;
            }
            let d = dist[c] + link.weight;
            if d < dist[to] {
                dist[to] = d;
                via[to] = Via::Link(cur, i as u32);
                heap.set_key(link.to, d);
            }
        }
    }
}

/// Every switch reached adds its LID count to each link of its path to the destination; summed
/// per subtree, leaves first (the reverse of the order Dijkstra settled them).
fn raise_weights(net: &mut Network, via: &[Via], order: &[u32], below: &mut [u64]) {
    let n = net.switches.len();
    for &v in order {
        let v = v as usize;
        below[v] = if v < n && via[v] != Via::None { net.lids_behind[v] } else { 0 };
    }
    for &v in order.iter().rev() {
        if let Via::Link(u, i) = via[v as usize] {
            let add = below[v as usize];
            net.links[u as usize][i as usize].weight += add;
            below[u as usize] += add;
        }
    }
}
