//! Checks of `[workload]`: each kind's ranges, and its hosts against the topology. The flows
//! and odp-reads kinds check themselves (`scenario::flows`, `scenario::odp`).
use super::problem::{problem, Problem};
use super::{MAX_CQ_MOD, MAX_INLINE, MAX_ITERS, MAX_PSNS_PER_QP, MAX_QPS, MAX_SIZE, MAX_TX_DEPTH};
use crate::profile::HwProfile;
use crate::scenario::srq::SrqFlowControl;
use crate::scenario::{PerftestSection, PerftestTest, Scenario, TopologyKind, TopologySection, WorkloadSection};
use crate::scenario::mpi::MpiSection;
use crate::workload::perftest_settings::{self, PerftestSettings};
use crate::scenario::srq_episode::SrqEpisodeSection;

pub(super) fn check_workload(s: &Scenario, hw: &HwProfile) -> Result<(), Problem> {
    match &s.workload {
        // perftest may run below the QP's path MTU (2048 on ConnectX-3, its set_mtu).
        WorkloadSection::Perftest(p) => check_perftest(p, s, hw, perftest_settings::path_mtu(&s.qp, hw)),
        // The hosts MPI uses depend on its trace's size: Mpi::new checks their rails.
        WorkloadSection::Mpi(m) => check_mpi(m, s.topology.kind),
        WorkloadSection::SrqEpisode(e) => {
            check_srq_episode(e, &s.topology)?;
            crate::scenario::check_rail(&s.topology, "workload.client", e.client, 0)?;
            crate::scenario::check_rail(&s.topology, "workload.server", e.server, 0)
        }
        WorkloadSection::OdpReads(o) => {
            crate::scenario::odp::check(o, s.topology.hosts, MAX_QPS)?;
            crate::scenario::check_rail(&s.topology, "workload.client", o.client, 0)?;
            crate::scenario::check_rail(&s.topology, "workload.server", o.server, 0)
        }
        WorkloadSection::Flows(f) => {
            crate::scenario::flows::check(f, s.topology.hosts)?;
            if let Some(kv) = &f.kv {
                crate::scenario::check_rail(&s.topology, "workload.kv.client", kv.client, 0)?;
                crate::scenario::check_rail(&s.topology, "workload.kv.server", kv.server, 0)?;
            }
            for (i, fl) in f.flow.iter().enumerate() {
                for h in [fl.client, fl.server] {
                    crate::scenario::check_rail(&s.topology, &format!("workload.flow[{i}].rail"), h, fl.rail)?;
                }
            }
            Ok(())
        }
    }
}

fn check_perftest(p: &PerftestSection, s: &Scenario, hw: &HwProfile, path_mtu: u32) -> Result<(), Problem> {
    let tn = p.test.name();
    for h in [p.client, p.server] {
        crate::scenario::check_rail(&s.topology, "workload.rail", h, p.rail)?;
    }
    // perftest_parameters.c, parser(): "Events feature not available on WRITE verb"; and
    // ib_write_lat polls the buffer the peer writes, with no completion to wait for.
    if p.events && matches!(p.test, PerftestTest::IbWriteBw | PerftestTest::IbWriteLat) {
        return problem(
            "workload.events",
            format!("{tn} cannot wait for completion events: perftest rejects -e for WRITE tests (\"Events feature not available on WRITE verb\"); expected events = false, or a SEND or READ test"),
        );
    }
    if let Some(sz) = p.size {
        if sz == 0 || sz > MAX_SIZE {
            return problem("workload.size", format!("size = {sz} is out of range; expected 1..={MAX_SIZE} bytes"));
        }
        if p.all_sizes {
            return problem("workload.size", "size cannot be combined with all_sizes = true (-a runs every size 2 B..8 MiB); remove one".into());
        }
    }
    if let Some(n) = p.iters {
        if n == 0 || n > MAX_ITERS {
            return problem("workload.iters", format!("iters = {n} is out of range; expected 1..={MAX_ITERS}"));
        }
    }
    // 0 is allowed: a server that posts no receive (every SEND meets an RNR NAK).
    if p.rx_depth.is_some_and(|d| d > MAX_TX_DEPTH) {
        return problem("workload.rx_depth", format!("rx_depth = {} is out of range; expected 0..={MAX_TX_DEPTH} receives", p.rx_depth.unwrap_or(0)));
    }
    if let Some(q) = p.cq_mod {
        if !(1..=MAX_CQ_MOD).contains(&q) {
            return problem("workload.cq_mod", format!("cq_mod = {q} is out of range; expected 1..={MAX_CQ_MOD} (perftest's MIN_CQ_MOD..MAX_CQ_MOD)"));
        }
        if p.test.is_latency() {
            return problem("workload.cq_mod", format!("{tn} has no CQ moderation (perftest applies -Q to bandwidth tests); remove cq_mod"));
        }
    }
    if let Some(d) = p.tx_depth {
        if d == 0 || d > MAX_TX_DEPTH {
            return problem("workload.tx_depth", format!("tx_depth = {d} is out of range; expected 1..={MAX_TX_DEPTH} (work requests a send queue holds)"));
        }
    }
    // PSNs are u32 inside the model (24 bits on the wire): a QP may use at most 2^31,
    // so comparisons across a go-back never wrap. Counted at the sizes and iterations the run
    // will use (their ranges are checked above).
    let PerftestSettings { sizes, iters, .. } = PerftestSettings::of(p);
    let per_iter: u64 = sizes.iter().map(|&sz| u64::from(sz).div_ceil(u64::from(path_mtu)).max(1)).sum();
    // A limit that stops the run first makes it safe: each packet is an event, and the
    // send engine takes at least tx_packet_ns per packet.
    let by_events = s.limits.max_events.unwrap_or(u64::MAX);
    let by_time = s.limits.max_sim_time_ms.map_or(u64::MAX, |ms| (ms * 1e6 / hw.nic.tx_packet_ns.max(1e-3)) as u64);
    if iters.saturating_mul(per_iter) > MAX_PSNS_PER_QP && by_events.min(by_time) > MAX_PSNS_PER_QP {
        return problem(
            "workload.iters",
            format!("iters = {iters} of {per_iter} packets each ({path_mtu} B MTU) is {} packets on one QP; expected at most {MAX_PSNS_PER_QP} (the model's PSN space), or a [limits] that stops the run sooner", iters.saturating_mul(per_iter)),
        );
    }
    if p.qps == 0 || p.qps > MAX_QPS {
        return problem("workload.qps", format!("qps = {} is out of range; expected 1..={MAX_QPS}", p.qps));
    }
    if p.qps > 1 && p.test.is_latency() {
        return problem("workload.qps", format!("{tn} uses one QP (perftest -q applies to bandwidth tests); expected qps = 1"));
    }
    if let Some(n) = p.inline_size {
        if n > MAX_INLINE {
            return problem("workload.inline_size", format!("inline_size = {n} is too large; expected 0..={MAX_INLINE} bytes"));
        }
        if n > 0 && matches!(p.test, PerftestTest::IbReadBw | PerftestTest::IbReadLat) {
            return problem(
                "workload.inline_size",
                format!("{tn} cannot use inline data (perftest rejects -I for RDMA READ: the data flows from the responder); expected inline_size = 0 or no inline_size"),
            );
        }
    }
    let hosts = s.topology.hosts;
    if p.client >= hosts {
        return problem("workload.client", format!("client = {} is not a host; expected a host index 0..={}", p.client, hosts - 1));
    }
    if p.server >= hosts {
        return problem("workload.server", format!("server = {} is not a host; expected a host index 0..={}", p.server, hosts - 1));
    }
    if p.client == p.server {
        return problem(
            "workload.server",
            format!("client and server are both host {}; expected two different hosts (perftest runs between two machines)", p.client),
        );
    }
    Ok(())
}

fn check_mpi(m: &MpiSection, topology: TopologyKind) -> Result<(), Problem> {
    check_mpi_source(m)?;
    if m.ranks_per_host == 0 {
        return problem("workload.ranks_per_host", "ranks_per_host = 0 is invalid; expected an integer >= 1".into());
    }
    // Two ranks on one host talk through their HCA's own port; back to back, the only
    // path leaves over the cable to the other host, which has no such QP.
    if m.ranks_per_host > 1 && topology == TopologyKind::BackToBack {
        return problem(
            "workload.ranks_per_host",
            format!("ranks_per_host = {} puts several ranks on one host, and the model has no HCA loopback: back to back, a message between two of them would leave over the cable to the other host; expected ranks_per_host = 1, or topology kind = \"single-switch\" (same-host messages then turn around in the switch)", m.ranks_per_host),
        );
    }
    if m.srq_buffers == 0 || m.srq_buffers > 1 << 20 {
        return problem("workload.srq_buffers", format!("srq_buffers = {} is out of range; expected 1..=1048576", m.srq_buffers));
    }
    if let Some(l) = m.srq_limit {
        if l == 0 || l >= m.srq_buffers {
            return problem("workload.srq_limit", format!("srq_limit = {l} must be 1..{} (below srq_buffers)", m.srq_buffers));
        }
    }
    if m.eager_threshold + 32 > m.buffer_bytes as u64 {
        return problem(
            "workload.eager_threshold",
            format!("an eager message of {} B plus its 32 B header does not fit a {} B receive buffer; expected eager_threshold <= buffer_bytes - 32", m.eager_threshold, m.buffer_bytes),
        );
    }
    if let Some(why) = crate::scenario::mpi::compute_scale_problem(m.compute_scale) {
        return problem("workload.compute_scale", why);
    }
    // MVAPICH2 caps MV2_NUM_HCAS at its MAX_NUM_HCAS (10, ibv_param.h) with a warning.
    if m.num_hcas == 0 || m.num_hcas > 10 {
        return problem("workload.num_hcas", format!("num_hcas = {} is out of range; expected 1..=10 rails per rank (MVAPICH2's MAX_NUM_HCAS)", m.num_hcas));
    }
    // MVAPICH2 replaces MV2_STRIPING_THRESHOLD <= 0 by its default silently; a scenario says so.
    if m.striping_threshold == Some(0) {
        return problem(
            "workload.striping_threshold",
            "striping_threshold = 0 is invalid; expected a payload size in bytes >= 1 above which rendezvous data is striped (leave it out for eager_threshold x num_hcas)".into(),
        );
    }
    Ok(())
}

fn check_srq_episode(e: &SrqEpisodeSection, topology: &TopologySection) -> Result<(), Problem> {
    let hosts = topology.hosts;
    if e.client >= hosts || e.server >= hosts || e.client == e.server {
        return problem("workload.server", format!("client {} and server {} must be two different hosts 0..={}", e.client, e.server, hosts - 1));
    }
    if e.refill == 0 || e.refill > 1 << 20 {
        return problem("workload.refill", format!("refill = {} is out of range; expected 1..=1048576 buffers", e.refill));
    }
    if e.packet_bytes == 0 || e.packet_bytes > MAX_SIZE as u32 {
        return problem("workload.packet_bytes", format!("packet_bytes = {} is out of range; expected 1..={MAX_SIZE}", e.packet_bytes));
    }
    if e.inline && e.packet_bytes > MAX_INLINE {
        return problem("workload.inline", format!("inline SENDs carry at most {MAX_INLINE} B in the WQE, and packet_bytes = {}; expected inline = false or packet_bytes <= {MAX_INLINE}", e.packet_bytes));
    }
    if e.burst == 0 || e.burst > 4096 {
        return problem("workload.burst", format!("burst = {} is out of range; expected 1..=4096 SENDs", e.burst));
    }
    if e.method == SrqFlowControl::SrqLimit && (e.srq_limit == 0 || e.srq_limit >= e.refill) {
        return problem("workload.srq_limit", format!("srq_limit = {} must be 1..{} (below the buffers posted, or the event fires at once)", e.srq_limit, e.refill));
    }
    Ok(())
}

/// A trace or a generated program, not both; the program's values and the node count in range
/// (the hosts themselves are checked against the fabric when the job is placed, `Mpi::new`).
fn check_mpi_source(m: &MpiSection) -> Result<(), Problem> {
    match &m.program {
        Some(p) if !m.trace.is_empty() => problem(
            "workload.program",
            format!("both trace = {:?} and program = {{ kind = {:?} }} are given; expected one source of the ranks' operations", m.trace, p.name()),
        ),
        Some(p) => p.check().or_else(|(key, why)| problem(key, why)),
        None if m.trace.is_empty() => problem(
            "workload.trace",
            "an mpi workload needs its ranks' operations; expected trace = \"DIR\" (rank.<r>.trace files) or program = { kind = \"random-pair-sendrecv\" | \"alltoall\", bytes = N }".into(),
        ),
        None => Ok(()),
    }?;
    if m.nodes == Some(0) {
        return problem("workload.nodes", "nodes = 0 runs no rank; expected a node count >= 1".into());
    }
    Ok(())
}
