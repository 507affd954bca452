//! Launch arithmetic: how many blocks cover `n` elements, and what the
//! hardware allows.
//!
//! A launch always starts whole blocks, so the thread count is `n` rounded
//! up to a multiple of the block size; the extra threads in the last block
//! must be masked off by the kernel (`if i < n`).

use crate::error::{Error, Result};
use crate::text::plural;
use kernels_gpu::launch::LaunchShape;

/// Limits that apply to every launch on current NVIDIA GPUs (compute
/// capability 3.0 and newer). The device's own values are checked again at
/// launch time.
pub const MAX_THREADS_PER_BLOCK: u32 = 1024;
pub const MAX_GRID_X: u64 = (1 << 31) - 1;

/// A 1D launch over `n` elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Launch1d {
    pub n: u64,
    pub threads_per_block: u32,
    pub blocks: u64,
}

impl Launch1d {
    /// Threads started: blocks × threads per block (≥ n).
    pub fn threads(&self) -> u64 {
        self.blocks * self.threads_per_block as u64
    }

    /// Threads started past the end of the data, all in the last block.
    pub fn idle_threads(&self) -> u64 {
        self.threads() - self.n
    }

    /// The grid, block and (no) shared memory to launch with.
    pub fn shape(&self) -> LaunchShape {
        LaunchShape::linear(self.blocks as u32, self.threads_per_block, 0)
    }

    /// The round-up spelled out, for the user.
    pub fn explain(&self) -> String {
        if self.n == 0 {
            return "n = 0: nothing to launch".into();
        }
        format!(
            "n = {n}, block = {b} → grid = ceil({n} / {tpb}) = {blocks} = {threads}; \
             the last block has {idle}, masked off by `if i < n`",
            n = self.n,
            b = plural(self.threads_per_block as u64, "thread"),
            tpb = self.threads_per_block,
            blocks = plural(self.blocks, "block"),
            threads = plural(self.threads(), "thread"),
            idle = plural(self.idle_threads(), "idle thread"),
        )
    }
}

/// Blocks of `threads_per_block` covering `n` elements, or why not.
pub fn launch_1d(n: u64, threads_per_block: u32) -> Result<Launch1d> {
    if threads_per_block == 0 {
        return Err(Error::new("block size must be at least 1 thread"));
    }
    if threads_per_block > MAX_THREADS_PER_BLOCK {
        return Err(Error::new(format!(
            "block size {threads_per_block} is over the hardware limit of {MAX_THREADS_PER_BLOCK} threads per block"
        )));
    }
    let blocks = n.div_ceil(threads_per_block as u64);
    if blocks > MAX_GRID_X {
        return Err(Error::new(format!(
            "n = {n} with {threads_per_block} threads per block needs {blocks} blocks; a grid allows at most {MAX_GRID_X} along x (use bigger blocks)"
        )));
    }
    Ok(Launch1d { n, threads_per_block, blocks })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_up_and_mask_for_small_n() {
        // (n, blocks, idle threads) with 256 threads per block.
        for (n, blocks, idle) in [(0, 0, 0), (1, 1, 255), (255, 1, 1), (256, 1, 0), (257, 2, 255)] {
            let launch = launch_1d(n, 256).unwrap();
            assert_eq!((launch.blocks, launch.idle_threads()), (blocks, idle), "n = {n}");
            assert!(launch.threads() >= n);
        }
    }

    #[test]
    fn explanation_shows_the_arithmetic() {
        let text = launch_1d(1000, 256).unwrap().explain();
        assert!(text.contains("ceil(1000 / 256) = 4 blocks = 1024 threads"), "{text}");
        assert!(text.contains("24 idle threads"), "{text}");
        assert_eq!(launch_1d(0, 256).unwrap().explain(), "n = 0: nothing to launch");
        let one = launch_1d(1, 1).unwrap().explain();
        assert!(one.starts_with("n = 1, block = 1 thread → grid = ceil(1 / 1) = 1 block = 1 thread;"), "{one}");
        assert!(one.contains("has 0 idle threads"), "{one}");
        assert!(launch_1d(255, 256).unwrap().explain().contains("has 1 idle thread,"));
    }

    #[test]
    fn grid_limit_is_exact() {
        // Exactly the largest grid fits; one more element needs one block too many.
        let n = MAX_GRID_X * 1024;
        assert_eq!(launch_1d(n, 1024).unwrap().blocks, MAX_GRID_X);
        let err = launch_1d(n + 1, 1024).unwrap_err();
        assert!(err.message().contains("at most 2147483647"), "{err}");
        // The largest vecadd (n = 2^32 - 1) needs blocks of at least 3 threads.
        assert!(launch_1d(u32::MAX as u64, 2).is_err());
        assert_eq!(launch_1d(u32::MAX as u64, 4).unwrap().blocks, 1 << 30);
    }

    #[test]
    fn block_size_limits() {
        assert!(launch_1d(10, 0).unwrap_err().message().contains("at least 1"));
        assert!(launch_1d(10, 1025).unwrap_err().message().contains("limit of 1024"));
        assert_eq!(launch_1d(10, 1024).unwrap().blocks, 1);
    }

    #[test]
    fn shape_matches_the_arithmetic() {
        let shape = launch_1d(257, 128).unwrap().shape();
        assert_eq!(
            (shape.grid, shape.block, shape.shared_bytes),
            (kernels_gpu::launch::Dim3::new(3, 1, 1), kernels_gpu::launch::Dim3::new(128, 1, 1), 0)
        );
    }
}
