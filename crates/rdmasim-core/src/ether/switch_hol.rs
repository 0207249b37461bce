//! Head-of-line (HOL) blocking prevention, as StrataSwitch/StrataXGS chips (the BCM5690 among
//! them) apply it: the packet buffer is kept in 128 B cells, each output's class-of-service
//! queue has a cell limit, and once its cells exceed that "set" limit every new frame for it
//! is discarded until they fall below the "reset" limit — so that one oversubscribed output
//! cannot take the buffer the other outputs' traffic needs. A frame takes whole cells, so a
//! jumbo frame of 8850 B takes 70 cells (8960 B).
//!
//! Sources: Broadcom SDK 5.10.1, `src/bcm/esw/draco/cosq.c` (BCM5690 "Draco",
//! `_bcm_draco1_cosq_config_set`, public copy github.com/zhangremon/bcm-sdk-5.10.1):
//! "ncells = (1024*1024) / 128; /* 1MB split into 128 bytes cells: 8192 */", the per-port,
//! per-queue `HOLCOSCELLSETLIMIT` "Set to "fair share" value … limit = ncells / numq / nports",
//! and "HOLCELLRESETLIMIT left at default (50% of HOLCOSCELLSETLIMIT)"; the number of queues
//! defaults to `BCM_COS_DEFAULT` = 4 (`include/bcm/types.h`, same SDK) and the ports are the
//! chip's 12 GE, its HiGig and the CPU port (14, the same file's `_draco_cosarb_port2field`).
//! What the limit does: Allied Telesis AT-9000 (a Broadcom-based switch) command reference,
//! HOLBPLIMIT: "The threshold is specified in cells. A cell is 128 bytes. … When the
//! threshold for a port is exceeded, the switch signals other ports to discard packets to the
//! oversubscribed port" (https://azmanual.top/manuals/427259/allied-telesis-at-fs970m-series.html?page=216).
//!
//! Not modelled: the same file's per-queue packet limit (`HOLCOSPKTSETLIMIT`, a share of the
//! port's transaction queue less 64), which 146 cells reach first for every frame PM sends
//! (12 frames of 1400 B), and the per-input back-pressure limit (`IBPCELLSETLIMIT`, 90 % of
//! the share), which acts only through 802.3x PAUSE.
use serde::Serialize;

/// A cell-counted egress limit with hysteresis.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct HolLimit {
    pub cell_bytes: u32,
    /// Cells an output may exceed before new frames for it are discarded.
    pub set_cells: u32,
    /// Cells it must fall below before frames are admitted again.
    pub reset_cells: u32,
}

impl HolLimit {
    /// The BCM5690 SDK's fair share: 1 MB of 128 B cells over `ports` ports and `queues`
    /// class-of-service queues each, reset at half (draco/cosq.c, above). PM's frames carry
    /// no 802.1p priority, so they all use one queue of each output.
    pub fn bcm5690_fair_share(ports: u32, queues: u32) -> HolLimit {
        let set = (1024 * 1024 / 128) / queues / ports;
        HolLimit { cell_bytes: 128, set_cells: set, reset_cells: set / 2 }
    }

    /// Cells a frame of `frame_bytes` (destination MAC to FCS) occupies.
    pub fn cells(&self, frame_bytes: u32) -> u32 {
        frame_bytes.div_ceil(self.cell_bytes)
    }
}

/// Each output's cells and whether it is discarding (HOL state).
#[derive(Clone, Debug, Default)]
pub struct HolState {
    pub cells_out: Vec<u32>,
    pub blocked: Vec<bool>,
}

impl HolState {
    pub fn new(outputs: usize) -> HolState {
        HolState { cells_out: vec![0; outputs], blocked: vec![false; outputs] }
    }

    pub fn admits(&self, out: usize) -> bool {
        !self.blocked[out]
    }

    pub fn hold(&mut self, lim: &HolLimit, out: usize, frame_bytes: u32) {
        self.cells_out[out] += lim.cells(frame_bytes);
        if self.cells_out[out] > lim.set_cells {
            self.blocked[out] = true;
        }
    }

    pub fn release(&mut self, lim: &HolLimit, out: usize, frame_bytes: u32) {
        self.cells_out[out] -= lim.cells(frame_bytes);
        if self.cells_out[out] < lim.reset_cells {
            self.blocked[out] = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bcm5690_sdk_default_gives_146_cells_an_output_queue() {
        // 8192 cells / 4 queues / 14 ports.
        let l = HolLimit::bcm5690_fair_share(14, 4);
        assert_eq!((l.set_cells, l.reset_cells), (146, 73));
        assert_eq!(l.cells(8850), 70, "a jumbo frame of 8800 B of PM payload");
        assert_eq!(l.cells(64), 1);
    }

    #[test]
    fn an_output_over_its_limit_discards_until_below_the_reset_limit() {
        let l = HolLimit::bcm5690_fair_share(14, 4);
        let mut s = HolState::new(2);
        for _ in 0..3 {
            assert!(s.admits(0));
            s.hold(&l, 0, 8850); // 70, 140, 210 cells: the third crosses 146
        }
        assert!(!s.admits(0), "210 cells > 146");
        assert!(s.admits(1), "the other output is unaffected");
        s.release(&l, 0, 8850);
        assert!(!s.admits(0), "140 cells is not below the reset limit of 73");
        s.release(&l, 0, 8850);
        assert!(s.admits(0), "70 cells < 73");
    }
}
