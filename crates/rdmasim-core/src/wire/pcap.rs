//! Classic libpcap capture files, nanosecond variant, written into memory.
//!
//! Format (<https://wiki.wireshark.org/Development/LibpcapFileFormat>, and the IETF draft
//! "PCAP Capture File Format"): a 24-byte global header, then per packet a 16-byte record
//! header and the bytes. We write in little-endian order; readers detect it from the magic.
//! The nanosecond magic keeps the simulator's sub-microsecond timing visible (the microsecond
//! format would merge back-to-back packets on a 100 Gb/s link).
//!
//! Hand-written rather than a crate: it is a few dozen lines, and it keeps the core free of
//! I/O dependencies — the caller decides where the bytes go.

/// Magic number of a pcap file whose timestamps are seconds + nanoseconds.
pub const PCAP_MAGIC_NANOS: u32 = 0xA1B2_3C4D;
/// LINKTYPE_ETHERNET: frames start with an Ethernet II header (no FCS).
pub const PCAP_LINKTYPE_ETHERNET: u32 = 1;
/// Largest frame kept whole; longer frames are cut (the record keeps the original length).
pub const PCAP_SNAPLEN: u32 = 65_535;

const PS_PER_SEC: u64 = 1_000_000_000_000;
const PS_PER_NS: u64 = 1_000;

/// Builds a pcap file in memory.
#[derive(Clone, Debug)]
pub struct PcapWriter {
    buf: Vec<u8>,
    packets: usize,
}

impl Default for PcapWriter {
    fn default() -> Self {
        Self::new()
    }
}

impl PcapWriter {
    /// A capture holding just the global header (version 2.4, UTC, Ethernet).
    pub fn new() -> PcapWriter {
        let mut buf = Vec::with_capacity(4096);
        buf.extend_from_slice(&PCAP_MAGIC_NANOS.to_le_bytes());
        buf.extend_from_slice(&2u16.to_le_bytes()); // version major
        buf.extend_from_slice(&4u16.to_le_bytes()); // version minor
        buf.extend_from_slice(&0i32.to_le_bytes()); // thiszone: timestamps are UTC
        buf.extend_from_slice(&0u32.to_le_bytes()); // sigfigs: always 0
        buf.extend_from_slice(&PCAP_SNAPLEN.to_le_bytes());
        buf.extend_from_slice(&PCAP_LINKTYPE_ETHERNET.to_le_bytes());
        PcapWriter { buf, packets: 0 }
    }

    /// Appends one frame seen at simulated time `ts_ps` (picoseconds since the start of the
    /// simulation, shown as seconds since the Unix epoch 0). Sub-nanosecond parts are dropped
    /// (truncated, so packet order is kept). Frames beyond [`PCAP_SNAPLEN`] are cut to it.
    pub fn write_frame(&mut self, ts_ps: u64, frame: &[u8]) {
        // u64 picoseconds reach ~1.8e7 s, well inside the u32 seconds field.
        let secs = (ts_ps / PS_PER_SEC) as u32;
        let nanos = ((ts_ps % PS_PER_SEC) / PS_PER_NS) as u32;
        let orig_len = u32::try_from(frame.len()).unwrap_or(u32::MAX);
        let incl_len = orig_len.min(PCAP_SNAPLEN);
        self.buf.extend_from_slice(&secs.to_le_bytes());
        self.buf.extend_from_slice(&nanos.to_le_bytes());
        self.buf.extend_from_slice(&incl_len.to_le_bytes());
        self.buf.extend_from_slice(&orig_len.to_le_bytes());
        self.buf.extend_from_slice(&frame[..incl_len as usize]);
        self.packets += 1;
    }

    /// Frames written so far.
    pub fn len_packets(&self) -> usize {
        self.packets
    }

    /// The file so far.
    pub fn as_bytes(&self) -> &[u8] {
        &self.buf
    }

    /// The finished file.
    pub fn into_bytes(self) -> Vec<u8> {
        self.buf
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u32_at(b: &[u8], at: usize) -> u32 {
        u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
    }

    #[test]
    fn global_header_is_nanosecond_ethernet_pcap() {
        let b = PcapWriter::new().into_bytes();
        assert_eq!(b.len(), 24);
        assert_eq!(&b[0..4], &[0x4D, 0x3C, 0xB2, 0xA1]);
        assert_eq!(&b[4..8], &[2, 0, 4, 0]);
        assert_eq!(u32_at(&b, 16), 65_535);
        assert_eq!(u32_at(&b, 20), 1);
    }

    #[test]
    fn records_carry_picoseconds_as_seconds_and_nanoseconds() {
        let mut w = PcapWriter::new();
        w.write_frame(1_234_567_890_123, &[1, 2, 3]);
        w.write_frame(999, &[4]);
        assert_eq!(w.len_packets(), 2);
        let b = w.into_bytes();
        assert_eq!(u32_at(&b, 24), 1);
        assert_eq!(u32_at(&b, 28), 234_567_890);
        assert_eq!((u32_at(&b, 32), u32_at(&b, 36)), (3, 3));
        assert_eq!(&b[40..43], &[1, 2, 3]);
        assert_eq!((u32_at(&b, 43), u32_at(&b, 47)), (0, 0)); // 999 ps rounds down to 0 ns
        assert_eq!(b.len(), 24 + 16 + 3 + 16 + 1);
    }

    #[test]
    fn oversized_frames_are_cut_to_the_snaplen() {
        let mut w = PcapWriter::new();
        w.write_frame(0, &vec![0u8; 70_000]);
        let b = w.as_bytes();
        assert_eq!((u32_at(b, 32), u32_at(b, 36)), (65_535, 70_000));
        assert_eq!(b.len(), 24 + 16 + 65_535);
    }
}
