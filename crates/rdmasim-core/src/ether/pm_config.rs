//! `[pm]`: the PM protocol's knobs, as data (pm.rs runs the protocol).
//!
//! PM/Ethernet's window and retransmission timer are documented knobs with public ranges
//! (SCore 6.0.0 manual page pm-ether-conf(5),
//! https://www.pccluster.org/score_doc/score-6.0.0/html/en/man/man5/pm-ether-conf.html:
//! `maxnsend` and `backoff`); the acknowledgement interval is a knob (`ackskip`, SCore 7
//! scorehosts.db(5), also for the `etherhxb` device) whose value is not documented; the values
//! the PM/Ethernet-HXB runs used were not found (not in seeds/003; the ICS 2006 paper's full
//! text and SCore's sources are not available to us). Each default below says which.
use super::pm_resend::Resend;
use super::trunk::LaneChoice;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PmConfig {
    /// Packets a sender may have unacknowledged per destination: PM/Ethernet's `maxnsend`,
    /// "Define number of sending packets at a time", documented range 8 - 32 (pm-ether-conf(5),
    /// example `maxnsend 16`; "When you use network trunking, you should increase this
    /// parameter from default value"). 32, the documented maximum: HXB trunks up to nine links,
    /// and nine links' round trip with 8 KB packets needs about 28 (1.07 GB/s over a round trip
    /// of about 160 µs with store-and-forward hops and an 8-packet acknowledgement delay).
    /// ASSUMPTION that the HXB runs used the maximum (their value is not published; the page
    /// does not print the default).
    #[serde(default = "default_window")]
    pub window: u32,
    /// The receiver acknowledges every this many in-order packets, and at a message's end.
    /// ASSUMPTION: 8 (an ack frame per 64 KB costs 0.1 % of the line). PM/Ethernet's knob is
    /// `ackskip`, "number of packet to skip send ack frame" (SCore 7 beta4 scorehosts.db(5),
    /// http://www.pccluster.org/score_doc/score-7-beta4/html/en/man/man5/scorehosts.db.html);
    /// no default or example value was found.
    #[serde(default = "default_ack_every")]
    pub ack_every: u32,
    /// Retransmission timer, µs: PM/Ethernet's `backoff`, "Define a re-transmitting time",
    /// documented range 1000 - 20000 µs; 4800 µs is the page's example (pm-ether-conf(5):
    /// "backoff 4800"), the only value published. ASSUMPTION that the HXB runs used it (the
    /// default is not printed). It must exceed an acknowledgement's wait behind a full window
    /// of data in the reverse direction's NIC queues (32 packets of 8 KB over two GigE links:
    /// 1.1 ms each way in two-way traffic), which it does.
    #[serde(default = "default_rto_us")]
    pub rto_us: f64,
    /// Data packets PM keeps queued on one NIC at most (the driver's ring holds 256): more
    /// would only wait there and hold the acknowledgements queued behind them. ASSUMPTION: 4
    /// (four 8 KB frames keep a GigE link busy for 265 µs, longer than the host needs to
    /// queue the next). Not found: PM/Ethernet's documented pacing knobs (`maxpkt`, packets
    /// per 10 ms, scorehosts.db(5)) bound a rate, not a queue.
    #[serde(default = "default_nic_depth")]
    pub nic_depth: u32,
    /// Payload bytes per packet: seeds/003's 8192 B packets in jumbo frames (PM/Ethernet's
    /// documented MTU, 1468 B in pm-ether-conf(5)'s example, is for standard frames).
    #[serde(default = "default_mtu")]
    pub packet_bytes: u32,
    /// Which of the peer's NICs a trunked frame is addressed to (trunk.rs, `LaneChoice`):
    /// `same` (lane k to lane k, the default) or `random` (chosen per frame, independently of
    /// the sending lane). ASSUMPTION either way: seeds/003 says only that PM trunks over
    /// several NICs, not how it picks the peer's NIC.
    #[serde(default)]
    pub lanes: LaneChoice,
    /// What the sender sends again when its timer expires: `go-back-n` (the default: every
    /// packet from the oldest unacknowledged on) or `selective` (only those its receiver has
    /// not reported; the window is then at most 33). ASSUMPTION either way: no public source
    /// says which PM/Ethernet did (pm_resend.rs).
    #[serde(default)]
    pub resend: Resend,
}

fn default_window() -> u32 {
    32
}
fn default_ack_every() -> u32 {
    8
}
fn default_rto_us() -> f64 {
    4800.0
}
fn default_nic_depth() -> u32 {
    4
}
fn default_mtu() -> u32 {
    8192
}

impl Default for PmConfig {
    fn default() -> Self {
        PmConfig { window: default_window(), ack_every: default_ack_every(), rto_us: default_rto_us(), nic_depth: default_nic_depth(), packet_bytes: default_mtu(), lanes: LaneChoice::Same, resend: Resend::GoBackN }
    }
}

