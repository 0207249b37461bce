//! The two MPI libraries seeds/003 ran over PM/Ethernet-HXB, MPICH (MPICH-SCore) and YAMPII, as
//! protocol profiles. Neither library's protocol parameters on PM/Ethernet-HXB were found
//! (eager limit, rendezvous, fragment sizes: /work/research notes, docs/pm.md "D5"): every
//! value below is an ASSUMPTION, chosen from what is public about each design before looking
//! at the D5 figures, and none is fitted to them.
//!
//! What both share, because PM/Ethernet-HXB imposes it: PM sends from and receives into its own
//! buffers (the seed's zero copy is "between communication buffers", 通信バッファ間), so an MPI
//! library copies each payload byte once into PM's send buffer and once out of PM's receive
//! buffer, on the host's one CPU. An eager message that arrives before its receive is posted is
//! copied once more, from the library's temporary buffer, when the receive matches it.
use crate::mpi::protocol::Protocol;
use serde::{Deserialize, Serialize};

/// `[workload] library`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MpiLibrary {
    #[default]
    Mpich,
    Yampii,
}

/// How a library moves a message over PM.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MpiProfile {
    /// Messages up to `eager_limit` bytes go eagerly: envelope and data in one PM message.
    /// Larger messages go by rendezvous: an RTS, the receiver's CTS once the receive is
    /// matched, then the data; `rts_data` bytes of the data travel with the RTS, before the
    /// CTS (0: the classic rendezvous, the data waits for the whole round trip).
    pub protocol: Protocol,
    /// The envelope of each protocol message (source, tag, size, request ids), bytes.
    pub header_bytes: u64,
    /// The library's own CPU time for each PM packet that carries its data, on each side, beyond
    /// MPICH's, µs at 3.6 GHz (`packet_cost.rs`). MPICH's own per-packet work is inside the
    /// copy rate, which was solved from its x8 one-way row (host_cost.rs), so only the
    /// difference can be modelled. ASSUMPTION: 0 for both; no source separates them
    /// (docs/sources/issue34.md §10). `[workload] packet_us` sets it; D5's rows sweep it.
    pub packet_us: f64,
}

impl MpiLibrary {
    pub fn profile(self) -> MpiProfile {
        match self {
            // MPICH-PM / MPICH-SCore: eager for short messages and a rendezvous for long ones
            // ("MPICH-PM: Design and Implementation of Zero Copy MPI for PM", RWCP TR; its
            // long-message path waits for the receiver before moving data). SCore's mpirun(1)
            // (score-5.4.0) names the knobs, `-score mpi_eager=` (the size above which a
            // message is "large") and `mpi_zerocopy=on` (large messages by PM's remote memory
            // write, zero or one copy, directly between user buffers; pmWrite is optional per
            // PM device, pmWrite(3)), but no page found gives their defaults, nor whether
            // PM/Ethernet-HXB has remote write. ASSUMPTION: the copy path (zero copy off), an
            // eager limit of 16 KiB (two PM packets; MPICH-1 devices used limits of this order)
            // and no data with the RTS.
            MpiLibrary::Mpich => MpiProfile { protocol: Protocol { eager_limit: 16 << 10, rts_data: 0 }, header_bytes: 64, packet_us: 0.0 },
            // YAMPII (Ishikawa, IPSJ SIG HPC 2004-81): written for PMv2 and TCP. ASSUMPTION:
            // the same eager limit, and a pipelined rendezvous that sends the first 64 KiB
            // (eight PM packets) with the RTS, so the link is busy during the handshake.
            MpiLibrary::Yampii => MpiProfile { protocol: Protocol { eager_limit: 16 << 10, rts_data: 64 << 10 }, header_bytes: 64, packet_us: 0.0 },
        }
    }
}
