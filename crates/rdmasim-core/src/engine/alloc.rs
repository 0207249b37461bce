//! The memory allocator of rdmasim's binaries and of the Python extension: mimalloc, which
//! each of them names as its `#[global_allocator]` (a library cannot: a test that counts
//! allocations, tests/hot_loop_alloc.rs, brings its own).
//!
//! Why not the system's (glibc) malloc: a packet-hop reads a dozen lines of state spread over
//! the whole fabric (channels, switch outputs, forwarding tables, HCAs, the event calendar).
//! At k = 32 (8192 hosts) that state is some 35 MB, far beyond the caches and the TLB's reach
//! with 4 KiB pages; glibc hands the small per-switch tables out of a heap of 4 KiB pages.
//! mimalloc places them in segments that the kernel backs with 2 MiB pages (transparent huge
//! pages; this machine's setting is `madvise`, which mimalloc asks for). Measured on the
//! fat-tree bench with the same core, interleaved runs on a loaded machine
//! (docs/bench.md, "The allocator"): k = 32 from 347–355 ns to 278–300 ns per packet-hop,
//! k = 16 from 218 ns to 189–198 ns. Results do not depend on the allocator (no address is
//! ever an input); `rdmasim reproduce all --json` is byte-identical with either.
pub use mimalloc::MiMalloc as Allocator;
