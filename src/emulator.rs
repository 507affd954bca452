//! Runs a kernel on the CPU: each GPU thread of a block is an OS thread,
//! barriers and warp shuffles are real synchronisation, and shared memory
//! starts as NaN poison. Kernels run unchanged (the device helpers read the
//! simulated thread's state), so indexing, masking, barrier placement and
//! 16-byte alignment are checked in CI without a GPU.
//!
//! Blocks run one after another; `cp.async` copies land at once. It is a
//! correctness tool, not a performance model.

use kernels_gpu::gpu::Dim3;
use kernels_gpu::gpu::emulated::{self, BlockHooks, ThreadContext};
use kernels_gpu::launch::LaunchShape;
use kernels_gpu::matmul::GemmKernel;
use kernels_gpu::matmul_bf16::Bf16Kernel;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

/// How long a simulated barrier waits before declaring a deadlock (a
/// barrier some threads never reach).
const DEADLOCK_AFTER: Duration = Duration::from_secs(20);
const POISON_BITS: u32 = crate::device::POISON_BITS;

/// A barrier for a changing number of live threads. A thread that returns
/// from the kernel stops being waited for, as on the GPU.
struct Barrier {
    state: Mutex<BarrierState>,
    wake: Condvar,
}

struct BarrierState {
    live: u32,
    arrived: u32,
    generation: u64,
}

impl Barrier {
    fn new(live: u32) -> Barrier {
        Barrier { state: Mutex::new(BarrierState { live, arrived: 0, generation: 0 }), wake: Condvar::new() }
    }

    fn reset(&self, live: u32) {
        let mut s = self.state.lock().unwrap();
        s.live = live;
        s.arrived = 0;
    }

    fn wait(&self, failed: &AtomicBool) {
        let mut s = self.state.lock().unwrap();
        s.arrived += 1;
        if s.arrived >= s.live {
            s.arrived = 0;
            s.generation += 1;
            self.wake.notify_all();
            return;
        }
        let generation = s.generation;
        let started = Instant::now();
        while s.generation == generation {
            if failed.load(Ordering::Relaxed) {
                panic!("another emulated thread failed");
            }
            if started.elapsed() > DEADLOCK_AFTER {
                failed.store(true, Ordering::Relaxed);
                panic!("barrier deadlock: some threads of the block never reached this barrier (a barrier inside divergent code, or after an early return?)");
            }
            s = self.wake.wait_timeout(s, Duration::from_millis(20)).unwrap().0;
        }
    }

    fn leave(&self) {
        let mut s = self.state.lock().unwrap();
        s.live -= 1;
        if s.arrived > 0 && s.arrived >= s.live {
            s.arrived = 0;
            s.generation += 1;
            self.wake.notify_all();
        }
    }
}

/// What the threads of the running block share.
struct Block {
    block_barrier: Barrier,
    warp_barriers: Vec<Barrier>,
    exchange_slots: Vec<[[AtomicU32; 8]; 32]>,
    failed: AtomicBool,
}

unsafe fn hook_barrier(block: *const ()) {
    let block = unsafe { &*(block as *const Block) };
    block.block_barrier.wait(&block.failed);
}

unsafe fn hook_exchange(block: *const (), warp: u32, lane: u32, values: [u32; 8]) -> emulated::WarpValues {
    let block = unsafe { &*(block as *const Block) };
    let (slots, barrier) = (&block.exchange_slots[warp as usize], &block.warp_barriers[warp as usize]);
    for (slot, value) in slots[lane as usize].iter().zip(values) {
        slot.store(value, Ordering::SeqCst);
    }
    barrier.wait(&block.failed);
    let out = std::array::from_fn(|l| std::array::from_fn(|i| slots[l][i].load(Ordering::SeqCst)));
    barrier.wait(&block.failed);
    out
}

struct AssertSync<T>(T);
unsafe impl<T> Sync for AssertSync<T> {}
unsafe impl<T> Send for AssertSync<T> {}

/// Runs `kernel` once per thread of every block of `shape`.
///
/// # Safety
/// `kernel` must be safe to run concurrently from many threads the way the
/// GPU would run it (the pointers it captures must be valid for the launch).
pub unsafe fn launch(shape: LaunchShape, kernel: impl Fn()) -> Result<(), String> {
    let threads = shape.block.volume() as u32;
    if threads == 0 || threads > 1024 || shape.grid.volume() == 0 {
        return Err(format!("invalid launch: grid {:?}, block {:?}", shape.grid, shape.block));
    }
    let warps = threads.div_ceil(32);
    let block = Block {
        block_barrier: Barrier::new(threads),
        warp_barriers: (0..warps).map(|w| Barrier::new((threads - 32 * w).min(32))).collect(),
        exchange_slots: (0..warps).map(|_| std::array::from_fn(|_| std::array::from_fn(|_| AtomicU32::new(0)))).collect(),
        failed: AtomicBool::new(false),
    };
    let between_blocks = Barrier::new(threads);
    let mut shared = vec![0u128; (shape.shared_bytes as usize).div_ceil(16)];
    let shared_ptr = AssertSync(shared.as_mut_ptr() as *mut u8);
    let kernel = AssertSync(kernel);
    let hooks = BlockHooks { block: &block as *const Block as *const (), barrier: hook_barrier, exchange: hook_exchange };
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
                        let run = std::panic::AssertUnwindSafe(|| {
                            for linear in 0..blocks {
                                if rank == 0 {
                                    block.block_barrier.reset(threads);
                                    for (w, barrier) in block.warp_barriers.iter().enumerate() {
                                        barrier.reset((threads - 32 * w as u32).min(32));
                                    }
                                    let words = shape.shared_bytes as usize / 4;
                                    let shared = shared_ptr.0 as *mut u32;
                                    for i in 0..words {
                                        unsafe { shared.add(i).write(POISON_BITS) };
                                    }
                                }
                                between.wait(&block.failed);
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
                                block.block_barrier.leave();
                                block.warp_barriers[(rank / 32) as usize].leave();
                                between.wait(&block.failed);
                            }
                        });
                        let outcome = std::panic::catch_unwind(run);
                        if outcome.is_err() {
                            block.failed.store(true, Ordering::Relaxed);
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
                && (first_error.is_none() || message != "another emulated thread failed") {
                    first_error.get_or_insert(message);
                }
        }
        first_error
    });
    match result {
        Some(message) => Err(message),
        None => Ok(()),
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

/// Runs one SGEMM rung on the CPU: `c = alpha * a * b + beta * c`.
#[allow(clippy::too_many_arguments)]
pub fn sgemm(kernel: &GemmKernel, (m, n, k): (u32, u32, u32), alpha: f32, a: &[f32], b: &[f32], beta: f32, c: &mut [f32]) -> Result<(), String> {
    let (a, b) = (AlignedBuffer::from_slice(a), AlignedBuffer::from_slice(b));
    let mut out = AlignedBuffer::from_slice(c);
    let (pa, pb, pc) = (a.as_ptr() as usize, b.as_ptr() as usize, out.as_mut_ptr() as usize);
    let f = kernel.emulate;
    unsafe {
        launch((kernel.launch)(m, n), || f(m, n, k, alpha, pa as *const f32, pb as *const f32, beta, pc as *mut f32))?;
    }
    c.copy_from_slice(out.as_slice());
    Ok(())
}

/// Runs one BF16 rung on the CPU: `c = a · b`, with `a` and `b` given as
/// bf16 bit patterns.
pub fn bf16_gemm(kernel: &Bf16Kernel, (m, n, k): (u32, u32, u32), a: &[u16], b: &[u16], c: &mut [f32]) -> Result<(), String> {
    let (a, b) = (aligned_u16(a), aligned_u16(b));
    let mut out = AlignedBuffer::from_slice(c);
    let (pa, pb, pc) = (a.as_ptr() as usize, b.as_ptr() as usize, out.as_mut_ptr() as usize);
    let f = kernel.emulate;
    unsafe {
        launch((kernel.launch)(m, n), || f(m, n, k, pa as *const u16, pb as *const u16, pc as *mut f32))?;
    }
    c.copy_from_slice(out.as_slice());
    Ok(())
}

/// 16-bit values in 16-byte aligned memory, as `cudaMalloc` gives.
fn aligned_u16(values: &[u16]) -> AlignedBuffer {
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
