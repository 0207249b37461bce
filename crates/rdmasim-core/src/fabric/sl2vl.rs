//! Service levels to virtual lanes. A packet carries the SL of its QP (the path's SL, as the
//! SM gives it); each port maps it to a data VL with its SL2VL table, and link-level credits
//! are kept per VL (fabric/channel.rs), so traffic on one VL cannot use up another's buffer.
//!
//! Every port here uses the default table, identity on the 8 data VLs modelled (SL n on VL n,
//! SL 8..15 on VL n - 8): an assumption, the table OpenSM's QoS would configure with 8 data VLs
//! and no policy. The VL is therefore fixed at the sending HCA and kept at every hop.
use crate::fabric::channel::NUM_VL;

/// Service levels an InfiniBand packet can carry (LRH.SL is 4 bits).
pub const NUM_SL: usize = 16;

pub const DEFAULT_SL2VL: [u8; NUM_SL] = {
    let mut t = [0u8; NUM_SL];
    let mut sl = 0;
    while sl < NUM_SL {
        t[sl] = (sl % NUM_VL) as u8;
        sl += 1;
    }
    t
};

/// The data VL a port sends SL `sl` on (default table).
#[inline]
pub fn vl_of(sl: u8) -> u8 {
    DEFAULT_SL2VL[sl as usize % NUM_SL]
}
