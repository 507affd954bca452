//! Hopper's own data path (sm_90a): the tensor-memory accelerator (TMA)
//! copies tiles from global to shared memory on its own, an `mbarrier` in
//! shared memory counts the bytes as they land, and `wgmma` lets a
//! warpgroup (four consecutive warps, 128 threads) multiply tiles that it
//! reads straight from shared memory.
//!
//! - [`descriptor`]: the 64-bit shared-memory matrix descriptors wgmma
//!   reads, and the 128-byte swizzle they describe (plain Rust, tested on
//!   the host);
//! - [`mbarrier`]: transaction barriers and the phase-parity wait;
//! - [`tma`]: 2D bulk tensor copies and the async-proxy fence;
//! - [`wgmma`]: fence, commit, wait and the `mma_async` shapes the rungs use;
//! - [`setmaxnreg`](fn@set_max_registers_increase): moving registers between warpgroups.
//!
//! Everything but the descriptors exists only in the sm_90a module (the
//! builder's `--cfg ptx_ladder_hopper` build); the CPU emulator does not
//! run Hopper kernels.

pub mod descriptor;
#[cfg(ptx_ladder_hopper)]
pub mod mbarrier;
#[cfg(ptx_ladder_hopper)]
pub mod tma;
#[cfg(ptx_ladder_hopper)]
pub mod wgmma;

/// Threads in a warpgroup: the unit that issues one `wgmma`.
pub const WARPGROUP_THREADS: u32 = 128;

/// The shared-window (`.shared::cta`) address of a generic pointer into
/// shared memory (`cvta.to.shared.u64` then truncated: the window is far
/// below 4 GB). mbarrier, TMA and wgmma descriptors all take these.
#[cfg(ptx_ladder_hopper)]
#[inline(always)]
pub fn shared_address<T>(ptr: *const T) -> u32 {
    let address: u64;
    unsafe {
        core::arch::asm!("cvta.to.shared.u64 {a}, {p};", a = out(reg64) address, p = in(reg64) ptr, options(pure, nomem, nostack));
    }
    address as u32
}

/// `setmaxnreg.inc.sync.aligned.u32 N`: this warpgroup asks for `N`
/// registers per thread (a multiple of 8, 24..=256), taken from those
/// other warpgroups released. Needs a register cap at kernel entry
/// (`.maxntid` with `.minnctapersm`), which the launch bounds give.
#[cfg(ptx_ladder_hopper)]
#[inline(always)]
pub fn set_max_registers_increase<const N: u32>() {
    unsafe { core::arch::asm!("setmaxnreg.inc.sync.aligned.u32 {n};", n = const N) }
}

/// `setmaxnreg.dec.sync.aligned.u32 N`: this warpgroup gives registers back
/// down to `N` per thread, for the others to take.
#[cfg(ptx_ladder_hopper)]
#[inline(always)]
pub fn set_max_registers_decrease<const N: u32>() {
    unsafe { core::arch::asm!("setmaxnreg.dec.sync.aligned.u32 {n};", n = const N) }
}
