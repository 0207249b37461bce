//! The memory allocator of rdmasim's binaries and of the Python extension: mimalloc, which
//! each of them names as its `#[global_allocator]` (a library cannot: a test that counts
//! allocations, tests/hot_loop_alloc.rs, brings its own).
//!
//! Why not the system's (glibc) malloc: a packet-hop reads a dozen lines of state spread over
//! the whole fabric (channels, switch outputs, forwarding tables, HCAs, the event calendar),
//! and at k = 32 (8192 hosts) that state is far beyond the caches. With mimalloc the same
//! core ran faster, measured on the fat-tree bench in interleaved runs on a loaded machine
//! (docs/bench.md, "Cases, and the fat tree one size up"): k = 32 from 347–355 ns to 278–300 ns per packet-hop,
//! k = 16 from 218 ns to 189–198 ns. Not through huge pages: a k = 32 run under mimalloc has
//! none (`AnonHugePages: 0 kB`). Its pages hold one size class each, which likely keeps the
//! many small per-switch tables of one kind closer together than glibc's heap does (not
//! measured apart). Results do not depend on the allocator (no address is ever an input);
//! `rdmasim reproduce all --json` is byte-identical with either.
pub use mimalloc::MiMalloc as Allocator;
