//! The exercises as the `exercise` command and the tests see them: for
//! each, the task file, the reference solution, the wrong variants, the
//! sizes it is checked at and the CPU reference.

use crate::{BINS, BLOCK, RADIUS, ROWS_PER_THREAD, SIDE, TILE, TILE_ROWS};
use crate::{solutions as s, wrong as w};
use kernels_gpu::launch::{Dim3, LaunchShape};
use ptx_ladder::exercises::{Bound, Case, Exercise, Expected, Input, Kernel, Patterns, Problem, Wrong};
use ptx_ladder::inputs::uniform;

/// Tolerance of float results: sums in another order than the reference's.
const TOLERANCE: f64 = 1e-4;

/// Every exercise, in order.
pub fn catalogue() -> Vec<Exercise> {
    vec![e01(), e02(), e03(), e04(), e05(), e06(), e07(), e08(), e09(), e10(), e11(), e12(), e13(), e14()]
}

/// Exercise `number`, or an error that says which exist.
pub fn exercise(number: u32) -> Result<Exercise, String> {
    let all = catalogue();
    let count = all.len();
    all.into_iter().find(|e| e.number == number).ok_or_else(|| format!("there is no exercise {number}: they are numbered 1 to {count}"))
}

fn wrong(name: &'static str, kernel: Kernel, mistake: &'static str, caught_as: Problem) -> Wrong {
    Wrong { name, kernel, mistake, caught_as }
}

fn floats(values: Vec<f64>) -> Expected {
    Expected::Floats { values, tolerance: TOLERANCE }
}

fn linear(n: u32, shared_floats: u32) -> LaunchShape {
    LaunchShape::linear(n.div_ceil(BLOCK).max(1), BLOCK, 4 * shared_floats)
}

/// Sizes of the 1D exercises: one element, less than a block, a whole
/// block, and several blocks with the last one partly past the end.
const SIZES: [u32; 4] = [1, 100, 128, 1000];

fn size_label(n: u32) -> String {
    let blocks = n.div_ceil(BLOCK);
    let tail =
        if n % BLOCK == 0 { "whole blocks".to_string() } else { format!("the last block has {} threads past the end", blocks * BLOCK - n) };
    format!("n = {n} ({blocks} block{} of {BLOCK}, {tail})", if blocks == 1 { "" } else { "s" })
}

/// A 1D case: `x` of `n` floats in, `out_len` floats out.
fn array_case(n: u32, shared_floats: u32, seed: u64, expected: impl Fn(&[f32]) -> Vec<f64>) -> Case {
    let x = uniform(n as usize, seed);
    Case {
        label: size_label(n),
        shape: linear(n, shared_floats),
        dims: [n, 0, 0],
        inputs: vec![Input::floats("x", &x)],
        output: "out",
        expected: floats(expected(&x)),
        zeroed: false,
        columns: None,
    }
}

/// The size every 1D exercise is timed at on a GPU: 64 MiB per array.
const LARGE: u32 = 1 << 24;

/// The side of the 2D exercises' and the transposes' timed matrices.
const LARGE_SIDE: u32 = 4096;

fn map_reference(x: &[f32]) -> Vec<f64> {
    x.iter().map(|&v| 2.0 * v as f64 + 1.0).collect()
}

fn e01() -> Exercise {
    Exercise {
        number: 1,
        title: "Map, with a guard",
        concept: "one thread per element; round the grid up and mask the extra threads",
        lab: "ptx-ladder vecadd",
        file: "exercises/src/e01_map.rs",
        source: include_str!("e01_map.rs"),
        solution: include_str!("solutions/s01_map.rs"),
        hints: &[
            "let i = gpu::global_x(); is this thread's element.",
            "Only threads with i < n may touch the arrays: wrap the body in `if i < n { … }`.",
            "unsafe { store(out.add(i as usize), 2.0 * load(x.add(i as usize)) + 1.0) }",
        ],
        kernel: Kernel::Array(crate::e01_map::ex01_map),
        reference: Kernel::Array(s::s01_map::sol01_map),
        entry: crate::e01_map::EX01_MAP.name(),
        reference_entry: s::s01_map::SOL01_MAP.name(),
        wrong: vec![
            wrong("no guard", Kernel::Array(w::wrong01_no_guard), "no `if i < n`", Problem::OutOfBounds),
            wrong("off by one", Kernel::Array(w::wrong01_off_by_one), "`i <= n`", Problem::OutOfBounds),
            wrong("plain pointers", Kernel::Array(w::wrong01_raw_pointers), "`*ptr` instead of gpu::load/store", Problem::Unseen),
        ],
        cases: || SIZES.iter().map(|&n| array_case(n, 0, 1, map_reference)).collect(),
        large: || array_case(LARGE, 0, 1, map_reference),
        patterns: Patterns { coalesced: true, conflict_free: false },
        bound: Bound::Copy,
    }
}

/// Matrix sizes of the 2D exercises: neither side a multiple of 16, and not square.
const MATRICES: [(u32, u32); 3] = [(5, 7), (16, 16), (37, 50)];

/// 16×16 blocks over `cols × rows` threads.
fn square_blocks(cols: u32, rows: u32) -> LaunchShape {
    LaunchShape { grid: Dim3::new(cols.div_ceil(SIDE), rows.div_ceil(SIDE), 1), block: Dim3::new(SIDE, SIDE, 1), shared_bytes: 0 }
}

fn matrix_label(rows: u32, cols: u32, shape: LaunchShape) -> String {
    format!("{rows}×{cols} ({})", ptx_ladder::exercises::shape_text(shape))
}

fn add_row_case(rows: u32, cols: u32) -> Case {
    let (a, v) = (uniform((rows * cols) as usize, 2), uniform(cols as usize, 3));
    let side = rows.max(cols);
    let shape = square_blocks(side, side);
    let expected = (0..rows * cols).map(|i| a[i as usize] as f64 + v[(i % cols) as usize] as f64).collect();
    Case {
        label: matrix_label(rows, cols, shape),
        shape,
        dims: [rows, cols, 0],
        inputs: vec![Input::floats("a", &a), Input::floats("v", &v)],
        output: "out",
        expected: floats(expected),
        zeroed: false,
        columns: Some(cols),
    }
}

fn e02() -> Exercise {
    Exercise {
        number: 2,
        title: "2D indexing: rows and columns",
        concept: "a 2D grid over a row-major matrix; x must walk the contiguous index",
        lab: "ptx-ladder coalesce",
        file: "exercises/src/e02_rows_and_columns.rs",
        source: include_str!("e02_rows_and_columns.rs"),
        solution: include_str!("solutions/s02_rows_and_columns.rs"),
        hints: &[
            "Element [r][c] of a row-major matrix with `cols` columns is at r * cols + c.",
            "Neighbouring threads of a warp differ in threadIdx.x: give them neighbouring columns, so col = gpu::global_x() and row = gpu::global_y().",
            "Guard both: if row < rows && col < cols { … }",
        ],
        kernel: Kernel::Matrix(crate::e02_rows_and_columns::ex02_add_row_vector),
        reference: Kernel::Matrix(s::s02_rows_and_columns::sol02_add_row_vector),
        entry: crate::e02_rows_and_columns::EX02_ADD_ROW_VECTOR.name(),
        reference_entry: s::s02_rows_and_columns::SOL02_ADD_ROW_VECTOR.name(),
        wrong: vec![
            wrong("rows in x", Kernel::Matrix(w::wrong02_rows_in_x), "x walks the rows", Problem::Uncoalesced),
            wrong("row stride", Kernel::Matrix(w::wrong02_row_stride), "row * rows + col", Problem::WrongValues),
        ],
        cases: || MATRICES.iter().map(|&(rows, cols)| add_row_case(rows, cols)).collect(),
        large: || add_row_case(LARGE_SIDE, LARGE_SIDE),
        patterns: Patterns { coalesced: true, conflict_free: false },
        bound: Bound::Copy,
    }
}

fn outer_case(rows: u32, cols: u32) -> Case {
    let (a, b) = (uniform(rows as usize, 4), uniform(cols as usize, 5));
    let shape = square_blocks(cols, rows);
    let expected = (0..rows * cols).map(|i| a[(i / cols) as usize] as f64 * b[(i % cols) as usize] as f64).collect();
    Case {
        label: matrix_label(rows, cols, shape),
        shape,
        dims: [rows, cols, 0],
        inputs: vec![Input::floats("a", &a), Input::floats("b", &b)],
        output: "out",
        expected: floats(expected),
        zeroed: false,
        columns: Some(cols),
    }
}

fn e03() -> Exercise {
    Exercise {
        number: 3,
        title: "Broadcast: an outer product",
        concept: "one value read by many threads (a broadcast) next to a coalesced row",
        lab: "ptx-ladder coalesce",
        file: "exercises/src/e03_broadcast.rs",
        source: include_str!("e03_broadcast.rs"),
        solution: include_str!("solutions/s03_broadcast.rs"),
        hints: &[
            "col = gpu::global_x(), row = gpu::global_y(); guard both.",
            "out[row * cols + col] = a[row] * b[col]: a is indexed by the row, b by the column.",
        ],
        kernel: Kernel::Matrix(crate::e03_broadcast::ex03_outer_product),
        reference: Kernel::Matrix(s::s03_broadcast::sol03_outer_product),
        entry: crate::e03_broadcast::EX03_OUTER_PRODUCT.name(),
        reference_entry: s::s03_broadcast::SOL03_OUTER_PRODUCT.name(),
        wrong: vec![wrong("swapped", Kernel::Matrix(w::wrong03_swapped), "a[col] * b[row]", Problem::OutOfBounds)],
        cases: || MATRICES.iter().map(|&(rows, cols)| outer_case(rows, cols)).collect(),
        large: || outer_case(LARGE_SIDE, LARGE_SIDE),
        patterns: Patterns { coalesced: true, conflict_free: false },
        bound: Bound::Copy,
    }
}

/// Each block's `BLOCK` elements of `x`, 0 past the end.
fn padded_blocks(x: &[f32]) -> Vec<Vec<f64>> {
    x.chunks(BLOCK as usize).map(|c| (0..BLOCK as usize).map(|i| c.get(i).map_or(0.0, |&v| v as f64)).collect()).collect()
}

fn reversed_blocks(x: &[f32]) -> Vec<f64> {
    let blocks = padded_blocks(x);
    (0..x.len()).map(|i| blocks[i / BLOCK as usize][BLOCK as usize - 1 - i % BLOCK as usize]).collect()
}

fn e04() -> Exercise {
    Exercise {
        number: 4,
        title: "A shared tile and a barrier",
        concept: "threads exchange data through shared memory; sync_threads() between the writes and the reads",
        lab: "ptx-ladder pitfalls",
        file: "exercises/src/e04_shared_tile.rs",
        source: include_str!("e04_shared_tile.rs"),
        solution: include_str!("solutions/s04_shared_tile.rs"),
        hints: &[
            "let tile = gpu::dynamic_shared::<f32>(); then store(tile.add(t), mine) with t = gpu::thread_idx().x.",
            "Threads past n store 0.0 and still go on to the barrier: compute `mine` with an if, do not return.",
            "After gpu::sync_threads(), read tile[127 - t] and store it to out[i] if i < n.",
        ],
        kernel: Kernel::Array(crate::e04_shared_tile::ex04_reverse_blocks),
        reference: Kernel::Array(s::s04_shared_tile::sol04_reverse_blocks),
        entry: crate::e04_shared_tile::EX04_REVERSE_BLOCKS.name(),
        reference_entry: s::s04_shared_tile::SOL04_REVERSE_BLOCKS.name(),
        wrong: vec![
            wrong("missing barrier", Kernel::Array(w::wrong04_missing_barrier), "no sync_threads()", Problem::Race),
            wrong("early return", Kernel::Array(w::wrong04_early_return), "return before the barrier", Problem::Barrier),
        ],
        cases: || SIZES.iter().map(|&n| array_case(n, BLOCK, 6, reversed_blocks)).collect(),
        large: || array_case(LARGE, BLOCK, 6, reversed_blocks),
        patterns: Patterns::default(),
        bound: Bound::Copy,
    }
}

fn block_sums_case(n: u32) -> Case {
    let mut case = array_case(n, BLOCK, 7, |x| padded_blocks(x).iter().map(|b| b.iter().sum()).collect());
    case.label = format!("{}; one sum per block", case.label);
    case
}

fn e05() -> Exercise {
    Exercise {
        number: 5,
        title: "The tree reduction",
        concept: "halve the active threads at each step, with a barrier every thread reaches between steps",
        lab: "ptx-ladder reduce",
        file: "exercises/src/e05_tree_reduction.rs",
        source: include_str!("e05_tree_reduction.rs"),
        solution: include_str!("solutions/s05_tree_reduction.rs"),
        hints: &[
            "Stage: store(tile.add(t), if i < n { load(x.add(i)) } else { 0.0 }), then gpu::sync_threads().",
            "Loop: let mut active = 64; while active > 0 { if t < active { tile[t] += tile[t + active] } … active /= 2 }",
            "The barrier goes after the `if`, inside the loop: every thread reaches it at every step. Then thread 0 stores tile[0] to out[blockIdx.x].",
        ],
        kernel: Kernel::Array(crate::e05_tree_reduction::ex05_block_sums),
        reference: Kernel::Array(s::s05_tree_reduction::sol05_block_sums),
        entry: crate::e05_tree_reduction::EX05_BLOCK_SUMS.name(),
        reference_entry: s::s05_tree_reduction::SOL05_BLOCK_SUMS.name(),
        wrong: vec![
            wrong("missing barrier", Kernel::Array(w::wrong05_missing_barrier), "no barrier between steps", Problem::Race),
            wrong(
                "barrier in a branch",
                Kernel::Array(w::wrong05_barrier_in_branch),
                "sync_threads() inside `if t < active`",
                Problem::Barrier,
            ),
        ],
        cases: || SIZES.iter().map(|&n| block_sums_case(n)).collect(),
        large: || block_sums_case(LARGE),
        patterns: Patterns::default(),
        bound: Bound::Copy,
    }
}

fn warp_sums_case(n: u32) -> Case {
    let mut case = array_case(n, 0, 8, |x| x.chunks(32).map(|c| c.iter().map(|&v| v as f64).sum()).collect());
    case.label = format!("{}; one sum per warp", case.label);
    case
}

fn e06() -> Exercise {
    Exercise {
        number: 6,
        title: "Warp shuffles",
        concept: "lanes of a warp read each other's registers: a sum in five butterfly steps, no shared memory",
        lab: "ptx-ladder reduce",
        file: "exercises/src/e06_warp_shuffle.rs",
        source: include_str!("e06_warp_shuffle.rs"),
        solution: include_str!("solutions/s06_warp_shuffle.rs"),
        hints: &[
            "let mut sum = if i < n { load(x.add(i)) } else { 0.0 }; every lane, also past n, goes on to the shuffles.",
            "for mask in [16, 8, 4, 2, 1]: sum += gpu::shuffle_xor(sum, mask);",
            "Lane 0 (gpu::lane_id() == 0) of a warp with data (i < n) stores sum to out[i / 32].",
        ],
        kernel: Kernel::Array(crate::e06_warp_shuffle::ex06_warp_sums),
        reference: Kernel::Array(s::s06_warp_shuffle::sol06_warp_sums),
        entry: crate::e06_warp_shuffle::EX06_WARP_SUMS.name(),
        reference_entry: s::s06_warp_shuffle::SOL06_WARP_SUMS.name(),
        wrong: vec![
            wrong("shuffle in a branch", Kernel::Array(w::wrong06_shuffle_in_branch), "shuffles inside `if i < n`", Problem::Barrier),
            wrong("four steps", Kernel::Array(w::wrong06_four_steps), "masks 16 to 2 only", Problem::WrongValues),
        ],
        cases: || SIZES.iter().map(|&n| warp_sums_case(n)).collect(),
        large: || warp_sums_case(LARGE),
        patterns: Patterns::default(),
        bound: Bound::Copy,
    }
}

fn block_scans(x: &[f32]) -> Vec<f64> {
    let scan = |c: &[f32]| {
        c.iter()
            .scan(0.0, |sum, &v| {
                *sum += v as f64;
                Some(*sum)
            })
            .collect::<Vec<f64>>()
    };
    x.chunks(BLOCK as usize).flat_map(scan).collect()
}

fn e07() -> Exercise {
    Exercise {
        number: 7,
        title: "An inclusive scan",
        concept: "Hillis-Steele prefix sums in shared memory: read, barrier, write, barrier",
        lab: "ptx-ladder reduce",
        file: "exercises/src/e07_inclusive_scan.rs",
        source: include_str!("e07_inclusive_scan.rs"),
        solution: include_str!("solutions/s07_inclusive_scan.rs"),
        hints: &[
            "Stage the element (0 past n) in tile[t] and wait; then loop offset = 1, 2, 4, … 64.",
            "In each step: let left = if t >= offset { tile[t - offset] } else { 0.0 }; sync; if t >= offset { tile[t] += left }; sync.",
            "Finally out[i] = tile[t] for i < n.",
        ],
        kernel: Kernel::Array(crate::e07_inclusive_scan::ex07_block_scan),
        reference: Kernel::Array(s::s07_inclusive_scan::sol07_block_scan),
        entry: crate::e07_inclusive_scan::EX07_BLOCK_SCAN.name(),
        reference_entry: s::s07_inclusive_scan::SOL07_BLOCK_SCAN.name(),
        wrong: vec![wrong("one barrier per step", Kernel::Array(w::wrong07_one_barrier), "read and write in one interval", Problem::Race)],
        cases: || SIZES.iter().map(|&n| array_case(n, BLOCK, 9, block_scans)).collect(),
        large: || array_case(LARGE, BLOCK, 9, block_scans),
        patterns: Patterns::default(),
        bound: Bound::Copy,
    }
}

fn transpose_cases(shared_floats: u32) -> Vec<Case> {
    [(7u32, 5u32), (32, 64), (45, 70)].iter().map(|&(rows, cols)| transpose_case(rows, cols, shared_floats)).collect()
}

fn transpose_case(rows: u32, cols: u32, shared_floats: u32) -> Case {
    let src = uniform((rows * cols) as usize, 10);
    let shape = LaunchShape {
        grid: Dim3::new(cols.div_ceil(TILE), rows.div_ceil(TILE), 1),
        block: Dim3::new(TILE, TILE_ROWS, 1),
        shared_bytes: 4 * shared_floats,
    };
    let expected = (0..rows * cols).map(|i| src[((i % rows) * cols + i / rows) as usize] as f64).collect();
    Case {
        label: matrix_label(rows, cols, shape),
        shape,
        dims: [rows, cols, 0],
        inputs: vec![Input::floats("src", &src)],
        output: "dst",
        expected: floats(expected),
        zeroed: false,
        columns: Some(rows),
    }
}

fn e08() -> Exercise {
    Exercise {
        number: 8,
        title: "A transpose, coalesced on both sides",
        concept: "turn the tile in shared memory so both the global read and the global write go along rows",
        lab: "ptx-ladder coalesce",
        file: "exercises/src/e08_transpose.rs",
        source: include_str!("e08_transpose.rs"),
        solution: include_str!("solutions/s08_transpose.rs"),
        hints: &[
            "Read: for r in (ty..32).step_by(8): tile[r * 32 + tx] = src[(32 * blockIdx.y + r) * cols + 32 * blockIdx.x + tx], guarded.",
            "gpu::sync_threads() between filling the tile and reading it.",
            "Write: dst row = 32 * blockIdx.x + r, dst column = 32 * blockIdx.y + tx; dst[row * rows + column] = tile[tx * 32 + r], guarded against cols and rows.",
        ],
        kernel: Kernel::Transpose(crate::e08_transpose::ex08_transpose),
        reference: Kernel::Transpose(s::s08_transpose::sol08_transpose),
        entry: crate::e08_transpose::EX08_TRANSPOSE.name(),
        reference_entry: s::s08_transpose::SOL08_TRANSPOSE.name(),
        wrong: vec![
            wrong("naive", Kernel::Transpose(w::wrong08_naive), "writes down the columns of dst", Problem::Uncoalesced),
            wrong("missing barrier", Kernel::Transpose(w::wrong08_missing_barrier), "no sync_threads()", Problem::Race),
        ],
        cases: || transpose_cases(TILE * TILE),
        large: || transpose_case(LARGE_SIDE, LARGE_SIDE, TILE * TILE),
        patterns: Patterns { coalesced: true, conflict_free: false },
        bound: Bound::Copy,
    }
}

fn e09() -> Exercise {
    Exercise {
        number: 9,
        title: "The transpose, free of bank conflicts",
        concept: "pad (or swizzle) the shared tile so a column read hits 32 different banks",
        lab: "ptx-ladder banks",
        file: "exercises/src/e09_transpose_no_conflicts.rs",
        source: include_str!("e09_transpose_no_conflicts.rs"),
        solution: include_str!("solutions/s09_transpose_no_conflicts.rs"),
        hints: &[
            "Start from your exercise 8; only the tile's indexing changes.",
            "Use a pitch of 33: tile[r * 33 + tx] when filling, tile[tx * 33 + r] when reading.",
        ],
        kernel: Kernel::Transpose(crate::e09_transpose_no_conflicts::ex09_transpose_padded),
        reference: Kernel::Transpose(s::s09_transpose_no_conflicts::sol09_transpose_padded),
        entry: crate::e09_transpose_no_conflicts::EX09_TRANSPOSE_PADDED.name(),
        reference_entry: s::s09_transpose_no_conflicts::SOL09_TRANSPOSE_PADDED.name(),
        wrong: vec![wrong(
            "unpadded tile",
            Kernel::Transpose(s::s08_transpose::sol08_transpose),
            "rows 32 floats apart: a column is one bank",
            Problem::BankConflicts,
        )],
        cases: || transpose_cases(TILE * (TILE + 1)),
        large: || transpose_case(LARGE_SIDE, LARGE_SIDE, TILE * (TILE + 1)),
        patterns: Patterns { coalesced: true, conflict_free: true },
        bound: Bound::Copy,
    }
}

fn dot_case(n: u32) -> Case {
    let (a, b) = (uniform(n as usize, 11), uniform(n as usize, 12));
    let dot: f64 = a.iter().zip(&b).map(|(&p, &q)| p as f64 * q as f64).sum();
    // Float atomics add the blocks' sums in any order: allow 1e-7 of Σ|a b|
    // (far below what one lost block would change).
    let magnitude: f64 = a.iter().zip(&b).map(|(&p, &q)| (p as f64 * q as f64).abs()).sum();
    let tolerance = TOLERANCE.max(1e-7 * magnitude / dot.abs().max(1.0));
    Case {
        label: size_label(n),
        shape: linear(n, BLOCK),
        dims: [n, 0, 0],
        inputs: vec![Input::floats("a", &a), Input::floats("b", &b)],
        output: "out",
        expected: Expected::Floats { values: vec![dot], tolerance },
        zeroed: true,
        columns: None,
    }
}

fn e10() -> Exercise {
    Exercise {
        number: 10,
        title: "A dot product, with atomics",
        concept: "a tree sum per block, then one atomic add per block into the single result",
        lab: "ptx-ladder reduce",
        file: "exercises/src/e10_dot_product.rs",
        source: include_str!("e10_dot_product.rs"),
        solution: include_str!("solutions/s10_dot_product.rs"),
        hints: &[
            "Stage a[i] * b[i] (0 past n) in the tile, then the tree of exercise 5.",
            "Thread 0 of each block: unsafe { gpu::atomic_add_f32(out, load(tile)) }.",
        ],
        kernel: Kernel::TwoArrays(crate::e10_dot_product::ex10_dot),
        reference: Kernel::TwoArrays(s::s10_dot_product::sol10_dot),
        entry: crate::e10_dot_product::EX10_DOT.name(),
        reference_entry: s::s10_dot_product::SOL10_DOT.name(),
        wrong: vec![
            wrong("no guard", Kernel::TwoArrays(w::wrong10_no_guard), "loads without `if i < n`", Problem::OutOfBounds),
            wrong("missing barrier", Kernel::TwoArrays(w::wrong10_missing_barrier), "no barrier after staging", Problem::Race),
        ],
        cases: || SIZES.iter().map(|&n| dot_case(n)).collect(),
        large: || dot_case(LARGE),
        patterns: Patterns::default(),
        bound: Bound::Copy,
    }
}

fn histogram_case(n: u32) -> Case {
    // Skewed: small values are more frequent, so bins collide.
    let data: Vec<u32> = uniform(n as usize, 13).iter().map(|&v| ((v * v) * BINS as f32) as u32 % BINS).collect();
    let mut counts = vec![0u32; BINS as usize];
    for &v in &data {
        counts[v as usize] += 1;
    }
    Case {
        label: size_label(n),
        shape: linear(n, BINS),
        dims: [n, 0, 0],
        inputs: vec![Input { name: "data", words: data }],
        output: "counts",
        expected: Expected::Counts(counts),
        zeroed: true,
        columns: None,
    }
}

fn e11() -> Exercise {
    Exercise {
        number: 11,
        title: "A histogram",
        concept: "many threads add to few counters: shared-memory atomics per block, then global atomics",
        lab: "ptx-ladder reduce",
        file: "exercises/src/e11_histogram.rs",
        source: include_str!("e11_histogram.rs"),
        solution: include_str!("solutions/s11_histogram.rs"),
        hints: &[
            "let bins = gpu::dynamic_shared::<u32>(); threads t < 32 store 0 into bins[t]; then sync.",
            "Each thread with i < n: gpu::atomic_add_u32(bins.add(value % 32), 1); then sync.",
            "Threads t < 32: gpu::atomic_add_u32(counts.add(t), load(bins.add(t))).",
        ],
        kernel: Kernel::Counts(crate::e11_histogram::ex11_histogram),
        reference: Kernel::Counts(s::s11_histogram::sol11_histogram),
        entry: crate::e11_histogram::EX11_HISTOGRAM.name(),
        reference_entry: s::s11_histogram::SOL11_HISTOGRAM.name(),
        wrong: vec![
            wrong("plain increment", Kernel::Counts(w::wrong11_plain_increment), "load + 1 + store instead of an atomic", Problem::Race),
            wrong("not zeroed", Kernel::Counts(w::wrong11_not_zeroed), "shared counters never set to 0", Problem::WrongValues),
        ],
        cases: || SIZES.iter().map(|&n| histogram_case(n)).collect(),
        large: || histogram_case(LARGE),
        patterns: Patterns::default(),
        bound: Bound::Copy,
    }
}

fn convolution_case(n: u32) -> Case {
    let (x, weights) = (uniform(n as usize, 14), uniform(2 * RADIUS as usize + 1, 15));
    let at = |i: i64| if i >= 0 && i < n as i64 { x[i as usize] as f64 } else { 0.0 };
    let r = RADIUS as i64;
    let expected = (0..n as i64).map(|i| (0..=2 * r).map(|j| weights[j as usize] as f64 * at(i + j - r)).sum()).collect();
    Case {
        label: size_label(n),
        shape: linear(n, BLOCK + 2 * RADIUS),
        dims: [n, 0, 0],
        inputs: vec![Input::floats("x", &x), Input::floats("w", &weights)],
        output: "out",
        expected: floats(expected),
        zeroed: false,
        columns: None,
    }
}

fn e12() -> Exercise {
    Exercise {
        number: 12,
        title: "A 1D convolution with a halo",
        concept: "load each input once into shared memory, with the neighbours' elements (the halo) at the edges",
        lab: "ptx-ladder memory",
        file: "exercises/src/e12_convolution.rs",
        source: include_str!("e12_convolution.rs"),
        solution: include_str!("solutions/s12_convolution.rs"),
        hints: &[
            "tile[s] holds x[128 * blockIdx.x - 3 + s] for s in 0..134 (0 outside 0..n). Each thread loads s = t + 3.",
            "Threads t < 3 also load s = t (left halo); threads 3 <= t < 6 load s = 128 + t (right halo). Then sync.",
            "out[i] = Σ_j w[j] * tile[t + j] for j in 0..7, for i < n.",
        ],
        kernel: Kernel::TwoArrays(crate::e12_convolution::ex12_convolve),
        reference: Kernel::TwoArrays(s::s12_convolution::sol12_convolve),
        entry: crate::e12_convolution::EX12_CONVOLVE.name(),
        reference_entry: s::s12_convolution::SOL12_CONVOLVE.name(),
        wrong: vec![
            wrong("no halo", Kernel::TwoArrays(w::wrong12_no_halo), "only the block's own elements loaded", Problem::WrongValues),
            wrong("missing barrier", Kernel::TwoArrays(w::wrong12_missing_barrier), "no sync_threads() after loading", Problem::Race),
        ],
        cases: || SIZES.iter().map(|&n| convolution_case(n)).collect(),
        large: || convolution_case(LARGE),
        patterns: Patterns::default(),
        bound: Bound::Copy,
    }
}

/// Matmul sizes: smaller than a tile, several tiles along k, and ragged edges everywhere.
const MATMULS: [(u32, u32, u32); 3] = [(5, 7, 20), (32, 32, 32), (70, 37, 41)];

fn matmul_cases(tile_m: u32, shared_floats: u32) -> Vec<Case> {
    MATMULS.iter().map(|&size| matmul_case(size, tile_m, shared_floats)).collect()
}

/// The timed matmul size (the f64 reference takes a second or two on the CPU).
const LARGE_MATMUL: (u32, u32, u32) = (1024, 1024, 1024);

fn matmul_case((m, n, k): (u32, u32, u32), tile_m: u32, shared_floats: u32) -> Case {
    let (a, b) = (uniform((m * k) as usize, 16), uniform((k * n) as usize, 17));
    let shape = LaunchShape {
        grid: Dim3::new(n.div_ceil(SIDE), m.div_ceil(tile_m), 1),
        block: Dim3::new(SIDE, SIDE, 1),
        shared_bytes: 4 * shared_floats,
    };
    let expected = (0..m * n)
        .map(|i| {
            let (r, c) = (i / n, i % n);
            (0..k).map(|p| a[(r * k + p) as usize] as f64 * b[(p * n + c) as usize] as f64).sum()
        })
        .collect();
    Case {
        label: format!("m, n, k = {m}, {n}, {k} ({})", ptx_ladder::exercises::shape_text(shape)),
        shape,
        dims: [m, n, k],
        inputs: vec![Input::floats("a", &a), Input::floats("b", &b)],
        output: "c",
        // Sums of k products in float: the allowance grows with k.
        expected: Expected::Floats { values: expected, tolerance: TOLERANCE * (k as f64 / 64.0).max(1.0) },
        zeroed: false,
        columns: Some(n),
    }
}

fn e13() -> Exercise {
    Exercise {
        number: 13,
        title: "A tiled matmul",
        concept: "each block stages 16×16 tiles of a and b in shared memory; two barriers per step",
        lab: "ptx-ladder matmul",
        file: "exercises/src/e13_tiled_matmul.rs",
        source: include_str!("e13_tiled_matmul.rs"),
        solution: include_str!("solutions/s13_tiled_matmul.rs"),
        hints: &[
            "a_tile = gpu::dynamic_shared::<f32>(), b_tile = a_tile.add(256). Every thread loads a[row][k0 + tx] and b[k0 + ty][col] (0 outside) into slot ty * 16 + tx.",
            "sync; sum += a_tile[ty * 16 + kk] * b_tile[kk * 16 + tx] for kk in 0..16; sync again before the next k0.",
            "Only the store of c is guarded by row < m && col < n: every thread loads and reaches the barriers.",
        ],
        kernel: Kernel::Matmul(crate::e13_tiled_matmul::ex13_matmul_tiled),
        reference: Kernel::Matmul(s::s13_tiled_matmul::sol13_matmul_tiled),
        entry: crate::e13_tiled_matmul::EX13_MATMUL_TILED.name(),
        reference_entry: s::s13_tiled_matmul::SOL13_MATMUL_TILED.name(),
        wrong: vec![
            wrong("no second barrier", Kernel::Matmul(w::wrong13_no_second_barrier), "the next tiles overwrite ones in use", Problem::Race),
            wrong("unguarded loads", Kernel::Matmul(w::wrong13_unguarded_loads), "tile loads past the matrices", Problem::OutOfBounds),
        ],
        cases: || matmul_cases(SIDE, 2 * SIDE * SIDE),
        large: || matmul_case(LARGE_MATMUL, SIDE, 2 * SIDE * SIDE),
        patterns: Patterns::default(),
        bound: Bound::Flops,
    }
}

fn e14() -> Exercise {
    Exercise {
        number: 14,
        title: "A register-blocked matmul",
        concept: "each thread computes 4 outputs, reusing every value it loads from shared memory 4 times",
        lab: "ptx-ladder matmul",
        file: "exercises/src/e14_register_blocked_matmul.rs",
        source: include_str!("e14_register_blocked_matmul.rs"),
        solution: include_str!("solutions/s14_register_blocked_matmul.rs"),
        hints: &[
            "Keep let mut sums = [0.0f32; 4]; the a tile is 64×16 (a_tile), the b tile 16×16 at a_tile.add(1024).",
            "Load: for r in 0..4, a_tile[(ty + 16 r) * 16 + tx] = a[64 * blockIdx.y + ty + 16 r][k0 + tx]; b_tile[ty * 16 + tx] = b[k0 + ty][col]; 0 outside.",
            "Inner loop: let bv = b_tile[kk * 16 + tx]; for r in 0..4 { sums[r] += a_tile[(ty + 16 r) * 16 + kk] * bv }. Two barriers per step, as in exercise 13.",
        ],
        kernel: Kernel::Matmul(crate::e14_register_blocked_matmul::ex14_matmul_register_blocked),
        reference: Kernel::Matmul(s::s14_register_blocked_matmul::sol14_matmul_register_blocked),
        entry: crate::e14_register_blocked_matmul::EX14_MATMUL_REGISTER_BLOCKED.name(),
        reference_entry: s::s14_register_blocked_matmul::SOL14_MATMUL_REGISTER_BLOCKED.name(),
        wrong: vec![wrong(
            "no second barrier",
            Kernel::Matmul(w::wrong14_no_second_barrier),
            "the next tiles overwrite ones in use",
            Problem::Race,
        )],
        cases: || matmul_cases(SIDE * ROWS_PER_THREAD, SIDE * ROWS_PER_THREAD * SIDE + SIDE * SIDE),
        large: || matmul_case(LARGE_MATMUL, SIDE * ROWS_PER_THREAD, SIDE * ROWS_PER_THREAD * SIDE + SIDE * SIDE),
        patterns: Patterns::default(),
        bound: Bound::Flops,
    }
}
