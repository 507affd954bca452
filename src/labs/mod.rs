//! The concept labs. Each pairs a model (pure Rust, in [`models`], usable
//! and tested without a GPU) with a measurement on the GPU that the model
//! predicts.

pub mod banks;
pub mod coalesce;
pub mod divergence;
pub mod memory;
pub mod models;
pub mod occupancy;
pub mod picture;
pub mod pitfalls;
pub mod reduce;
pub mod warps;
