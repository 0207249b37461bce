//! Ethernet switch profiles: the three switches of seeds/003, as data. Every figure carries
//! its source or is marked ASSUMPTION with why.
use crate::engine::Time;
use serde::{Deserialize, Serialize};

/// How the packet buffer is divided among output ports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BufferSharing {
    /// One pool for every output; a frame is dropped when the pool is full or its output
    /// already holds `per_port_cap_bytes` (the static per-port limit such chips apply).
    Shared,
    /// Each output owns `buffer_bytes / ports`.
    PerPort,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SwitchProfile {
    pub name: &'static str,
    pub ports: u16,
    /// Packet buffer for the whole switch.
    pub buffer_bytes: u32,
    pub sharing: BufferSharing,
    /// With `Shared`: the most one output may hold.
    pub per_port_cap_bytes: u32,
    /// From the last bit of a frame in (store-and-forward) to its first bit out, on an idle
    /// output.
    pub latency: Time,
    pub source: &'static str,
}

/// The switch latency of seeds/003 ("次元あたり通信遅延: 12 usec (Switch 5usec)", with 6.9 µs of
/// it the relay's routing), read as the time a minimum frame takes from one host's NIC through
/// the switch to the next host's NIC: its line time into the switch (84 B at 1 Gb/s, 0.672 µs:
/// store-and-forward), the switch's pipeline, and its line time out. So the pipeline is
/// 5 µs − 2 × 0.672 µs; the seed's 12 µs per dimension is then 6.9 + 5 + 0.1.
const SEED_PIPELINE_NS: u64 = 5_000 - 2 * 672;

/// Foundry FastIron "FWFx 448" (FESX448 class: 48 × GigE), the evaluation cluster's switch.
pub fn foundry_fwfx448() -> SwitchProfile {
    SwitchProfile {
        name: "foundry-fwfx448",
        ports: 48,
        // ASSUMPTION: 2 MiB shared. Foundry's FastIron Edge X datasheets give no buffer size
        // we could cite; chips of that class (2005) carried 1-4 MB. The seed's PACS-CS switch
        // (another model) lost 1.17 % at 4 nodes, 8800 B, near the Summit 7i's 1.22 %.
        buffer_bytes: 2 << 20,
        sharing: BufferSharing::Shared,
        // ASSUMPTION: an output may take a quarter of the pool.
        per_port_cap_bytes: 512 << 10,
        latency: Time::ns(SEED_PIPELINE_NS),
        source: "seeds/003 (5 us per switch); buffer ASSUMPTION (no public datasheet figure)",
    }
}

/// A Broadcom 12-port GigE switch chip (StrataXGS BCM5690 class), seeds/003's lossy case.
pub fn broadcom_12port() -> SwitchProfile {
    SwitchProfile {
        name: "broadcom-12port",
        ports: 12,
        // ASSUMPTION: 256 KiB shared on chip (no public datasheet figure at hand); an output
        // may hold 24 KiB, under three 8800 B jumbo frames: such chips cap an output
        // statically so that one congested port cannot take the pool, and seeds/003 shows
        // jumbo frames losing most on it ("JUMBO FRAME時のパケットロスが増加傾向").
        buffer_bytes: 256 << 10,
        sharing: BufferSharing::Shared,
        per_port_cap_bytes: 24 << 10,
        latency: Time::ns(SEED_PIPELINE_NS),
        source: "seeds/003 (12 port, 5 us); buffer and per-port cap ASSUMPTION",
    }
}

/// Extreme Networks Summit 7i (32 GigE ports), seeds/003's less lossy case.
pub fn extreme_summit7i() -> SwitchProfile {
    SwitchProfile {
        name: "extreme-summit7i",
        ports: 32,
        // ASSUMPTION: 1 MiB shared with a 96 KiB per-output cap (no public datasheet figure at
        // hand; the seed's losses are a fifth to a tenth of the Broadcom's).
        buffer_bytes: 1 << 20,
        sharing: BufferSharing::Shared,
        per_port_cap_bytes: 96 << 10,
        latency: Time::ns(SEED_PIPELINE_NS),
        source: "seeds/003 (32 port, 5 us); buffer and per-port cap ASSUMPTION",
    }
}

/// Every built-in profile by name.
pub fn builtin() -> Vec<SwitchProfile> {
    vec![foundry_fwfx448(), broadcom_12port(), extreme_summit7i()]
}

pub fn by_name(name: &str) -> Option<SwitchProfile> {
    builtin().into_iter().find(|p| p.name == name)
}
