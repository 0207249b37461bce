//! The MPI core both transports run on (verbs: workload/mpi; PM: ether/mpi): the programs
//! (generated benchmarks, `synthetic.rs` from `program_spec.rs`; or mpich traces, `trace.rs`),
//! where each rank is in its program (`cursor.rs`), MPI's matching (`matching.rs`), the choice
//! between eager and rendezvous (`protocol.rs`), and the benchmark figures (`results.rs`).
pub mod cursor;
pub mod matching;
pub mod program;
pub mod program_spec;
pub mod protocol;
pub mod results;
pub mod synthetic;
pub mod trace;
pub mod transport;
