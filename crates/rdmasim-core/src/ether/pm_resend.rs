//! What a PM sender sends again when its timer expires (`[pm] resend`): every packet from the
//! oldest unacknowledged one on (go-back-N), or only the lost ones (selective). ASSUMPTION
//! either way: no public source says which PM/Ethernet did.
//!
//! What is known (docs/sources/issue34.md §1): retransmission is timer-driven (PM/Ethernet's `backoff`,
//! "Define a re-transmitting time", 1000-20000 µs, SCore 6.0.0 pm-ether-conf(5),
//! https://www.pccluster.org/score_doc/score-6.0.0/html/en/man/man5/pm-ether-conf.html), the
//! window is `maxnsend` (8-32, same page), and the receiver keeps a per-sender array indexed by
//! sequence number that accepts any number inside its receivable range (seeds/003, "受信可能
//! 範囲チェックのみ … 並び替え不要"), so it holds what arrives after a hole. PM on Myrinet used a
//! "Modified ACK/NACK flow control algorithm" (Tezuka et al., HPCN-Europe 1997, LNCS 1225; not
//! re-verified, docs/sources/issue34.md §1), whose details are not public either. Not found: go-back-N or selective repeat, cumulative or
//! bitmap acknowledgements, for PM/Ethernet or PM/Ethernet-HXB (SCore's sources are not on
//! GitHub). So the study runs both and reports the figures that depend on it as ranges.
//!
//! The sender's mechanism is pm_resender.rs. Selective, as modelled: the expiry sends the oldest unacknowledged packet alone, marked as
//! sent again; the receiver acknowledges such a packet at once, with a map of what its array
//! holds past the hole (`SACK_BITS` slots); the sender then sends again every packet it had
//! sent before the expiry that the map does not show (a round trip is far shorter than the
//! timer, so those were lost). Nothing is acknowledged early otherwise: trunked lanes reorder
//! packets all the time, and an acknowledgement per packet out of order would load the CPU and
//! the links whether anything was lost or not (reasoning, ASSUMPTION: docs/sources/issue34.md §1),
//! so without loss the scheme
//! sends exactly what go-back-N sends.
use serde::{Deserialize, Serialize};

/// Slots after the cumulative acknowledgement that a selective acknowledgement reports, one
/// bit each: 32, so the map fits in four of the PM header's reserved bytes (framing.rs) and
/// covers the largest documented window (`maxnsend` 32; the slot at the cumulative
/// acknowledgement is the hole itself, so a window of 33 is covered).
pub const SACK_BITS: u32 = 32;

/// The retransmission scheme.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Resend {
    /// The expiry sends again every packet from the oldest unacknowledged to the newest sent;
    /// acknowledgements are cumulative only (the simplest header, and the model before this
    /// choice existed: the default, so no figure without loss moves).
    #[default]
    GoBackN,
    /// The expiry sends the oldest unacknowledged packet alone; the receiver's answer maps the
    /// rest, and only the packets it lacks go again.
    Selective,
}

impl Resend {
    /// The largest window whose slots an acknowledgement can report under this scheme.
    pub fn max_window(self) -> Option<u32> {
        match self {
            Resend::GoBackN => None,
            Resend::Selective => Some(SACK_BITS + 1),
        }
    }
}
