//! Rounds of equal flows on one routed fabric, many at a time: the TSUBAME2.0 study's sweeps
//! (seeds/004; `rdmasim reproduce tsubame`). The fabric is generated, its bad links planted
//! ([`crate::flow::bad_links`]) and routed once; then every case (a random-pair round, or the steps of
//! a pairwise Alltoall, at a node count) runs its rounds: each round's time is its slowest
//! flow's ([`crate::flow::round_time`], the max-min result for flows that start together), and each
//! trial adds the stalls its seeded draws give the flows whose tail crosses an erroring link
//! ([`crate::flow::tail_loss`]). A round starts when the last flow of the one before is through (the
//! slowest process holds the next phase back: seeds/004 §2.1).
//!
//! A rank's payload is striped over `rails` as MVAPICH2 does it for a large rendezvous message:
//! cut into `MV2_MAX_RDMA_SIZE` chunks (4 MiB, ibv_param.c; `workload/mpi/rails.rs`), each
//! split evenly over the rails, one RDMA WRITE per rail and chunk, packets of the path MTU with
//! their headers (`link_model::message_wire_bytes`).
//!
//! `striping = "rate"` on a case splits each pair's payload over its rails in proportion to the
//! rates they give it instead ([`crate::flow::rail_share`]): not what MVAPICH2 does by default, a
//! sensitivity (docs/tsubame.md).
//!
//! Left out in lockstep: the per-round software and handshake latencies (RTS/CTS/FIN of the
//! rendezvous, a few µs against a round's tens of µs to seconds; docs/tsubame.md), and credits
//! (docs/flow.md). Rank by rank, the handshake is timed on each path
//! ([`crate::flow::rendezvous`]), from the request's `hardware` profile.
use crate::flow::bad_links::{plant, BadLinkPlan, Planted};
use crate::flow::link_model::{capacities, message_wire_bytes};
use crate::flow::link_outages::{CableClock, LinkEventPlan};
use crate::flow::round_patterns::{alltoall_step, random_pair_round};
use crate::flow::rail_share::RailShare;
use crate::flow::barrier::{dissemination_exits, slowest_since_start};
use crate::flow::rank_by_rank::{self, RankByRank};
use crate::flow::rank_by_rank_steps::StepClock;
use crate::flow::hol::HolModel;
use crate::flow::host_routes::HostRoutes;
use crate::flow::rendezvous::Handshake;
use crate::flow::round_time::RoundLoads;
use crate::flow::tail_loss::TailLoss;
use crate::engine::SimRng;
use crate::fabric::build::GeneratorSpec;
use crate::fabric::compute_hosts::compute_hosts;
use crate::fabric::graph::RoutedFabric;
use crate::fabric::io::IoError;
use crate::apps::fabric_report::engines::subnets_name;
use crate::apps::fabric_report::FabricError;
use crate::fabric::routing::{route, Engine, RouteOptions};
use crate::ids::{HostId, PortId, TiVec};
use crate::scenario::flows::FlowVerb;
use crate::traffic::nodes::NodeSubset;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoundsRequest {
    pub generator: GeneratorSpec,
    /// OpenSM engine names, one for all rails or one per rail: `"ftree,dfsssp"`.
    pub route: String,
    #[serde(default)]
    pub roots: Vec<String>,
    #[serde(default)]
    pub bad_links: BadLinkPlan,
    #[serde(default)]
    pub tail_loss: TailLoss,
    /// Retrains and flaps of the erroring links in time (flow/link_outages.rs; none by default).
    #[serde(default)]
    pub link_events: LinkEventPlan,
    /// More plans of link events to run every case's trials under (the rounds are computed
    /// once): an unknown rate swept at the cost of the trials alone.
    #[serde(default)]
    pub link_event_sweep: Vec<LinkEventPlan>,
    /// Path MTU. Source: "MVAPICH2 defaults to an IB MTU size of 2048 bytes" (QLogic OFED host
    /// software user guide; `MV2_DEFAULT_MTU`).
    #[serde(default = "default_mtu")]
    pub mtu: u32,
    /// `MV2_MAX_RDMA_SIZE` (ibv_param.c: 4 MiB).
    #[serde(default = "default_max_rdma")]
    pub max_rdma_bytes: u64,
    /// The hardware profile whose NIC, host and switch latencies time the rendezvous handshake
    /// of the rank-by-rank cases ([`crate::flow::rendezvous`]; link rates come from the
    /// fabric). Default `cx3-fdr`: ASSUMPTION for TSUBAME2.0, whose Mellanox QDR HCAs and
    /// Voltaire switches have no profile of their own; ConnectX-3 FDR is the nearest.
    #[serde(default = "default_hardware")]
    pub hardware: String,
    pub cases: Vec<Case>,
}

fn default_mtu() -> u32 {
    2048
}
fn default_max_rdma() -> u64 {
    4 << 20
}
fn default_hardware() -> String {
    "cx3-fdr".into()
}
fn default_rails() -> u16 {
    2
}
fn default_trials() -> u32 {
    1
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CaseKind {
    /// One random-pair MPI_Sendrecv round (seeds/004 §2.1).
    RandomPair,
    /// MPI_Alltoall as the pairwise exchange, `nodes - 1` rounds (§2.2).
    Alltoall,
}

/// How a rank's payload to one partner is divided over its rails.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Striping {
    /// Every chunk cut evenly over the rails: MVAPICH2's rendezvous (`ibv_rndv.c`, `inc =
    /// nbytes / rdma_num_rails`), so a pair is as slow as its slower rail.
    #[default]
    Even,
    /// In proportion to each rail's max-min rate for the pair, so both rails finish together
    /// (adaptive striping, [`crate::flow::rail_share`]): a sensitivity, not MVAPICH2's default.
    Rate,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    pub kind: CaseKind,
    pub nodes: u32,
    /// Seed of the pairing (random-pair) and of the trials' stall draws.
    #[serde(default)]
    pub seed: u64,
    /// Nodes up on the machine (default: `nodes`): the others are missing, drawn from
    /// `missing_seed` (`traffic::nodes`), and the job runs on the first `nodes` of those up,
    /// in node order, as a batch system hands out its node list (seeds/004: 1300 of 1408 up).
    #[serde(default)]
    pub up: Option<u32>,
    #[serde(default)]
    pub missing_seed: u64,
    /// Bytes each rank sends each partner.
    pub bytes: u64,
    #[serde(default = "default_rails")]
    pub rails: u16,
    #[serde(default = "default_trials")]
    pub trials: u32,
    #[serde(default)]
    pub striping: Striping,
    /// An Alltoall case also runs rank by rank: each rank starts its next step when its own
    /// exchange is through, not at a barrier. `"fluid"`: max-min rates re-solved as flows come
    /// and go ([`crate::flow::rank_by_rank`]); `"step-rates"`: each transfer at its step's
    /// lockstep rate ([`crate::flow::rank_by_rank_steps`], cheap enough for 1300 ranks).
    #[serde(default)]
    pub rank_by_rank: Option<RankByRankModel>,
    /// Rank by rank: the barrier before step 1 (`"dissemination"`, the default: the MPI
    /// core's, timed on each rank's paths, [`crate::flow::barrier`]; `"none"`: every rank
    /// leaves it at 0).
    #[serde(default)]
    pub barrier: Option<BarrierModel>,
    /// Rank by rank: how much later than the barrier lets it go each rank starts step 1, µs;
    /// drawn uniformly in [0, this] per rank from the case's seed (default 0).
    #[serde(default)]
    pub start_skew_us: f64,
    /// Rank by rank at max-min rates: head-of-line blocking in the rates, as the flow engine's
    /// `[flow] hol` (`"none"`, the default, or `"credit"`: [`crate::flow::hol`]).
    #[serde(default)]
    pub hol: HolModel,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RankByRankModel {
    Fluid,
    StepRates,
}

/// The barrier a rank-by-rank Alltoall starts from (a case's `barrier`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BarrierModel {
    #[default]
    Dissemination,
    None,
}

/// An Alltoall case run rank by rank: its stall-free time and (step rates) its trials.
#[derive(Clone, Debug, Serialize)]
pub struct RankByRankOutcome {
    pub model: RankByRankModel,
    /// The slowest rank's time from its own start of step 1 to its end, seconds: what its
    /// MPI_Wtime around the call reads, as the packet engine's benchmark times it.
    pub s: f64,
    /// How far apart the ranks started step 1 (the latest start minus the earliest), seconds.
    pub start_spread_s: f64,
    /// Rate solves of the event loop.
    pub solves: u64,
    /// XOR transfers run after their partner's (their ranks reached the step apart).
    pub serialised: u64,
    /// Step rates: each trial's time rank by rank, with the lockstep trials' stalls on the
    /// transfers they hit.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub trial_s: Vec<f64>,
}

#[derive(Clone, Debug, Serialize)]
pub struct CaseOutcome {
    pub kind: CaseKind,
    pub nodes: u32,
    pub striping: Striping,
    pub rounds: u32,
    /// Payload each rank sends in the whole case (random pair: `bytes`; Alltoall:
    /// `(nodes - 1) × bytes`).
    pub payload_bytes: u64,
    /// The case's time with no stall (sum over its rounds of the slowest flow), seconds.
    pub fluid_s: f64,
    /// Each trial's time, seconds, and its stalls.
    pub trial_s: Vec<f64>,
    pub stalls: Vec<u32>,
    /// Flows (over all rounds) whose tail or final ACK crosses an erroring link, and the stalls
    /// a trial expects.
    pub exposed_flows: u64,
    pub expected_stalls: f64,
    /// Flows whose route does not reach the destination (their rounds take forever).
    pub unroutable: u64,
    /// The trials again under each plan of the request's `link_event_sweep`, in its order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sweep: Vec<SweptTrials>,
    /// The link that holds the case's slowest round back (`"switch"[port] -> "peer"[port]`) and
    /// the flows it carries then (by flows per capacity, under either striping: with `rate` it
    /// is the busiest link of that round, not necessarily the slowest pair's).
    pub worst_link: Option<String>,
    pub worst_link_flows: u32,
    /// The same Alltoall rank by rank (cases with `rank_by_rank`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rank_by_rank: Option<RankByRankOutcome>,
}

/// A case's trials under one plan of link events.
#[derive(Clone, Debug, Serialize)]
pub struct SweptTrials {
    pub trial_s: Vec<f64>,
    pub stalls: Vec<u32>,
}

#[derive(Clone, Debug, Serialize)]
pub struct RoundsOutcome {
    /// The engine of each rail, and its fallback (ftree gives up on some fabrics).
    pub routed_by: String,
    pub planted: Vec<Planted>,
    pub stall_s: f64,
    pub cases: Vec<CaseOutcome>,
}

/// A flow of a round that can stall: its route (in the runner's route buffer), its time bound
/// per wire byte (once the round's loads are complete) and its stall probability.
struct Exposed {
    route: std::ops::Range<usize>,
    /// Index of its pair in the round's flow list (the rate policy's bound is the pair's).
    pair: u32,
    bound_per_byte: f64,
    probability: f64,
    /// The erroring cables its data or ACKs cross (in `Runner::touched`), for link events.
    cables: std::ops::Range<usize>,
}

/// What the trials need of one round.
struct RoundRecord {
    slowest_per_byte: f64,
    exposed: std::ops::Range<usize>,
    worst: Option<(PortId, u32)>,
}

struct Runner<'a> {
    rf: &'a RoutedFabric,
    /// Every host-to-host route, traced once for all the cases.
    host_routes: HostRoutes,
    /// Each port's cable, metres (for a path's latency).
    cable_m: TiVec<PortId, f64>,
    capacity: TiVec<PortId, f64>,
    errors: TiVec<PortId, f64>,
    any_errors: bool,
    /// Each host's (HCA port, LID) per rail.
    ends: Vec<Vec<(PortId, u16)>>,
    loss: &'a TailLoss,
    loads: RoundLoads,
    share: RailShare,
    route: Vec<PortId>,
    ack_route: Vec<PortId>,
    /// Each port's erroring cable (`NO_CABLE`: none), when the erroring links have events.
    cable_of: TiVec<PortId, u32>,
    /// The cables of the case's exposed flows (`Exposed::cables`).
    touched: Vec<u32>,
    /// Keep every flow's route of the round (rank by rank at step rates): its pair (the
    /// sending rank) and its hops in `kept_hops`.
    keep_routes: bool,
    kept_routes: Vec<(u32, std::ops::Range<usize>)>,
    kept_hops: Vec<PortId>,
    /// The rendezvous's NIC and host terms, and (when routes are kept) each sending rank's
    /// rail-0 cables and switches in the round, ns.
    handshake: Handshake,
    way_ns: Vec<f64>,
}

const NO_CABLE: u32 = u32::MAX;
/// Stream of a case's rank start draws (rank by rank).
const RANK_START_STREAM: u64 = 0x0053_5441_5254;

fn bad_request(message: String) -> FabricError {
    FabricError::Io(IoError::whole("request", message))
}

impl Runner<'_> {
    /// Builds one round's loads from `flows` (rank pairs) over `kept` hosts and `rails`;
    /// appends its exposed flows (routes kept in `routes`) and returns the round's record and
    /// its unroutable flows.
    fn round(&mut self, flows: &[(u32, u32)], kept: &[HostId], rails: u16, striping: Striping, exposed: &mut Vec<Exposed>, routes: &mut Vec<PortId>) -> (RoundRecord, u64) {
        self.loads.clear();
        self.share.clear();
        self.kept_routes.clear();
        self.kept_hops.clear();
        self.way_ns.clear();
        if self.keep_routes {
            self.way_ns.resize(flows.len(), 0.0);
        }
        let first = exposed.len();
        let mut unroutable = 0;
        for (pair, &(a, b)) in flows.iter().enumerate() {
            let pair = pair as u32;
            let (from, to) = (kept[a as usize], kept[b as usize]);
            for rail in 0..usize::from(rails) {
                let Some(route) = self.host_routes.get(self.rf, &self.ends, from, to, rail) else {
                    unroutable += 1;
                    continue;
                };
                self.route.clear();
                self.route.extend_from_slice(route);
                self.loads.add(&self.route);
                if self.keep_routes {
                    if rail == 0 {
                        let cable_m = &self.cable_m;
                        self.way_ns[pair as usize] = self.handshake.route_way_ns(self.route.iter().map(|&p| cable_m[p]));
                    }
                    let at = self.kept_hops.len();
                    self.kept_hops.extend_from_slice(&self.route);
                    self.kept_routes.push((pair, at..self.kept_hops.len()));
                }
                if striping == Striping::Rate {
                    self.share.add(pair, &self.route);
                }
                if !self.any_errors && self.cable_of.is_empty() {
                    continue;
                }
                let data: f64 = self.route.iter().map(|&p| TailLoss::exposure(self.loss.tail_packet_bytes, self.errors[p], self.capacity[p])).sum();
                let first_cable = self.touched.len();
                self.touch_cables(true);
                // The ACKs come back by the route the other way.
                let ack: f64 = match self.host_routes.get(self.rf, &self.ends, to, from, rail) {
                    Some(back) => {
                        self.ack_route.clear();
                        self.ack_route.extend_from_slice(back);
                        self.touch_cables(false);
                        self.ack_route.iter().map(|&p| TailLoss::exposure(self.loss.ack_bytes, self.errors[p], self.capacity[p])).sum()
                    }
                    None => 0.0,
                };
                self.touched[first_cable..].sort_unstable();
                let distinct = first_cable + crate::flow::link_outages::dedup_sorted(&mut self.touched[first_cable..]);
                self.touched.truncate(distinct);
                if data + ack > 0.0 || distinct > first_cable {
                    let start = routes.len();
                    routes.extend_from_slice(&self.route);
                    exposed.push(Exposed { route: start..routes.len(), pair, bound_per_byte: 0.0, probability: TailLoss::stall_probability(data + ack), cables: first_cable..distinct });
                }
            }
        }
        let slowest = if unroutable > 0 {
            f64::INFINITY
        } else if striping == Striping::Rate {
            self.share.drained(&self.capacity, flows.len())
        } else {
            self.loads.worst(&self.capacity)
        };
        (RoundRecord { slowest_per_byte: slowest, exposed: first..exposed.len(), worst: self.loads.worst_link(&self.capacity) }, unroutable)
    }
}

impl Runner<'_> {
    /// When each rank of the rank-by-rank case `c` over `kept` starts step 1: when it leaves
    /// the barrier ([`crate::flow::barrier`], its messages timed on each pair's rail-0 route as
    /// the handshake's are), plus up to `start_skew_us` drawn per rank from the case's seed.
    fn rank_starts(&mut self, c: &Case, kept: &[HostId]) -> Vec<f64> {
        let n = c.nodes as usize;
        let mut start_s = match c.barrier.unwrap_or_default() {
            BarrierModel::None => vec![0.0; n],
            BarrierModel::Dissemination => {
                let Runner { rf, ends, host_routes, cable_m, handshake, .. } = self;
                let path = |from: u32, to: u32| {
                    let route = host_routes.get(rf, ends, kept[from as usize], kept[to as usize], 0)?;
                    Some(handshake.route(route.iter().map(|&p| cable_m[p])))
                };
                // No route: the case's flows have none either (`unroutable`), its time is infinite.
                dissemination_exits(c.nodes, path).unwrap_or_else(|_| vec![0.0; n])
            }
        };
        let mut rng = SimRng::new(c.seed, RANK_START_STREAM);
        for s in &mut start_s {
            *s += rng.unit() * c.start_skew_us * 1e-6;
        }
        start_s
    }

    /// The Alltoall case `c` over `kept` run rank by rank at max-min rates, `wire` bytes per
    /// rail and transfer, the ranks starting step 1 at `start_s`.
    fn rank_by_rank(&mut self, c: &Case, kept: &[HostId], wire: f64, start_s: Vec<f64>) -> RankByRankOutcome {
        let start_spread_s = spread(&start_s);
        let spec = RankByRank { ranks: c.nodes, rails: usize::from(c.rails), wire_per_rail: wire, handshake: self.handshake, hol: c.hol, start_s };
        let Runner { rf, ends, host_routes, cable_m, capacity, .. } = self;
        let route = |from: u32, to: u32, rail: usize, out: &mut Vec<PortId>, lengths: &mut Vec<f64>| {
            out.clear();
            lengths.clear();
            let Some(r) = host_routes.get(rf, ends, kept[from as usize], kept[to as usize], rail) else {
                return false;
            };
            out.extend_from_slice(r);
            lengths.extend(r.iter().map(|&p| cable_m[p]));
            true
        };
        match rank_by_rank::run(&spec, capacity, route) {
            Ok(f) => RankByRankOutcome { model: RankByRankModel::Fluid, s: f.slowest_s, start_spread_s, solves: f.solves, serialised: f.serialised, trial_s: Vec::new() },
            // A flow with no route never ends, as in lockstep (the case's `unroutable` counts them).
            Err(_) => RankByRankOutcome { model: RankByRankModel::Fluid, s: f64::INFINITY, start_spread_s, solves: 0, serialised: 0, trial_s: Vec::new() },
        }
    }

    /// Adds the erroring cables of the data route (`route`) or of the ACK route (`ack_route`) to
    /// `touched`, when the erroring links have events.
    fn touch_cables(&mut self, data: bool) {
        if self.cable_of.is_empty() {
            return;
        }
        let Runner { cable_of, touched, route, ack_route, .. } = self;
        let cable = |p: PortId| Some(cable_of[p]).filter(|&c| c != NO_CABLE);
        let ports = if data { route } else { ack_route };
        touched.extend(ports.iter().filter_map(|&p| cable(p)));
    }
}

/// What a case's trials draw from: its rounds, their exposed flows and the cables those cross.
struct Trials<'a> {
    records: &'a [RoundRecord],
    exposed: &'a [Exposed],
    touched: &'a [u32],
    wire: f64,
    stall_s: f64,
    cables: u32,
    seed: u64,
    kind: CaseKind,
    nodes: u32,
    /// Rank by rank at step rates, stall-free: each step's transfer time per sending rank and
    /// when each rank reaches each step (`nodes` per step), and the time of the last rank.
    ranks: Option<RankSteps<'a>>,
}

#[derive(Clone, Copy)]
struct RankSteps<'a> {
    took: &'a [f64],
    /// Each step's cables and switches per sending rank, ns ([`StepClock::step`]).
    way_ns: &'a [f64],
    entered: &'a [f64],
    /// When each rank started step 1; a trial's time is the slowest rank's from its start.
    start_s: &'a [f64],
    last_s: f64,
    handshake: Handshake,
}

impl RankSteps<'_> {
    /// The time of a trial whose transfers `late` (round, sending rank, seconds from the
    /// transfer's start; in round order) end late: the stall-free run up to the first of them,
    /// then the steps again from there.
    fn with(&self, nodes: u32, late: &[(usize, u32, f64)], took: &mut Vec<f64>) -> f64 {
        let Some(&(first, _, _)) = late.first() else {
            return self.last_s;
        };
        let n = nodes as usize;
        let steps = self.took.len() / n.max(1);
        let mut clock = StepClock::new(nodes, &self.entered[first * n..(first + 1) * n], self.handshake);
        let mut next = late.iter().peekable();
        for i in first..steps {
            took.clear();
            took.extend_from_slice(&self.took[i * n..(i + 1) * n]);
            while let Some(&&(_, pair, t)) = next.peek().filter(|l| l.0 == i) {
                took[pair as usize] = took[pair as usize].max(t);
                next.next();
            }
            clock.step(i as u32 + 1, took, &self.way_ns[i * n..(i + 1) * n]);
        }
        slowest_since_start(clock.entered(), self.start_s)
    }
}

/// A case's trials: the time and stalls of each, and, rank by rank, each one's time.
struct TrialTimes {
    trial_s: Vec<f64>,
    stalls: Vec<u32>,
    rank_by_rank_s: Vec<f64>,
}

impl Trials<'_> {
    /// Each trial's time and stalls under `plan`: the tail losses its seeded draws give the
    /// exposed flows, and the link events of the erroring cables in time. Rank by rank the
    /// same draws lengthen the flows' own transfers, and a rank waits only for its partners:
    /// the link events are still placed on the lockstep timeline (ASSUMPTION: a step starts
    /// within a few per cent of its lockstep start, the two schedules' difference at 1300
    /// ranks, docs/tsubame.md).
    fn run(&self, plan: &LinkEventPlan, trials: u32, clocks: &mut Vec<CableClock>) -> TrialTimes {
        let wire = self.wire;
        let (mut trial_s, mut stalls) = (Vec::with_capacity(trials as usize), Vec::with_capacity(trials as usize));
        let mut rank_by_rank_s = Vec::new();
        let (mut late, mut took) = (Vec::new(), Vec::new());
        for t in 0..trials {
            late.clear();
            let stream = trial_stream(self.kind, self.nodes, t);
            let mut rng = SimRng::new(self.seed, stream);
            clocks.clear();
            if plan.any() {
                clocks.extend((0..self.cables).map(|k| CableClock::new(plan, self.seed, stream, k)));
            }
            let (mut total, mut n_stalls) = (0.0, 0u32);
            for (i, r) in self.records.iter().enumerate() {
                let mut round = r.slowest_per_byte * wire;
                // A flow of the round ends `after` seconds from its start.
                let mut lengthen = |e: &Exposed, after: f64| {
                    round = round.max(after);
                    late.push((i, e.pair, after));
                };
                for e in self.exposed[r.exposed.clone()].iter().filter(|_| plan.tail_loss) {
                    if rng.chance(e.probability) {
                        n_stalls += 1;
                        lengthen(e, e.bound_per_byte * wire + self.stall_s);
                    }
                }
                // Link events: a flow across a cable out during the round finishes later.
                if !clocks.is_empty() {
                    clocks.iter_mut().for_each(|k| k.advance_to(plan, total));
                    for e in &self.exposed[r.exposed.clone()] {
                        let busy = e.bound_per_byte * wire;
                        for &k in &self.touched[e.cables.clone()] {
                            let late = clocks[k as usize].delay(plan, total, busy, self.stall_s);
                            if late > 0.0 {
                                n_stalls += 1;
                                lengthen(e, busy + late);
                            }
                        }
                    }
                }
                total += round;
            }
            trial_s.push(total);
            stalls.push(n_stalls);
            rank_by_rank_s.extend(self.ranks.map(|r| r.with(self.nodes, &late, &mut took)));
        }
        TrialTimes { trial_s, stalls, rank_by_rank_s }
    }
}

/// How far apart the ranks start (the latest start minus the earliest; 0 for no rank), seconds.
fn spread(start_s: &[f64]) -> f64 {
    let (first, last) = start_s.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &t| (a.min(t), b.max(t)));
    (last - first).max(0.0)
}

/// Checks a case's rank-by-rank keys; the key at fault and what was expected.
fn rank_by_rank_problem(c: &Case) -> Option<(&'static str, String)> {
    if c.hol != HolModel::None && c.rank_by_rank != Some(RankByRankModel::Fluid) {
        return Some(("hol", "only with rank_by_rank = \"fluid\" (the other models take each step's lockstep loads)".into()));
    }
    if c.rank_by_rank.is_none() {
        // Lockstep rounds all start together.
        if c.barrier.is_some() {
            return Some(("barrier", "only with rank_by_rank = \"fluid\" or \"step-rates\"".into()));
        }
        return (c.start_skew_us != 0.0).then(|| ("start_skew_us", "only with rank_by_rank = \"fluid\" or \"step-rates\"".into()));
    }
    if c.kind != CaseKind::Alltoall || c.striping != Striping::Even {
        return Some(("rank_by_rank", "expected an alltoall case striped evenly".into()));
    }
    if !(0.0..=1e6).contains(&c.start_skew_us) {
        return Some(("start_skew_us", format!("{}; expected 0..=1e6 µs", c.start_skew_us)));
    }
    None
}


/// Wire bytes of the larger rail's share of `bytes` (`max_rdma` chunks, each split evenly).
/// With `rails` = 1, the whole payload's: what the rate policy divides over the rails (its
/// uneven pieces' headers differ from these by a packet's worth per chunk at most).
fn rail_wire_bytes(bytes: u64, rails: u16, max_rdma: u64, mtu: u32) -> f64 {
    let rails = u64::from(rails.max(1));
    let max_rdma = max_rdma.max(1);
    let (full, rest) = (bytes / max_rdma, bytes % max_rdma);
    let piece = |b: u64| if b == 0 { 0 } else { message_wire_bytes(FlowVerb::Write, b.div_ceil(rails), mtu).0 };
    (full * piece(max_rdma) + piece(rest)) as f64
}

/// Stream of a case's trial draws.
fn trial_stream(kind: CaseKind, nodes: u32, trial: u32) -> u64 {
    (u64::from(kind == CaseKind::Alltoall) << 63) | (u64::from(nodes) << 32) | u64::from(trial)
}

pub fn run(req: &RoundsRequest) -> Result<RoundsOutcome, FabricError> {
    let engines = Engine::parse_list(&req.route).map_err(|e| bad_request(format!("route: {}", e.0)))?;
    let mut g = req.generator.build().map_err(|e| FabricError::Generator { kind: None, message: e.0 })?;
    let (planted, errors) = plant(&mut g, &req.bad_links);
    let routing = route(g, &engines, &RouteOptions { roots: req.roots.clone(), ..RouteOptions::default() })
        .map_err(|e| FabricError::Routing { engines: req.route.clone(), message: e.0 })?;
    let rf = &routing.fabric;
    let gr = &rf.graph;
    let ends: Vec<Vec<(PortId, u16)>> = gr
        .hosts
        .iter()
        .map(|h| h.hcas.iter().flat_map(|&ca| gr.nodes[ca].ports()).filter(|&p| gr.ports[p].link.is_some()).map(|p| (p, gr.ports[p].lid)).collect())
        .collect();
    let capacity = capacities(gr);
    let any_errors = errors.iter().any(|&e| e > 0.0);
    let plan = &req.link_events;
    if let Some(m) = std::iter::once(plan).chain(&req.link_event_sweep).find_map(LinkEventPlan::problem) {
        return Err(bad_request(m));
    }
    // The erroring cables, numbered, when they have events.
    let mut cable_of: TiVec<PortId, u32> = TiVec::default();
    let mut cables = 0;
    if std::iter::once(plan).chain(&req.link_event_sweep).any(LinkEventPlan::any) {
        cable_of = vec![NO_CABLE; gr.ports.len()].into();
        for p in planted.iter().filter(|p| p.kind == "erroring" && !p.disabled) {
            for end in gr.links[p.link].ends {
                cable_of[end] = cables;
            }
            cables += 1;
        }
    }
    let Some((hw, _)) = crate::profile::by_name(&req.hardware) else {
        return Err(bad_request(format!("hardware: {:?} is not a profile; expected one of {}", req.hardware, crate::profile::names().join(", "))));
    };
    let handshake = Handshake::of(&hw);
    let rails = ends.iter().map(Vec::len).max().unwrap_or(0);
    let cable_m: TiVec<PortId, f64> = gr.ports.iter().map(|p| p.link.map_or(0.0, |l| gr.links[l].length_m)).collect();
    // Routes are kept when more than one case may ask for the same one (flow/host_routes.rs).
    let keep = req.cases.len() > 1;
    let mut runner = Runner { rf, host_routes: HostRoutes::new(gr.hosts.len(), rails, keep), cable_m, loads: RoundLoads::new(gr.ports.len()), share: RailShare::new(gr.ports.len()), capacity, errors, any_errors, ends, loss: &req.tail_loss, route: Vec::new(), ack_route: Vec::new(), cable_of, touched: Vec::new(), keep_routes: false, kept_routes: Vec::new(), kept_hops: Vec::new(), handshake, way_ns: Vec::new() };
    let mut clocks: Vec<CableClock> = Vec::new();
    let stall_s = req.tail_loss.stall_s();
    // Jobs run on the compute hosts; I/O nodes (on one rail) are not handed out.
    let pool = compute_hosts(gr);
    let mut cases = Vec::with_capacity(req.cases.len());
    let (mut flows, mut exposed, mut routes, mut records, mut took) = (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut step_took, mut step_way, mut step_entered) = (Vec::new(), Vec::new(), Vec::new());
    for (i, c) in req.cases.iter().enumerate() {
        let key = |k: &str| format!("cases[{i}].{k}");
        let up = c.up.unwrap_or(c.nodes);
        let mut kept = NodeSubset { nodes: Some(up), missing: None, seed: c.missing_seed }
            .select(pool.len() as u32)
            .map_err(|(_, m)| bad_request(format!("{}: {m}", key("up"))))?
            .into_iter()
            .map(|h| pool[h.idx()])
            .collect::<Vec<_>>();
        if c.nodes < 2 || c.nodes > up {
            return Err(bad_request(format!("{}: nodes = {}; expected 2..={up} (the nodes up)", key("nodes"), c.nodes)));
        }
        kept.truncate(c.nodes as usize);
        if c.rails == 0 || pool.iter().any(|h| runner.ends[h.idx()].len() < usize::from(c.rails)) {
            return Err(bad_request(format!("{}: rails = {}; expected 1..= the rails every host has", key("rails"), c.rails)));
        }
        // Seconds per byte are per rail's share (even) or per the pair's whole payload (rate).
        let wire = match c.striping {
            Striping::Even => rail_wire_bytes(c.bytes, c.rails, req.max_rdma_bytes, req.mtu),
            Striping::Rate => rail_wire_bytes(c.bytes, 1, req.max_rdma_bytes, req.mtu),
        };
        let steps = match c.kind {
            CaseKind::RandomPair => 1,
            CaseKind::Alltoall => c.nodes - 1,
        };
        if let Some((k, m)) = rank_by_rank_problem(c) {
            return Err(bad_request(format!("{}: {m}", key(k))));
        }
        exposed.clear();
        routes.clear();
        runner.touched.clear();
        records.clear();
        let mut unroutable = 0;
        let start_s = if c.rank_by_rank.is_some() { runner.rank_starts(c, &kept) } else { Vec::new() };
        let mut clock = (c.rank_by_rank == Some(RankByRankModel::StepRates)).then(|| StepClock::new(c.nodes, &start_s, handshake));
        runner.keep_routes = clock.is_some();
        step_took.clear();
        step_way.clear();
        step_entered.clear();
        for step in 1..=steps {
            match c.kind {
                CaseKind::RandomPair => random_pair_round(c.nodes, c.seed, &mut flows),
                CaseKind::Alltoall => alltoall_step(c.nodes, step, &mut flows),
            }
            let (rec, stuck) = runner.round(&flows, &kept, c.rails, c.striping, &mut exposed, &mut routes);
            unroutable += stuck;
            // The bounds of this round's exposed flows need its complete loads.
            for e in &mut exposed[rec.exposed.clone()] {
                e.bound_per_byte = match c.striping {
                    Striping::Even => runner.loads.bound(&routes[e.route.clone()], &runner.capacity),
                    Striping::Rate if stuck == 0 => runner.share.pair_time(e.pair),
                    Striping::Rate => f64::INFINITY,
                };
            }
            if let Some(clock) = &mut clock {
                // Each rank's transfer takes its slower rail's time in this step's round.
                took.clear();
                took.resize(c.nodes as usize, if stuck > 0 { f64::INFINITY } else { 0.0 });
                for (pair, route) in &runner.kept_routes {
                    let t = runner.loads.bound(&runner.kept_hops[route.clone()], &runner.capacity) * wire;
                    took[*pair as usize] = took[*pair as usize].max(t);
                }
                step_entered.extend_from_slice(clock.entered());
                clock.step(step, &took, &runner.way_ns);
                step_took.extend_from_slice(&took);
                step_way.extend_from_slice(&runner.way_ns);
            }
            records.push(rec);
        }
        let fluid_s: f64 = records.iter().map(|r: &RoundRecord| r.slowest_per_byte * wire).sum();
        let expected_stalls: f64 = exposed.iter().map(|e| e.probability).sum();
        let ranks = clock.as_ref().map(|k| RankSteps { took: &step_took, way_ns: &step_way, entered: &step_entered, start_s: &start_s, last_s: slowest_since_start(k.entered(), &start_s), handshake });
        let trials = Trials { records: &records, exposed: &exposed, touched: &runner.touched, wire, stall_s, cables, seed: c.seed ^ req.bad_links.seed.rotate_left(17), kind: c.kind, nodes: c.nodes, ranks };
        let TrialTimes { trial_s, stalls, rank_by_rank_s } = trials.run(plan, c.trials, &mut clocks);
        // The sweep's plans are a sensitivity of the lockstep trials (_tsubame_flaps.py): not
        // rerun rank by rank.
        let lockstep = Trials { ranks: None, ..trials };
        let sweep = req.link_event_sweep.iter().map(|p| lockstep.run(p, c.trials, &mut clocks)).map(|t| SweptTrials { trial_s: t.trial_s, stalls: t.stalls }).collect();
        let rank_by_rank = match (c.rank_by_rank, clock) {
            (Some(RankByRankModel::Fluid), _) => Some(runner.rank_by_rank(c, &kept, wire, start_s.clone())),
            (_, Some(clock)) => Some(RankByRankOutcome {
                model: RankByRankModel::StepRates,
                s: slowest_since_start(clock.entered(), &start_s),
                start_spread_s: spread(&start_s),
                solves: 0,
                serialised: clock.serialised,
                trial_s: rank_by_rank_s,
            }),
            _ => None,
        };
        let payload_bytes = c.bytes * u64::from(steps);
        let slowest = records.iter().max_by(|a, b| a.slowest_per_byte.total_cmp(&b.slowest_per_byte)).and_then(|r| r.worst);
        let worst_link = slowest.map(|(p, _)| match gr.peer(p) {
            Some(q) => format!("{} -> {}", gr.port_name(p), gr.port_name(q)),
            None => gr.port_name(p),
        });
        cases.push(CaseOutcome {
            kind: c.kind,
            nodes: c.nodes,
            striping: c.striping,
            rounds: steps,
            payload_bytes,
            fluid_s,
            trial_s,
            stalls,
            sweep,
            exposed_flows: exposed.len() as u64,
            expected_stalls,
            unroutable,
            worst_link,
            worst_link_flows: slowest.map_or(0, |(_, n)| n),
            rank_by_rank,
        });
    }
    Ok(RoundsOutcome { routed_by: subnets_name(&routing.subnets), planted, stall_s, cases })
}

/// The request as JSON in, the outcome as JSON out: what the binding calls.
pub fn run_json(request_json: &str) -> Result<String, FabricError> {
    // The path names the key at fault (`cases[2].barrier: unknown variant ...`).
    let req: RoundsRequest = serde_path_to_error::deserialize(&mut serde_json::Deserializer::from_str(request_json)).map_err(|e| bad_request(format!("{}: {}", e.path(), e.inner())))?;
    Ok(serde_json::to_string(&run(&req)?).unwrap_or_default())
}
