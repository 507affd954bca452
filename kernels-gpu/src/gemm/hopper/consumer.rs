//! The consumer side of the BF16 Hopper rungs: a warpgroup issues a
//! k-tile's wgmmas on a stage that has landed, retires the k-tile before
//! (its stage goes back to the producer), and finishes a tile; or, with
//! nothing to compute, hands the stages straight back.

use super::ring::Ring;
use super::stages::{B_BOX_BYTES, Stages, TILING};
use crate::gpu;
use crate::gpu::hopper::descriptor::{ATOM_BYTES, SWIZZLE_BYTES, swizzled_128};
use crate::gpu::hopper::wgmma::Accumulators;
use crate::gpu::hopper::{WARPGROUP_THREADS, sync_named, wgmma};

const TILE_N: u32 = TILING.tile_n;
const TILE_K: u32 = TILING.tile_k;

/// Waits until the ring's k-tile `i` has landed, then issues warpgroup
/// `consumer`'s wgmmas on it into `acc` (64 rows × `N` columns: `N / 2`
/// per thread), as one commit group (running when this returns).
#[inline(always)]
pub unsafe fn issue_k_tile<const N: u32, const ACC: usize>(ring: &Ring, tiles: Stages<N>, consumer: u32, i: u32, acc: &mut [f32; ACC])
where
    [f32; ACC]: Accumulators,
{
    const { assert!(2 * ACC as u32 == N, "a thread holds half a row of the tile") };
    let s = unsafe { ring.wait_full(i) };
    wgmma::fence();
    for kk in 0..TILE_K / 16 {
        // A: this warpgroup's 64 rows, 16 values of K further along
        // each 128-byte row. B: 16 k-rows further down; 64-column
        // boxes B_BOX_BYTES apart, 8-row atoms 1024 bytes apart.
        let a = swizzled_128(tiles.a(s) + consumer * 64 * SWIZZLE_BYTES + kk * 32, 16, ATOM_BYTES);
        let b = swizzled_128(tiles.b(s) + kk * 16 * SWIZZLE_BYTES, B_BOX_BYTES, ATOM_BYTES);
        unsafe { acc.mma(a, b) };
    }
    wgmma::commit();
}

/// One tile's `k_steps` k-tiles for warpgroup `consumer`, starting at
/// the ring's k-tile `*i` (advanced past them); returns the 64×TILE_N
/// accumulators. After each k-tile's stage is handed back, `refill`
/// gets that k-tile's number within the tile and in the ring.
#[inline(always)]
pub unsafe fn mainloop(
    ring: &Ring,
    tiles: Stages<TILE_N>,
    consumer: u32,
    i: &mut u32,
    k_steps: u32,
    mut refill: impl FnMut(u32, u32),
) -> [f32; TILE_N as usize / 2] {
    let leader = gpu::thread_idx().x % WARPGROUP_THREADS == 0;
    let mut acc = [0.0f32; TILE_N as usize / 2];
    for kt in 0..k_steps {
        unsafe { issue_k_tile(ring, tiles, consumer, *i, &mut acc) };
        // Keep this k-tile's wgmmas running; the previous one's are
        // done, so its stage can be handed back (and refilled).
        wgmma::wait::<1>();
        if kt > 0 {
            if leader {
                unsafe { ring.release(*i - 1) };
            }
            refill(kt - 1, *i - 1);
        }
        *i += 1;
    }
    wgmma::wait::<0>();
    wgmma::fence_operands(&mut acc);
    if k_steps > 0 && leader {
        unsafe { ring.release(*i - 1) };
    }
    acc
}

/// `k_steps` k-tiles for warpgroup `consumer` when it has no rows to
/// compute (all below M): its leader waits for each stage to land and
/// hands it straight back, so the producer's count of releases stays
/// right; `*i` advances past them in every thread.
///
/// The warpgroup then waits for its leader (named barrier `1 +
/// consumer`): otherwise its other threads would run on into the next
/// unit and wait on a stage's barrier while the leader is still handing
/// back an earlier use of it. A parity wait cannot tell those uses apart,
/// and the next unit's wgmmas need the whole warpgroup anyway.
#[inline(always)]
pub unsafe fn drain(ring: &Ring, consumer: u32, i: &mut u32, k_steps: u32) {
    if gpu::thread_idx().x % WARPGROUP_THREADS == 0 {
        for j in *i..*i + k_steps {
            unsafe {
                ring.wait_full(j);
                ring.release(j);
            }
        }
    }
    *i += k_steps;
    sync_named(1 + consumer, WARPGROUP_THREADS);
}
