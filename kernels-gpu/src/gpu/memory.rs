//! Memory operations that plain loads and stores cannot express: 128-bit
//! vector accesses, floating-point atomics and asynchronous global→shared
//! copies (`cp.async`, sm_80 and newer).

/// Four floats moved as one 16-byte access. A SIMD vector (not an array)
/// reaches LLVM as `<4 x float>`, which the NVPTX backend emits as one
/// `ld.v4.f32` / `st.v4.f32`; an array or struct of four floats is split
/// into scalar loads by LLVM's SROA pass and not always merged back.
type F32x4 = core::simd::Simd<f32, 4>;

#[cfg(not(target_arch = "nvptx64"))]
use crate::gpu::emulated::{AccessKind, CopyEvent, announce, copy_event};

/// On the host (emulation) a misaligned vector access is reported instead of
/// silently working: on the GPU it would be a misaligned-address fault.
#[inline(always)]
fn check_aligned_16(address: usize) {
    #[cfg(not(target_arch = "nvptx64"))]
    assert!(address % 16 == 0, "misaligned 16-byte access at {address:#x}");
    #[cfg(target_arch = "nvptx64")]
    let _ = address;
}

/// Loads `ptr[0..4]` with one 128-bit load. `ptr` must be 16-byte aligned.
///
/// # Safety
/// `ptr..ptr+4` must be readable (global or shared memory).
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub unsafe fn load_f32x4(ptr: *const f32) -> [f32; 4] {
    check_aligned_16(ptr as usize);
    #[cfg(not(target_arch = "nvptx64"))]
    if !announce(ptr.cast::<[f32; 4]>(), AccessKind::Read, None) {
        return unsafe { skipped_load() };
    }
    unsafe { ptr.cast::<F32x4>().read().to_array() }
}

/// [`load_f32x4`] for data read once (`ld.global.cs`, "cache streaming"):
/// its lines are the first the caches evict, so a stream of them does not
/// push out what the block reads again and again. `ptr` must be 16-byte
/// aligned.
///
/// # Safety
/// `ptr..ptr+4` must be readable global memory.
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub unsafe fn load_f32x4_streaming(ptr: *const f32) -> [f32; 4] {
    #[cfg(target_arch = "nvptx64")]
    unsafe {
        let (a, b, c, d): (f32, f32, f32, f32);
        core::arch::asm!(
            "{{ .reg .u64 g; cvta.to.global.u64 g, {p}; ld.global.cs.v4.b32 {{{a}, {b}, {c}, {d}}}, [g]; }}",
            a = out(reg32) a, b = out(reg32) b, c = out(reg32) c, d = out(reg32) d,
            p = in(reg64) ptr,
            options(readonly, nostack, preserves_flags),
        );
        [a, b, c, d]
    }
    #[cfg(not(target_arch = "nvptx64"))]
    unsafe {
        load_f32x4(ptr)
    }
}

/// Stores `values` to `ptr[0..4]` with one 128-bit store. `ptr` must be
/// 16-byte aligned.
///
/// # Safety
/// `ptr..ptr+4` must be writable (global or shared memory).
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub unsafe fn store_f32x4(ptr: *mut f32, values: [f32; 4]) {
    check_aligned_16(ptr as usize);
    #[cfg(not(target_arch = "nvptx64"))]
    if !announce(ptr.cast::<[f32; 4]>(), AccessKind::Write, Some(values)) {
        return;
    }
    unsafe { ptr.cast::<F32x4>().write(F32x4::from_array(values)) }
}

/// `*ptr += value`, atomically with respect to every other thread on the
/// device (`red.add.f32`: the result is not returned, so the hardware need
/// not send it back).
///
/// # Safety
/// `ptr` must point to a float in global or shared memory.
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub unsafe fn atomic_add_f32(ptr: *mut f32, value: f32) {
    #[cfg(target_arch = "nvptx64")]
    unsafe {
        core::arch::asm!("red.add.f32 [{p}], {v};", p = in(reg64) ptr, v = in(reg32) value);
    }
    #[cfg(not(target_arch = "nvptx64"))]
    if announce(ptr, AccessKind::Atomic, None) {
        use core::sync::atomic::{AtomicU32, Ordering};
        let cell = unsafe { AtomicU32::from_ptr(ptr.cast::<u32>()) };
        let mut old = cell.load(Ordering::Relaxed);
        loop {
            let new = (f32::from_bits(old) + value).to_bits();
            match cell.compare_exchange_weak(old, new, Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => break,
                Err(seen) => old = seen,
            }
        }
    }
}

/// `*ptr += value` on a 32-bit unsigned integer, atomically with respect to
/// every other thread on the device (`red.add.u32`): counters and
/// histograms.
///
/// # Safety
/// `ptr` must point to a `u32` in global or shared memory.
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub unsafe fn atomic_add_u32(ptr: *mut u32, value: u32) {
    #[cfg(target_arch = "nvptx64")]
    unsafe {
        core::arch::asm!("red.add.u32 [{p}], {v};", p = in(reg64) ptr, v = in(reg32) value);
    }
    #[cfg(not(target_arch = "nvptx64"))]
    if announce(ptr, AccessKind::Atomic, None) {
        use core::sync::atomic::{AtomicU32, Ordering};
        unsafe { AtomicU32::from_ptr(ptr) }.fetch_add(value, Ordering::Relaxed);
    }
}

/// `*ptr += value` on a 32-bit unsigned integer, returning the value before
/// (`atom.acq_rel.gpu.global.add.u32`): a release of this thread's earlier
/// writes and an acquire of those released by the threads that added
/// before it, device-wide. A counter of blocks that finished their part:
/// the block that reads `count - 1` is the last, and sees the others' work.
///
/// # Safety
/// `ptr` must point to a `u32` in global memory.
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub unsafe fn atomic_add_acq_rel_u32(ptr: *mut u32, value: u32) -> u32 {
    #[cfg(target_arch = "nvptx64")]
    unsafe {
        let old: u32;
        core::arch::asm!(
            "{{ .reg .u64 g; cvta.to.global.u64 g, {p}; atom.acq_rel.gpu.global.add.u32 {old}, [g], {v}; }}",
            old = out(reg32) old, p = in(reg64) ptr, v = in(reg32) value,
            options(nostack, preserves_flags),
        );
        old
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        if !announce(ptr, AccessKind::Atomic, None) {
            return unsafe { skipped_load() };
        }
        use core::sync::atomic::{AtomicU32, Ordering};
        unsafe { AtomicU32::from_ptr(ptr) }.fetch_add(value, Ordering::AcqRel)
    }
}

/// `fence.acq_rel.gpu` (`__threadfence()`): this thread's memory accesses
/// before it are ordered, for every thread of the device, before those
/// after it. A block writes its results, fences, then signals.
#[inline(always)]
pub fn fence_device() {
    #[cfg(target_arch = "nvptx64")]
    unsafe {
        core::arch::asm!("fence.acq_rel.gpu;", options(nostack, preserves_flags))
    }
    #[cfg(not(target_arch = "nvptx64"))]
    core::sync::atomic::fence(core::sync::atomic::Ordering::SeqCst)
}

/// `*ptr` read from L2, past this SM's L1 (`ld.global.cg`): for data other
/// blocks wrote during this kernel, which an L1 line could hold stale.
///
/// # Safety
/// `ptr` must be readable global memory.
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub unsafe fn load_l2(ptr: *const f32) -> f32 {
    #[cfg(target_arch = "nvptx64")]
    unsafe {
        let v: f32;
        core::arch::asm!(
            "{{ .reg .u64 g; cvta.to.global.u64 g, {p}; ld.global.cg.f32 {v}, [g]; }}",
            v = out(reg32) v, p = in(reg64) ptr,
            options(readonly, nostack, preserves_flags),
        );
        v
    }
    #[cfg(not(target_arch = "nvptx64"))]
    unsafe {
        load(ptr)
    }
}

/// [`load_l2`] of `ptr[0..4]` in one 16-byte load; `ptr` 16-byte aligned.
///
/// # Safety
/// `ptr..ptr+4` must be readable global memory.
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub unsafe fn load_f32x4_l2(ptr: *const f32) -> [f32; 4] {
    #[cfg(target_arch = "nvptx64")]
    unsafe {
        let (a, b, c, d): (f32, f32, f32, f32);
        core::arch::asm!(
            "{{ .reg .u64 g; cvta.to.global.u64 g, {p}; ld.global.cg.v4.b32 {{{a}, {b}, {c}, {d}}}, [g]; }}",
            a = out(reg32) a, b = out(reg32) b, c = out(reg32) c, d = out(reg32) d,
            p = in(reg64) ptr,
            options(readonly, nostack, preserves_flags),
        );
        [a, b, c, d]
    }
    #[cfg(not(target_arch = "nvptx64"))]
    unsafe {
        load_f32x4(ptr)
    }
}

/// Starts copying 16 bytes from global memory to shared memory without
/// passing through registers. Only the first `valid_bytes` (0, 4, 8, 12 or
/// 16) are read; the rest of the 16 destination bytes are filled with zeros,
/// which is how tiles are padded at matrix edges. Both addresses must be
/// 16-byte aligned. The copy lands only after [`cp_async_wait`] (and a
/// barrier, for other threads to see it).
///
/// # Safety
/// `dst` must be in shared memory, `src..src+valid_bytes` readable global
/// memory.
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub unsafe fn cp_async_16(dst: *mut f32, src: *const f32, valid_bytes: u32) {
    check_aligned_16(dst as usize);
    check_aligned_16(src as usize);
    #[cfg(target_arch = "nvptx64")]
    unsafe {
        core::arch::asm!(
            "{{ .reg .u64 d, s;",
            "cvta.to.shared.u64 d, {dst};",
            "cvta.to.global.u64 s, {src};",
            "cp.async.cg.shared.global [d], [s], 16, {n}; }}",
            dst = in(reg64) dst,
            src = in(reg64) src,
            n = in(reg32) valid_bytes,
        );
    }
    #[cfg(not(target_arch = "nvptx64"))]
    unsafe {
        copy_zero_filled(dst, src, valid_bytes as usize / 4, 4)
    }
}

/// Like [`cp_async_16`] for one float (4 bytes, `valid_bytes` 0 or 4): the
/// fallback when a matrix row is not 16-byte aligned.
///
/// # Safety
/// `dst` must be in shared memory, `src..src+valid_bytes` readable global
/// memory.
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub unsafe fn cp_async_4(dst: *mut f32, src: *const f32, valid_bytes: u32) {
    #[cfg(target_arch = "nvptx64")]
    unsafe {
        core::arch::asm!(
            "{{ .reg .u64 d, s;",
            "cvta.to.shared.u64 d, {dst};",
            "cvta.to.global.u64 s, {src};",
            "cp.async.ca.shared.global [d], [s], 4, {n}; }}",
            dst = in(reg64) dst,
            src = in(reg64) src,
            n = in(reg32) valid_bytes,
        );
    }
    #[cfg(not(target_arch = "nvptx64"))]
    unsafe {
        copy_zero_filled(dst, src, valid_bytes as usize / 4, 1)
    }
}

/// Host emulation of `cp.async`: the copy happens at once, as loads and
/// stores the checkers see; the race checker treats the destination as in
/// flight until a [`cp_async_wait`] retires the copy's group.
#[cfg(not(target_arch = "nvptx64"))]
#[track_caller]
unsafe fn copy_zero_filled(dst: *mut f32, src: *const f32, valid: usize, total: usize) {
    for i in 0..total {
        unsafe { store(dst.add(i), if i < valid { load(src.add(i)) } else { 0.0 }) };
    }
    copy_event(CopyEvent::Start { address: dst as usize, bytes: 4 * total as u32 });
}

/// `*ptr`: one plain load (`ld`). Kernels that read through it instead of
/// dereferencing are seen by the emulator's race and bounds checkers.
///
/// # Safety
/// `ptr` must be readable (global or shared memory).
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub unsafe fn load<T: Copy>(ptr: *const T) -> T {
    #[cfg(not(target_arch = "nvptx64"))]
    if !announce(ptr, AccessKind::Read, None) {
        return unsafe { skipped_load() };
    }
    unsafe { *ptr }
}

/// `*ptr = value`: one plain store (`st`), seen by the emulator's checkers.
///
/// # Safety
/// `ptr` must be writable (global or shared memory).
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub unsafe fn store<T: Copy>(ptr: *mut T, value: T) {
    #[cfg(not(target_arch = "nvptx64"))]
    if !announce(ptr, AccessKind::Write, Some(value)) {
        return;
    }
    unsafe { *ptr = value };
}

/// `ptr.read_volatile()`: a load the compiler may neither drop, merge nor
/// hoist out of a loop (`ld.volatile`), seen by the emulator's checkers.
///
/// # Safety
/// `ptr` must be readable (global or shared memory).
#[inline(always)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub unsafe fn load_volatile<T: Copy>(ptr: *const T) -> T {
    #[cfg(not(target_arch = "nvptx64"))]
    if !announce(ptr, AccessKind::Read, None) {
        return unsafe { skipped_load() };
    }
    unsafe { ptr.read_volatile() }
}

/// What a load the emulator refused (out of bounds) returns: all bits set
/// (a NaN for floats), so the result is visibly wrong.
///
/// # Safety
/// `T` must be plain data of at most 16 bytes.
#[cfg(not(target_arch = "nvptx64"))]
unsafe fn skipped_load<T: Copy>() -> T {
    unsafe { core::mem::transmute_copy(&[u32::MAX; 4]) }
}

/// Closes the group of `cp.async` copies this thread started since the last
/// commit; [`cp_async_wait`] waits for groups.
#[inline(always)]
pub fn cp_async_commit() {
    #[cfg(target_arch = "nvptx64")]
    unsafe {
        core::arch::asm!("cp.async.commit_group;");
    }
    #[cfg(not(target_arch = "nvptx64"))]
    copy_event(CopyEvent::Commit);
}

/// Waits until at most `PENDING` of this thread's committed copy groups are
/// still in flight (0: all have landed).
#[inline(always)]
pub fn cp_async_wait<const PENDING: u32>() {
    #[cfg(target_arch = "nvptx64")]
    unsafe {
        core::arch::asm!("cp.async.wait_group {n};", n = const PENDING);
    }
    #[cfg(not(target_arch = "nvptx64"))]
    copy_event(CopyEvent::Wait { pending: PENDING });
}

/// `ptr + elements` as one `mad.wide.u32` (SASS: a single `IMAD.WIDE.U32`).
///
/// Walking down a column of a row-major matrix adds the row length at every
/// step. Written as `ptr.add(n as usize)`, LLVM hoists the 64-bit stride out
/// of the loop and every step then costs a pair of 32-bit adds with carry;
/// nvcc gets one instruction from C++ because signed `int` overflow is
/// undefined there. The kernels index in 32 bits (the host caps each matrix
/// below 2^31 elements), so the wide multiply-add is exact. LLVM no longer
/// knows the result points to global memory, so loads through it are
/// generic `ld` instructions; on the H200 that cost nothing measurable.
#[inline(always)]
pub fn advance(ptr: *const f32, elements: u32) -> *const f32 {
    #[cfg(target_arch = "nvptx64")]
    unsafe {
        let out: *const f32;
        core::arch::asm!("mad.wide.u32 {o}, {n}, 4, {p};", o = out(reg64) out, n = in(reg32) elements, p = in(reg64) ptr, options(pure, nomem, nostack));
        out
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        ptr.wrapping_add(elements as usize)
    }
}

/// Loads the 64-bit word at generic address `ptr`, allowing it to be kept
/// in the SM's L1 cache (`ld.ca.u64`: "cache at all levels").
///
/// # Safety
/// `ptr` must point to a readable, 8-byte aligned word in global memory.
#[inline(always)]
pub unsafe fn load_u64_cache_all(ptr: *const u64) -> u64 {
    #[cfg(target_arch = "nvptx64")]
    unsafe {
        let value: u64;
        core::arch::asm!("ld.ca.u64 {v}, [{p}];", v = out(reg64) value, p = in(reg64) ptr, options(readonly, nostack));
        value
    }
    #[cfg(not(target_arch = "nvptx64"))]
    unsafe {
        ptr.read()
    }
}

/// Loads the 64-bit word at generic address `ptr` from L2, never from L1
/// (`ld.cg.u64`: "cache globally").
///
/// # Safety
/// `ptr` must point to a readable, 8-byte aligned word in global memory.
#[inline(always)]
pub unsafe fn load_u64_cache_global(ptr: *const u64) -> u64 {
    #[cfg(target_arch = "nvptx64")]
    unsafe {
        let value: u64;
        core::arch::asm!("ld.cg.u64 {v}, [{p}];", v = out(reg64) value, p = in(reg64) ptr, options(readonly, nostack));
        value
    }
    #[cfg(not(target_arch = "nvptx64"))]
    unsafe {
        ptr.read()
    }
}
