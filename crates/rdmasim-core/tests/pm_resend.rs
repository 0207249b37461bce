//! PM's retransmission schemes in isolation (ether/pm_resend.rs): one channel, a window of
//! packets on a wire that loses exactly one, the receiver's acknowledgements handed straight
//! back, then the timer's expiry. What the sender sends again is counted exactly.
mod common;
use common::pm::{f, pm_run, pm_summary};
use rdmasim_core::engine::Time;
use rdmasim_core::ether::pm::{Channel, Resend, SentPacket};
use rdmasim_core::ids::HostId;

const PAYLOAD: u32 = 100;

/// Sends a window of `window` packets (one message), loses the packets `lost`, lets the receiver
/// acknowledge as its rules say (every `ack_every` in-order packets, at the message's end, a
/// duplicate, and under selective a packet sent again), expires the timer once, and returns
/// the sequence numbers sent again until the message is through. Whatever the sender sends
/// goes out before an acknowledgement of it returns (a round trip is longer than queueing a
/// window): each pass takes all it may send, then delivers it.
fn resent_after_losses(resend: Resend, window: u32, lost: &[u32], ack_every: u32) -> Vec<u32> {
    let mut c = Channel::new(HostId(0), HostId(1), window, resend);
    c.post(0, u64::from(window * PAYLOAD));
    let deliver = |c: &mut Channel, (seq, p): (u32, SentPacket)| {
        let (_, _, ack) = c.on_data(seq, p, ack_every, Time::ZERO);
        if ack {
            let (a, held) = c.ack_fields();
            c.on_ack(a, held);
        }
    };
    let sent: Vec<_> = (0..window).map(|_| c.take_packet(PAYLOAD, Time::ZERO)).collect();
    assert!(!c.can_send(), "the window is full");
    for &packet in sent.iter().filter(|(seq, _)| !lost.contains(seq)) {
        deliver(&mut c, packet);
    }
    c.on_timeout();
    let mut resent = Vec::new();
    while c.can_send() {
        let again: Vec<_> = std::iter::from_fn(|| c.can_send().then(|| c.take_packet(PAYLOAD, Time::ZERO))).collect();
        resent.extend(again.iter().map(|&(seq, _)| seq));
        for packet in again {
            deliver(&mut c, packet);
        }
    }
    assert_eq!(c.retransmitted, resent.len() as u64);
    assert_eq!((c.delivered_msgs, c.delivered_bytes), (1, u64::from(window * PAYLOAD)), "{resend:?}: the message arrived whole");
    assert!(!c.unacked(), "{resend:?}: everything acknowledged");
    resent
}

/// One packet lost in a window of N, the receiver acknowledging every packet: go-back-N sends
/// again exactly the packets from the lost one to the end of the window, selective exactly
/// the lost one.
#[test]
fn one_loss_go_back_n_resends_to_the_window_s_end_selective_resends_it_alone() {
    for (window, lost) in [(8, 0), (8, 3), (8, 7), (32, 5), (33, 20)] {
        let gbn = resent_after_losses(Resend::GoBackN, window, &[lost], 1);
        assert_eq!(gbn, (lost..window).collect::<Vec<_>>(), "go-back-N, window {window}, lost {lost}");
        let sel = resent_after_losses(Resend::Selective, window, &[lost], 1);
        assert_eq!(sel, [lost], "selective, window {window}, lost {lost}");
    }
}

/// With PM's delayed acknowledgements (every 8 packets, the model's default), the oldest
/// unacknowledged packet is the last acknowledged boundary, not the lost one: go-back-N sends
/// again from there (the whole window when the loss is in the first eight); selective sends
/// that packet alone, a duplicate whose answer maps the rest, then the lost one.
#[test]
fn with_delayed_acks_go_back_n_resends_from_the_last_ack_and_selective_probes_then_the_loss() {
    assert_eq!(resent_after_losses(Resend::GoBackN, 32, &[5], 8), (0..32).collect::<Vec<_>>());
    assert_eq!(resent_after_losses(Resend::GoBackN, 32, &[21], 8), (16..32).collect::<Vec<_>>());
    assert_eq!(resent_after_losses(Resend::Selective, 32, &[5], 8), [0, 5]);
    assert_eq!(resent_after_losses(Resend::Selective, 32, &[21], 8), [16, 21]);
}

/// Several packets lost in one window: selective sends the oldest alone at the expiry, then
/// exactly the others its answer shows missing; go-back-N the whole rest of the window.
#[test]
fn several_losses_selective_resends_exactly_the_lost_ones() {
    let lost = [3, 4, 9, 30];
    assert_eq!(resent_after_losses(Resend::GoBackN, 32, &lost, 1), (3..32).collect::<Vec<_>>());
    assert_eq!(resent_after_losses(Resend::Selective, 32, &lost, 1), lost);
}

/// The scheme is a `[pm]` key: the lossy incast of pm_protocol.rs (three hosts into one
/// Broadcom output) delivers everything under both, and selective sends again fewer packets
/// than go-back-N, each loss costing about one resend. A window too large for the
/// acknowledgement's map, or an unknown scheme, is refused naming the key.
#[test]
fn the_scheme_is_a_pm_key_and_selective_resends_about_what_was_lost() {
    let toml = |resend: &str| format!("engine = \"pm\"\nseed = 3\n[ethernet]\nswitch = \"broadcom-12port\"\ntopology = {{ kind = \"single-switch\", hosts = 4, links = 2 }}\n[pm]\npacket_bytes = 8968\nresend = \"{resend}\"\n[workload]\nkind = \"incast\"\ndst = 3\nbytes = 8800\ncount = 200\n");
    let (gbn, sel) = (pm_summary(&pm_run(&toml("go-back-n"))), pm_summary(&pm_run(&toml("selective"))));
    assert!(f(&gbn, "data_drops") > 0.0 && f(&sel, "data_drops") > 0.0, "{gbn:?} {sel:?}");
    assert!(f(&sel, "retransmitted") < f(&gbn, "retransmitted"), "{gbn:?} {sel:?}");
    // Every lost data packet is sent again; beyond that only packets whose report was lost.
    assert!(f(&sel, "retransmitted") >= f(&sel, "data_drops"), "{sel:?}");
    let err = |text: String| match rdmasim_core::api::Simulation::from_toml(&text, "pm.toml") {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => e.to_string(),
    };
    let e = err(toml("selective").replace("[pm]\n", "[pm]\nwindow = 34\n"));
    assert!(e.contains("pm.window") && e.contains("at most 33"), "{e}");
    let e = err(toml("sideways"));
    assert!(e.contains("pm.resend") && e.contains("selective"), "{e}");
}
