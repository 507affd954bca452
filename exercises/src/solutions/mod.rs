//! Reference solutions, one file per exercise (`ptx-ladder exercise N
//! --solution` prints them). Each passes its exercise's check with every
//! checker silent; the tests prove it.

pub mod s01_map;
pub mod s02_rows_and_columns;
pub mod s03_broadcast;
pub mod s04_shared_tile;
pub mod s05_tree_reduction;
pub mod s06_warp_shuffle;
pub mod s07_inclusive_scan;
pub mod s08_transpose;
pub mod s09_transpose_no_conflicts;
pub mod s10_dot_product;
pub mod s11_histogram;
pub mod s12_convolution;
pub mod s13_tiled_matmul;
pub mod s14_register_blocked_matmul;
