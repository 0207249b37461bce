//! A simulation run: builds the world from a scenario, runs the event loop in steps (so callers
//! can show progress), and collects the result tables and the capture.
use crate::engine::run::{self, Limits, Next, RunState, StopReason, Stepper};
use crate::engine::{EventQueue, Time};
use std::collections::HashSet;
use crate::run::Engine as _;
use crate::ids::{AppId, ChannelId, CqId, HcaId, HostId, PortId, TiVec};
use crate::fabric::channel::NodeRef;
use crate::fabric::forward::Forwarding;
use crate::fabric::net::Net;
use crate::fabric::topology;
use crate::profile::HwProfile;
use crate::hca::qp::QpAttr;
use crate::hca::Hca;
use crate::host::{CpuThread, Host, PollMode, Poller};
use crate::report::capture::{self, Capture};
use crate::report::tables::{row, row_with, TableSelect, Tables};
use crate::scenario::validate::{self, Endpoint};
use crate::scenario::{Scenario, ScenarioError, WorkloadSection};
use crate::workload::{flows::Flows, mpi::Mpi, odp_reads::OdpReads, perftest::Perftest, perftest_settings, srq_episode::SrqEpisode, App};
use crate::world::{AppEvent, Event, World};
use serde_json::json;

pub use crate::report::tables::Row;
pub use crate::run::RunResult;

/// Tables whose rows appear only once the run creates what they describe: an MPI replay connects
/// its QPs and SRQs as ranks first talk, and `odp` has a row once ODP memory is registered. A
/// scenario that has not run yet may not list them (Python's sweep asks before it runs).
pub const TABLES_MADE_WHILE_RUNNING: [&str; 3] = ["qps", "srqs", "odp"];

pub struct Simulation {
    scenario: Scenario,
    overridden: Vec<&'static str>,
    pub world: World,
    apps: TiVec<AppId, App>,
    pollers: TiVec<CqId, Poller>,
    run: RunState<Time>,
    end_time: Time,
}

impl Simulation {
    pub fn from_toml(text: &str, source: &str) -> Result<Simulation, ScenarioError> {
        Self::from_scenario(crate::prepare::parse_toml(text, source)?, source)
    }

    pub fn from_scenario(mut scenario: Scenario, source: &str) -> Result<Simulation, ScenarioError> {
        let err = |key: &str, message: String| ScenarioError { source: source.into(), key: key.into(), line: None, message };
        crate::prepare::resolve(&mut scenario, source)?;
        let (prof, overridden) = scenario
            .hardware
            .resolved_profile()
            .ok_or_else(|| err("hardware.profile", format!("unknown profile {:?}", scenario.hardware.profile)))?;
        let t = &scenario.topology;
        // Profiles: 0 the run's, then one per [[hardware.hosts]] entry; each host's.
        let (profiles, host_hw) = scenario.hardware.host_profiles(&prof, t.hosts).map_err(|(k, m)| err(&k, m))?;
        let host_speed = |h: u32| profiles[host_hw.get(h as usize).copied().unwrap_or(0) as usize].link.speed();
        let routed = crate::fabric::from_scenario::routed_fabric(t, &prof.link, &host_speed).map_err(|e| err("topology", e.0))?;
        check_credit_loops(t, &routed).map_err(|m| err("topology.credit_loops", m))?;
        let mut fabric = topology::instantiate(&routed, &prof, scenario.seed);
        for (i, f) in scenario.faults.iter().enumerate() {
            let key = format!("faults[{i}].link");
            let picked: HashSet<(PortId, PortId)> = if t.kind == crate::scenario::TopologyKind::Graph {
                crate::fabric::select::select_links(&f.link, &routed.graph).map_err(|m| err(&key, m))?.into_iter().collect()
            } else {
                let links = validate::parse_link_selector(&f.link, t.kind, t.hosts).map_err(|m| err(&key, m))?;
                let hcas = &fabric.hcas;
                let endpoint = |n: NodeRef| match n {
                    NodeRef::Hca(h) => Endpoint::Host(hcas[h].host.0),
                    NodeRef::Switch { sw, .. } => Endpoint::Switch(sw.0),
                };
                fabric.channels.iter().filter(|c| links.contains(&(endpoint(c.from), endpoint(c.to)))).map(|c| (c.src_port, c.dst_port)).collect()
            };
            // A retrain or flap stops the cable: both directions, whichever the selector names.
            let rates = crate::fabric::link_events::LinkEventRates {
                retrains_per_s: f.retrains_per_s,
                retrain: Time::from_ns_f64(f.retrain_us.unwrap_or(0.0) * 1e3),
                flaps_per_s: f.flaps_per_s,
                flap_down: Time::from_ns_f64(f.flap_down_ms.unwrap_or(0.0) * 1e6),
            };
            if rates.any() {
                // A set: building stays linear in the fabric's channels.
                let on_cable = |c: &crate::fabric::channel::Channel| picked.contains(&(c.src_port, c.dst_port)) || picked.contains(&(c.dst_port, c.src_port));
                for c in fabric.channels.iter_mut().filter(|c| on_cable(c)) {
                    let events = crate::fabric::link_events::LinkEvents::new(rates, scenario.seed, c.src_port.0, c.dst_port.0);
                    c.errors.events = Some(Box::new(events));
                }
            }
            for c in fabric.channels.iter_mut().filter(|c| picked.contains(&(c.src_port, c.dst_port))) {
                c.errors.loss_rate = f.loss_rate;
                c.errors.ber = f.ber;
                c.errors.symbol_errors_per_ps = f.symbol_errors_per_s * 1e-12;
                c.errors.drop_nth = f.drop_nth.clone();
                c.errors.drop_nth.sort_unstable();
            }
        }
        let hw_of = |host: HostId| host_hw.get(host.idx()).copied().unwrap_or(0);
        let hca_labels: TiVec<HcaId, (String, String, u16)> = fabric
            .hcas
            .iter()
            .map(|p| {
                let (host, device) = topology::port_labels(&routed.graph, p.node);
                (host, device, routed.graph.ports[p.port].num)
            })
            .collect();
        let host_names = fabric.hosts.clone();
        let hcas: TiVec<HcaId, Hca> = fabric
            .hcas
            .iter_enumerated()
            .map(|(id, p)| {
                let i = hw_of(p.host);
                let hw = &profiles[i as usize];
                Hca::new(id, p.host, i, p.lid, p.tx_ch, &hw.nic, hw.link.mtu)
            })
            .collect();
        let mut lid_hca = vec![None; hcas.iter().map(|h| h.lid as usize + 1).max().unwrap_or(0)];
        for (id, h) in hcas.iter_enumerated() {
            lid_hca[h.lid as usize] = Some(id);
        }
        let mut hosts: TiVec<HostId, Host> = (0..fabric.hosts.len())
            .map(|i| {
                let hw = hw_of(HostId::from(i));
                Host { hw, ..Host::new(&profiles[hw as usize].host, scenario.seed, HostId::from(i)) }
            })
            .collect();
        for (id, h) in hcas.iter_enumerated() {
            hosts[h.host].hcas.push(id);
        }
        let threads = hosts.iter_enumerated().map(|(i, h)| CpuThread { tick: h.tick, ..CpuThread::new(i) }).collect();
        let o = &scenario.output;
        let capture = o.capture.then(|| {
            let (packets, bytes) = (o.capture_max_packets.unwrap_or(capture::DEFAULT_MAX_PACKETS), o.capture_max_bytes.unwrap_or(capture::DEFAULT_MAX_BYTES));
            Capture::new(o.capture_hosts.clone(), o.capture_qps.clone(), packets, bytes)
        });
        let mut world = World {
            q: EventQueue::new(),
            profiles,
            seed: scenario.seed,
            packets: Default::default(),
            cqes: Default::default(),
            app_events: Default::default(),
            net: Net::new(fabric.channels, fabric.switches, fabric.ports),
            hcas,
            lid_hca,
            path_sls: routed.sls.clone().map(std::sync::Arc::new),
            host_names,
            hca_labels,
            hosts,
            threads,
            capture,
            skip_idle_events: true,
            attention: true,
            halt: None,
        };
        let qa = &scenario.qp;
        let attr = QpAttr {
            timeout: qa.timeout,
            retry_cnt: qa.retry_cnt,
            rnr_retry: qa.rnr_retry,
            min_rnr_timer: qa.min_rnr_timer,
            max_rd_atomic: qa.max_rd_atomic,
            mtu: match &scenario.workload {
                // perftest picks its own MTU on some devices (ConnectX-3: 2048 on a 4096 port).
                WorkloadSection::Perftest(_) => perftest_settings::path_mtu(qa, world.profile()),
                _ => qa.mtu.unwrap_or(world.profile().link.mtu),
            },
            sl: qa.sl,
        };
        // Every QP uses this path MTU, so no packet is larger: the send engine's credit check
        // before it picks a QP (hca/nic.rs) needs room for this packet, not a port-MTU one
        // (a buffer validated for the path MTU could otherwise never send).
        for hca in &mut world.hcas {
            hca.max_packet_bytes = crate::hca::nic::max_packet_bytes(attr.mtu);
        }
        let mut apps: TiVec<AppId, App> = TiVec::new();
        let mut pollers: TiVec<CqId, Poller> = TiVec::new();
        match &scenario.workload {
            WorkloadSection::Perftest(p) => {
                let app = apps.next_key();
                apps.push(App::Perftest(Perftest::new(&mut world, app, p, attr)));
                // Which threads poll: the client always; the server too when it must see
                // messages (latency ping-pong, and receives in ib_send_bw).
                let server_polls = p.test.is_latency() || p.test == crate::scenario::PerftestTest::IbSendBw;
                let hosts = if server_polls { vec![p.client, p.server] } else { vec![p.client] };
                for h in hosts {
                    world.threads[World::host_thread(HostId(h))].busy_poll = !p.events;
                }
                pollers.push(Poller::new(app, if p.events { PollMode::Event } else { PollMode::Busy }));
            }
            WorkloadSection::Flows(f) => {
                let app = apps.next_key();
                apps.push(App::Flows(Flows::new(&mut world, app, f, attr, &mut pollers)));
            }
            WorkloadSection::SrqEpisode(e) => {
                let app = apps.next_key();
                apps.push(App::SrqEpisode(SrqEpisode::new(&mut world, app, e, attr)));
                for h in [e.client, e.server] {
                    world.threads[World::host_thread(HostId(h))].busy_poll = true;
                }
                pollers.push(Poller::new(app, PollMode::Busy));
            }
            WorkloadSection::Mpi(m) => {
                let app = apps.next_key();
                let cfg = Mpi::resolve_trace(m, source);
                apps.push(App::Mpi(Mpi::new(&mut world, app, &cfg, attr).map_err(|(key, m)| err(key, m))?));
                pollers.push(Poller::new(app, PollMode::Busy));
            }
            WorkloadSection::OdpReads(o) => {
                let app = apps.next_key();
                apps.push(App::OdpReads(OdpReads::new(&mut world, app, o, attr)));
                world.threads[World::host_thread(HostId(o.client))].busy_poll = true;
                pollers.push(Poller::new(app, PollMode::Busy));
            }
        }
        // After the workload made its QPs: the switches' event-free outputs need to know
        // whether more than one VL carries traffic (fabric/switch_fifo.rs).
        world.plan_switch_outputs();
        for a in apps.keys() {
            world.app_at(Time::ZERO, a, AppEvent::Start);
        }
        let l = &scenario.limits;
        // Below the clock's end even without a limit: an event at Time::END is due past it
        // (`stop_beyond`), caught by the same comparison as the limit, at no cost per event.
        let max_time = l.max_sim_time_ms.map(|ms| Time::from_ns_f64(ms * 1e6)).unwrap_or(Time::MAX).min(LAST_TIME);
        let max_events = l.max_events.unwrap_or(u64::MAX);
        Ok(Simulation { scenario, overridden, world, apps, pollers, end_time: Time::ZERO, run: RunState::new(Limits { max_events, max_time }) })
    }


    /// What an event is about, for a stop reason.
    fn describe(&self, ev: Event) -> String {
        let w = &self.world;
        let link = |ch: ChannelId| {
            let c = w.net.channel(ch);
            let name = |n: NodeRef| match n {
                NodeRef::Hca(h) => format!("h{h}"),
                NodeRef::Switch { sw, .. } => format!("sw{sw}"),
            };
            format!("a transmission on link {}->{}", name(c.from), name(c.to))
        };
        match ev {
            Event::TxDone { ch } | Event::Arrive { ch, .. } | Event::CreditWake { ch } | Event::SwitchKick { ch } => link(ch),
            Event::HcaKick { hca } => {
                // Kicked for a work request whose post, doorbell or fetch ends then, if any.
                let late = w.hcas[hca].qps.iter().find(|q| q.sq.iter().any(|wqe| wqe.ready_at >= Time::END));
                match late {
                    Some(q) => format!("a work request of h{hca} QP {:#x} (its post, doorbell and WQE fetch)", q.num),
                    None => format!("h{hca}'s send engine"),
                }
            }
            Event::HcaRx { hca, .. } => format!("h{hca}'s receive path"),
            Event::AckTimer { hca, qp } => format!("the local ACK timer of h{hca} QP {:#x}", w.hcas[hca].qps[qp].num),
            Event::CqeVisible { .. } | Event::CqWake { .. } => "a completion's delivery to its thread".into(),
            Event::SrqResumeDoorbell { hca, .. } => format!("a stop/resume resume request on h{hca}"),
            Event::OdpFault { hca, .. } => format!("an ODP page fault on h{hca}"),
            Event::App { app, .. } => format!("an event of the {} workload (a post, timer or compute)", self.apps[app].kind()),
        }
    }

    #[inline]
    fn dispatch(&mut self, ev: Event) {
        let w = &mut self.world;
        match ev {
            Event::TxDone { ch } => w.on_tx_done(ch),
            Event::Arrive { ch, pkt } => w.on_arrive(ch, pkt),
            Event::CreditWake { ch } => w.on_credit_wake(ch),
            Event::SwitchKick { ch } => w.on_switch_kick(ch),
            Event::HcaKick { hca } => w.on_hca_kick(hca),
            Event::HcaRx { hca, pkt } => w.on_hca_rx(hca, pkt),
            Event::AckTimer { hca, qp } => w.on_ack_timer(hca, qp),
            Event::SrqResumeDoorbell { hca, qp } => w.on_srq_resume_doorbell(hca, qp),
            Event::OdpFault { hca, fault } => w.on_odp_fault(hca, fault),
            Event::CqeVisible { cqe } => {
                let cqe = w.cqes.take(cqe);
                w.on_cqe_visible(&mut self.pollers, cqe)
            }
            Event::CqWake { cq } => w.drain_poller(&mut self.pollers, cq),
            Event::App { app, ev } => {
                w.attention = true;
                let ev = w.app_events.take(ev);
                self.apps[app].handle(w, ev)
            }
        }
    }





    pub fn result_json(&self) -> String {
        serde_json::to_string(&self.result()).unwrap_or_default()
    }

    /// The RoCEv2 pcap capture, when the scenario asked for one (and it was not handed over).
    /// Built whole in memory: to write it to a file, stream it ([`Capture::write_pcap`]).
    pub fn pcap(&self) -> Option<Vec<u8>> {
        self.capture().map(|c| c.to_pcap())
    }

    /// The captured packets, when the scenario asked for a capture and it was not handed over.
    pub fn capture(&self) -> Option<&Capture> {
        self.world.capture.as_ref().filter(|c| !c.handed_over)
    }

    /// Hands the captured packets over, once (the run's table keeps the capture's counts), so
    /// they can be written after the run while the simulation is dropped. `None` when the
    /// scenario asked for no capture or they were handed over already.
    pub fn take_capture(&mut self) -> Option<Capture> {
        self.world.capture.as_mut().filter(|c| !c.handed_over).map(|c| c.hand_over())
    }

    pub fn profile(&self) -> &HwProfile {
        self.world.profile()
    }
}

/// The latest time a run may reach: one picosecond before the clock's end, `Time::END`, where
/// a time computation that would pass 2^64 ps saturates.
const LAST_TIME: Time = Time(u64::MAX - 2);

/// The stop reason of a run whose next work lies past the clock's end.
/// The packet engine's side of the run contract (engine/run.rs).
impl Stepper for Simulation {
    type Clock = Time;

    #[inline]
    fn handled(&self) -> u64 {
        self.world.q.popped()
    }

    /// Only an application's own handler can finish it, so the check (a pass over every app)
    /// runs after events that reach one, not after each of the fabric's; a handler that halts
    /// the run (World::halt) asks for it the same way.
    #[inline]
    fn over(&mut self) -> Option<StopReason> {
        if !self.world.attention {
            return None;
        }
        self.world.attention = false;
        if let Some(why) = self.world.halt.take() {
            return Some(StopReason::Ended(why));
        }
        if !self.apps.iter().all(|a| a.done()) {
            return None;
        }
        Some(self.apps.iter().find_map(|a| a.incomplete()).map_or(StopReason::Completed, StopReason::Ended))
    }

    #[inline]
    fn next(&mut self, until: Time) -> Next<Time> {
        match self.world.q.pop_until(until) {
            Ok((_, ev)) => {
                self.world.prefetch_ahead(&ev);
                self.dispatch(ev);
                Next::Handled
            }
            // TxDones a switch left unscheduled would still have run before the queue emptied,
            // finding nothing to send: run them, so the stall is found at the same time and in
            // the same state as when they were all scheduled.
            Err(None) if self.world.schedule_idle_switch_tx_dones() => Next::Handled,
            Err(None) => Next::Empty,
            Err(Some(t)) => Next::Beyond(t),
        }
    }

    /// The queue is empty while a workload is unfinished: a stall, named when the workload or
    /// the transport can say why.
    #[cold]
    fn out_of_events(&mut self) -> StopReason {
        StopReason::Stalled(self.apps.iter().find_map(|a| a.stall()).or_else(|| self.world.transport_stall()))
    }

    /// The next event lies beyond the time limit, or at the clock's end: a time computation
    /// saturated there (engine/time.rs `Time::END`), named as such unless the scenario's own
    /// limit comes first.
    #[cold]
    fn beyond(&mut self, t: Time) -> StopReason {
        if t >= Time::END && self.run.limits.max_time == LAST_TIME {
            let what = self.world.q.peek().map(|ev| self.describe(ev)).unwrap_or_default();
            StopReason::PastEnd(past_the_end(self.world.now(), &format!("{what} fell due past it")))
        } else {
            StopReason::MaxSimTime
        }
    }

    fn stopped(&mut self, reason: &StopReason) {
        self.end_time = if *reason == StopReason::MaxSimTime { self.run.limits.max_time } else { self.world.now() };
    }

    fn run_state(&mut self) -> &mut RunState<Time> {
        &mut self.run
    }
}

fn past_the_end(now: Time, what: &str) -> String {
    format!("simulated time would pass 2^64 ps (213 days), the end of the simulator's clock, after {:.6} s: {what}; results are those up to then", now.as_secs_f64())
}


/// Refuses (or, with `credit_loops = "warn"`, reports on stderr) a fabric whose tables make a
/// credit loop: under load such a fabric can deadlock, and the run would end stalled with no
/// word of why. Tables a generator made with its own engine need no check: D-mod-K routes up
/// then down (an up*/down* order has no cycle) and the hyper-crossbar has no switch-to-switch
/// channel.
fn check_credit_loops(t: &crate::scenario::TopologySection, routed: &crate::fabric::graph::RoutedFabric) -> Result<(), String> {
    use crate::scenario::{CreditLoopPolicy, TopologyKind};
    let by_construction = t.kind != TopologyKind::Graph || (t.generator.is_some() && t.route.is_none());
    if by_construction {
        return Ok(());
    }
    let Some(l) = crate::fabric::analysis::check_credit_loops(routed).credit_loop else { return Ok(()) };
    match t.credit_loops {
        CreditLoopPolicy::Refuse => Err(format!(
            "the routed fabric has a {l}; under load it can deadlock. Expected tables without credit loops (route = \"dfsssp\" breaks them with SLs), or credit_loops = \"warn\" to run it anyway"
        )),
        CreditLoopPolicy::Warn => {
            eprintln!("rdmasim: warning: the routed fabric has a {l}; running it anyway (credit_loops = \"warn\")");
            Ok(())
        }
    }
}

/// The packet engine as the API drives it (run.rs).
impl crate::run::Engine for Simulation {
    /// Runs at most `max_events` events; returns true when the run is over.
    fn step(&mut self, max_events: u64) -> bool {
        run::step(self, max_events)
    }
    /// Fraction of the workload done, 0..=1.
    fn progress(&self) -> f64 {
        if self.apps.is_empty() {
            return 1.0;
        }
        self.apps.iter().map(|a| a.progress()).sum::<f64>() / self.apps.len() as f64
    }
    fn events(&self) -> u64 {
        self.world.q.popped()
    }
    fn result_of(&self, select: &TableSelect) -> RunResult {
        let w = &self.world;
        let mut t = Tables::new(select.clone());
        for a in &self.apps {
            a.tables(w, &mut t);
        }
        // The tables that grow with the fabric are written as cells, not JSON rows: at 8192
        // hosts there are 49 152 ports (docs/bench.md, "Results at 8192 hosts").
        if let Some(ports) = t.table("ports") {
            // Counters as of the stop (or now, for a report taken mid-run): fabric/port.rs AheadCount.
            let as_of = if self.run.is_over() { self.end_time } else { w.now() };
            let counters = w.net.port_counters_at(as_of);
            for (p, c) in w.net.ports().iter().zip(counters.iter()) {
                ports.row().set("node", &p.node).set("port", p.num).set("device", &p.device).fields(c);
            }
        }
        if let Some(table) = t.table("hca_counters") {
            for h in &w.hcas {
                let (host, device, port) = &w.hca_labels[h.id];
                let mut r = table.row();
                r.set("node", host).set("device", device).set("port", *port);
                for (k, v) in h.counters.rows() {
                    r.set(k, v);
                }
            }
        }
        let node = |h: &Hca| w.hca_labels[h.id].0.clone();
        if let Some(qps) = t.table("qps") {
            for h in &w.hcas {
                let (host, device, _) = &w.hca_labels[h.id];
                for qp in &h.qps {
                    qps.row()
                        .set("node", host).set("device", device).set("qpn", qp.num).set("peer_qpn", qp.peer_qp)
                        .set("state", format!("{:?}", qp.state)).set("psn_next", qp.next_psn).set("epsn", qp.epsn)
                        .set("rx_bytes", qp.rx_bytes).set("rx_msgs", qp.rx_msgs).set("sq_outstanding", qp.sq.len());
                }
            }
        }
        for h in &w.hcas {
            for (i, s) in h.srqs.iter().enumerate() {
                let leading = json!({ "node": node(h), "srq": i, "mode": s.mode, "posted_now": s.wqes.len() });
                t.push("srqs", row_with(leading, &s.report()));
            }
        }
        for h in w.hcas.iter().filter(|h| !h.odp.mrs.is_empty()) {
            t.push("odp", row_with(json!({ "node": node(h) }), &h.odp.stats));
        }
        let elapsed = self.end_time.max(w.now());
        if let Some(host_cpu) = t.table("host_cpu") {
            // A busy-polling thread occupies its core for the whole run; the others count their work.
            let thread_cpu = |th: &CpuThread| if th.busy_poll { elapsed } else { th.busy_at(elapsed) };
            // Each host's threads, in thread order, found in one pass (not one pass per host).
            let mut threads: TiVec<HostId, Vec<&CpuThread>> = w.hosts.iter().map(|_| Vec::new()).collect();
            for th in &w.threads {
                if let Some(mine) = threads.get_mut(th.host) {
                    mine.push(th);
                }
            }
            for (host, mine) in threads.iter_enumerated() {
                let busy_poll = mine.iter().any(|th| th.busy_poll);
                let cpu = mine.iter().fold(Time::ZERO, |a, th| a + thread_cpu(th));
                let verbs = mine.iter().fold(Time::ZERO, |a, th| a + th.busy_at(elapsed));
                host_cpu.row()
                    .set("node", &w.host_names[host]).set("polling", if busy_poll { "busy" } else { "event" })
                    .set("cpu_busy_us", cpu.as_us_f64()).set("cpu_verbs_us", verbs.as_us_f64())
                    .set("cpu_utilization", if elapsed > Time::ZERO { cpu.as_secs_f64() / elapsed.as_secs_f64() } else { 0.0 });
            }
        }
        if let Some(r) = &self.scenario.topology.rerouted {
            r.push_table(&mut t);
        }
        if let Some(n) = &self.scenario.topology.import_notes {
            n.push_table(&mut t);
        }
        t.push("run", row(json!({
            "events": w.q.popped(), "packet_hops": w.net.packet_hops(), "unroutable_packets": w.net.unroutable_packets(), "sim_time_us": elapsed.as_us_f64(),
            "profile": self.world.profile().name, "overridden": self.overridden,
            "captured_packets": w.capture.as_ref().map(|c| c.kept).unwrap_or(0),
            "capture_truncated": w.capture.as_ref().map(|c| c.truncated).unwrap_or(0),
            "capture_bytes": w.capture.as_ref().map(|c| c.pcap_bytes).unwrap_or(0),
            "capture_stopped_by": w.capture.as_ref().and_then(|c| c.stopped_by).unwrap_or(""),
        })));
        let (tables, offered_tables) = t.finish();
        RunResult {
            name: self.scenario.name.clone(),
            seed: self.scenario.seed,
            profile: self.scenario.hardware.profile.clone(),
            finished: self.run.completed(),
            stop_reason: self.run.reason(),
            sim_time_us: elapsed.as_us_f64(),
            events: w.q.popped(),
            error_completions: w.hcas.iter().map(|h| h.counters.req_cqe_error + h.counters.req_cqe_flush_error).sum(),
            tables,
            offered_tables,
        }
    }

    fn capture(&self) -> Option<&Capture> {
        Simulation::capture(self)
    }
    fn take_capture(&mut self) -> Option<Capture> {
        Simulation::take_capture(self)
    }
    fn profile(&self) -> Option<&HwProfile> {
        Some(Simulation::profile(self))
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
}
