//! The PM/Ethernet world: NICs, switches, hosts and PM channels on one event queue, built from
//! the fabric graph of a generator (one switch, or the 3-D hyper-crossbar). The event handlers
//! live beside it by subject: net.rs (links and switches), host.rs (NICs, CPU, PM, relaying).
//! What runs on the hosts is an app ([`PmApp`]: workload.rs's traffic, or an MPI program,
//! ether/mpi) that the world calls with itself; neither is named here.
use crate::scenario::pm::{PmScenario, PmTopology};
use super::cabling::{self, Cabling};
use super::frame::Frame;
use super::host_cost::HostCost;
use super::link::{propagation, EthRate, FlowControl};
use super::host_buses;
use super::nic::{e1000, Bus, NicCounters, NicProfile};
use super::pm::{Channel, PmConfig};
use super::switch::{EthSwitch, PortCounters};
use super::switch_profiles::SwitchProfile;
use super::trunk::Trunk;
use crate::engine::{EventQueue, SimRng, Slab, Time};
use crate::fabric::build::common::{add_hosts, add_rail_hca, add_switch, cable, qdr_4x};
use crate::fabric::build::hyperx::{coords, hyperx, HyperX};
use crate::fabric::graph::{FabricGraph, LinkProps, NodeKind};
use crate::ids::{EthNicId, EthSwitchId, FrameId, HostId, PmChannelId, PortId, TiVec};
use std::collections::VecDeque;

/// What runs on PM's hosts: the traffic of workload.rs, or an MPI program (ether/mpi). The
/// world calls it when a host's start time comes, when a channel delivers whole messages or its
/// sender takes packets, and when an MPI rank's compute gap ends; it reaches the world only
/// through the world it is handed (which no longer holds it meanwhile).
pub trait PmApp: Send {
    /// Host `h`'s `Ev::Start` came (a round of an all-to-all, a skewed stream's start).
    fn start_round(&mut self, _w: &mut EtherWorld, _h: HostId) {}
    /// MPI rank `r`'s compute gap ended (`Ev::MpiResume`).
    fn resume(&mut self, _w: &mut EtherWorld, _r: u32) {}
    /// Channel `c` delivered its next `msgs` whole messages.
    fn messages(&mut self, w: &mut EtherWorld, c: PmChannelId, msgs: u32);
    /// The sender of channel `c` took packets for the wire.
    fn taken(&mut self, _w: &mut EtherWorld, _c: PmChannelId) {}
    /// Half the round trip, µs, once a ping-pong is done.
    fn half_rtt_us(&self, _now: Time) -> Option<f64> {
        None
    }
    /// Tables of its own (an MPI program's).
    fn tables(&self, _out: &mut crate::report::tables::Tables) {}
}

/// No frame.
pub const NONE: FrameId = FrameId(u32::MAX);

#[derive(Clone, Copy, Debug)]
pub enum Ev {
    /// A port finished putting its frame on the wire.
    TxDone(PortId),
    /// A frame is wholly received at a port.
    Arrive(PortId, FrameId),
    /// A switch's pipeline is done with a frame: into the output queue.
    Forward(PortId, FrameId),
    /// A NIC fetched a frame from host memory: into its transmit queue.
    NicReady(PortId, FrameId),
    /// A NIC wrote a received frame to host memory (NIC, frame).
    RxDone(EthNicId, FrameId),
    /// A host's receive interrupt.
    Irq(HostId),
    /// A host's CPU finished its job.
    CpuDone(HostId),
    /// A channel's retransmission timer (channel, generation).
    Timer(PmChannelId, u32),
    /// A paused port may send again.
    Kick(PortId),
    /// A host starts its next all-to-all round.
    Start(HostId),
    /// An MPI rank's compute gap ended.
    MpiResume(u32),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Owner {
    Unused,
    Nic(EthNicId),
    /// A switch, and the port's place among that switch's ports.
    Switch(EthSwitchId, u16),
}

/// One direction of a link, at the port that sends into it.
pub struct EthPort {
    pub owner: Owner,
    pub peer: Option<PortId>,
    pub queue: VecDeque<FrameId>,
    pub on_wire: FrameId,
    /// The frame on the wire is a PAUSE made here, not the queue's head.
    pub wire_is_pause: bool,
    pub paused_until: Time,
    pub kick_at: Time,
    pub pending_pause: Option<u16>,
    /// Credit flow control: bytes the peer switch input can still take.
    pub credits: u32,
    pub fc: FlowControl,
    pub rate: EthRate,
    pub prop: Time,
    pub counters: PortCounters,
}

pub struct Nic {
    pub host: HostId,
    pub port: PortId,
    pub bus: u32,
    pub dim: u8,
    pub lane: u8,
    pub tx_held: u32,
    pub rx_held: u32,
    pub counters: NicCounters,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Job {
    Idle,
    /// Receiving a frame a NIC wrote (NIC, frame).
    Rx(EthNicId, FrameId),
    /// Sending a frame (frame, NIC).
    Send(FrameId, EthNicId),
    /// The MPI library's own work (copies not tied to a packet).
    Work,
}

pub struct EthHost {
    pub coords: [u16; 3],
    /// NICs by dimension and lane.
    pub lanes: [Vec<EthNicId>; 3],
    pub trunk: Trunk,
    pub chans_out: Vec<PmChannelId>,
    pub rr: usize,
    /// Frames NICs wrote that wait for the CPU (NIC, frame).
    pub backlog: VecDeque<(EthNicId, FrameId)>,
    pub in_rx: bool,
    pub irq_pending: bool,
    pub job: Job,
    pub cost: HostCost,
    pub cpu_time: Time,
    /// MPI library work waiting for the CPU.
    pub mpi_work: Time,
    pub relay_time: Time,
    pub relay_packets: u64,
    pub relay_drops: u64,
    pub rng: SimRng,
    /// Draws the peer's lane under `[pm] lanes = "random"` (its own stream, so the default
    /// draws nothing from it and the skews stay as they were).
    pub lane_rng: SimRng,
}

pub struct EtherWorld {
    pub q: EventQueue<Ev>,
    pub frames: Slab<Frame, FrameId>,
    pub graph: FabricGraph,
    pub ports: TiVec<PortId, EthPort>,
    pub switches: TiVec<EthSwitchId, EthSwitch>,
    pub nics: TiVec<EthNicId, Nic>,
    pub buses: Vec<Bus>,
    pub hosts: TiVec<HostId, EthHost>,
    pub chans: TiVec<PmChannelId, Channel>,
    pub nic_profile: NicProfile,
    pub pm: PmConfig,
    pub rto: Time,
    pub dims: [u16; 3],
    pub capture: Option<Vec<(Time, Frame)>>,
    pub capture_max: u64,
    pub unroutable: u64,
    /// PM data packets lost on the way (switch discards, full receive rings, relays without a
    /// free descriptor): what seeds/003's loss rate counts, over data packets sent. Lost
    /// acknowledgements are in the port and NIC counters, not here.
    pub data_drops: u64,
    /// What runs on the hosts (workload.rs's traffic, or an MPI program: ether/mpi), set once
    /// the network is built (run.rs).
    pub app: Option<Box<dyn PmApp>>,
    pub done: bool,
}

/// Builds the fabric graph a PM topology stands for.
pub fn build_graph(t: &PmTopology, cable_m: f64) -> Result<(FabricGraph, [u16; 3]), String> {
    let speed = qdr_4x(); // the graph's IB speed is unused: Ethernet rates come from [ethernet]
    match *t {
        PmTopology::SingleSwitch { hosts, links } => {
            if hosts < 2 || !(1..=36).contains(&links) {
                return Err(format!("hosts = {hosts}, links = {links}: expected at least 2 hosts and 1..=36 links"));
            }
            let mut g = FabricGraph::new();
            let hs = add_hosts(&mut g, hosts as usize);
            let radix = u16::try_from(hosts as usize * usize::from(links)).map_err(|_| "too many switch ports".to_string())?;
            let sw = add_switch(&mut g, "eth-s0".into(), radix, speed).map_err(|e| e.0)?;
            for (i, &h) in hs.iter().enumerate() {
                let ca = add_rail_hca(&mut g, h, 0, links, speed).map_err(|e| e.0)?;
                for p in 1..=links {
                    cable(&mut g, ca, p, sw, i as u16 * links + p, LinkProps::new(speed, cable_m)).map_err(|e| e.0)?;
                }
            }
            Ok((g, [hosts as u16, 1, 1]))
        }
        PmTopology::Hyperx { dims, links_per_dim } => {
            let g = hyperx(&HyperX { dims, links_per_dim, speed, cable_m }).map_err(|e| e.0)?;
            Ok((g, dims))
        }
    }
}

impl EtherWorld {
    pub fn new(s: &PmScenario, profile: SwitchProfile) -> Result<EtherWorld, (String, String)> {
        let (graph, dims) = build_graph(&s.ethernet.topology, s.ethernet.cable_m).map_err(|m| ("ethernet.topology".to_string(), m))?;
        let nic_profile = e1000();
        let rate = s.ethernet.rate;
        let mut ports: TiVec<PortId, EthPort> = TiVec::new();
        for (pid, p) in graph.ports.iter_enumerated() {
            let peer = p.link.map(|l| graph.links[l].other(pid));
            let prop = p.link.map(|l| propagation(graph.links[l].length_m)).unwrap_or(Time::ZERO);
            ports.push(EthPort {
                owner: Owner::Unused,
                peer,
                queue: VecDeque::new(),
                on_wire: NONE,
                wire_is_pause: false,
                paused_until: Time::ZERO,
                kick_at: Time::MAX,
                pending_pause: None,
                credits: 0,
                fc: s.ethernet.flow_control,
                rate,
                prop,
                counters: PortCounters::default(),
            });
        }
        let mut switches: TiVec<EthSwitchId, EthSwitch> = TiVec::new();
        let physical = cabling::physical_switches(&graph, s.ethernet.cabling, usize::from(profile.ports)).map_err(|m| ("ethernet.cabling".to_string(), m))?;
        let named = s.ethernet.cabling == Cabling::Rows;
        let mut rows = graph.nodes.iter().filter(|n| n.kind == NodeKind::Switch).map(|n| n.name.clone());
        for (k, used) in physical.into_iter().enumerate() {
            let name = if named { rows.next().unwrap_or_default() } else { format!("eth-sw{k}") };
            if usize::from(profile.ports) < used.iter().filter(|&&p| graph.ports[p].link.is_some()).count() {
                return Err(("ethernet.switch".into(), format!("{} has {} ports; switch {} needs {}", profile.name, profile.ports, name, used.len())));
            }
            let si = switches.next_key();
            for (i, &p) in used.iter().enumerate() {
                ports[p].owner = Owner::Switch(si, i as u16);
            }
            switches.push(EthSwitch::new(name, profile.clone(), used));
        }
        let mut nics: TiVec<EthNicId, Nic> = TiVec::new();
        let mut hosts: TiVec<HostId, EthHost> = TiVec::new();
        let mut buses = Vec::new();
        for (h, spec) in graph.hosts.iter_enumerated() {
            let c = if let PmTopology::SingleSwitch { .. } = s.ethernet.topology { [h.0 as u16, 0, 0] } else { coords(dims, h) };
            let mut lanes: [Vec<EthNicId>; 3] = Default::default();
            let mut count = 0u32;
            let all = spec.hcas.iter().map(|&ca| graph.nodes[ca].ports().count() as u32).sum();
            let (rates, bus_of) = host_buses::layout(all, nic_profile.bus_bytes_per_s, nic_profile.ports_per_bus, &s.nic);
            let first = buses.len() as u32;
            buses.extend(rates.into_iter().map(Bus::new));
            for (d, &ca) in spec.hcas.iter().enumerate() {
                for (lane, p) in graph.nodes[ca].ports().enumerate() {
                    let n = nics.next_key();
                    let bus = first + bus_of[count as usize];
                    nics.push(Nic { host: h, port: p, bus, dim: d as u8, lane: lane as u8, tx_held: 0, rx_held: 0, counters: NicCounters::default() });
                    ports[p].owner = Owner::Nic(n);
                    lanes[d].push(n);
                    count += 1;
                }
            }
            let mut cost = s.host.costs(count, s.pm.packet_bytes);
            if let crate::scenario::pm::PmWorkload::Mpi(m) = &s.workload {
                cost.mpi_packet_ps = super::mpi::packet_cost::packet_ps(&s.host, m.packet_us());
            }
            hosts.push(EthHost {
                coords: c,
                lanes,
                trunk: Trunk::default(),
                chans_out: Vec::new(),
                rr: 0,
                backlog: VecDeque::new(),
                in_rx: false,
                irq_pending: false,
                job: Job::Idle,
                cost,
                cpu_time: Time::ZERO,
                mpi_work: Time::ZERO,
                relay_time: Time::ZERO,
                relay_packets: 0,
                relay_drops: 0,
                rng: SimRng::new(s.seed, 0x504d_0000 + u64::from(h.0)),
                lane_rng: SimRng::new(s.seed, 0x4c41_0000 + u64::from(h.0)),
            });
        }
        // Links with their own flow control: both directions of each named host's cables.
        for (i, o) in s.ethernet.links.iter().enumerate() {
            for &h in &o.hosts {
                let spec = graph.hosts.get(HostId(h)).ok_or_else(|| (format!("ethernet.links[{i}].hosts"), format!("host {h} does not exist; expected 0..{}", graph.hosts.len())))?;
                for &ca in &spec.hcas {
                    for p in graph.nodes[ca].ports() {
                        ports[p].fc = o.flow_control;
                        if let Some(peer) = ports[p].peer {
                            ports[peer].fc = o.flow_control;
                        }
                    }
                }
            }
        }
        // Credits: a port sending into a switch starts with its share of that switch's buffer.
        for p in (0..ports.len()).map(PortId::from) {
            if let (Some(peer), FlowControl::Credits) = (ports[p].peer, ports[p].fc) {
                if let Owner::Switch(sw, _) = ports[peer].owner {
                    ports[p].credits = switches[sw].credit_bytes_per_input();
                }
            }
        }
        let w = EtherWorld {
            q: EventQueue::new(),
            frames: Slab::new(),
            graph,
            ports,
            switches,
            nics,
            buses,
            hosts,
            chans: TiVec::new(),
            nic_profile,
            pm: s.pm,
            rto: Time::from_ns_f64(s.pm.rto_us * 1e3),
            dims,
            capture: s.output.capture.then(Vec::new),
            capture_max: s.output.capture_max_packets,
            unroutable: 0,
            data_drops: 0,
            app: None,
            done: false,
        };
        Ok(w)
    }

    /// Runs `f` on the app, taken out of the world meanwhile (nothing when there is none).
    pub fn with_app(&mut self, f: impl FnOnce(&mut dyn PmApp, &mut EtherWorld)) {
        if let Some(mut app) = self.app.take() {
            f(app.as_mut(), self);
            self.app = Some(app);
        }
    }

    /// The channel from `src` to `dst`, made on first use.
    pub fn channel(&mut self, src: HostId, dst: HostId) -> PmChannelId {
        if let Some(&c) = self.hosts[src].chans_out.iter().find(|&&c| self.chans[c].dst == dst) {
            return c;
        }
        let c = self.chans.push_and_get_key(Channel::new(src, dst, self.pm.window, self.pm.resend));
        self.hosts[src].chans_out.push(c);
        c
    }

    pub fn dispatch(&mut self, ev: Ev) {
        match ev {
            Ev::TxDone(p) => self.tx_done(p),
            Ev::Arrive(p, f) => self.arrive(p, f),
            Ev::Forward(p, f) => {
                self.ports[p].queue.push_back(f);
                self.try_tx(p);
            }
            Ev::NicReady(p, f) => {
                self.ports[p].queue.push_back(f);
                self.try_tx(p);
            }
            Ev::RxDone(n, f) => self.rx_done(n, f),
            Ev::Irq(h) => {
                let host = &mut self.hosts[h];
                host.irq_pending = false;
                host.in_rx = true;
                self.cpu_kick(h);
            }
            Ev::CpuDone(h) => self.cpu_done(h),
            Ev::Timer(c, gen) => self.timer(c, gen),
            Ev::Kick(p) => {
                self.ports[p].kick_at = Time::MAX;
                self.try_tx(p);
            }
            Ev::Start(h) => self.with_app(|a, w| a.start_round(w, h)),
            Ev::MpiResume(r) => self.with_app(|a, w| a.resume(w, r)),
        }
    }
}
