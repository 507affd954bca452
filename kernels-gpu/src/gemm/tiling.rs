//! The tile vocabulary of rungs 4-11: one [`Tiling`] says how a block's
//! work is cut, and everything else (threads, shared memory, the launch
//! shape, the compile-time checks) derives from it.
//!
//! Three levels, each named with its axis:
//! - the block tile, `tile_m`×`tile_n` of C per block, stepping `tile_k` of
//!   the shared dimension at a time;
//! - the warp tile, `warp_m`×`warp_n`: each warp's share of the block tile,
//!   for the rungs that place warps explicitly (9-13; 0 elsewhere);
//! - the thread tile, `thread_m`×`thread_n`: the results one thread holds.
//!
//! `stages` is the number of `tile_k` steps resident in shared memory at once
//! (1 without a pipeline).

use crate::gpu::WARP_SIZE;
use crate::launch::{LaunchShape, float_bytes, tiled_launch};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tiling {
    pub tile_m: u32,
    pub tile_n: u32,
    pub tile_k: u32,
    pub warp_m: u32,
    pub warp_n: u32,
    pub thread_m: u32,
    pub thread_n: u32,
    pub stages: u32,
}

impl Tiling {
    /// A block tile with thread tiles and no explicit warp tile, one stage.
    pub const fn block(tile_m: u32, tile_n: u32, tile_k: u32, thread_m: u32, thread_n: u32) -> Tiling {
        Tiling { tile_m, tile_n, tile_k, warp_m: 0, warp_n: 0, thread_m, thread_n, stages: 1 }
    }

    /// The same tiling with each warp owning `warp_m`×`warp_n` of the block
    /// tile.
    pub const fn with_warp_tile(self, warp_m: u32, warp_n: u32) -> Tiling {
        Tiling { warp_m, warp_n, ..self }
    }

    /// The same tiling with `stages` steps in shared memory.
    pub const fn with_stages(self, stages: u32) -> Tiling {
        Tiling { stages, ..self }
    }

    /// Threads per block: one per thread tile of the block tile.
    pub const fn threads(self) -> u32 {
        (self.tile_m / self.thread_m) * (self.tile_n / self.thread_n)
    }

    /// Warps per block along n (the warp tiles of a block row).
    pub const fn warps_n(self) -> u32 {
        self.tile_n / self.warp_n
    }

    /// The launch for an `m`×`n` C with `stage_floats` floats of shared
    /// memory per stage.
    pub const fn launch(self, m: u32, n: u32, stage_floats: u32) -> LaunchShape {
        tiled_launch(m, n, self.tile_m, self.tile_n, self.threads(), float_bytes(self.stages * stage_floats))
    }

    /// Fails (at compile time, in a `const`) unless the thread tiles cover
    /// the block tile exactly and, where warp tiles are given, the warps'
    /// 32 threads each cover their warp tile exactly.
    pub const fn check(self) {
        assert!(self.tile_m % self.thread_m == 0 && self.tile_n % self.thread_n == 0, "thread tiles must cover the block tile");
        assert!(self.stages >= 1);
        if self.warp_m != 0 || self.warp_n != 0 {
            assert!(self.tile_m % self.warp_m == 0 && self.tile_n % self.warp_n == 0, "warp tiles must cover the block tile");
            assert!((self.warp_m / self.thread_m) * (self.warp_n / self.thread_n) == WARP_SIZE, "a warp tile is 32 thread tiles");
            assert!(self.threads() == (self.tile_m / self.warp_m) * (self.tile_n / self.warp_n) * WARP_SIZE);
        }
    }
}
