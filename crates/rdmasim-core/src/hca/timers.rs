//! The transport's two timers: the RNR NAK delay (IBTA table) and the local ACK timeout.
use crate::engine::Time;

/// IBTA Vol. 1 9.7.5.2.8 table 45 "Encoding for RNR NAK timer field", in µs × 100
/// (the same table as the kernel's `enum ib_rnr_timeout`, include/rdma/ib_verbs.h).
const RNR_TIMER_10NS: [u64; 32] = [
    65_536_000, 1_000, 2_000, 3_000, 4_000, 6_000, 8_000, 12_000, 16_000, 24_000, 32_000, 48_000,
    64_000, 96_000, 128_000, 192_000, 256_000, 384_000, 512_000, 768_000, 1_024_000, 1_536_000,
    2_048_000, 3_072_000, 4_096_000, 6_144_000, 8_192_000, 12_288_000, 16_384_000, 24_576_000,
    32_768_000, 49_152_000,
];

/// The RNR NAK delay for a 5-bit timer code (0 = 655.36 ms, 1 = 0.01 ms … 31 = 491.52 ms).
pub fn rnr_delay(code: u8) -> Time {
    Time::ns(RNR_TIMER_10NS[(code & 31) as usize] * 10)
}

/// The IBTA local ACK timeout for a QP's 5-bit `timeout` field, 4.096 µs × 2^timeout, before
/// any vendor floor (0 is "no timer" to the NIC: [`local_ack_timeout`] handles it).
pub fn spec_ack_timeout(timeout: u8) -> Time {
    Time::ns(4_096).saturating_shl(timeout as u32)
}

/// The local ACK timeout the NIC actually waits before retry number `retry` (0-based).
///
/// IBTA: 4.096 µs × 2^timeout, 0 meaning infinite (no timer). ConnectX firmware raises it to a
/// floor (`retransmit_floor_ms`, ~500 ms measured in seeds/000). With adaptive retransmission
/// (`adaptive_base` > 0, from `adaptive_retrans_base_us`) the first retries wait
/// `adaptive_base × 2^retry`, never more than the floored value. Both come converted once
/// (`HcaTimes`): this runs on every ACK.
pub fn local_ack_timeout(timeout: u8, floor: Time, adaptive_base: Time, retry: u8) -> Option<Time> {
    if timeout == 0 {
        return None;
    }
    let spec = spec_ack_timeout(timeout);
    let floored = spec.max(floor);
    if adaptive_base > Time::ZERO {
        let adaptive = adaptive_base.saturating_shl(retry as u32);
        return Some(floored.min(adaptive.max(spec)));
    }
    Some(floored)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rnr_table_matches_ibta() {
        assert_eq!(rnr_delay(0), Time::us(655_360));
        assert_eq!(rnr_delay(1), Time::us(10));
        assert_eq!(rnr_delay(12), Time::us(640));
        assert_eq!(rnr_delay(14), Time::us(1_280));
        assert_eq!(rnr_delay(31), Time::us(491_520));
    }

    #[test]
    fn timeout_is_floored_and_zero_is_infinite() {
        assert_eq!(local_ack_timeout(0, Time::ms(500), Time::ZERO, 0), None);
        // timeout 14 = 4.096 µs × 16384 = 67.1 ms, raised to the 500 ms floor.
        assert_eq!(local_ack_timeout(14, Time::ms(500), Time::ZERO, 0), Some(Time::ms(500)));
        // No floor: the IBTA value exactly.
        assert_eq!(local_ack_timeout(14, Time::ZERO, Time::ZERO, 0), Some(Time::ns(4_096 * 16_384)));
        // Above the floor the QP's value wins: timeout 20 = 4.29 s.
        assert_eq!(local_ack_timeout(20, Time::ms(500), Time::ZERO, 0), Some(Time::ns(4_096 << 20)));
        // Adaptive: 100 µs, 200 µs, ... capped by the floored value.
        assert_eq!(local_ack_timeout(1, Time::ms(500), Time::us(100), 0), Some(Time::us(100)));
        assert_eq!(local_ack_timeout(1, Time::ms(500), Time::us(100), 3), Some(Time::us(800)));
        assert_eq!(local_ack_timeout(1, Time::ms(500), Time::us(100), 30), Some(Time::ms(500)));
    }
}
