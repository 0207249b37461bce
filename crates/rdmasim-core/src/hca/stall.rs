//! Why the transport has nothing left to do while work is still outstanding: the reason a
//! stalled run reports when its workload cannot name one itself.
use crate::engine::Time;
use crate::hca::qp::QpState;
use crate::world::World;

impl World {
    /// The first QP (by host, then QP) that holds posted work with no event left to move it,
    /// and what it waits for.
    pub(crate) fn transport_stall(&self) -> Option<String> {
        for (h, hca) in self.hcas.iter().enumerate() {
            for qp in &hca.qps {
                let n = qp.sq.len();
                if n == 0 {
                    continue;
                }
                let who = format!("h{h} QP {:#x} has {n} work request{} outstanding", qp.num, if n == 1 { "" } else { "s" });
                let why = if qp.state == QpState::Error {
                    "in the error state".to_string()
                } else if qp.paused_until == Time::MAX {
                    "its peer's SRQ told it to stop and no resume request came (stop-resume has no timer: was the resume lost?)".to_string()
                } else if qp.timer_deadline == Time::MAX {
                    format!("no local ACK timer armed (qp.timeout = {}{})", qp.attr.timeout, if qp.attr.timeout == 0 { ": infinite" } else { "" })
                } else {
                    "its ACK timer armed but no event left".to_string()
                };
                return Some(format!("{who}: {why}"));
            }
        }
        None
    }
}
