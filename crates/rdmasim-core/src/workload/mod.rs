//! Workloads: applications that drive the verbs. Each is a variant of [`App`], dispatched by
//! `match`; they see [`AppEvent`](crate::world::AppEvent)s and act on the world through verbs.
pub mod flows;
pub mod justitia;
pub mod kv;
pub mod kv_pipeline;
pub mod mpi;
pub mod odp_reads;
pub mod perftest;
pub mod perftest_settings;
pub mod srq_episode;

use crate::report::tables::Tables;
use crate::world::{AppEvent, World};

pub enum App {
    Perftest(perftest::Perftest),
    SrqEpisode(srq_episode::SrqEpisode),
    Flows(flows::Flows),
    Mpi(mpi::Mpi),
    OdpReads(odp_reads::OdpReads),
}

impl App {
    pub fn handle(&mut self, w: &mut World, ev: AppEvent) {
        match self {
            App::Perftest(p) => p.handle(w, ev),
            App::SrqEpisode(e) => e.handle(w, ev),
            App::Flows(f) => f.handle(w, ev),
            App::Mpi(m) => m.handle(w, ev),
            App::OdpReads(o) => o.handle(w, ev),
        }
    }
    pub fn done(&self) -> bool {
        match self {
            App::Perftest(p) => p.done,
            App::SrqEpisode(e) => e.done,
            App::Flows(f) => f.done,
            App::Mpi(m) => m.done,
            App::OdpReads(o) => o.done,
        }
    }
    /// The workload's `kind`, as scenarios name it.
    pub fn kind(&self) -> &'static str {
        match self {
            App::Perftest(_) => "perftest",
            App::SrqEpisode(_) => "srq-episode",
            App::Flows(_) => "flows",
            App::Mpi(_) => "mpi",
            App::OdpReads(_) => "odp-reads",
        }
    }
    /// Why the workload cannot finish when no event is left, if it can tell.
    pub fn stall(&self) -> Option<String> {
        match self {
            App::Mpi(m) => m.stall(),
            _ => None,
        }
    }
    /// Why a finished workload has no full measurement (the run then reports that reason
    /// instead of "completed"), if it can tell.
    pub fn incomplete(&self) -> Option<String> {
        match self {
            App::Flows(f) => f.incomplete(),
            _ => None,
        }
    }
    /// Fraction of the work done, 0..=1.
    pub fn progress(&self) -> f64 {
        match self {
            App::Perftest(p) => p.progress(),
            App::SrqEpisode(e) => e.progress(),
            App::Flows(f) => f.progress(),
            App::Mpi(m) => m.progress(),
            App::OdpReads(o) => o.progress(),
        }
    }
    pub fn tables(&self, w: &World, out: &mut Tables) {
        match self {
            App::Perftest(p) => p.tables(out),
            App::SrqEpisode(e) => e.tables(out),
            App::Flows(f) => f.tables(w, out),
            App::Mpi(m) => m.tables(out),
            App::OdpReads(o) => o.tables(w, out),
        }
    }
}
