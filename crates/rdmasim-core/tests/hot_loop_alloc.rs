//! The event loop allocates nothing per event in steady state: packets, CQEs and application
//! events live in reused slots, and per-message records grow by amortised doubling. A counting
//! global allocator (this test binary only) counts the allocations of a stretch of events
//! after a warm-up; a per-event allocation would show up as tens of thousands.
use rdmasim_core::api::Simulation;
use rdmasim_core::bench::BENCH_SCENARIO;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

thread_local! {
    /// Set on the thread that runs the measured stretch: the test harness's own threads (which
    /// record results and start tests meanwhile) allocate too, and must not be counted.
    static MEASURING: Cell<bool> = const { Cell::new(false) };
}

fn count() {
    if MEASURING.with(Cell::get) {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
    }
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        System.realloc(ptr, layout, new_size)
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// The tests of this binary run one at a time: the counter is process-wide.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Allocations (and reallocations) made while `sim` runs `events` events after `warm_up` ones.
fn allocations_in_steady_state(scenario: &str, warm_up: u64, events: u64) -> u64 {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let mut sim = Simulation::from_toml(scenario, "<alloc test>").expect("valid scenario");
    assert!(!sim.step(warm_up), "the run ended during the warm-up");
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    MEASURING.with(|m| m.set(true));
    let done = sim.step(events);
    MEASURING.with(|m| m.set(false));
    let after = ALLOCATIONS.load(Ordering::Relaxed);
    assert!(!done, "the run ended inside the measured stretch");
    after - before
}

/// Growth of per-message records by doubling: a handful of reallocations per growing vector.
const AMORTISED_GROWTH: u64 = 64;

#[test]
fn the_bench_workload_with_loss_allocates_nothing_per_event() {
    // 8 QPs of 4 KiB WRITEs through a switch with 1e-4 loss: NAKs, go-back-N and timers run too.
    // The whole run is about 970 000 events.
    let n = allocations_in_steady_state(BENCH_SCENARIO, 200_000, 600_000);
    assert!(n <= AMORTISED_GROWTH, "{n} allocations in 600 000 events");
}

#[test]
fn a_link_that_retrains_and_flaps_allocates_nothing_per_event() {
    // The bench workload with its switch-to-host cable retraining and flapping (both ways):
    // the outage schedule is drawn as the link's departures advance, into fixed fields.
    let scenario = format!("{BENCH_SCENARIO}[[faults]]\nlink = \"sw0-h1\"\nretrains_per_s = 2000\nretrain_us = 20\nflaps_per_s = 20\nflap_down_ms = 0.5\n");
    let n = allocations_in_steady_state(&scenario, 200_000, 600_000);
    assert!(n <= AMORTISED_GROWTH, "{n} allocations in 600 000 events");
}

/// An event-polled 1 MB elephant, a busy-polled inline 10 B mouse and a HERD-like store (window 4,
/// server pipeline) beside them.
const FLOWS: &str = r#"
[hardware]
profile = "cx3-fdr"
[topology]
kind = "single-switch"
hosts = 3
[workload]
kind = "flows"
[[workload.flow]]
verb = "write"
size = 1048576
count = 100000
polling = "event"
[[workload.flow]]
verb = "write"
size = 10
count = 10000000
inline = true
[workload.kv]
client = 2
server = 1
requests = 10000000
window = 4
server_pipeline = true
"#;

#[test]
fn event_polled_flows_and_a_key_value_store_allocate_nothing_per_event() {
    // The isolation study's paths: interrupts, wake-ups, CPU accounting, the store's requests
    // and responses.
    let n = allocations_in_steady_state(FLOWS, 200_000, 1_000_000);
    assert!(n <= AMORTISED_GROWTH, "{n} allocations in 1 000 000 events");
}

#[test]
fn mpi_replay_over_an_srq_allocates_nothing_per_event() {
    let (dir, scenario) = mpi_bursts_scenario("srq-limit");
    let n = allocations_in_steady_state(&scenario, 200_000, 1_000_000);
    let _ = std::fs::remove_dir_all(dir);
    assert!(n <= AMORTISED_GROWTH, "{n} allocations in 1 000 000 events");
}

/// Rank 0 sends bursts of 32 messages (eager 1000 B, every 8th a 100 KB rendezvous) to rank 1,
/// whose receives come from a 16-buffer SRQ, then waits for an 8 B reply: the MPI layer's
/// matching, its receives consumed and re-posted, and rendezvous transfers.
fn mpi_bursts_scenario(flow_control: &str) -> (std::path::PathBuf, String) {
    let dir = std::env::temp_dir().join(format!("rdmasim-alloc-mpi-{}-{flow_control}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    for rank in 0..2 {
        let peer = 1 - rank;
        let mut text = format!("#rdmasim-mpi-trace v1 rank={rank} size=2 lib=test\ninit start=0 end=0 cpu=0\n");
        for _ in 0..2_500 {
            for i in 0..32 {
                let bytes = if i % 8 == 7 { 100_000 } else { 1000 };
                let call = if rank == 0 { "send" } else { "recv" };
                text += &format!("{call} start=0 end=0 cpu=100 peer={peer} bytes={bytes} tag=1\n");
            }
            let call = if rank == 0 { "recv" } else { "send" };
            text += &format!("{call} start=0 end=0 cpu=100 peer={peer} bytes=8 tag=2\n");
        }
        text += "finalize start=0 end=0 cpu=0\n";
        std::fs::write(dir.join(format!("rank.{rank}.trace")), text).expect("trace written");
    }
    let scenario = format!(
        "[hardware]\nprofile = \"cx3-fdr\"\n[topology]\nkind = \"single-switch\"\nhosts = 2\n[workload]\nkind = \"mpi\"\ntrace = \"{}\"\nflow_control = \"{flow_control}\"\nsrq_buffers = 16\n",
        dir.display()
    );
    (dir, scenario)
}

/// PM over lossy Ethernet (engine = "pm"): three hosts streaming to a fourth through the
/// Broadcom profile, whose 128 KiB output overflows, so tail drops, retransmission timers and
/// go-back-N run too (about a third of the frames are lost; 0.96 M events in all).
const PM_INCAST: &str = r#"
engine = "pm"
[ethernet]
switch = "broadcom-12port"
topology = { kind = "single-switch", hosts = 4, links = 2 }
[pm]
packet_bytes = 8968
[workload]
kind = "incast"
dst = 3
bytes = 1048576
count = 150
"#;

#[test]
fn pm_over_lossy_ethernet_allocates_nothing_per_event() {
    let n = allocations_in_steady_state(PM_INCAST, 200_000, 600_000);
    assert!(n <= AMORTISED_GROWTH, "{n} allocations in 600 000 events");
}
