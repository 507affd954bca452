//! Small, exact models of the rules that decide how fast a CUDA kernel runs.
//!
//! Each model takes the numbers a programmer controls (block shape, registers,
//! addresses) and computes what the hardware does with them, so a reader can
//! check an explanation against arithmetic instead of taking it on trust.

pub mod banks;
pub mod coalesce;
pub mod divergence;
pub mod memory;
pub mod occupancy;
pub mod warps;
