//! An MPI library's own CPU time per PM packet of its data: the part of its data path that is
//! neither PM's work nor the copy. Over PM a library moves data a packet at a time
//! (pmGetSendBuffer(3) hands out one buffer of at most the MTU, which it fills and passes to
//! pmSend; pmReceive(3) returns one message, which it copies out and gives back with
//! pmReleaseReceiveBuffer), so around each copy it runs its own code: finding the request a
//! fragment belongs to, its offset, the fragment's header, the progress loop's turn.
//!
//! What each library spends there is not published (docs/sources/issue34.md §10). Both copy once each
//! side (PM's API leaves them no other way without pmWrite, which PM/Ethernet-HXB does not
//! list), so the copy cannot separate them; this can. The model's copy rate was solved from
//! MPICH's x8 one-way row (host_cost.rs), so MPICH's own per-packet time is inside it and
//! only the other library's difference from it is an input (`MpiProfile::packet_us`).
//!
//! ASSUMPTION, the range D5 sweeps: a library's own path per packet is a few hundred to a few
//! thousand instructions (a lookup, a header, a loop turn; a 2005 NetBurst Xeon retires about
//! one a cycle at best), 0.1-1.0 µs at 3.6 GHz; so one library's exceeds the other's by
//! -0.9..+0.9 µs. Nothing says which is leaner, so the range is symmetric
//! (python/rdmasim/reproduce/pm.py `PACKET_US`).
use crate::ether::host_cost::HostCostConfig;

/// The bounds `[workload] packet_us` accepts, µs at 3.6 GHz: a library cannot save more than
/// the 2 µs its own path could cost at the most (less than PM's own 2.38 µs a packet, so a
/// packet never costs less than nothing), nor spend more than 10 µs (a whole packet's PM work
/// and copy) on bookkeeping.
pub const PACKET_US_BOUNDS: (f64, f64) = (-2.0, 10.0);

/// `packet_us` (at 3.6 GHz) on this host's clock, in ps; negative when the library is leaner
/// than MPICH.
pub fn packet_ps(host: &HostCostConfig, packet_us: f64) -> i64 {
    let magnitude = host.scale(packet_us.abs()).0 as i64;
    if packet_us < 0.0 { -magnitude } else { magnitude }
}
