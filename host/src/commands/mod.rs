//! One module per `host` command.

pub mod info;
pub mod labs;
pub mod matmul;
pub mod pitfalls;
pub mod vecadd;
