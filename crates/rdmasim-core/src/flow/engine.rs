//! The flow-level event loop: flows arrive at their start, share the links of their routes at
//! max-min fair rates ([`super::maxmin`]), and depart when their bytes are through. Between two
//! events every rate is constant, so a flow's progress is its rate times the time elapsed.
//!
//! An arrival or a departure changes the rates only of the flows connected to it through shared
//! links (the connected set: flows on its links, flows on their links, and so on), so only that
//! set is solved again; the others keep their rates and their projected departures. All events
//! at one instant are one batch (a permutation's thousands of arrivals at time 0 are one solve).
//! Projected departures sit in a heap with the version of the rate they were computed from; a
//! departure whose flow has been re-rated since is stale and skipped.
//!
//! Determinism: arrivals are taken by (start, flow id), departures by (time, flow id); the
//! connected set is listed in the order it is found from the batch's flows, and the solver breaks
//! ties by port and flow id. Times are seconds in `f64`, computed the same way for every run.
use super::hol::{HolModel, Rates};
use super::maxmin::FlowSet;
use super::paths::Routes;
use crate::engine::Generation;
use crate::ids::{FlowId, PortId, TiSlice, TiVec};
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// One flow as the engine sees it.
#[derive(Clone, Copy, Debug)]
pub struct FlowInput {
    /// Bytes to carry on the wire (headers included); `f64::INFINITY` for a background flow,
    /// which runs until the end.
    pub bytes: f64,
    /// When its first byte may leave, seconds.
    pub start_s: f64,
    /// Its NIC's injection rate, bytes per second (`f64::INFINITY`: no cap beyond the links).
    pub cap: f64,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum State {
    Pending,
    Active,
    Done(f64),
    /// Its route did not reach the destination (`Routes::errors`): it never starts.
    Unroutable,
}

/// When the run is over: the scenario's `until`, the first foreground flow done or all.
pub use crate::scenario::flows::FlowsUntil as Until;

#[derive(Clone, Copy, PartialEq)]
struct Departure {
    at: f64,
    flow: FlowId,
    version: u32,
}
impl Eq for Departure {}
impl Ord for Departure {
    fn cmp(&self, o: &Self) -> Ordering {
        o.at.total_cmp(&self.at).then(o.flow.cmp(&self.flow))
    }
}
impl PartialOrd for Departure {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

/// What the solver needs, borrowed from the engine.
struct View<'a> {
    routes: &'a Routes,
    input: &'a TiSlice<FlowId, FlowInput>,
    on_link: &'a TiSlice<PortId, Vec<FlowId>>,
    hol: HolModel,
}
impl FlowSet for View<'_> {
    #[inline]
    fn route(&self, f: FlowId) -> &[PortId] {
        self.routes.of(f)
    }
    #[inline]
    fn cap(&self, f: FlowId) -> f64 {
        self.input[f].cap
    }
    #[inline]
    fn on_link(&self, p: PortId) -> &[FlowId] {
        &self.on_link[p]
    }
    #[inline]
    fn full_fifos(&self, f: FlowId, at: PortId) -> &[PortId] {
        super::hol::full_fifos(self.hol, self.routes.of(f), &at)
    }
}

pub struct Engine {
    routes: Routes,
    capacity: TiVec<PortId, f64>,
    input: TiVec<FlowId, FlowInput>,
    pub state: TiVec<FlowId, State>,
    pub rate: TiVec<FlowId, f64>,
    remaining: TiVec<FlowId, f64>,
    since: TiVec<FlowId, f64>,
    /// A background flow's bytes carried up to `since` (its `remaining` stays infinite).
    carried_before: TiVec<FlowId, f64>,
    version: TiVec<FlowId, u32>,
    on_link: TiVec<PortId, Vec<FlowId>>,
    arrivals: Vec<FlowId>,
    next_arrival: usize,
    departures: BinaryHeap<Departure>,
    /// Head-of-line blocking in the rates (flow/hol.rs; `with_hol`), and the solver it asks for.
    hol: HolModel,
    rates: Rates,
    until: Until,
    foreground_left: usize,
    departed: usize,
    // The batch and its connected set, reused.
    seeds: Vec<PortId>,
    set: Vec<FlowId>,
    flow_seen: TiVec<FlowId, u32>,
    port_seen: TiVec<PortId, u32>,
    generation: Generation,
    pub now: f64,
    /// Arrivals and departures handled.
    pub events: u64,
    /// Solves, and the flows they re-rated in all.
    pub solves: u64,
    pub rerated: u64,
    pub over: bool,
}

impl Engine {
    pub fn routes(&self) -> &Routes {
        &self.routes
    }
    pub fn foreground_left(&self) -> usize {
        self.foreground_left
    }
}

impl Engine {
    /// `capacity`: bytes per second of the link out of each port.
    pub fn new(routes: Routes, capacity: TiVec<PortId, f64>, input: TiVec<FlowId, FlowInput>, until: Until) -> Engine {
        let (n, ports) = (input.len(), capacity.len());
        let mut arrivals: Vec<FlowId> = (0..n).map(FlowId::from).collect();
        arrivals.sort_by(|&a, &b| input[a].start_s.total_cmp(&input[b].start_s).then(a.cmp(&b)));
        let foreground_left = input.iter().filter(|f| f.bytes.is_finite()).count();
        Engine {
            routes,
            capacity,
            state: vec![State::Pending; n].into(),
            rate: vec![0.0; n].into(),
            remaining: input.iter().map(|f| f.bytes).collect(),
            since: vec![0.0; n].into(),
            carried_before: vec![0.0; n].into(),
            version: vec![0; n].into(),
            on_link: vec![Vec::new(); ports].into(),
            arrivals,
            next_arrival: 0,
            departures: BinaryHeap::new(),
            hol: HolModel::None,
            rates: Rates::new(HolModel::None, ports, n),
            until,
            foreground_left,
            departed: 0,
            seeds: Vec::new(),
            set: Vec::new(),
            flow_seen: vec![0; n].into(),
            port_seen: vec![0; ports].into(),
            generation: Generation::default(),
            now: 0.0,
            events: 0,
            solves: 0,
            rerated: 0,
            over: foreground_left == 0,
            input,
        }
    }

    /// The engine with head-of-line blocking modelled as `hol` says.
    pub fn with_hol(mut self, hol: HolModel) -> Engine {
        self.hol = hol;
        if hol != HolModel::None {
            self.rates = Rates::new(hol, self.capacity.len(), self.input.len());
        }
        self
    }

    /// The time of the next batch, if any.
    pub fn next_time(&mut self) -> Option<f64> {
        while let Some(d) = self.departures.peek() {
            if self.version[d.flow] == d.version && self.state[d.flow] == State::Active {
                break;
            }
            self.departures.pop();
        }
        let arrival = self.arrivals.get(self.next_arrival).map(|&f| self.input[f].start_s);
        let departure = self.departures.peek().map(|d| d.at);
        match (arrival, departure) {
            (Some(a), Some(d)) => Some(a.min(d)),
            (a, d) => a.or(d),
        }
    }

    /// Handles the next batch; false when the run is over or nothing is left to happen.
    pub fn step(&mut self) -> bool {
        if self.over {
            return false;
        }
        let Some(t) = self.next_time() else {
            self.over = true;
            return false;
        };
        self.now = t;
        self.seeds.clear();
        self.generation.advance(|| {
            self.flow_seen.iter_mut().for_each(|s| *s = 0);
            self.port_seen.iter_mut().for_each(|s| *s = 0);
        });
        while let Some(d) = self.departures.peek().copied() {
            if d.at > t {
                break;
            }
            self.departures.pop();
            if self.version[d.flow] != d.version || self.state[d.flow] != State::Active {
                continue;
            }
            self.depart(d.flow, t);
        }
        while let Some(&f) = self.arrivals.get(self.next_arrival) {
            if self.input[f].start_s > t {
                break;
            }
            self.next_arrival += 1;
            self.arrive(f, t);
        }
        self.connected_set();
        self.solve(t);
        self.over = match self.until {
            Until::All => self.foreground_left == 0,
            Until::First => self.departed > 0 || self.foreground_left == 0,
        };
        !self.over
    }

    pub fn run(&mut self) {
        while self.step() {}
    }

    /// Bytes flow `f` has carried by time `t` (not before its last re-rating).
    pub fn carried(&self, f: FlowId, t: f64) -> f64 {
        match self.state[f] {
            State::Pending | State::Unroutable => 0.0,
            State::Done(_) => self.input[f].bytes,
            State::Active if self.input[f].bytes.is_finite() => {
                (self.input[f].bytes - (self.remaining[f] - self.rate[f] * (t - self.since[f])).max(0.0)).max(0.0)
            }
            // Background: infinite bytes, so what it carried is counted as it goes.
            State::Active => self.carried_before[f] + self.rate[f] * (t - self.since[f]),
        }
    }

    fn depart(&mut self, f: FlowId, t: f64) {
        self.events += 1;
        self.state[f] = State::Done(t);
        self.remaining[f] = 0.0;
        self.rate[f] = 0.0;
        self.foreground_left -= 1;
        self.departed += 1;
        for &p in self.routes.of(f) {
            let on = &mut self.on_link[p];
            if let Some(i) = on.iter().position(|&g| g == f) {
                on.remove(i);
            }
            self.seeds.push(p);
        }
    }

    fn arrive(&mut self, f: FlowId, t: f64) {
        self.events += 1;
        if self.routes.errors[f].is_some() {
            self.state[f] = State::Unroutable;
            if self.input[f].bytes.is_finite() {
                self.foreground_left -= 1;
            }
            return;
        }
        self.state[f] = State::Active;
        self.since[f] = t;
        for &p in self.routes.of(f) {
            self.on_link[p].push(f);
            self.seeds.push(p);
        }
    }

    /// Every active flow connected to the batch's links through shared links, into `set`.
    fn connected_set(&mut self) {
        let g = self.generation.get();
        self.set.clear();
        let mut i = 0;
        let mut seeds = std::mem::take(&mut self.seeds);
        for &p in &seeds {
            self.visit_link(p, g);
        }
        seeds.clear();
        self.seeds = seeds;
        while i < self.set.len() {
            let f = self.set[i];
            i += 1;
            for k in 0..self.routes.of(f).len() {
                let p = self.routes.of(f)[k];
                self.visit_link(p, g);
            }
        }
    }

    #[inline]
    fn visit_link(&mut self, p: PortId, g: u32) {
        if self.port_seen[p] == g {
            return;
        }
        self.port_seen[p] = g;
        for &f in &self.on_link[p] {
            if self.flow_seen[f] != g {
                self.flow_seen[f] = g;
                self.set.push(f);
            }
        }
    }

    /// Brings the set's flows to time `t` at their old rates, gives them their new ones, and
    /// projects their departures.
    fn solve(&mut self, t: f64) {
        if self.set.is_empty() {
            return;
        }
        for &f in &self.set {
            let carried = self.rate[f] * (t - self.since[f]);
            if !self.input[f].bytes.is_finite() {
                self.carried_before[f] += carried;
            }
            self.remaining[f] = (self.remaining[f] - carried).max(0.0);
            self.since[f] = t;
        }
        let view = View { routes: &self.routes, input: &self.input, on_link: &self.on_link, hol: self.hol };
        self.rates.solve(&view, &self.capacity, &self.set, &mut self.rate);
        self.solves += 1;
        self.rerated += self.set.len() as u64;
        for &f in &self.set {
            self.version[f] = self.version[f].wrapping_add(1);
            let (rem, r) = (self.remaining[f], self.rate[f]);
            if rem.is_finite() && r > 0.0 {
                self.departures.push(Departure { at: t + rem / r, flow: f, version: self.version[f] });
            }
        }
    }

}
