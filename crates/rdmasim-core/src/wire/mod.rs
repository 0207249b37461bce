//! InfiniBand and RoCEv2 wire formats.
