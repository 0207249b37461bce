//! Traffic patterns and rank placement: one named definition of each, shared by the packet
//! engine's MPI programs, the flow engine's rounds, the static EBB analysis and the doctor.
//!
//! - [`patterns`]: who sends to whom. Random matchings (ORCS's bisection, the TSUBAME2.0 study's
//!   random pairs), permutations, shifts, and the two Alltoall orders rdmasim uses:
//!   [`patterns::alltoall_pairwise_partners`] (MVAPICH2's pairwise exchange, XOR pairs on a
//!   power-of-two size) and the linear shift of [`patterns::PatternKind::Alltoall`] (Open MPI's
//!   pairwise order, and MVAPICH2's and MPICH's on other sizes).
//! - [`nodes`]: which nodes a job runs on (all, or some missing), ranks in node order.
//!
//! A leaf: it uses only the seeded random streams of `engine` and the typed ids.
pub mod nodes;
pub mod patterns;
