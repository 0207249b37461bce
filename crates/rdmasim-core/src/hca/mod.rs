//! The host channel adapter: queue pairs, the RC transport, CQs, the send scheduler, profiles.
pub mod profile;
