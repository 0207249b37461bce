//! A PM run's result tables: `pm_summary` (the figures the study reads), `pm_channels` (per
//! channel: bytes, packets, retransmissions, receive-array memory), `eth_ports` (every port's
//! IF-MIB counters, drops at the port where the switch made them), `nics` (the e1000's
//! `ethtool -S` names) and `host_cpu` (CPU and relay time).
use crate::ids::{HostId};
use super::world::{EtherWorld, Owner};
use crate::engine::Time;
use crate::report::tables::{Row, Tables};
use serde_json::json;

fn row(v: serde_json::Value) -> Row {
    match v {
        serde_json::Value::Object(m) => m,
        _ => Row::new(),
    }
}

/// MB/s (10^6 B/s) of `bytes` over `from..to`.
fn mb_per_s(bytes: u64, from: Time, to: Time) -> f64 {
    let us = to.saturating_sub(from).as_us_f64();
    if us > 0.0 { bytes as f64 / us } else { 0.0 }
}

impl EtherWorld {
    /// Host `h`'s bandwidth sending (`out`) or receiving: its channels' bytes over the span from
    /// the first packet sent to the last delivered.
    pub fn host_bandwidth(&self, h: HostId, out: bool) -> f64 {
        let mine: Vec<_> = self.chans.iter().filter(|c| if out { c.src == h } else { c.dst == h }).collect();
        let bytes: u64 = mine.iter().map(|c| c.delivered_bytes).sum();
        let from = mine.iter().filter_map(|c| c.first_send).min().unwrap_or(Time::ZERO);
        let to = mine.iter().map(|c| c.last_delivery).max().unwrap_or(Time::ZERO);
        mb_per_s(bytes, from, to)
    }

    pub fn tables(&self, t: &mut Tables) {
        let now = self.q.now();
        let data_sent: u64 = self.chans.iter().map(|c| c.packets_sent).sum();
        let switch_drops: u64 = self.ports.iter().map(|p| p.counters.if_out_discards).sum();
        let nic_drops: u64 = self.nics.iter().map(|n| n.counters.rx_no_buffer_count).sum();
        let half_rtt = self.app.as_ref().and_then(|a| a.half_rtt_us(now));
        let (send, recv) = (self.host_bandwidth(HostId(0), true), self.host_bandwidth(HostId(0), false));
        t.push("pm_summary", row(json!({
            "sim_time_us": now.as_us_f64(),
            "host0_send_mb_s": send,
            "host0_recv_mb_s": recv,
            "host0_both_mb_s": send + recv,
            "half_rtt_us": half_rtt,
            "data_packets_sent": data_sent,
            "retransmitted": self.chans.iter().map(|c| c.retransmitted).sum::<u64>(),
            "timeouts": self.chans.iter().map(|c| c.timeouts).sum::<u64>(),
            "duplicates": self.chans.iter().map(|c| c.duplicates).sum::<u64>(),
            "switch_drops": switch_drops,
            "nic_drops": nic_drops,
            "data_drops": self.data_drops,
            // seeds/003's loss rate: data packets lost over data packets sent (retransmissions
            // included, each a packet sent); lost acknowledgements do not count.
            "loss_pct": if data_sent > 0 { 100.0 * self.data_drops as f64 / data_sent as f64 } else { 0.0 },
            "relay_packets": self.hosts.iter().map(|h| h.relay_packets).sum::<u64>(),
            "relay_cpu_us": self.hosts.iter().map(|h| h.relay_time.as_us_f64()).sum::<f64>(),
            "recv_packet_us": self.hosts[HostId(0)].cost.recv.as_us_f64(),
            "unroutable": self.unroutable,
        })));
        for (i, c) in self.chans.iter().enumerate() {
            t.push("pm_channels", row(json!({
                "channel": i, "src": c.src, "dst": c.dst,
                "delivered_bytes": c.delivered_bytes, "delivered_msgs": c.delivered_msgs,
                "packets_sent": c.packets_sent, "retransmitted": c.retransmitted, "timeouts": c.timeouts,
                "duplicates": c.duplicates, "receive_array_bytes": c.receive_array_bytes(),
                "mb_s": mb_per_s(c.delivered_bytes, c.first_send.unwrap_or(Time::ZERO), c.last_delivery),
            })));
        }
        for (pid, p) in self.ports.iter_enumerated() {
            if p.peer.is_none() || p.owner == Owner::Unused {
                continue;
            }
            let c = &p.counters;
            t.push("eth_ports", row(json!({
                "port": self.graph.port_name(pid),
                "ifHCInOctets": c.if_hc_in_octets, "ifHCInUcastPkts": c.if_hc_in_ucast_pkts,
                "ifHCOutOctets": c.if_hc_out_octets, "ifHCOutUcastPkts": c.if_hc_out_ucast_pkts,
                "ifOutDiscards": c.if_out_discards,
                "dot3InPauseFrames": c.dot3_in_pause_frames, "dot3OutPauseFrames": c.dot3_out_pause_frames,
            })));
        }
        for n in &self.nics {
            let c = &n.counters;
            t.push("nics", row(json!({
                "host": n.host, "device": format!("eth{}", n.dim as u32 * 16 + u32::from(n.lane)), "dim": n.dim, "lane": n.lane,
                "tx_packets": c.tx_packets, "tx_bytes": c.tx_bytes, "rx_packets": c.rx_packets, "rx_bytes": c.rx_bytes,
                "rx_no_buffer_count": c.rx_no_buffer_count, "tx_restart_queue": c.tx_restart_queue,
                "rx_flow_control_xon": c.rx_flow_control_xon, "rx_flow_control_xoff": c.rx_flow_control_xoff,
            })));
        }
        for (h, host) in self.hosts.iter().enumerate() {
            t.push("host_cpu", row(json!({
                "host": h, "coords": host.coords, "cpu_busy_us": host.cpu_time.as_us_f64(),
                "cpu_util": if now > Time::ZERO { host.cpu_time.as_us_f64() / now.as_us_f64() } else { 0.0 },
                "relay_cpu_us": host.relay_time.as_us_f64(), "relay_packets": host.relay_packets, "relay_drops": host.relay_drops,
            })));
        }
        if let Some(a) = &self.app {
            a.tables(t);
        }
        for s in &self.switches {
            t.push("eth_switches", row(json!({
                "switch": s.name, "profile": s.profile.name, "buffer_bytes": s.profile.buffer_bytes, "sharing": s.profile.sharing,
                "output_limit_bytes": s.profile.output_limit(), "peak_held_bytes": s.peak_held,
            })));
        }
    }
}
