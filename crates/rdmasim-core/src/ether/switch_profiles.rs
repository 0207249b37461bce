//! Ethernet switch profiles: the three switches of seeds/003, as data. Every figure carries
//! its source or is marked ASSUMPTION with why.
use super::switch_hol::HolLimit;
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
    /// Largest frame the switch forwards, destination MAC to FCS (what a jumbo MTU setting
    /// bounds).
    pub max_frame_bytes: u32,
    /// Cell-counted head-of-line blocking limits on each output (switch_hol.rs), if the
    /// chip's are known.
    pub hol: Option<HolLimit>,
    pub source: &'static str,
}

/// The switch latency of seeds/003 ("次元あたり通信遅延: 12 usec (Switch 5usec)", with 6.9 µs of
/// it the relay's routing), read as the time a minimum frame takes from one host's NIC through
/// the switch to the next host's NIC: its line time into the switch (84 B at 1 Gb/s, 0.672 µs:
/// store-and-forward), the switch's pipeline, and its line time out. So the pipeline is
/// 5 µs − 2 × 0.672 µs; the seed's 12 µs per dimension is then 6.9 + 5 + 0.1.
///
/// Fit: solved from the "Switch 5usec" of row D3-per-dim's 12 µs (with host_cost.rs's relay
/// cost it fixes that row, D3-routing and the 2-D and 3-D half round trips' increments).
///
/// ASSUMPTION for all three: store-and-forward, and the seed's 5 µs for each. No latency
/// figure and no cut-through/store-and-forward statement was found for the Foundry FWSX448,
/// the Summit 7i or the BCM5690 (searched: the FastIron X-series configuration guides, the
/// ExtremeWare user guide and hardware guide, Broadcom's and Lau et al.'s descriptions of the
/// chip; research notes /work/research/pm_sources.md §1).
const SEED_PIPELINE_NS: u64 = 5_000 - 2 * 672;

/// 9216 B on the wire, CRC included: the largest jumbo frame of the Extreme "i" chipset
/// (ExtremeWare Software User Guide, p. 4-7 "Jumbo Frames": "The jumbo_frame_mtu range is 1523
/// to 9216. The value describes the maximum size on the wire, and includes 4 bytes of CRC";
/// http://38.142.81.21:8001/manual/extreme-networks/extremeware-enterprise-manager/1-user-guide-english/page-81.html).
const JUMBO_9216: u32 = 9216;

/// Foundry "FWFx 448" of seeds/003's evaluation cluster: the FastIron WorkGroup X448 (FWSX448,
/// 48 × GigE; "Foundry Configuration Guide for the FESX, FSX, and FWSX", About this guide,
/// https://manualmachine.com/foundrynetworks/fastironworkgroupswitchx424/22883841-user-manual;
/// the 48-port model: Network Computing, "10-GigE price drops continue", p. 2, "The 48-port
/// version, the FES X448").
pub fn foundry_fwfx448() -> SwitchProfile {
    SwitchProfile {
        name: "foundry-fwfx448",
        ports: 48,
        // ASSUMPTION: 2 MiB shared. No buffer size, total or per port, was found for the
        // FWSX448 or the FastIron X series (searched: the FESX/FSX/FWSX configuration guide and
        // Brocade's later FastIron guide, whose "Total Transmit Queue Depth Limit" table is
        // not in the copy found: 53-1002494-02 p. 585, Table 104); chips of that class (2005)
        // carried 1-4 MB. Not fitted: D6's PACS-CS row (1.17 % at 4 nodes, 8800 B) depends on
        // this figure (docs/pm.md).
        buffer_bytes: 2 << 20,
        sharing: BufferSharing::Shared,
        // ASSUMPTION: an output may take a quarter of the pool (X-series egress buffers are
        // per-port "transmit queue depth limits" counted in buffers, Brocade FastIron
        // Configuration Guide 53-1002494-02 p. 585, medium confidence for this model; the
        // default limits were not found).
        per_port_cap_bytes: 512 << 10,
        latency: Time::ns(SEED_PIPELINE_NS),
        // ASSUMPTION: 9216 B, the usual jumbo limit of that generation (the FESX guide's MTU
        // section, p. 16-21, was found without its limit).
        max_frame_bytes: JUMBO_9216,
        hol: None,
        source: "FWSX448, 48 ports (Foundry FESX/FSX/FWSX configuration guide); 5 us per switch (seeds/003); buffer, cap and jumbo limit ASSUMPTION (not found)",
    }
}

/// The Broadcom 12-port GigE switch of seeds/003: the BCM5690 ("Draco", StrataXGS), "BCM5690
/// 12-port Multi-Layer Gigabit Ethernet Switch" (PCI-ID table; OpenBCM SDK, `phy5690.h`,
/// "BCM5690 (Draco)"), all packet memory on chip (Lau et al., Broadcom, "Gigabit Ethernet
/// switches using a shared buffer architecture", IEEE Communications Magazine 41(12), Dec
/// 2003, DOI 10.1109/MCOM.2003.1252802, abstract). seeds/003's lossy case.
pub fn broadcom_12port() -> SwitchProfile {
    SwitchProfile {
        name: "broadcom-12port",
        ports: 12,
        // 128 KB of packet buffer per port, medium confidence: Accton switch firmware header
        // `sys_cpnt.h` (2007, public GitHub copy; comment on
        // SYS_CPNT_SWDRV_MMU_CFG_OVERSUBSCRIBE_CONFIG): "BCM5690 only have 128K bytes packet
        // per port (for 8 queues)" — a vendor engineer's code comment, not a Broadcom datasheet.
        // Modelled as each output owning 128 KiB (one class, so all 8 queues' share), 12 × 128
        // KiB in all; Lau et al.'s abstract calls the chip's memory shared, with no byte
        // figure. About 14 frames of 8800 B an output.
        buffer_bytes: 12 * (128 << 10),
        sharing: BufferSharing::PerPort,
        per_port_cap_bytes: 128 << 10,
        latency: Time::ns(SEED_PIPELINE_NS),
        // ASSUMPTION: 9216 B (no BCM5690 jumbo limit found).
        max_frame_bytes: JUMBO_9216,
        // The Broadcom SDK's default MMU set-up for the BCM5690 (switch_hol.rs): 1 MB of
        // 128 B cells, each output's queue limited to its fair share, 8192 cells / 4 queues
        // (BCM_COS_DEFAULT) / 14 ports = 146 cells (18.7 KB: two jumbo frames of 70 cells),
        // discarding until below 73. It binds long before the 128 KB above. ASSUMPTION: the
        // switch ran the SDK's defaults (a box named only "Broadcom 12 port"; a vendor
        // firmware may set 8 queues, as the Accton comment above says, which halves it).
        hol: Some(HolLimit::bcm5690_fair_share(14, 4)),
        source: "BCM5690, 12 ports (PCI-ID table; Lau et al., IEEE Commun. Mag. 41(12) 2003); 128 KB per port (Accton sys_cpnt.h comment, medium confidence); HOL limit 146 cells of 128 B an output queue (Broadcom SDK 5.10.1 draco/cosq.c defaults); 5 us (seeds/003); jumbo limit ASSUMPTION",
    }
}

/// Extreme Networks Summit 7i (7iSX / 7iTX, EXTREME-BASE-MIB 1.3.6.1.4.1.1916.2.12/.13), an
/// "i"-chipset switch (Extreme "Consolidated Hardware Guide", Dec 2002), seeds/003's less
/// lossy case.
pub fn extreme_summit7i() -> SwitchProfile {
    SwitchProfile {
        name: "extreme-summit7i",
        // ASSUMPTION: 32 GigE ports (not in the sources found; it does not change D6, whose
        // all-to-all uses 2 to 4 hosts).
        ports: 32,
        // ASSUMPTION: 1 MiB shared with a 96 KiB per-output cap. No packet-memory figure was
        // found (searched: the ExtremeWare user guide, the Consolidated Hardware Guide, the
        // product MIB). Not fitted: D6's Summit 7i rows depend on it (docs/pm.md).
        buffer_bytes: 1 << 20,
        sharing: BufferSharing::Shared,
        per_port_cap_bytes: 96 << 10,
        latency: Time::ns(SEED_PIPELINE_NS),
        max_frame_bytes: JUMBO_9216,
        hol: None,
        source: "Summit 7i, i chipset: jumbo frames up to 9216 B (ExtremeWare Software User Guide p. 4-7); 5 us (seeds/003); ports, buffer and cap ASSUMPTION (not found)",
    }
}

impl SwitchProfile {
    /// The most one output may hold: its cap in a shared pool, or its own part of the buffer.
    pub fn output_limit(&self) -> u32 {
        match self.sharing {
            BufferSharing::Shared => self.per_port_cap_bytes,
            BufferSharing::PerPort => self.buffer_bytes / u32::from(self.ports.max(1)),
        }
    }
    /// The profile with a packet buffer of `kib` KiB in place of its own (`[ethernet]
    /// switch_buffer_kib`: a buffer not published, swept by a study); no output may then hold
    /// more than the whole buffer.
    pub fn with_buffer_kib(mut self, kib: Option<u32>) -> SwitchProfile {
        if let Some(kib) = kib {
            self.buffer_bytes = kib << 10;
            self.per_port_cap_bytes = self.per_port_cap_bytes.min(self.buffer_bytes);
        }
        self
    }
}

/// Every built-in profile by name.
pub fn builtin() -> Vec<SwitchProfile> {
    vec![foundry_fwfx448(), broadcom_12port(), extreme_summit7i()]
}

pub fn by_name(name: &str) -> Option<SwitchProfile> {
    builtin().into_iter().find(|p| p.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A shared pool's output keeps its cap until the buffer is smaller than it; an output's own
    /// part of a per-port buffer shrinks with the buffer. pm.py reads this (`eth_switches`
    /// `output_limit_bytes`) to know when a smaller buffer's run is a larger one's.
    #[test]
    fn an_outputs_limit_follows_the_buffer_as_its_sharing_says() {
        let foundry = foundry_fwfx448();
        assert_eq!(foundry.output_limit(), 512 << 10);
        assert_eq!(foundry.clone().with_buffer_kib(Some(1024)).output_limit(), 512 << 10);
        assert_eq!(foundry.with_buffer_kib(Some(256)).output_limit(), 256 << 10);
        let broadcom = broadcom_12port();
        assert_eq!(broadcom.output_limit(), 128 << 10);
        assert_eq!(broadcom.with_buffer_kib(Some(12 * 64)).output_limit(), 64 << 10);
    }
}
