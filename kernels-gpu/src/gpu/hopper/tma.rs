//! The tensor-memory accelerator: one thread asks for a whole 2D tile, the
//! copy engine fetches it (zero-filling whatever lies outside the matrix),
//! writes it to shared memory in the swizzled layout its tensor map names,
//! and reports the bytes to an mbarrier.

/// The driver's 128-byte `CUtensorMap`, made on the host by
/// `cuTensorMapEncodeTiled`. Kernels receive a pointer to it in global
/// memory.
#[repr(C, align(64))]
pub struct TensorMap(pub [u64; 16]);

/// `prefetch.tensormap`, for each of the `count` tensor maps from `maps`
/// on: the copy engine fetches a map the first time a copy names it, and a
/// kernel's first copies would otherwise wait for that fetch. One thread
/// calls it first thing, so the fetch overlaps the block's setup.
///
/// # Safety
/// `maps` points to `count` tensor maps in global memory.
#[inline(always)]
pub unsafe fn prefetch_maps(maps: *const TensorMap, count: u32) {
    for i in 0..count as usize {
        unsafe { core::arch::asm!("prefetch.tensormap [{m}];", m = in(reg64) maps.add(i)) }
    }
}

/// `cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes`:
/// copies the box of `map` whose first element is at column `x`, row `y`
/// into shared memory at `dst`, and reports its bytes to `bar`.
///
/// # Safety
/// `map` points to a valid tensor map in global memory, `dst` is a shared
/// address aligned as the swizzle needs (1024 bytes for 128-byte swizzle)
/// with room for the box, and `bar` is an mbarrier expecting these bytes.
#[inline(always)]
pub unsafe fn load_2d(dst: u32, map: *const TensorMap, bar: u32, x: u32, y: u32) {
    unsafe {
        core::arch::asm!(
            "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [{d}], [{m}, {{{x}, {y}}}], [{b}];",
            d = in(reg32) dst,
            m = in(reg64) map,
            x = in(reg32) x,
            y = in(reg32) y,
            b = in(reg32) bar,
        )
    }
}

/// `fence.mbarrier_init.release.cluster`: makes freshly initialised
/// mbarriers visible to the async proxy (the copy engine) before any copy
/// is issued against them.
#[inline(always)]
pub fn fence_barrier_init() {
    unsafe { core::arch::asm!("fence.mbarrier_init.release.cluster;") }
}

/// `cp.async.bulk.tensor.2d.global.shared::cta.bulk_group`: the other
/// direction, shared memory to global. Copies the box at shared address
/// `src` (in the map's swizzled layout) to column `x`, row `y` of `map`'s
/// matrix; elements that fall outside the matrix are not written, so edge
/// tiles need no bounds checks. The copy joins this thread's current bulk
/// group ([`commit_group`]); `src` must not change until the group's
/// reads are done ([`wait_group_read`]).
///
/// # Safety
/// As [`load_2d`]; the box at `src` was written by this block and made
/// visible to the copy engine with [`fence_proxy_async_shared`].
#[inline(always)]
pub unsafe fn store_2d(map: *const TensorMap, src: u32, x: u32, y: u32) {
    unsafe {
        core::arch::asm!(
            "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [{m}, {{{x}, {y}}}], [{s}];",
            m = in(reg64) map,
            s = in(reg32) src,
            x = in(reg32) x,
            y = in(reg32) y,
        )
    }
}

/// `cp.async.bulk.commit_group`: closes this thread's bulk group: the
/// [`store_2d`] copies issued since the last commit.
#[inline(always)]
pub fn commit_group() {
    unsafe { core::arch::asm!("cp.async.bulk.commit_group;") }
}

/// `cp.async.bulk.wait_group.read N`: waits until at most `N` of this
/// thread's bulk groups still read their shared-memory source, so older
/// sources may be overwritten (their global writes may still be in flight).
#[inline(always)]
pub fn wait_group_read<const N: u32>() {
    unsafe { core::arch::asm!("cp.async.bulk.wait_group.read {n};", n = const N) }
}

/// `cp.async.bulk.wait_group 0`: waits until every bulk group of this
/// thread has finished, writes included; a block does this before it exits.
#[inline(always)]
pub fn wait_group_all() {
    unsafe { core::arch::asm!("cp.async.bulk.wait_group 0;") }
}

/// `fence.proxy.async.shared::cta`: orders this thread's ordinary shared
/// stores before later copies of the async proxy (TMA), which reads
/// shared memory by a different path. Every writing thread fences, then a
/// barrier, then one thread issues the [`store_2d`].
#[inline(always)]
pub fn fence_proxy_async_shared() {
    unsafe { core::arch::asm!("fence.proxy.async.shared::cta;") }
}

/// `cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster`:
/// as [`load_2d`], but the box lands at the same shared address `dst` in
/// every block of the cluster named in `mask` (bit `r` for rank `r`), and
/// each of them counts the bytes on its own mbarrier at address `bar`.
/// One read of L2 feeds several multiprocessors.
///
/// # Safety
/// As [`load_2d`], in every block of `mask`; those blocks are running.
#[inline(always)]
pub unsafe fn load_2d_multicast(dst: u32, map: *const TensorMap, bar: u32, x: u32, y: u32, mask: u16) {
    unsafe {
        core::arch::asm!(
            "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [{d}], [{m}, {{{x}, {y}}}], [{b}], {k};",
            d = in(reg32) dst,
            m = in(reg64) map,
            x = in(reg32) x,
            y = in(reg32) y,
            b = in(reg32) bar,
            k = in(reg16) mask,
        )
    }
}
