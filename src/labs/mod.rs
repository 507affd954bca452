//! The concept labs: each pairs a model (pure Rust, in [`models`]) with a
//! measurement on the GPU.

pub mod models;
