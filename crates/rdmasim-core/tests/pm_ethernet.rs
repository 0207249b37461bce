//! Lossy Ethernet under PM (ether/): tail drop at the congested output, PAUSE making the same
//! case lossless, credits likewise.
mod common;
use common::pm::{f, pm_run, pm_summary};

/// Three hosts stream to host 3 over one link each: its switch output takes three times its
/// rate and drops what its 128 KiB of the Broadcom buffer cannot hold.
fn incast(flow_control: &str) -> String {
    format!(
        "engine = \"pm\"\n[ethernet]\nswitch = \"broadcom-12port\"\nflow_control = {flow_control}\ntopology = {{ kind = \"single-switch\", hosts = 4, links = 1 }}\n[workload]\nkind = \"incast\"\ndst = 3\nbytes = 262144\ncount = 4\n"
    )
}

#[test]
fn tail_drop_is_counted_at_the_congested_output_only() {
    let r = pm_run(&incast("{ kind = \"none\" }"));
    let s = pm_summary(&r);
    let res = r.result();
    let ports = &res.tables["eth_ports"];
    let dropping: Vec<&str> = ports.iter().filter(|p| p["ifOutDiscards"].as_u64().unwrap() > 0).map(|p| p["port"].as_str().unwrap()).collect();
    // The switch's port 4 is cabled to host 3 (hosts take ports 1..4 in order).
    assert_eq!(dropping, ["\"eth-s0\"[4]"], "drops: {dropping:?}");
    assert_eq!(f(&s, "switch_drops"), ports.iter().map(|p| p["ifOutDiscards"].as_f64().unwrap()).sum::<f64>());
    assert!(f(&s, "switch_drops") > 0.0);
    assert!(f(&s, "retransmitted") > 0.0);
}

#[test]
fn pause_makes_the_lossy_incast_lossless() {
    // XOFF at 4 KiB held for an input: a paused input is admitted against the pool, so what
    // arrives before the PAUSE does finds room.
    let r = pm_run(&incast("{ kind = \"pause\", xoff_bytes = 4096, xon_bytes = 2048 }"));
    let s = pm_summary(&r);
    assert_eq!(f(&s, "switch_drops"), 0.0, "{s:?}");
    assert_eq!(f(&s, "retransmitted"), 0.0);
    let res = r.result();
    let pauses: u64 = res.tables["eth_ports"].iter().map(|p| p["dot3OutPauseFrames"].as_u64().unwrap()).sum();
    assert!(pauses > 0, "the switch sent PAUSE frames");
    let xoff: u64 = res.tables["nics"].iter().map(|n| n["rx_flow_control_xoff"].as_u64().unwrap()).sum();
    assert!(xoff > 0, "the senders' NICs received XOFF");
    for c in &r.world.chans {
        assert_eq!(c.delivered_bytes, 4 * 262144);
    }
}

#[test]
fn credits_make_the_lossy_incast_lossless() {
    let r = pm_run(&incast("{ kind = \"credits\" }"));
    let s = pm_summary(&r);
    assert_eq!(f(&s, "switch_drops"), 0.0, "{s:?}");
    assert_eq!(f(&s, "retransmitted"), 0.0);
}

/// Flow control is a link's: PAUSE on host 0's cable only pauses host 0; the other senders'
/// frames are still dropped at the congested output.
#[test]
fn flow_control_is_chosen_per_link() {
    let toml = incast("{ kind = \"none\" }").replace(
        "[workload]",
        "[[ethernet.links]]\nhosts = [0]\nflow_control = { kind = \"pause\", xoff_bytes = 4096, xon_bytes = 2048 }\n[workload]",
    );
    let r = pm_run(&toml);
    let s = pm_summary(&r);
    assert!(f(&s, "switch_drops") > 0.0);
    let res = r.result();
    let pausing: Vec<&str> = res.tables["eth_ports"].iter().filter(|p| p["dot3OutPauseFrames"].as_u64().unwrap() > 0).map(|p| p["port"].as_str().unwrap()).collect();
    assert_eq!(pausing, ["\"eth-s0\"[1]"], "only the switch port facing host 0 sends PAUSE");
}
