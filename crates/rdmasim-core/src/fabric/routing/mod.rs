//! Routing: forwarding tables for a `FabricGraph`, one engine per file behind one signature.
