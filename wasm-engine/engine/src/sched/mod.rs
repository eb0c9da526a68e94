//! The fair scheduling class: weights, features, entities, cfs_rqs and the EEVDF algorithm
//! of Linux 6.18.44 (kernel/sched/fair.c).

pub mod balance;
pub mod bandwidth;
pub mod cfs_rq;
pub mod change;
pub mod entity;
pub mod fair;
pub mod features;
pub mod group;
pub mod group_pelt;
pub mod hier;
pub mod pelt;
pub mod pick;
pub mod select;
pub mod select_vendor;
pub mod smp;
pub mod topology;
pub mod wakeup;
pub mod weight;
pub mod yield_;
pub mod yield_to;
