//! A capture of a lossy simulated run decodes in tshark with no malformed packet, and shows the
//! loss's signature: a NAK (PSN sequence error) and the retransmitted packets.
mod common;
use common::{find_tshark, results, tshark};
use rdmasim_core::api::Simulation;

#[test]
fn lossy_run_capture_shows_nak_and_retransmission_in_tshark() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/lossy_write_capture.toml");
    let text = std::fs::read_to_string(path).unwrap();
    let mut sim = Simulation::from_toml(&text, path).unwrap();
    sim.run();
    let r = results(&sim);
    assert_eq!(r["stop_reason"], "completed");
    let pcap = sim.pcap().expect("the scenario asks for a capture");
    let dir = std::env::temp_dir().join(format!("rdmasim-capture-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("lossy.pcap");
    std::fs::write(&file, &pcap).unwrap();
    let Some(ts) = find_tshark() else { return };
    let f = file.to_str().unwrap();
    // Wireshark's RPC-over-RDMA heuristic misreads arbitrary SEND payloads; our run has none,
    // but disable it anyway so only real malformations count.
    let malformed = tshark(&ts, &["-r", f, "--disable-heuristic", "rpcrdma_infiniband", "-Y", "_ws.malformed || _ws.expert.severity >= error"]);
    assert!(malformed.trim().is_empty(), "malformed frames:\n{malformed}");
    let fields = tshark(&ts, &["-r", f, "-T", "fields", "-e", "ip.src", "-e", "infiniband.bth.opcode", "-e", "infiniband.bth.psn", "-e", "infiniband.aeth.syndrome"]);
    let rows: Vec<Vec<&str>> = fields.lines().map(|l| l.split('\t').collect()).collect();
    let total = r["tables"]["run"][0]["captured_packets"].as_u64().unwrap() as usize;
    assert_eq!(rows.len(), total, "every captured packet is a frame");
    // NAK, PSN sequence error: syndrome 0x60 (bits 6:5 = 11, code 0).
    let naks = rows.iter().filter(|r| r.len() > 3 && matches!(r[3].trim(), "0x60" | "96")).count();
    assert!(naks >= 1, "no NAK in the capture");
    // Retransmission: a data PSN sent twice by the requester (10.0.0.1).
    let mut seen = std::collections::HashSet::new();
    let mut resent = 0;
    for r in rows.iter().filter(|r| r[0] == "10.0.0.1" && r[1] != "17") {
        if !seen.insert(r[2].to_string()) {
            resent += 1;
        }
    }
    assert!(resent >= 1, "no retransmitted PSN in the capture");
    let lost = r["tables"]["ports"][1]["PortRcvErrors"].as_u64().unwrap();
    assert!(lost >= 1);
}

/// A capture of full-MTU packets stops at its byte budget (`output.capture_max_bytes`), so its
/// size is bounded whatever `capture_max_packets` allows (a 2 GiB WRITE with a million packets
/// made a 4.2 GB file, built whole in memory and copied again into Python: out of memory, the
/// process aborted with no results written). The file is exactly the size the run table
/// reports, the rest is counted as not kept with the limit named, and the file streamed from
/// the handed-over capture is the same bytes as the one built in memory.
#[test]
fn a_capture_stops_at_its_byte_budget_and_names_it() {
    let toml = common::perftest(
        "cx4-edr",
        "ib_write_bw",
        "size = 1048576\niters = 4",
        "[output]\ncapture = true\ncapture_max_packets = 1000000\ncapture_max_bytes = 1000000",
    );
    let mut sim = Simulation::from_toml(&toml, "<test>").unwrap();
    sim.run();
    let r = results(&sim);
    assert_eq!(r["stop_reason"], "completed");
    let run = r["tables"]["run"][0].clone();
    assert_eq!(run["capture_stopped_by"], "capture_max_bytes");
    let bytes = run["capture_bytes"].as_u64().unwrap();
    // Full frames are 4 KiB of payload and 86 B of headers, plus a 16 B record header each.
    assert!((1_000_000 - 4_200..=1_000_000).contains(&bytes), "{bytes} B");
    let sent: u64 = r["tables"]["ports"].as_array().unwrap().iter().map(|p| p["PortXmitPkts"].as_u64().unwrap()).sum();
    assert_eq!(run["captured_packets"].as_u64().unwrap() + run["capture_truncated"].as_u64().unwrap(), sent, "every packet is kept or counted");
    let pcap = sim.pcap().unwrap();
    assert_eq!(pcap.len() as u64, bytes);
    let capture = sim.take_capture().unwrap();
    let mut streamed = Vec::new();
    capture.write_pcap(&mut streamed).unwrap();
    assert_eq!(streamed, pcap);
    assert!(sim.pcap().is_none() && sim.take_capture().is_none(), "the packets are handed over once");
    assert_eq!(results(&sim)["tables"]["run"][0], run, "the run's table keeps the capture's counts");
}
