//! The host CPU model.
