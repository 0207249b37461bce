//! MPI over PM (ether/mpi): osu_bw and osu_bibw, the same generated programs the verbs-side MPI
//! layer runs, through the MPICH and YAMPII profiles over PM channels.
mod common;
use common::pm::{pm_run, pm_tables};
use rdmasim_core::ether::host_cost::HostCostConfig;
use rdmasim_core::ether::run::PmRun;

fn scenario(lib: &str, links: u32, program: &str) -> String {
    format!(
        "engine = \"pm\"\nseed = 1\n[ethernet]\ntopology = {{ kind = \"single-switch\", hosts = 2, links = {links} }}\n[workload]\nkind = \"mpi\"\nlibrary = \"{lib}\"\nprogram = {program}\n"
    )
}

/// osu_bw (or osu_bibw) of `bytes`-byte messages, window 64: MB/s as the benchmark prints it,
/// and the library's `mpi_pm` row.
fn osu(lib: &str, links: u32, bidirectional: bool, bytes: u64) -> (f64, serde_json::Map<String, serde_json::Value>) {
    let program = format!("{{ kind = \"osu-bw\", bytes = {bytes}, window = 64, iterations = 3, bidirectional = {bidirectional} }}");
    let t = pm_tables(&pm_run(&scenario(lib, links, &program)));
    let trial = &t["mpi_trials"][0];
    assert_eq!(trial["program"], if bidirectional { "osu-bibw" } else { "osu-bw" });
    (trial["injection_GBps"].as_f64().expect("rank 0 finished") * 1e3, t["mpi_pm"][0].clone())
}

/// Eight links outrun the receiver's CPU once the library copies every packet out of PM's
/// buffer: each 8 KB packet costs PM's per-packet time plus the copy, and osu_bw's 1 MiB
/// messages run at 8192 B over that (the line would carry 991.5 MB/s).
#[test]
fn mpi_copies_make_the_receiver_cpu_bound() {
    let (got, pm) = osu("mpich", 8, false, 1 << 20);
    let cost = HostCostConfig::default().costs(8, 8192);
    let want = 8192.0 / (cost.recv.as_us_f64() + 8192.0 * cost.copy_ps_per_byte as f64 * 1e-6);
    // Within 2 %: each message's envelope is a packet of its own, and the pipeline fills.
    assert!(got <= want && got / want > 0.98, "{got:.1} MB/s, CPU bound at {want:.1}");
    // 1 MiB is above the eager limit: every message went by rendezvous (3 + 2 skipped windows of 64).
    assert_eq!(pm["rendezvous"], 5 * 64);
}

/// Two-way, each CPU does both directions' PM work and both copies: osu_bibw's total at eight
/// links is no more than one-way's, not twice it.
#[test]
fn both_ways_the_cpu_is_shared_and_the_total_does_not_double() {
    let (one, _) = osu("mpich", 8, false, 1 << 20);
    let (two, _) = osu("mpich", 8, true, 1 << 20);
    assert!(two < 1.05 * one && two > 0.95 * one, "one-way {one:.1}, both ways {two:.1} MB/s");
    // Two links: the line is the limit, both ways run at twice one way.
    let (one, _) = osu("mpich", 2, false, 1 << 20);
    let (two, _) = osu("mpich", 2, true, 1 << 20);
    assert!((two / one - 2.0).abs() < 0.02, "one-way {one:.1}, both ways {two:.1} MB/s");
}

/// The profiles differ where the rendezvous handshake is not hidden: at 64 KiB, MPICH's data
/// waits for the CTS's round trip while YAMPII's first 64 KiB travel with the RTS; at 1 MiB the
/// handshakes overlap earlier messages' data and the two run alike.
#[test]
fn yampii_s_early_data_pays_off_for_mid_sized_messages_only() {
    let (mpich, _) = osu("mpich", 8, false, 65536);
    let (yampii, _) = osu("yampii", 8, false, 65536);
    assert!(yampii > 1.05 * mpich, "64 KiB: MPICH {mpich:.1}, YAMPII {yampii:.1} MB/s");
    let (mpich, _) = osu("mpich", 8, false, 1 << 20);
    let (yampii, _) = osu("yampii", 8, false, 1 << 20);
    assert!((yampii / mpich - 1.0).abs() < 0.005, "1 MiB: MPICH {mpich:.1}, YAMPII {yampii:.1} MB/s");
}

/// osu_bw of 1 MiB over eight links with the library's own time per packet beyond MPICH's set
/// to `packet_us`: MB/s, and each host's CPU busy time, µs.
fn osu_packet(packet_us: f64) -> (f64, [f64; 2]) {
    let program = "{ kind = \"osu-bw\", bytes = 1048576, window = 64, iterations = 3, bidirectional = false }";
    let toml = scenario("mpich", 8, program) + &format!("packet_us = {packet_us:?}\n");
    let t = pm_tables(&pm_run(&toml));
    assert_eq!(t["mpi_pm"][0]["packet_us"].as_f64(), Some(packet_us));
    let cpu = |h: usize| t["host_cpu"][h]["cpu_busy_us"].as_f64().expect("host CPU time");
    (t["mpi_trials"][0]["injection_GBps"].as_f64().expect("rank 0 finished") * 1e3, [cpu(0), cpu(1)])
}

/// A library's own time per packet of its data (ether/mpi/packet_cost.rs) is charged once on
/// each side for every PM packet that carries its data, and on nothing else: 320 messages (3 +
/// 2 skipped windows of 64) of 1 MiB and a 64 B envelope are 129 packets of 8192 B each, and
/// after each of the 5 windows the receiver answers with one small eager message, so +0.5 µs a
/// packet adds (41 280 + 5) x 0.5 µs to each CPU (the RTS and CTS carry no data and pay
/// nothing). The receiver stays the bound: 8 KB at PM's per-packet time, the copy and the
/// library's time, 8192 / (2.826 + 6.660 + 0.5) = 820.3 MB/s (9.99 µs a packet), and with
/// -0.5 µs 8192 / 8.986 = 911.6 MB/s; the pipeline's fill takes at most 2 % off.
#[test]
fn a_library_s_own_time_per_packet_is_charged_on_every_data_packet_both_sides() {
    let (base, cpu0) = osu_packet(0.0);
    let cost = HostCostConfig::default().costs(8, 8192);
    let packet = cost.recv.as_us_f64() + 8192.0 * cost.copy_ps_per_byte as f64 * 1e-6;
    assert!((packet - 9.486).abs() < 0.001, "PM's time and the copy: {packet} us");
    for us in [0.5, -0.5] {
        let (bw, cpu) = osu_packet(us);
        for h in 0..2 {
            let extra = cpu[h] - cpu0[h];
            assert!((extra - 41_285.0 * us).abs() < 1e-3, "host {h}: {extra} us more CPU at {us} us a packet");
        }
        let want = 8192.0 / (packet + us);
        assert!(bw <= want && bw / want > 0.98, "{bw:.1} MB/s at {us} us a packet, receiver bound at {want:.1}");
    }
    assert!(base <= 8192.0 / packet, "{base:.1} MB/s with nothing beyond MPICH's");
    // Out of its bounds, the key is named.
    let toml = scenario("mpich", 2, "{ kind = \"osu-bw\", bytes = 1024 }") + "packet_us = 20.0\n";
    let e = PmRun::from_toml(&toml, "t.toml").err().expect("20 us a packet is refused").to_string();
    assert!(e.contains("workload.packet_us") && e.contains("-2 ≤ packet_us ≤ 10"), "{e}");
}

/// Eager messages (up to 16 KiB) take no handshake: the run has no rendezvous.
#[test]
fn small_messages_go_eagerly() {
    let (bw, pm) = osu("mpich", 2, false, 4096);
    assert_eq!(pm["rendezvous"], 0);
    assert!(bw > 50.0, "{bw:.1} MB/s");
}

#[test]
fn a_bad_program_is_named_by_its_key() {
    let toml = scenario("mpich", 2, "{ kind = \"osu-bw\", bytes = 1024, window = 0 }");
    let e = PmRun::from_toml(&toml, "t.toml").err().expect("window = 0 is refused").to_string();
    assert!(e.contains("workload.program") && e.contains("window = 0"), "{e}");
    let toml = scenario("mpich", 2, "{ kind = \"osu-bw\", bytes = 1024 }").replace("library = \"mpich\"", "library = \"openmpi\"");
    let e = PmRun::from_toml(&toml, "t.toml").err().expect("an unknown library is refused").to_string();
    assert!(e.contains("openmpi") && e.contains("mpich"), "{e}");
    let toml = scenario("mpich", 2, "{ kind = \"osu-bw\", bytes = 1024 }\ntrace = \"/nonexistent\"");
    let e = PmRun::from_toml(&toml, "t.toml").err().expect("program and trace together are refused").to_string();
    assert!(e.contains("workload.program") && e.contains("exactly one"), "{e}");
    let toml = scenario("mpich", 2, "{ kind = \"osu-bw\", bytes = 1024 }").replace("program = { kind = \"osu-bw\", bytes = 1024 }", "trace = \"/nonexistent/trace-dir\"");
    let e = PmRun::from_toml(&toml, "t.toml").err().expect("a missing trace directory is refused").to_string();
    assert!(e.contains("workload.trace") && e.contains("/nonexistent/trace-dir"), "{e}");
    let e = PmRun::from_toml(&toml.replace("trace =", "compute_scale = -1.0\ntrace ="), "t.toml").err().expect("a negative compute_scale is refused").to_string();
    assert!(e.contains("workload.compute_scale") && e.contains("expected a finite number >= 0"), "{e}");
}

/// A trace (tools/pmpi_trace's format) runs over PM too. Rank 0 sends 1000 B (eager) and
/// 100 000 B (rendezvous, its receive posted first); rank 1 receives the small one with
/// wildcards after a compute gap. With a long gap the eager message arrives first and waits in
/// the unexpected queue: matched later, it is copied once more, 1000 B at the copy rate of
/// rank 1's CPU, and nothing else changes.
#[test]
fn a_trace_runs_over_pm_and_an_unexpected_eager_message_costs_one_more_copy() {
    use common::mpi_trace::{rec, trace_dir};
    let run = |gap_ns: u64| {
        let dir = trace_dir("pm", &[
            vec![rec("isend", 0, "peer=1 bytes=1000 tag=5 req=1"), rec("isend", 0, "peer=1 bytes=100000 tag=6 req=2"), rec("waitall", 0, "reqs=1,2")],
            vec![rec("irecv", 0, "peer=0 bytes=100000 tag=6 req=1"), rec("recv", gap_ns, "peer=-1 bytes=1000 tag=-1"), rec("wait", 0, "req=1")],
        ]);
        let toml = format!(
            "engine = \"pm\"\nseed = 1\n[ethernet]\ntopology = {{ kind = \"single-switch\", hosts = 2, links = 2 }}\n[workload]\nkind = \"mpi\"\ntrace = \"{}\"\n",
            dir.display()
        );
        let t = pm_tables(&pm_run(&toml));
        let pm = t["mpi_pm"][0].clone();
        assert_eq!(pm["rendezvous"], 1);
        let ended: Vec<f64> = t["mpi_ranks"].iter().map(|r| r["ended_us"].as_f64().expect("every rank ended")).collect();
        (pm["unexpected_eager"].as_u64().unwrap(), ended, t["host_cpu"][1]["cpu_busy_us"].as_f64().unwrap())
    };
    let (early, _, cpu_early) = run(0);
    let (late, ended, cpu_late) = run(500_000);
    assert_eq!((early, late), (0, 1));
    assert!(ended[1] > 500.0, "rank 1 ends after its 500 us gap: {ended:?}");
    let copy_us = 1000.0 * HostCostConfig::default().costs(2, 8192).copy_ps_per_byte as f64 * 1e-6;
    assert!((cpu_late - cpu_early - copy_us).abs() < 1e-6, "{cpu_late} - {cpu_early} us, one copy {copy_us} us");
}

/// The verbs side's Alltoall program (pairwise exchange) over PM on the 2 x 2 x 2
/// hyper-crossbar: every rank finishes, the messages to diagonal peers are relayed by hosts,
/// and the slowest rank's time bounds the bandwidth by host 0's two links per dimension.
#[test]
fn an_alltoall_runs_over_pm_through_relays() {
    let toml = "engine = \"pm\"\nseed = 1\n[ethernet]\ntopology = { kind = \"hyperx\", dims = [2, 2, 2], links_per_dim = 2 }\n\
                [workload]\nkind = \"mpi\"\nlibrary = \"yampii\"\nprogram = { kind = \"alltoall\", bytes = 262144 }\n";
    let r = pm_run(toml);
    let t = pm_tables(&r);
    let trial = &t["mpi_trials"][0];
    assert_eq!(trial["finished_ranks"], 8);
    assert!(t["pm_summary"][0]["relay_packets"].as_u64().unwrap() > 0, "peers two or three dimensions away are reached through relays");
    // Each rank sends 7 x 256 KiB; no rank can inject faster than its 6 links (3 dimensions x 2).
    let gbps = trial["injection_GBps"].as_f64().unwrap();
    assert!(gbps > 0.0 && gbps * 1e3 < 6.0 * 125.0, "{gbps} GB/s");
}

/// MPI's matching over PM: a wildcard receive posted before a barrier does not take the
/// barrier's message (collectives have their own tags); it takes the user's message sent after.
#[test]
fn a_wildcard_receive_never_takes_a_collective_s_message() {
    use common::mpi_trace::{rec, trace_dir};
    let dir = trace_dir("pm-wild", &[
        vec![rec("barrier", 0, "comm=world"), rec("send", 0, "peer=1 bytes=100 tag=7")],
        vec![rec("irecv", 0, "peer=-1 bytes=100 tag=-1 req=1"), rec("barrier", 0, "comm=world"), rec("wait", 0, "req=1")],
    ]);
    let toml = format!(
        "engine = \"pm\"\nseed = 1\n[ethernet]\ntopology = {{ kind = \"single-switch\", hosts = 2, links = 2 }}\n[workload]\nkind = \"mpi\"\ntrace = \"{}\"\n",
        dir.display()
    );
    let t = pm_tables(&pm_run(&toml));
    assert!(t["mpi_ranks"].iter().all(|r| r["ended_us"].is_number()), "{:?}", t["mpi_ranks"]);
    assert_eq!(t["mpi_pm"][0]["unexpected_eager"], 0);
}
