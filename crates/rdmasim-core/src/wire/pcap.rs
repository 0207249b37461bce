//! Classic libpcap capture files, nanosecond variant: written into memory ([`PcapWriter`]), or
//! header by header ([`pcap_file_header`], [`pcap_record_header`]) by a caller that streams.
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

/// Bytes of the file header.
pub const PCAP_FILE_HEADER_BYTES: u64 = 24;
/// Bytes of each packet record's header.
pub const PCAP_RECORD_HEADER_BYTES: u64 = 16;

/// The file header (version 2.4, UTC, nanosecond timestamps, Ethernet).
pub fn pcap_file_header() -> [u8; 24] {
    let mut h = [0u8; 24];
    h[0..4].copy_from_slice(&PCAP_MAGIC_NANOS.to_le_bytes());
    h[4..6].copy_from_slice(&2u16.to_le_bytes()); // version major
    h[6..8].copy_from_slice(&4u16.to_le_bytes()); // version minor
    // thiszone 0 (timestamps are UTC) and sigfigs 0 stay zero.
    h[16..20].copy_from_slice(&PCAP_SNAPLEN.to_le_bytes());
    h[20..24].copy_from_slice(&PCAP_LINKTYPE_ETHERNET.to_le_bytes());
    h
}

/// Bytes a frame of `frame_len` bytes keeps in the file: cut to [`PCAP_SNAPLEN`].
pub fn pcap_incl_len(frame_len: usize) -> u32 {
    u32::try_from(frame_len).unwrap_or(u32::MAX).min(PCAP_SNAPLEN)
}

/// The record header of a frame of `frame_len` bytes seen at simulated time `ts_ps`
/// (picoseconds since the start of the simulation, shown as seconds since the Unix epoch 0).
/// Sub-nanosecond parts are dropped (truncated, so packet order is kept).
pub fn pcap_record_header(ts_ps: u64, frame_len: usize) -> [u8; 16] {
    // u64 picoseconds reach ~1.8e7 s, well inside the u32 seconds field.
    let secs = (ts_ps / PS_PER_SEC) as u32;
    let nanos = ((ts_ps % PS_PER_SEC) / PS_PER_NS) as u32;
    let orig_len = u32::try_from(frame_len).unwrap_or(u32::MAX);
    let mut h = [0u8; 16];
    h[0..4].copy_from_slice(&secs.to_le_bytes());
    h[4..8].copy_from_slice(&nanos.to_le_bytes());
    h[8..12].copy_from_slice(&pcap_incl_len(frame_len).to_le_bytes());
    h[12..16].copy_from_slice(&orig_len.to_le_bytes());
    h
}

impl PcapWriter {
    /// A capture holding just the global header (version 2.4, UTC, Ethernet).
    pub fn new() -> PcapWriter {
        let mut buf = Vec::with_capacity(4096);
        buf.extend_from_slice(&pcap_file_header());
        PcapWriter { buf, packets: 0 }
    }

    /// Appends one frame seen at simulated time `ts_ps` ([`pcap_record_header`]). Frames beyond
    /// [`PCAP_SNAPLEN`] are cut to it.
    pub fn write_frame(&mut self, ts_ps: u64, frame: &[u8]) {
        self.buf.extend_from_slice(&pcap_record_header(ts_ps, frame.len()));
        self.buf.extend_from_slice(&frame[..pcap_incl_len(frame.len()) as usize]);
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
