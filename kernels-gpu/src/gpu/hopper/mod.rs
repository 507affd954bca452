//! Hopper's own data path (sm_90a): the tensor-memory accelerator (TMA)
//! copies tiles from global to shared memory on its own, an `mbarrier` in
//! shared memory counts the bytes as they land, and `wgmma` lets a
//! warpgroup (four consecutive warps, 128 threads) multiply tiles that it
//! reads straight from shared memory.
//!
//! - [`descriptor`]: the 64-bit shared-memory matrix descriptors wgmma
//!   reads, and the 128-byte swizzle they describe (plain Rust, tested on
//!   the host);
//! - `mbarrier`: transaction barriers and the phase-parity wait;
//! - `tma`: 2D bulk tensor copies and the async-proxy fence;
//! - `wgmma`: fence, commit, wait and the `mma_async` shapes the rungs use;
//! - `setmaxnreg` (`set_max_registers_increase`/`_decrease`): moving registers between warpgroups;
//! - `griddepcontrol` (`launch_dependents`, `wait_for_prerequisite_grids`):
//!   a second kernel that starts while the first finishes.
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

/// `griddepcontrol.launch_dependents`: this block has done what a grid
/// launched after it (with programmatic stream serialization) may start
/// beside; once every block of this grid has said so or exited, the
/// dependent grid's blocks may be scheduled. A no-op when none waits.
#[cfg(ptx_ladder_hopper)]
#[inline(always)]
pub fn launch_dependents() {
    unsafe { core::arch::asm!("griddepcontrol.launch_dependents;") }
}

/// `griddepcontrol.wait`: waits until the grids this one was launched
/// after have completed and their writes are visible. A grid launched
/// with programmatic stream serialization must call it before it reads
/// what they wrote.
#[cfg(ptx_ladder_hopper)]
#[inline(always)]
pub fn wait_for_prerequisite_grids() {
    unsafe { core::arch::asm!("griddepcontrol.wait;") }
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

/// `barrier.sync id, threads`: a barrier for `threads` threads (a multiple
/// of 32) of the block, numbered `id` (1 to 15; 0 is the block-wide
/// barrier). Lets one warpgroup, or the consumers without the producer,
/// synchronise while the rest of the block runs on.
///
/// Not `bar.sync`: that is `barrier.sync.aligned`, which every thread of a
/// warp must reach at the same instruction. rustc does not mark inline
/// assembly convergent, so LLVM may copy a barrier that follows an
/// `if thread == 0 { ... }` into both paths; with `.aligned` the warp then
/// waits at two different barrier instructions and the block hangs.
#[cfg(ptx_ladder_hopper)]
#[inline(always)]
pub fn sync_named(id: u32, threads: u32) {
    unsafe { core::arch::asm!("barrier.sync {i}, {n};", i = in(reg32) id, n = in(reg32) threads) }
}

/// `bar.warp.sync 0xffffffff`: the lanes of a warp wait for each other;
/// shared-memory writes before it are then visible to the whole warp.
/// Unlike `bar.sync`, lanes may reach it at different instructions (sm_70
/// and newer), so it is safe where LLVM copies it into both sides of an
/// `if lane == 0`.
#[cfg(ptx_ladder_hopper)]
#[inline(always)]
pub fn sync_warp() {
    unsafe { core::arch::asm!("bar.warp.sync 0xffffffff;") }
}

/// `st.shared.v2.f32 [address], {x, y}`: eight bytes at a shared-window
/// address.
///
/// # Safety
/// `address` is 8-byte aligned and inside this block's shared memory.
#[cfg(ptx_ladder_hopper)]
#[inline(always)]
pub unsafe fn store_shared_f32x2(address: u32, x: f32, y: f32) {
    unsafe { core::arch::asm!("st.shared.v2.f32 [{a}], {{{x}, {y}}};", a = in(reg32) address, x = in(reg32) x, y = in(reg32) y) }
}

/// `st.shared.v4.f32 [address], {v}`: sixteen bytes at a shared-window
/// address.
///
/// # Safety
/// `address` is 16-byte aligned and inside this block's shared memory.
#[cfg(ptx_ladder_hopper)]
#[inline(always)]
pub unsafe fn store_shared_f32x4(address: u32, v: [f32; 4]) {
    unsafe {
        core::arch::asm!(
            "st.shared.v4.f32 [{a}], {{{x}, {y}, {z}, {w}}};",
            a = in(reg32) address,
            x = in(reg32) v[0],
            y = in(reg32) v[1],
            z = in(reg32) v[2],
            w = in(reg32) v[3],
        )
    }
}

/// `mapa.shared::cluster.u32` then `st.shared::cluster.v4.f32`: sixteen
/// bytes at shared address `address` of the cluster's block `rank`
/// (distributed shared memory; this block's own when `rank` is its rank).
/// The store does not wait for the remote block: a cluster barrier
/// ([`sync_cluster`]) makes it visible there.
///
/// # Safety
/// `address` is 16-byte aligned and inside block `rank`'s shared memory,
/// which nothing else is using, and block `rank` has not exited.
#[cfg(ptx_ladder_hopper)]
#[inline(always)]
pub unsafe fn store_cluster_f32x4(address: u32, rank: u32, v: [f32; 4]) {
    unsafe {
        core::arch::asm!(
            "{{ .reg .b32 remote;",
            "mapa.shared::cluster.u32 remote, {a}, {r};",
            "st.shared::cluster.v4.f32 [remote], {{{x}, {y}, {z}, {w}}}; }}",
            a = in(reg32) address,
            r = in(reg32) rank,
            x = in(reg32) v[0],
            y = in(reg32) v[1],
            z = in(reg32) v[2],
            w = in(reg32) v[3],
        )
    }
}

/// `ld.shared.v4.f32`: sixteen bytes at a shared-window address.
///
/// # Safety
/// `address` is 16-byte aligned and inside this block's shared memory.
#[cfg(ptx_ladder_hopper)]
#[inline(always)]
pub unsafe fn load_shared_f32x4(address: u32) -> [f32; 4] {
    let (x, y, z, w): (f32, f32, f32, f32);
    unsafe {
        core::arch::asm!(
            "ld.shared.v4.f32 {{{x}, {y}, {z}, {w}}}, [{a}];",
            a = in(reg32) address,
            x = out(reg32) x,
            y = out(reg32) y,
            z = out(reg32) z,
            w = out(reg32) w,
        )
    };
    [x, y, z, w]
}

/// `%cluster_ctarank`: this block's rank in its cluster.
#[cfg(ptx_ladder_hopper)]
#[inline(always)]
pub fn cluster_rank() -> u32 {
    let rank: u32;
    unsafe { core::arch::asm!("mov.u32 {r}, %cluster_ctarank;", r = out(reg32) rank, options(pure, nomem, nostack)) };
    rank
}

/// `barrier.cluster.arrive` + `barrier.cluster.wait`: every thread of every
/// block of the cluster waits here; shared-memory writes before it (such as
/// mbarrier initialisation) are visible to the whole cluster after it.
/// (Not the `.aligned` forms, for the reason [`sync_named`] gives.)
#[cfg(ptx_ladder_hopper)]
#[inline(always)]
pub fn sync_cluster() {
    unsafe { core::arch::asm!("barrier.cluster.arrive;", "barrier.cluster.wait;") }
}
