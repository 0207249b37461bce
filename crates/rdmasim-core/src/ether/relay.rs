//! Relay routing on the 3-D hyper-crossbar, as CP-PACS routed (seeds/003): a packet corrects
//! its X coordinate, then Y, then Z ("X軸→Y軸→Z軸の順に転送軸の順序を固定"), and each host
//! where it turns a corner receives it, rewrites only the Ethernet header and sends it on
//! ("受信skbをそのままEthernetヘッダのみ更新して送信"): the packet's PM header carries its
//! source and destination coordinates, so the relay decides from those alone.

/// The next host on the way from `at` to `dst` and the dimension of the switch that reaches
/// it: the first coordinate (X, Y, Z) that differs is corrected. None when `at == dst`.
pub fn next_hop(at: [u16; 3], dst: [u16; 3]) -> Option<(u8, [u16; 3])> {
    let d = (0..3).find(|&d| at[d] != dst[d])?;
    let mut next = at;
    next[d] = dst[d];
    Some((d as u8, next))
}

/// Relay hosts between `src` and `dst`: dimensions that differ, less one.
pub fn relays(src: [u16; 3], dst: [u16; 3]) -> usize {
    (0..3).filter(|&d| src[d] != dst[d]).count().saturating_sub(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn x_then_y_then_z() {
        let (s, d) = ([0, 0, 0], [3, 2, 1]);
        assert_eq!(next_hop(s, d), Some((0, [3, 0, 0])));
        assert_eq!(next_hop([3, 0, 0], d), Some((1, [3, 2, 0])));
        assert_eq!(next_hop([3, 2, 0], d), Some((2, [3, 2, 1])));
        assert_eq!(next_hop(d, d), None);
        assert_eq!(relays(s, d), 2);
    }
}
