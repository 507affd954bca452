//! `ptx-ladder sweep`: the ladder's best against cuBLAS over the shapes a
//! model runs, not one square.
//!
//! - [`suite`]: the shapes (built in, or from a file) and the roofline
//!   that says what bounds each;
//! - [`run`]: cuBLAS and the "auto" rung on every shape, weights read
//!   from DRAM;
//! - [`report`]: one row per shape, the geometric mean and the worst
//!   shape, as a table, JSON and a picture;
//! - [`lesson`]: rooflines, waves and accuracy drawn from a sweep's JSON
//!   (`ptx-ladder shapes`).

pub mod lesson;
pub mod report;
pub mod run;
pub mod suite;
