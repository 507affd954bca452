//! Deliberately wrong kernels, at least one per exercise: the mistakes
//! learners make (a missing guard or barrier, a barrier in a branch, an
//! off-by-one, an uncoalesced order). The tests prove that each exercise's
//! check catches each of them with the right message; a check that let one
//! pass would be a broken check.

use crate::gpu::{self, load, store};
use crate::{BINS, BLOCK, RADIUS, SIDE, TILE, TILE_ROWS};
use kernels_macros::kernel;

/// Exercise 1 without the guard: the last block's extra threads read and
/// write past the arrays.
#[kernel]
pub unsafe fn wrong01_no_guard(x: *const f32, out: *mut f32, n: u32) {
    let _ = n;
    let i = gpu::global_x() as usize;
    unsafe { store(out.add(i), 2.0 * load(x.add(i)) + 1.0) };
}

/// Exercise 1 with `<=`: one element too many.
#[kernel]
pub unsafe fn wrong01_off_by_one(x: *const f32, out: *mut f32, n: u32) {
    let i = gpu::global_x();
    if i <= n {
        let i = i as usize;
        unsafe { store(out.add(i), 2.0 * load(x.add(i)) + 1.0) };
    }
}

/// Exercise 1 through plain pointers: right on a GPU, but invisible to the
/// emulator's checkers (which see only `gpu::load` and `gpu::store`).
#[kernel]
pub unsafe fn wrong01_raw_pointers(x: *const f32, out: *mut f32, n: u32) {
    let i = gpu::global_x();
    if i < n {
        let i = i as usize;
        unsafe { *out.add(i) = 2.0 * *x.add(i) + 1.0 };
    }
}

/// Exercise 2 with x walking the rows: right values, but each lane of a
/// warp reads from its own row.
#[kernel]
pub unsafe fn wrong02_rows_in_x(a: *const f32, v: *const f32, out: *mut f32, rows: u32, cols: u32) {
    let (row, col) = (gpu::global_x(), gpu::global_y());
    if row < rows && col < cols {
        let i = (row * cols + col) as usize;
        unsafe { store(out.add(i), load(a.add(i)) + load(v.add(col as usize))) };
    }
}

/// Exercise 2 with the row stride taken from the wrong dimension.
#[kernel]
pub unsafe fn wrong02_row_stride(a: *const f32, v: *const f32, out: *mut f32, rows: u32, cols: u32) {
    let (col, row) = (gpu::global_x(), gpu::global_y());
    if row < rows && col < cols {
        let i = (row * rows + col) as usize;
        unsafe { store(out.add(i), load(a.add(i)) + load(v.add(col as usize))) };
    }
}

/// Exercise 3 with the vectors swapped: `a[col] * b[row]`.
#[kernel]
pub unsafe fn wrong03_swapped(a: *const f32, b: *const f32, out: *mut f32, rows: u32, cols: u32) {
    let (col, row) = (gpu::global_x(), gpu::global_y());
    if row < rows && col < cols {
        let value = unsafe { load(a.add(col as usize)) * load(b.add(row as usize)) };
        unsafe { store(out.add((row * cols + col) as usize), value) };
    }
}

/// Exercise 4 without the barrier: a thread reads its partner's slot
/// before the partner stored it.
#[kernel]
pub unsafe fn wrong04_missing_barrier(x: *const f32, out: *mut f32, n: u32) {
    let tile = gpu::dynamic_shared::<f32>();
    let (t, i) = (gpu::thread_idx().x, gpu::global_x());
    let mine = if i < n { unsafe { load(x.add(i as usize)) } } else { 0.0 };
    unsafe { store(tile.add(t as usize), mine) };
    if i < n {
        unsafe { store(out.add(i as usize), load(tile.add((BLOCK - 1 - t) as usize))) };
    }
}

/// Exercise 4 with an early return: threads past `n` never reach the
/// barrier the others wait at.
#[kernel]
pub unsafe fn wrong04_early_return(x: *const f32, out: *mut f32, n: u32) {
    let tile = gpu::dynamic_shared::<f32>();
    let (t, i) = (gpu::thread_idx().x, gpu::global_x());
    if i >= n {
        return;
    }
    unsafe { store(tile.add(t as usize), load(x.add(i as usize))) };
    gpu::sync_threads();
    unsafe { store(out.add(i as usize), load(tile.add((BLOCK - 1 - t) as usize))) };
}

/// Stages this thread's element of `x` (0 past `n`) in the shared tile.
#[inline(always)]
unsafe fn stage(x: *const f32, n: u32) -> (*mut f32, u32) {
    let tile = gpu::dynamic_shared::<f32>();
    let (t, i) = (gpu::thread_idx().x, gpu::global_x());
    let mine = if i < n { unsafe { load(x.add(i as usize)) } } else { 0.0 };
    unsafe { store(tile.add(t as usize), mine) };
    (tile, t)
}

/// Exercise 5 without the barrier between steps of the tree.
#[kernel]
pub unsafe fn wrong05_missing_barrier(x: *const f32, out: *mut f32, n: u32) {
    let (tile, t) = unsafe { stage(x, n) };
    gpu::sync_threads();
    let mut active = BLOCK / 2;
    while active > 0 {
        if t < active {
            unsafe { store(tile.add(t as usize), load(tile.add(t as usize)) + load(tile.add((t + active) as usize))) };
        }
        active /= 2;
    }
    if t == 0 {
        unsafe { store(out.add(gpu::block_idx().x as usize), load(tile)) };
    }
}

/// Exercise 5 with the barrier inside `if t < active`.
#[kernel]
pub unsafe fn wrong05_barrier_in_branch(x: *const f32, out: *mut f32, n: u32) {
    let (tile, t) = unsafe { stage(x, n) };
    gpu::sync_threads();
    let mut active = BLOCK / 2;
    while active > 0 {
        if t < active {
            unsafe { store(tile.add(t as usize), load(tile.add(t as usize)) + load(tile.add((t + active) as usize))) };
            gpu::sync_threads();
        }
        active /= 2;
    }
    if t == 0 {
        unsafe { store(out.add(gpu::block_idx().x as usize), load(tile)) };
    }
}

/// Exercise 6 with the shuffles inside `if i < n`: the lanes past the end
/// never arrive.
#[kernel]
pub unsafe fn wrong06_shuffle_in_branch(x: *const f32, out: *mut f32, n: u32) {
    let i = gpu::global_x();
    if i < n {
        let mut sum = unsafe { load(x.add(i as usize)) };
        let mut mask = 16;
        while mask > 0 {
            sum += gpu::shuffle_xor(sum, mask);
            mask /= 2;
        }
        if gpu::lane_id() == 0 {
            unsafe { store(out.add((i / 32) as usize), sum) };
        }
    }
}

/// Exercise 6 stopping one step early (masks 16 to 2): sums of pairs.
#[kernel]
pub unsafe fn wrong06_four_steps(x: *const f32, out: *mut f32, n: u32) {
    let i = gpu::global_x();
    let mut sum = if i < n { unsafe { load(x.add(i as usize)) } } else { 0.0 };
    let mut mask = 16;
    while mask > 1 {
        sum += gpu::shuffle_xor(sum, mask);
        mask /= 2;
    }
    if gpu::lane_id() == 0 && i < n {
        unsafe { store(out.add((i / 32) as usize), sum) };
    }
}

/// Exercise 7 reading the neighbour and writing its own slot with no
/// barrier between: the neighbour may already have added.
#[kernel]
pub unsafe fn wrong07_one_barrier(x: *const f32, out: *mut f32, n: u32) {
    let (tile, t) = unsafe { stage(x, n) };
    gpu::sync_threads();
    let mut offset = 1;
    while offset < BLOCK {
        if t >= offset {
            unsafe { store(tile.add(t as usize), load(tile.add(t as usize)) + load(tile.add((t - offset) as usize))) };
        }
        gpu::sync_threads();
        offset *= 2;
    }
    let i = gpu::global_x();
    if i < n {
        unsafe { store(out.add(i as usize), load(tile.add(t as usize))) };
    }
}

/// Exercise 8 without shared memory: reads along rows, writes down
/// columns, each lane of a warp into its own sector.
#[kernel]
pub unsafe fn wrong08_naive(src: *const f32, dst: *mut f32, rows: u32, cols: u32) {
    let tx = gpu::thread_idx().x;
    let mut r = gpu::thread_idx().y;
    while r < TILE {
        let (row, col) = (gpu::block_idx().y * TILE + r, gpu::block_idx().x * TILE + tx);
        if row < rows && col < cols {
            unsafe { store(dst.add((col * rows + row) as usize), load(src.add((row * cols + col) as usize))) };
        }
        r += TILE_ROWS;
    }
}

/// Exercise 8 without the barrier between filling the tile and reading it.
#[kernel]
pub unsafe fn wrong08_missing_barrier(src: *const f32, dst: *mut f32, rows: u32, cols: u32) {
    let tile = gpu::dynamic_shared::<f32>();
    let (tx, ty) = (gpu::thread_idx().x, gpu::thread_idx().y);
    let (block_col, block_row) = (gpu::block_idx().x * TILE, gpu::block_idx().y * TILE);
    let mut r = ty;
    while r < TILE {
        let (row, col) = (block_row + r, block_col + tx);
        if row < rows && col < cols {
            unsafe { store(tile.add((r * TILE + tx) as usize), load(src.add((row * cols + col) as usize))) };
        }
        r += TILE_ROWS;
    }
    let mut r = ty;
    while r < TILE {
        let (dst_row, dst_col) = (block_col + r, block_row + tx);
        if dst_row < cols && dst_col < rows {
            unsafe { store(dst.add((dst_row * rows + dst_col) as usize), load(tile.add((tx * TILE + r) as usize))) };
        }
        r += TILE_ROWS;
    }
}

/// Exercise 10 without the guard on the loads.
#[kernel]
pub unsafe fn wrong10_no_guard(a: *const f32, b: *const f32, out: *mut f32, n: u32) {
    let _ = n;
    let tile = gpu::dynamic_shared::<f32>();
    let (t, i) = (gpu::thread_idx().x, gpu::global_x() as usize);
    unsafe { store(tile.add(t as usize), load(a.add(i)) * load(b.add(i))) };
    gpu::sync_threads();
    let mut active = BLOCK / 2;
    while active > 0 {
        if t < active {
            unsafe { store(tile.add(t as usize), load(tile.add(t as usize)) + load(tile.add((t + active) as usize))) };
        }
        gpu::sync_threads();
        active /= 2;
    }
    if t == 0 {
        unsafe { gpu::atomic_add_f32(out, load(tile)) };
    }
}

/// Exercise 10 with no barrier after the products are stored.
#[kernel]
pub unsafe fn wrong10_missing_barrier(a: *const f32, b: *const f32, out: *mut f32, n: u32) {
    let tile = gpu::dynamic_shared::<f32>();
    let (t, i) = (gpu::thread_idx().x, gpu::global_x());
    let product = if i < n { unsafe { load(a.add(i as usize)) * load(b.add(i as usize)) } } else { 0.0 };
    unsafe { store(tile.add(t as usize), product) };
    let mut active = BLOCK / 2;
    while active > 0 {
        if t < active {
            unsafe { store(tile.add(t as usize), load(tile.add(t as usize)) + load(tile.add((t + active) as usize))) };
        }
        gpu::sync_threads();
        active /= 2;
    }
    if t == 0 {
        unsafe { gpu::atomic_add_f32(out, load(tile)) };
    }
}

/// Exercise 11 counting with a plain load and store: two threads of the
/// block hitting one bin lose a count.
#[kernel]
pub unsafe fn wrong11_plain_increment(data: *const u32, counts: *mut u32, n: u32) {
    let bins = gpu::dynamic_shared::<u32>();
    let (t, i) = (gpu::thread_idx().x, gpu::global_x());
    if t < BINS {
        unsafe { store(bins.add(t as usize), 0u32) };
    }
    gpu::sync_threads();
    if i < n {
        let bin = unsafe { bins.add((load(data.add(i as usize)) % BINS) as usize) };
        unsafe { store(bin, load(bin) + 1) };
    }
    gpu::sync_threads();
    if t < BINS {
        unsafe { gpu::atomic_add_u32(counts.add(t as usize), load(bins.add(t as usize))) };
    }
}

/// Exercise 11 without zeroing the shared counters first.
#[kernel]
pub unsafe fn wrong11_not_zeroed(data: *const u32, counts: *mut u32, n: u32) {
    let bins = gpu::dynamic_shared::<u32>();
    let (t, i) = (gpu::thread_idx().x, gpu::global_x());
    if i < n {
        let value = unsafe { load(data.add(i as usize)) };
        unsafe { gpu::atomic_add_u32(bins.add((value % BINS) as usize), 1) };
    }
    gpu::sync_threads();
    if t < BINS {
        unsafe { gpu::atomic_add_u32(counts.add(t as usize), load(bins.add(t as usize))) };
    }
}

/// `x[index]`, or 0 outside `0..n`.
#[inline(always)]
unsafe fn element_or_zero(x: *const f32, index: i64, n: u32) -> f32 {
    if index >= 0 && index < n as i64 { unsafe { load(x.add(index as usize)) } } else { 0.0 }
}

/// Exercise 12 loading only the block's own elements: the halo slots of
/// the tile are never written.
#[kernel]
pub unsafe fn wrong12_no_halo(x: *const f32, w: *const f32, out: *mut f32, n: u32) {
    let tile = gpu::dynamic_shared::<f32>();
    let t = gpu::thread_idx().x;
    let base = (gpu::block_idx().x * BLOCK) as i64 - RADIUS as i64;
    unsafe { store(tile.add((t + RADIUS) as usize), element_or_zero(x, base + (t + RADIUS) as i64, n)) };
    gpu::sync_threads();
    let i = gpu::global_x();
    if i < n {
        let mut sum = 0.0;
        for j in 0..2 * RADIUS + 1 {
            sum = gpu::fma(unsafe { load(w.add(j as usize)) }, unsafe { load(tile.add((t + j) as usize)) }, sum);
        }
        unsafe { store(out.add(i as usize), sum) };
    }
}

/// Exercise 12 without the barrier: a thread reads its neighbours' slots
/// before they are loaded.
#[kernel]
pub unsafe fn wrong12_missing_barrier(x: *const f32, w: *const f32, out: *mut f32, n: u32) {
    let tile = gpu::dynamic_shared::<f32>();
    let t = gpu::thread_idx().x;
    let base = (gpu::block_idx().x * BLOCK) as i64 - RADIUS as i64;
    unsafe { store(tile.add((t + RADIUS) as usize), element_or_zero(x, base + (t + RADIUS) as i64, n)) };
    if t < 2 * RADIUS {
        let s = if t < RADIUS { t } else { BLOCK + t };
        unsafe { store(tile.add(s as usize), element_or_zero(x, base + s as i64, n)) };
    }
    let i = gpu::global_x();
    if i < n {
        let mut sum = 0.0;
        for j in 0..2 * RADIUS + 1 {
            sum = gpu::fma(unsafe { load(w.add(j as usize)) }, unsafe { load(tile.add((t + j) as usize)) }, sum);
        }
        unsafe { store(out.add(i as usize), sum) };
    }
}

/// Exercise 13 (and, with `second_barrier` false, its classic bug): the
/// tiled matmul, optionally without the barrier after using the tiles, and
/// optionally without guards on the tile loads.
#[inline(always)]
unsafe fn tiled(a: *const f32, b: *const f32, c: *mut f32, (m, n, k): (u32, u32, u32), second_barrier: bool, guarded: bool) {
    let a_tile = gpu::dynamic_shared::<f32>();
    let b_tile = unsafe { a_tile.add((SIDE * SIDE) as usize) };
    let (tx, ty) = (gpu::thread_idx().x, gpu::thread_idx().y);
    let (row, col) = (gpu::block_idx().y * SIDE + ty, gpu::block_idx().x * SIDE + tx);
    let slot = (ty * SIDE + tx) as usize;
    let mut sum = 0.0;
    let mut k0 = 0;
    while k0 < k {
        let (a_col, b_row) = (k0 + tx, k0 + ty);
        let a_inside = !guarded || (row < m && a_col < k);
        let b_inside = !guarded || (b_row < k && col < n);
        let a_value = if a_inside { unsafe { load(a.add((row * k + a_col) as usize)) } } else { 0.0 };
        let b_value = if b_inside { unsafe { load(b.add((b_row * n + col) as usize)) } } else { 0.0 };
        unsafe {
            store(a_tile.add(slot), a_value);
            store(b_tile.add(slot), b_value);
        }
        gpu::sync_threads();
        for kk in 0..SIDE {
            sum = gpu::fma(
                unsafe { load(a_tile.add((ty * SIDE + kk) as usize)) },
                unsafe { load(b_tile.add((kk * SIDE + tx) as usize)) },
                sum,
            );
        }
        if second_barrier {
            gpu::sync_threads();
        }
        k0 += SIDE;
    }
    if row < m && col < n {
        unsafe { store(c.add((row * n + col) as usize), sum) };
    }
}

/// Exercise 13 without the barrier after the tiles are used: the next
/// tiles overwrite values other threads are still reading.
#[kernel]
pub unsafe fn wrong13_no_second_barrier(a: *const f32, b: *const f32, c: *mut f32, m: u32, n: u32, k: u32) {
    unsafe { tiled(a, b, c, (m, n, k), false, true) };
}

/// Exercise 13 loading the tiles without guards.
#[kernel]
pub unsafe fn wrong13_unguarded_loads(a: *const f32, b: *const f32, c: *mut f32, m: u32, n: u32, k: u32) {
    unsafe { tiled(a, b, c, (m, n, k), true, false) };
}

/// Exercise 14 without the barrier after the tiles are used.
#[kernel]
pub unsafe fn wrong14_no_second_barrier(a: *const f32, b: *const f32, c: *mut f32, m: u32, n: u32, k: u32) {
    const TILE_M: u32 = SIDE * crate::ROWS_PER_THREAD;
    let a_tile = gpu::dynamic_shared::<f32>();
    let b_tile = unsafe { a_tile.add((TILE_M * SIDE) as usize) };
    let (tx, ty) = (gpu::thread_idx().x, gpu::thread_idx().y);
    let (first_row, col) = (gpu::block_idx().y * TILE_M, gpu::block_idx().x * SIDE + tx);
    let mut sums = [0.0f32; crate::ROWS_PER_THREAD as usize];
    let mut k0 = 0;
    while k0 < k {
        for r in 0..crate::ROWS_PER_THREAD {
            let (tile_row, a_col) = (ty + SIDE * r, k0 + tx);
            let row = first_row + tile_row;
            let value = if row < m && a_col < k { unsafe { load(a.add((row * k + a_col) as usize)) } } else { 0.0 };
            unsafe { store(a_tile.add((tile_row * SIDE + tx) as usize), value) };
        }
        let b_row = k0 + ty;
        let value = if b_row < k && col < n { unsafe { load(b.add((b_row * n + col) as usize)) } } else { 0.0 };
        unsafe { store(b_tile.add((ty * SIDE + tx) as usize), value) };
        gpu::sync_threads();
        for kk in 0..SIDE {
            let b_value = unsafe { load(b_tile.add((kk * SIDE + tx) as usize)) };
            for r in 0..crate::ROWS_PER_THREAD as usize {
                let a_value = unsafe { load(a_tile.add(((ty + SIDE * r as u32) * SIDE + kk) as usize)) };
                sums[r] = gpu::fma(a_value, b_value, sums[r]);
            }
        }
        k0 += SIDE;
    }
    for r in 0..crate::ROWS_PER_THREAD {
        let row = first_row + ty + SIDE * r;
        if row < m && col < n {
            unsafe { store(c.add((row * n + col) as usize), sums[r as usize]) };
        }
    }
}
