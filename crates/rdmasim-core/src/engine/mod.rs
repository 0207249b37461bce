//! The discrete-event engine: simulated time, the event queue and seeded random streams.
mod queue;
mod rng;
mod slab;
mod time;

pub use queue::{EventKey, EventQueue};
pub use rng::{stream_seed, SimRng};
pub use slab::Slab;
pub use time::Time;
