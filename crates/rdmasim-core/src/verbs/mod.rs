//! The verbs a process calls (libibverbs' names): they run on the host's threads, charging
//! their CPU time, and hand work to the NIC (hca/) through its queues and doorbells. Above the
//! NIC and the host, below the workloads that call them.
pub mod mr;
pub mod qp;
pub mod srq;
