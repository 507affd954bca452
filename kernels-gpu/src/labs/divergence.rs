//! Divergence: a branch costs a warp both sides only when its lanes
//! disagree. Each side is the same amount of dependent arithmetic, written
//! differently so the compiler cannot merge them into one.

use crate::gpu;
use crate::launch::Kernel;
use kernels_macros::kernel;

pub const EVEN_ODD_LANE: u32 = 0;
pub const ALTERNATE_WARPS: u32 = 1;
pub const BY_BLOCK: u32 = 2;
pub const PATTERNS: [u32; 3] = [EVEN_ODD_LANE, ALTERNATE_WARPS, BY_BLOCK];

/// The kernel of a pattern.
pub const fn kernel_for(pattern: u32) -> Kernel<(*mut f32, u32)> {
    match pattern {
        EVEN_ODD_LANE => BRANCH_EVEN_ODD_LANE,
        ALTERNATE_WARPS => BRANCH_ALTERNATE_WARPS,
        _ => BRANCH_BY_BLOCK,
    }
}

/// `work` dependent FMAs down one of two paths chosen by `PATTERN`; the
/// result goes to `out[i]` so neither path is optimised away.
#[inline(always)]
unsafe fn body<const PATTERN: u32>(out: *mut f32, work: u32) {
    let i = gpu::global_x();
    let take_then = match PATTERN {
        EVEN_ODD_LANE => i % 2 == 0,
        ALTERNATE_WARPS => (i / 32) % 2 == 0,
        _ => gpu::block_idx().x % 2 == 0,
    };
    let mut x = (i % 1024) as f32 * 1e-3;
    if take_then {
        for _ in 0..work {
            x = gpu::fma(x, 0.999, 0.5);
        }
    } else {
        for _ in 0..work {
            x = gpu::fma(x, x, -0.25) * 0.5;
        }
    }
    unsafe { gpu::store(out.add(i as usize), x) };
}

macro_rules! branch_kernels {
    ($($name:ident = $pattern:expr;)*) => {$(
        /// The divergence lab's kernel for one branch pattern (see `body`):
        /// 1-D blocks; thread i writes its result to `out[global i]`.
        #[kernel]
        pub unsafe fn $name(out: *mut f32, work: u32) {
            unsafe { body::<{ $pattern }>(out, work) }
        }
    )*};
}

branch_kernels! {
    branch_even_odd_lane = EVEN_ODD_LANE;
    branch_alternate_warps = ALTERNATE_WARPS;
    branch_by_block = BY_BLOCK;
}
