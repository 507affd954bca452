//! Runs a kernel on the CPU: each GPU thread of a block is an OS thread,
//! barriers and warp shuffles are real synchronisation, and shared memory
//! starts as NaN poison. Kernels run unchanged (the device helpers read the
//! simulated thread's state), so indexing, masking, barrier placement and
//! 16-byte alignment are checked in CI without a GPU.
//!
//! Three checkers watch every launch and report what a GPU would not
//! (see [`findings`]): a barrier that not every thread reaches
//! (`barrier`), shared-memory races (`race`) and, when the launch
//! declares its buffers ([`Checks::buffer`]), accesses outside them
//! (`bounds`). Races and bounds see the accesses made through the device
//! helpers (`gpu::load`, `gpu::store`, the 128-bit and `cp.async` helpers,
//! atomics); a plain `*ptr` dereference is invisible to them.
//!
//! Blocks run one after another; `cp.async` copies land at once (the race
//! checker still treats them as in flight until waited for). It is a
//! correctness tool, not a performance model.

mod barrier;
mod bounds;
pub mod findings;
mod race;

pub use findings::{BarrierMismatch, Finding, Hazard, OutOfBounds, Race, Report};
pub use kernels_gpu::gpu::emulated::AccessKind;

use barrier::{Barrier, Broken, Mismatch};
use bounds::Buffer;
use kernels_gpu::bf16::Bf16Kernel;
use kernels_gpu::gpu::emulated::{self, Access, BlockHooks, CopyEvent, ThreadContext};
use kernels_gpu::launch::{Dim3, LaunchShape};
use kernels_gpu::sgemm::GemmKernel;
use std::collections::VecDeque;
use std::panic::Location;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};

const POISON_BITS: u32 = crate::device::POISON_BITS;
/// How a thread stopped by another's failure (or by a broken barrier) ends.
const STOPPED: &str = "another emulated thread failed";

/// What a launch tells the checkers: the kernel's name (for reports) and
/// the buffers its pointers cover. Without buffers, global accesses are
/// not bounds-checked; barriers and shared-memory races always are.
#[derive(Clone, Debug, Default)]
pub struct Checks {
    kernel: String,
    buffers: Vec<Buffer>,
}

impl Checks {
    pub fn new(kernel: &str) -> Checks {
        Checks { kernel: kernel.to_string(), buffers: Vec::new() }
    }

    /// Declares `len` elements of `T` at `ptr` as the buffer `name`.
    pub fn buffer<T>(mut self, name: &str, ptr: *const T, len: usize) -> Checks {
        self.buffers.push(Buffer { name: name.to_string(), start: ptr as usize, bytes: len * size_of::<T>() });
        self
    }
}

/// What the threads of the running block share.
struct Block {
    block_barrier: Barrier,
    warp_barriers: Vec<Barrier>,
    exchange_slots: Vec<[[AtomicU32; 8]; 32]>,
    failed: AtomicBool,
    /// Linear index of the running block.
    current: AtomicU64,
    grid: Dim3,
    /// Barrier intervals so far (every block start and every barrier
    /// release begins one): the race checker's clock.
    interval: AtomicU64,
    shared: std::ops::Range<usize>,
    shadow: race::Shadow,
    /// The shared window first, then the launch's buffers.
    buffers: Vec<Buffer>,
    /// Each thread's `cp.async` copies: those not yet committed, then the
    /// committed groups, oldest first ((offset, bytes) in shared memory).
    copies: Vec<Mutex<Copies>>,
    report: Mutex<Report>,
    /// Every access, when the launch asked for the log ([`launch_logged`]).
    log: Option<Mutex<Vec<Logged>>>,
    /// Accesses each thread made so far in the running block.
    counts: Vec<AtomicU32>,
}

/// One access through the device helpers, as [`launch_logged`] records it:
/// what pictures of a launch and the memory-pattern checks read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Logged {
    pub block: Dim3,
    /// The thread's rank in its block.
    pub thread: u32,
    /// This thread's how-manieth access in this block (0 first): the
    /// accesses of a warp's lanes with the same number are taken as one
    /// instruction (the lanes run the same code).
    pub seq: u32,
    /// In the block's shared memory (`address` is then a byte offset into
    /// it), or global.
    pub shared: bool,
    pub kind: AccessKind,
    pub address: usize,
    pub bytes: u32,
    pub site: &'static Location<'static>,
}

#[derive(Default)]
struct Copies {
    open: Vec<(usize, u32)>,
    groups: VecDeque<Vec<(usize, u32)>>,
}

impl Block {
    fn coordinates(&self) -> Dim3 {
        unflatten(self.current.load(Ordering::SeqCst), self.grid)
    }

    fn add(&self, finding: Finding) {
        self.report.lock().unwrap().add(finding);
    }

    /// Records a barrier mismatch and stops the block.
    fn broken(&self, mismatch: Mismatch, warp: Option<u32>) {
        let finding = BarrierMismatch { block: self.coordinates(), warp, waiting: mismatch.waiting, exited: mismatch.exited };
        self.add(Finding::Barrier(finding));
        self.failed.store(true, Ordering::SeqCst);
    }

    /// Turns a broken barrier into the end of this thread.
    fn stop(&self, broken: Broken, warp: Option<u32>) -> ! {
        if let Broken(Some(mismatch)) = broken {
            self.broken(mismatch, warp);
        }
        stop_thread()
    }
}

/// Ends this emulated thread without the panic hook's message: the reason
/// is reported once, by whoever found it.
fn stop_thread() -> ! {
    std::panic::resume_unwind(Box::new(STOPPED))
}

unsafe fn hook_barrier(block: *const (), site: &'static Location<'static>) {
    let block = unsafe { &*(block as *const Block) };
    let rank = kernels_gpu::gpu::thread_rank();
    let next_interval = || {
        block.interval.fetch_add(1, Ordering::SeqCst);
    };
    if let Err(broken) = block.block_barrier.wait(rank, site, &block.failed, next_interval) {
        block.stop(broken, None);
    }
}

unsafe fn hook_exchange(
    block: *const (),
    warp: u32,
    lane: u32,
    values: [u32; 8],
    site: &'static Location<'static>,
) -> emulated::WarpValues {
    let block = unsafe { &*(block as *const Block) };
    let (slots, barrier) = (&block.exchange_slots[warp as usize], &block.warp_barriers[warp as usize]);
    for (slot, value) in slots[lane as usize].iter().zip(values) {
        slot.store(value, Ordering::SeqCst);
    }
    // Lanes may exchange from different call sites (allowed since Volta):
    // the barrier holds them all, whatever site each names.
    if let Err(broken) = barrier.wait(lane, site, &block.failed, || ()) {
        block.stop(broken, Some(warp));
    }
    let out = std::array::from_fn(|l| std::array::from_fn(|i| slots[l][i].load(Ordering::SeqCst)));
    if let Err(broken) = barrier.wait(lane, site, &block.failed, || ()) {
        block.stop(broken, Some(warp));
    }
    out
}

unsafe fn hook_access(block: *const (), rank: u32, address: usize, access: Access) -> bool {
    let block = unsafe { &*(block as *const Block) };
    let bytes = access.bytes as usize;
    let shared = block.shared.contains(&address) && address + bytes <= block.shared.end;
    if let Some(log) = &block.log {
        let seq = block.counts[rank as usize].fetch_add(1, Ordering::Relaxed);
        let address = if shared { address - block.shared.start } else { address };
        let entry = Logged {
            block: block.coordinates(),
            thread: rank,
            seq,
            shared,
            kind: access.kind,
            address,
            bytes: access.bytes,
            site: access.site,
        };
        log.lock().unwrap().push(entry);
    }
    if shared {
        let interval = block.interval.load(Ordering::SeqCst);
        let found = block.shadow.record(interval, rank, address - block.shared.start, access);
        if let Some(f) = found {
            let (hazard, offset, first, second) = (f.hazard, f.offset, f.first, f.second);
            let race = Race { block: block.coordinates(), hazard, offset, first, second, first_at: f.first_at, second_at: f.second_at };
            block.add(Finding::Race(race));
        }
        return true;
    }
    // Without declared buffers only an access that runs off the end of
    // shared memory is known to be wrong.
    let declared = block.buffers.len() > 1;
    if !declared && !block.shared.contains(&address) {
        return true;
    }
    let Some(nearest) = bounds::check(&block.buffers, address, bytes) else { return true };
    let write = access.kind != AccessKind::Read;
    block.add(Finding::OutOfBounds(OutOfBounds { block: block.coordinates(), thread: rank, write, address, bytes: access.bytes, nearest }));
    false
}

unsafe fn hook_copy(block: *const (), rank: u32, event: CopyEvent) {
    let block = unsafe { &*(block as *const Block) };
    let mut copies = block.copies[rank as usize].lock().unwrap();
    match event {
        CopyEvent::Start { address, bytes } => {
            if block.shared.contains(&address) {
                let offset = address - block.shared.start;
                block.shadow.mark_copy(rank, offset, bytes, true);
                copies.open.push((offset, bytes));
            }
        }
        CopyEvent::Commit => {
            let group = std::mem::take(&mut copies.open);
            copies.groups.push_back(group);
        }
        CopyEvent::Wait { pending } => {
            while copies.groups.len() > pending as usize {
                for (offset, bytes) in copies.groups.pop_front().unwrap_or_default() {
                    block.shadow.mark_copy(rank, offset, bytes, false);
                }
            }
        }
    }
}

struct AssertSync<T>(T);
unsafe impl<T> Sync for AssertSync<T> {}
unsafe impl<T> Send for AssertSync<T> {}

/// Runs `kernel` once per thread of every block of `shape`; any finding of
/// the checkers is an error (its text lists them).
///
/// # Safety
/// As for [`launch_checked`].
pub unsafe fn launch(shape: LaunchShape, kernel: impl Fn()) -> Result<(), String> {
    let report = unsafe { launch_checked(shape, &Checks::new("kernel"), kernel)? };
    if report.is_clean() { Ok(()) } else { Err(report.to_string()) }
}

/// Runs `kernel` once per thread of every block of `shape` with the
/// checkers on, and returns what they found. A broken barrier ends the
/// launch there (a GPU would hang); races and out-of-bounds accesses are
/// collected while it runs on (out-of-bounds accesses are skipped). `Err`
/// means the launch itself failed: a bad shape, or a panic in the kernel
/// (a misaligned 128-bit access, a trap).
///
/// # Safety
/// `kernel` must be safe to run concurrently from many threads the way the
/// GPU would run it (the pointers it captures must be valid for the launch).
pub unsafe fn launch_checked(shape: LaunchShape, checks: &Checks, kernel: impl Fn()) -> Result<Report, String> {
    unsafe { run(shape, checks, kernel, false) }.map(|(report, _)| report)
}

/// [`launch_checked`], also returning every access the kernel made through
/// the device helpers, in the order the emulator saw them.
///
/// # Safety
/// As for [`launch_checked`].
pub unsafe fn launch_logged(shape: LaunchShape, checks: &Checks, kernel: impl Fn()) -> Result<(Report, Vec<Logged>), String> {
    unsafe { run(shape, checks, kernel, true) }
}

unsafe fn run(shape: LaunchShape, checks: &Checks, kernel: impl Fn(), log: bool) -> Result<(Report, Vec<Logged>), String> {
    let threads = shape.block.volume() as u32;
    if threads == 0 || threads > 1024 || shape.grid.volume() == 0 {
        return Err(format!("invalid launch: grid {:?}, block {:?}", shape.grid, shape.block));
    }
    let warps = threads.div_ceil(32);
    let mut shared = vec![0u128; (shape.shared_bytes as usize).div_ceil(16)];
    let shared_start = shared.as_mut_ptr() as usize;
    let block = Block {
        block_barrier: Barrier::new(threads),
        warp_barriers: (0..warps).map(|w| Barrier::warp((threads - 32 * w).min(32))).collect(),
        exchange_slots: (0..warps).map(|_| std::array::from_fn(|_| std::array::from_fn(|_| AtomicU32::new(0)))).collect(),
        failed: AtomicBool::new(false),
        current: AtomicU64::new(0),
        grid: shape.grid,
        interval: AtomicU64::new(0),
        shared: shared_start..shared_start + shape.shared_bytes as usize,
        shadow: race::Shadow::new(shape.shared_bytes),
        // The shared window is a buffer too: it names accesses next to it.
        buffers: [Buffer { name: "shared memory".into(), start: shared_start, bytes: shape.shared_bytes as usize }]
            .into_iter()
            .chain(checks.buffers.iter().cloned())
            .collect(),
        copies: (0..threads).map(|_| Mutex::default()).collect(),
        report: Mutex::new(Report::new(&checks.kernel)),
        log: log.then(|| Mutex::new(Vec::new())),
        counts: (0..threads).map(|_| AtomicU32::new(0)).collect(),
    };
    let between_blocks = Barrier::new(threads);
    let shared_ptr = AssertSync(shared.as_mut_ptr() as *mut u8);
    let kernel = AssertSync(kernel);
    let hooks = BlockHooks {
        block: &block as *const Block as *const (),
        barrier: hook_barrier,
        exchange: hook_exchange,
        access: hook_access,
        copy: hook_copy,
    };
    let hooks = AssertSync(hooks);

    let grid = shape.grid;
    let blocks = grid.volume();
    let result = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|rank| {
                let (block, between, kernel, hooks, shared_ptr) = (&block, &between_blocks, &kernel, &hooks, &shared_ptr);
                std::thread::Builder::new()
                    .stack_size(256 * 1024)
                    .spawn_scoped(scope, move || {
                        let (warp, lane) = ((rank / 32) as usize, rank % 32);
                        let between_site = Location::caller();
                        let wait_between = || {
                            if between.wait(rank, between_site, &block.failed, || ()).is_err() {
                                stop_thread();
                            }
                        };
                        let run = std::panic::AssertUnwindSafe(|| {
                            for linear in 0..blocks {
                                if rank == 0 {
                                    block.block_barrier.reset();
                                    for barrier in &block.warp_barriers {
                                        barrier.reset();
                                    }
                                    block.current.store(linear, Ordering::SeqCst);
                                    block.interval.fetch_add(1, Ordering::SeqCst);
                                    block.shadow.clear_copies();
                                    for copies in &block.copies {
                                        *copies.lock().unwrap() = Copies::default();
                                    }
                                    for count in &block.counts {
                                        count.store(0, Ordering::Relaxed);
                                    }
                                    let words = shape.shared_bytes as usize / 4;
                                    let shared = shared_ptr.0 as *mut u32;
                                    for i in 0..words {
                                        unsafe { shared.add(i).write(POISON_BITS) };
                                    }
                                }
                                wait_between();
                                let context = ThreadContext {
                                    thread: unflatten(rank as u64, shape.block),
                                    block: unflatten(linear, grid),
                                    block_dim: shape.block,
                                    grid_dim: grid,
                                    shared: shared_ptr.0,
                                    hooks: hooks.0,
                                };
                                unsafe { emulated::enter(context) };
                                (kernel.0)();
                                emulated::leave();
                                if let Some(mismatch) = block.block_barrier.leave(rank) {
                                    block.broken(mismatch, None);
                                }
                                if let Some(mismatch) = block.warp_barriers[warp].leave(lane) {
                                    block.broken(mismatch, Some(warp as u32));
                                }
                                wait_between();
                            }
                        });
                        let outcome = std::panic::catch_unwind(run);
                        if outcome.is_err() {
                            block.failed.store(true, Ordering::SeqCst);
                            emulated::leave();
                        }
                        outcome.map_err(panic_message)
                    })
                    .expect("spawning an emulated GPU thread")
            })
            .collect();
        let mut first_error = None;
        for handle in handles {
            if let Err(message) = handle.join().expect("emulated thread")
                && message != STOPPED
            {
                first_error.get_or_insert(message);
            }
        }
        first_error
    });
    let report = block.report.into_inner().unwrap();
    let log = block.log.map(|log| log.into_inner().unwrap()).unwrap_or_default();
    match result {
        Some(message) => Err(message),
        None if block.failed.load(Ordering::SeqCst) && report.barrier_mismatches().next().is_none() => {
            Err("the launch stopped without a reason".into())
        }
        None => Ok((report, log)),
    }
}

fn panic_message(payload: Box<dyn std::any::Any + Send>) -> String {
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "kernel panicked".into())
}

fn unflatten(linear: u64, extent: Dim3) -> Dim3 {
    let x = (linear % extent.x as u64) as u32;
    let y = ((linear / extent.x as u64) % extent.y as u64) as u32;
    let z = (linear / (extent.x as u64 * extent.y as u64)) as u32;
    Dim3::new(x, y, z)
}

/// Host memory with the 16-byte alignment `cudaMalloc` guarantees, so the
/// kernels' 128-bit accesses are legal in emulation too.
pub struct AlignedBuffer {
    quads: Vec<Quad>,
    len: usize,
}

#[repr(C, align(16))]
#[derive(Clone, Copy)]
struct Quad([f32; 4]);

impl AlignedBuffer {
    pub fn from_slice(values: &[f32]) -> AlignedBuffer {
        let mut buffer = AlignedBuffer { quads: vec![Quad([0.0; 4]); values.len().div_ceil(4).max(1)], len: values.len() };
        buffer.as_mut_slice().copy_from_slice(values);
        buffer
    }

    pub fn as_slice(&self) -> &[f32] {
        unsafe { std::slice::from_raw_parts(self.as_ptr(), self.len) }
    }

    pub fn as_mut_slice(&mut self) -> &mut [f32] {
        unsafe { std::slice::from_raw_parts_mut(self.as_mut_ptr(), self.len) }
    }

    pub fn as_ptr(&self) -> *const f32 {
        self.quads.as_ptr() as *const f32
    }

    pub fn as_mut_ptr(&mut self) -> *mut f32 {
        self.quads.as_mut_ptr() as *mut f32
    }
}

/// Runs one SGEMM rung on the CPU: `c = alpha * a * b + beta * c`, with
/// `a`, `b` and `c` declared to the bounds checker. Any finding is an error.
#[allow(clippy::too_many_arguments)]
pub fn sgemm(
    kernel: &GemmKernel,
    (m, n, k): (u32, u32, u32),
    alpha: f32,
    a: &[f32],
    b: &[f32],
    beta: f32,
    c: &mut [f32],
) -> Result<(), String> {
    let (a, b) = (AlignedBuffer::from_slice(a), AlignedBuffer::from_slice(b));
    let mut out = AlignedBuffer::from_slice(c);
    let checks =
        Checks::new(kernel.name()).buffer("a", a.as_ptr(), a.len).buffer("b", b.as_ptr(), b.len).buffer("c", out.as_ptr(), out.len);
    let (pa, pb, pc) = (a.as_ptr() as usize, b.as_ptr() as usize, out.as_mut_ptr() as usize);
    let f = kernel.emulate;
    let report = unsafe {
        launch_checked((kernel.launch)(m, n), &checks, || f(m, n, k, alpha, pa as *const f32, pb as *const f32, beta, pc as *mut f32))?
    };
    if !report.is_clean() {
        return Err(report.to_string());
    }
    c.copy_from_slice(out.as_slice());
    Ok(())
}

/// Runs one BF16 rung on the CPU: `c = a · b`, with `a` and `b` given as
/// bf16 bit patterns.
pub fn bf16_gemm(kernel: &Bf16Kernel, (m, n, k): (u32, u32, u32), a: &[u16], b: &[u16], c: &mut [f32]) -> Result<(), String> {
    let (a, b) = (aligned_u16(a), aligned_u16(b));
    let mut out = AlignedBuffer::from_slice(c);
    let checks =
        Checks::new(kernel.name()).buffer("a", a.as_ptr(), a.len).buffer("b", b.as_ptr(), b.len).buffer("c", out.as_ptr(), out.len);
    let (pa, pb, pc) = (a.as_ptr() as usize, b.as_ptr() as usize, out.as_mut_ptr() as usize);
    let f = kernel.emulate;
    let report =
        unsafe { launch_checked((kernel.launch)(m, n), &checks, || f(m, n, k, pa as *const u16, pb as *const u16, pc as *mut f32))? };
    if !report.is_clean() {
        return Err(report.to_string());
    }
    c.copy_from_slice(out.as_slice());
    Ok(())
}

/// 16-bit values in 16-byte aligned memory, as `cudaMalloc` gives.
pub fn aligned_u16(values: &[u16]) -> AlignedBuffer {
    let mut buffer = AlignedBuffer::from_slice(&vec![0.0; values.len().div_ceil(2)]);
    unsafe { std::ptr::copy_nonoverlapping(values.as_ptr(), buffer.as_mut_ptr().cast::<u16>(), values.len()) };
    buffer
}

#[cfg(test)]
mod tests {
    use super::*;
    use kernels_gpu::gpu::{self, mma_tf32};
    use std::sync::Mutex;

    /// One warp multiplies a 16×8 A by an 8×8 B through the emulated
    /// `mma.sync`, each lane holding the elements the PTX fragment tables
    /// give it; the result must be the plain product.
    #[test]
    fn emulated_mma_follows_the_fragment_layout() {
        // Small integers: every product and sum is exact in fp32, so the
        // comparison can be exact. A's values carry junk in the 13 low
        // bits, which the tensor core ignores.
        let a: Vec<f32> = (0..16 * 8).map(|i| ((i * 7) % 11) as f32 - 5.0).collect();
        let b: Vec<f32> = (0..8 * 8).map(|i| ((i * 5) % 9) as f32 - 4.0).collect();
        let c: Vec<f32> = (0..16 * 8).map(|i| (i % 13) as f32).collect();
        let junk = |x: f32| f32::from_bits(x.to_bits() | if x == 0.0 { 0 } else { 0x0fff });
        let out = Mutex::new(vec![f32::NAN; 16 * 8]);
        let shape = LaunchShape::linear(1, 32, 0);
        unsafe {
            launch(shape, || {
                let lane = gpu::lane_id();
                let (g, t) = ((lane / 4) as usize, (lane % 4) as usize);
                let at = |r: usize, k: usize| junk(a[r * 8 + k]).to_bits();
                let fa = [at(g, t), at(g + 8, t), at(g, t + 4), at(g + 8, t + 4)];
                let fb = [b[t * 8 + g].to_bits(), b[(t + 4) * 8 + g].to_bits()];
                let cells = [(g, 2 * t), (g, 2 * t + 1), (g + 8, 2 * t), (g + 8, 2 * t + 1)];
                let fc = cells.map(|(r, col)| c[r * 8 + col]);
                let d = mma_tf32(fa, fb, fc);
                let mut out = out.lock().unwrap();
                for (i, (r, col)) in cells.into_iter().enumerate() {
                    out[r * 8 + col] = d[i];
                }
            })
            .unwrap();
        }
        let out = out.into_inner().unwrap();
        for r in 0..16 {
            for col in 0..8 {
                let expected = c[r * 8 + col] + (0..8).map(|k| a[r * 8 + k] * b[k * 8 + col]).sum::<f32>();
                assert_eq!(out[r * 8 + col], expected, "D[{r}][{col}]");
            }
        }
    }

    /// One warp loads a 16×16 A tile (row-major) and a 16×16 B tile
    /// (K×N row-major) from shared memory with `ldmatrix` (B transposed),
    /// multiplies through the emulated bf16 `mma` and must get the plain
    /// product: the fragment tables of both instructions agree.
    #[test]
    fn emulated_ldmatrix_and_bf16_mma_follow_the_fragment_layout() {
        use kernels_gpu::gpu::{bf16_to_f32, ldmatrix_x4, ldmatrix_x4_trans, mma_bf16};
        // Small integers as bf16: products and sums are exact.
        let bf = |x: i32| ((x as f32).to_bits() >> 16) as u16;
        let a: Vec<u16> = (0..256).map(|i| bf((i * 7) % 11 - 5)).collect();
        let b: Vec<u16> = (0..256).map(|i| bf((i * 5) % 9 - 4)).collect();
        let out = Mutex::new(vec![f32::NAN; 16 * 16]);
        let shape = LaunchShape { grid: Dim3::new(1, 1, 1), block: Dim3::new(32, 1, 1), shared_bytes: 1024 };
        unsafe {
            launch(shape, || {
                let lane = gpu::lane_id() as usize;
                let shared = gpu::dynamic_shared::<u16>();
                for i in 0..16 {
                    *shared.add(lane * 16 + i) = if lane < 16 { a[lane * 16 + i] } else { b[(lane - 16) * 16 + i] };
                }
                gpu::sync_threads();
                let (row, col) = (lane % 16, 8 * (lane / 16));
                let fa = ldmatrix_x4(shared.add(row * 16 + col));
                let fb = ldmatrix_x4_trans(shared.add(256 + row * 16 + col));
                let (g, t) = (lane / 4, lane % 4);
                // Both products before taking the lock: mma waits for the warp.
                let d = [0, 1].map(|half| mma_bf16(fa, [fb[2 * half], fb[2 * half + 1]], [0.0; 4]));
                let mut out = out.lock().unwrap();
                for (half, d) in d.into_iter().enumerate() {
                    let cells = [(g, 2 * t), (g, 2 * t + 1), (g + 8, 2 * t), (g + 8, 2 * t + 1)];
                    for (i, (r, c)) in cells.into_iter().enumerate() {
                        out[r * 16 + 8 * half + c] = d[i];
                    }
                }
            })
            .unwrap();
        }
        let out = out.into_inner().unwrap();
        let value = |m: &[u16], i: usize| bf16_to_f32(m[i]);
        for r in 0..16 {
            for c in 0..16 {
                let expected: f32 = (0..16).map(|k| value(&a, r * 16 + k) * value(&b, k * 16 + c)).sum();
                assert_eq!(out[r * 16 + c], expected, "C[{r}][{c}]");
            }
        }
    }
}
