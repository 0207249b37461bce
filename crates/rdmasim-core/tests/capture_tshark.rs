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
