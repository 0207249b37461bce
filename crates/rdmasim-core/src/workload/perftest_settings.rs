//! perftest's defaults and the limits its flags put on each other (`force_dependecies` and
//! `set_mtu` in src/perftest_parameters.c), worked out in one place. The perftest workload runs
//! with these values, scenario validation checks them, and the Python CLI prints them in
//! perftest's header before the run starts ([`crate::api::perftest_settings_json`]), so the
//! three cannot disagree.
use crate::profile::HwProfile;
use crate::scenario::{PerftestSection, PerftestTest, QpSection, Scenario, WorkloadSection};
use serde::Serialize;

/// perftest's CQ moderation (DEF_CQ_MOD), disabled (DISABLED_CQ_MOD_VALUE = 1) for a single
/// message size above MSG_SIZE_CQ_MOD_LIMIT unless -a or events are used.
const DEF_CQ_MOD: u32 = 100;
const MSG_SIZE_CQ_MOD_LIMIT: u32 = 8192;
/// perftest's receive queue depth for ib_send_* (DEF_RX_SEND).
const DEF_RX_SEND: u64 = 512;

/// A perftest workload's values once perftest's defaults and limits are applied.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PerftestSettings {
    /// Message sizes in the order they run (one, unless -a).
    pub sizes: Vec<u32>,
    /// Iterations per size and QP.
    pub iters: u64,
    /// Work requests outstanding per QP (never more than `iters`).
    pub tx_depth: u32,
    /// Bandwidth tests signal one work request in `cq_mod`; 1 in latency tests.
    pub cq_mod: u32,
    /// A SEND or WRITE up to this many bytes is posted inline.
    pub inline_size: u32,
    /// Receives the server of a send test keeps posted.
    pub rx_depth: u64,
    /// QPs the test runs on.
    pub qps: u32,
}

impl PerftestSettings {
    pub fn of(s: &PerftestSection) -> PerftestSettings {
        let sizes = sizes(s);
        let iters = iters(s);
        let tx_depth = tx_depth(s, iters);
        PerftestSettings {
            cq_mod: cq_mod(s, &sizes, tx_depth),
            sizes,
            iters,
            tx_depth,
            inline_size: s.inline_size.unwrap_or_else(|| default_inline_size(s.test)),
            rx_depth: s.rx_depth.map_or(DEF_RX_SEND, u64::from),
            // perftest's latency tests ping-pong on one QP whatever -q says.
            qps: if s.test.is_latency() { 1 } else { s.qps.max(1) },
        }
    }
}

/// Sizes perftest's `-a` runs: 2 B to 8 MiB, powers of two.
pub fn all_sizes() -> Vec<u32> {
    (1..=23).map(|e| 1u32 << e).collect()
}

fn sizes(s: &PerftestSection) -> Vec<u32> {
    if s.all_sizes {
        return all_sizes();
    }
    let default = if s.test.is_latency() { 2 } else { 65536 };
    vec![s.size.unwrap_or(default) as u32]
}

/// perftest: DEF_ITERS_WB = 5000 for ib_write_bw, DEF_ITERS = 1000 otherwise.
fn iters(s: &PerftestSection) -> u64 {
    s.iters.unwrap_or(if s.test == PerftestTest::IbWriteBw { 5000 } else { 1000 })
}

/// perftest's force_dependecies clamps -t to -n: more could never be outstanding.
fn tx_depth(s: &PerftestSection, iters: u64) -> u32 {
    let requested = s.tx_depth.unwrap_or(if s.test.is_latency() { 1 } else { 128 });
    requested.min(u32::try_from(iters).unwrap_or(u32::MAX))
}

/// -Q if given, else DEF_CQ_MOD, disabled for one large size without -a or -e; never above
/// the tx depth (a QP could not post the signaled one). Latency tests signal every request.
fn cq_mod(s: &PerftestSection, sizes: &[u32], tx_depth: u32) -> u32 {
    let requested = match s.cq_mod {
        _ if s.test.is_latency() => 1,
        Some(q) => q,
        None if !s.all_sizes && !s.events && sizes[0] > MSG_SIZE_CQ_MOD_LIMIT => 1,
        None => DEF_CQ_MOD,
    };
    requested.min(tx_depth).max(1)
}

/// perftest's default -I: DEF_INLINE_WRITE and DEF_INLINE_SEND_RC_UC in its latency tests, none
/// in its bandwidth tests.
fn default_inline_size(test: PerftestTest) -> u32 {
    match test {
        PerftestTest::IbWriteLat => 220,
        PerftestTest::IbSendLat => 236,
        _ => 0,
    }
}

/// The path MTU of a perftest run: -m (`qp.mtu`) if given, else the port's active MTU, or
/// less where perftest forces it (set_mtu: 2048 on ConnectX-3, profile `perftest_mtu`).
pub fn path_mtu(qp: &QpSection, hw: &HwProfile) -> u32 {
    match qp.mtu {
        Some(m) => m,
        None if hw.host.perftest_mtu > 0 => hw.link.mtu.min(hw.host.perftest_mtu),
        None => hw.link.mtu,
    }
}

/// Everything perftest's header (ctx_print_test_info) prints that the core decides.
#[derive(Clone, Debug, Serialize)]
pub struct EffectivePerftest {
    pub test: &'static str,
    pub profile: String,
    pub seed: u64,
    pub events: bool,
    #[serde(flatten)]
    pub settings: PerftestSettings,
    /// Path MTU of every QP, bytes.
    pub mtu: u32,
    /// Outstanding RDMA READs per QP (perftest -o).
    pub max_rd_atomic: u32,
}

impl EffectivePerftest {
    /// None for another workload (or an unknown profile, which validation rejects).
    pub fn of(s: &Scenario) -> Option<EffectivePerftest> {
        let WorkloadSection::Perftest(p) = &s.workload else { return None };
        let (hw, _) = s.hardware.resolved_profile()?;
        Some(EffectivePerftest {
            test: p.test.name(),
            profile: s.hardware.profile.clone(),
            seed: s.seed,
            events: p.events,
            settings: PerftestSettings::of(p),
            mtu: path_mtu(&s.qp, &hw),
            max_rd_atomic: s.qp.max_rd_atomic,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile;

    fn section(toml: &str) -> PerftestSection {
        let text = format!("[hardware]\nprofile = \"cx4-edr\"\n[workload]\nkind = \"perftest\"\n{toml}");
        match crate::api::validate_toml(&text, "<test>").expect("valid scenario").workload {
            WorkloadSection::Perftest(p) => p,
            _ => unreachable!("a perftest workload"),
        }
    }

    #[test]
    fn iterations_default_to_perftests_and_bound_the_tx_depth() {
        assert_eq!(PerftestSettings::of(&section("test = \"ib_write_bw\"")).iters, 5000);
        assert_eq!(PerftestSettings::of(&section("test = \"ib_read_bw\"")).iters, 1000);
        assert_eq!(PerftestSettings::of(&section("test = \"ib_send_lat\"")).iters, 1000);
        let s = PerftestSettings::of(&section("test = \"ib_write_bw\"\niters = 50\ntx_depth = 300"));
        assert_eq!((s.iters, s.tx_depth, s.cq_mod), (50, 50, 1));
    }

    #[test]
    fn cq_moderation_is_off_for_one_large_size_only() {
        let cq_mod = |toml: &str| PerftestSettings::of(&section(toml)).cq_mod;
        assert_eq!(cq_mod("test = \"ib_write_bw\"\nsize = 8192"), 100);
        assert_eq!(cq_mod("test = \"ib_write_bw\"\nsize = 8193"), 1);
        assert_eq!(cq_mod("test = \"ib_write_bw\""), 1);
        assert_eq!(cq_mod("test = \"ib_write_bw\"\nall_sizes = true"), 100);
        assert_eq!(cq_mod("test = \"ib_send_bw\"\nevents = true"), 100);
        assert_eq!(cq_mod("test = \"ib_write_bw\"\ncq_mod = 5"), 5);
        assert_eq!(cq_mod("test = \"ib_write_bw\"\nsize = 4096\ntx_depth = 64\ncq_mod = 200"), 64);
        assert_eq!(cq_mod("test = \"ib_write_lat\""), 1);
    }

    #[test]
    fn latency_tests_run_one_qp_with_their_inline_defaults() {
        let s = PerftestSettings::of(&section("test = \"ib_send_lat\""));
        assert_eq!((s.sizes, s.tx_depth, s.inline_size, s.qps), (vec![2], 1, 236, 1));
        assert_eq!(PerftestSettings::of(&section("test = \"ib_write_lat\"")).inline_size, 220);
        assert_eq!(PerftestSettings::of(&section("test = \"ib_read_bw\"\nqps = 4")).qps, 4);
    }

    #[test]
    fn path_mtu_is_perftests_forced_one_unless_given() {
        let (cx3, _) = profile::by_name("cx3-fdr").expect("built-in");
        let (cx4, _) = profile::by_name("cx4-edr").expect("built-in");
        assert_eq!(path_mtu(&QpSection::default(), &cx3), 2048);
        assert_eq!(path_mtu(&QpSection::default(), &cx4), 4096);
        assert_eq!(path_mtu(&QpSection { mtu: Some(1024), ..QpSection::default() }, &cx3), 1024);
    }
}
