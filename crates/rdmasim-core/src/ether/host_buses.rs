//! Which bus each of a host's NICs sits on, and how fast each bus is (`[nic]`). seeds/003's
//! test-bed node: "Dual E1000 NIC x 4 + Onboard E1000", the dual cards each "独立したPCI-X
//! 100MHzバスに接続" (each on its own PCI-X 100 MHz bus, the NIC profile's 800 MB/s, nic.rs);
//! the ninth NIC, the onboard one, is on a bus the seed does not name.
//!
//! The onboard NIC's bus is an unknown input (docs/sources/issue34.md §4): the board is not named; an
//! E7520 board's onboard devices may sit on the ICH5R south bridge's 32-bit/33 MHz PCI (133 MB/s
//! theoretical, shared by both directions, about 90-120 MB/s of DMA achievable, and behind the
//! 266 MB/s Hub Interface 1.5; Tom's Hardware IT on the E7505/ICH4 hub link) or on a PCI-X
//! segment (Intel SE7520JR2 TPS rev 1.0 p. 49: 133/100/66 MHz segments). The seed's own ×9
//! figure adds 84 MB/s where each other link adds about 124, which points to the slower path
//! if the lanes ran independently; under strict round-robin the same 1065 MB/s needs about
//! 119 MB/s on every lane (docs/sources/issue34.md §4: an inference either way, no source names
//! the bus). So the study sweeps it
//! over 80-125 MB/s (`rdmasim reproduce pm`, D2's and D5's ×9 rows) rather than fitting it; a
//! scenario that names none gets 800 MB/s, a bus like the cards' (ASSUMPTION: the model before
//! this key; the line, not the bus, then limits the ninth link).
use serde::{Deserialize, Serialize};

/// Dual-port cards before the onboard NIC: the test bed's four (seeds/003).
pub const DUAL_CARDS: u32 = 4;

/// `[nic]`: the hosts' NIC attachment.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NicSection {
    /// The onboard NIC's bus, MB/s (10^6 B/s), both directions together: the ninth NIC of a
    /// host (after the four dual cards' eight ports) sits alone on it. ASSUMPTION: 800 (a
    /// PCI-X bus like the cards'); unknown, swept 80-125 by the study (module text).
    #[serde(default = "default_onboard")]
    pub onboard_bus_mb_s: f64,
}

fn default_onboard() -> f64 {
    800.0
}

impl Default for NicSection {
    fn default() -> Self {
        NicSection { onboard_bus_mb_s: default_onboard() }
    }
}

/// The buses of a host with `nics` NICs, in bytes per second, and the bus of each NIC (an
/// index into them) in the host's NIC order: NICs 0-7 pair up on the four dual cards' buses
/// (`card_bytes_per_s`, `ports_per_card` to a card), the ninth sits alone on the onboard bus;
/// any beyond nine (more than the test bed had) pair up on further cards.
pub fn layout(nics: u32, card_bytes_per_s: u64, ports_per_card: u32, nic: &NicSection) -> (Vec<u64>, Vec<u32>) {
    let on_cards = DUAL_CARDS * ports_per_card;
    let mut rates = Vec::new();
    let mut bus_of = Vec::with_capacity(nics as usize);
    for k in 0..nics {
        if k == on_cards {
            rates.push((nic.onboard_bus_mb_s * 1e6).round() as u64);
        } else if (if k < on_cards { k } else { k - 1 }) % ports_per_card == 0 {
            rates.push(card_bytes_per_s); // the first port of a card (counting past the onboard NIC)
        }
        bus_of.push(rates.len() as u32 - 1);
    }
    (rates, bus_of)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eight_ports_on_four_cards_then_the_onboard_nic_alone() {
        let nic = NicSection { onboard_bus_mb_s: 100.0 };
        let (rates, bus_of) = layout(9, 800_000_000, 2, &nic);
        assert_eq!(bus_of, [0, 0, 1, 1, 2, 2, 3, 3, 4]);
        assert_eq!(rates, [800_000_000, 800_000_000, 800_000_000, 800_000_000, 100_000_000]);
        // Six NICs: three cards, no onboard bus.
        assert_eq!(layout(6, 800_000_000, 2, &nic), (vec![800_000_000; 3], vec![0, 0, 1, 1, 2, 2]));
        // Eleven: the tenth and eleventh on a fifth card.
        assert_eq!(layout(11, 800_000_000, 2, &nic).1, [0, 0, 1, 1, 2, 2, 3, 3, 4, 5, 5]);
    }
}
