//! The discrete-event engine: simulated time, the event queue and seeded random streams.
pub mod alloc;
mod generation;
pub mod run;
mod prefetch;
mod queue;
mod rng;
mod slab;
mod time;

pub use generation::Generation;
pub(crate) use prefetch::prefetch_line;
pub use queue::{EventKey, EventQueue};
pub use rng::{stream_seed, SimRng};
pub use slab::{Slab, SlotId};
pub use time::Time;
