//! `wgmma`: warpgroup matrix multiply-accumulate, issued asynchronously.
//!
//! The 128 threads of a warpgroup together compute a 64×N tile of
//! `D = A·B (+ D)`, A and B read from shared memory through descriptors
//! ([`super::descriptor`]), D held in registers: each thread keeps N/2
//! floats. Thread `t` (warp `w = t / 32`, lane `l`) holds, for every
//! 8-column group `j`, `d[4j..4j+4]` = (row, col), (row, col+1),
//! (row+8, col), (row+8, col+1) with `row = 16w + l/4`, `col = 8j + 2(l%4)`.
//!
//! The instructions are asynchronous: [`fence`] before the first one (and
//! whenever the accumulators were touched by ordinary instructions),
//! [`commit`] to close a group, [`wait`] until at most `N` groups are still
//! running. The accumulators must not be read or written between an
//! `mma_async` and the `wait` that covers it; [`fence_operands`] pins the
//! compiler to that order.
//!
//! Only the shapes the rungs use are here (the generic PTX has N = 8..256).

/// `wgmma.fence.sync.aligned`: orders this warpgroup's earlier register and
/// shared-memory accesses before the wgmmas that follow.
#[inline(always)]
pub fn fence() {
    unsafe { core::arch::asm!("wgmma.fence.sync.aligned;") }
}

/// `wgmma.commit_group.sync.aligned`: the wgmmas issued since the last
/// commit form one group.
#[inline(always)]
pub fn commit() {
    unsafe { core::arch::asm!("wgmma.commit_group.sync.aligned;") }
}

/// `wgmma.wait_group.sync.aligned N`: waits until at most `N` committed
/// groups are still running.
#[inline(always)]
pub fn wait<const N: u32>() {
    unsafe { core::arch::asm!("wgmma.wait_group.sync.aligned {n};", n = const N) }
}

/// An empty `asm!` per accumulator register, after a [`wait`]: the compiler
/// must then treat every accumulator as produced there, so no read of them
/// moves above the wait (as CUTLASS's `warpgroup_fence_operand`).
#[inline(always)]
pub fn fence_operands<const N: usize>(d: &mut [f32; N]) {
    for i in 0..N {
        unsafe { core::arch::asm!("/* {x} */", x = inout(reg32) d[i], options(nomem, nostack)) }
    }
}

/// `wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16`: a 64×256×16
/// step, A K-major, B MN-major (K×N row-major, the transpose flag set).
///
/// # Safety
/// Every thread of the warpgroup calls it together, after [`fence`], with
/// descriptors of tiles that have landed in shared memory.
#[inline(always)]
pub unsafe fn mma_bf16_m64n256k16(d: &mut [f32; 128], desc_a: u64, desc_b: u64, accumulate: bool) {
    unsafe {
        core::arch::asm!(
            "{{ .reg .pred p;",
            "setp.ne.u32 p, {130}, 0;",
            concat!(
                "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 ",
                "{{{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}, {8}, {9}, {10}, {11}, {12}, {13}, {14}, {15}, {16}, ",
                "{17}, {18}, {19}, {20}, {21}, {22}, {23}, {24}, {25}, {26}, {27}, {28}, {29}, {30}, {31}, {32}, ",
                "{33}, {34}, {35}, {36}, {37}, {38}, {39}, {40}, {41}, {42}, {43}, {44}, {45}, {46}, {47}, {48}, ",
                "{49}, {50}, {51}, {52}, {53}, {54}, {55}, {56}, {57}, {58}, {59}, {60}, {61}, {62}, {63}, {64}, ",
                "{65}, {66}, {67}, {68}, {69}, {70}, {71}, {72}, {73}, {74}, {75}, {76}, {77}, {78}, {79}, {80}, ",
                "{81}, {82}, {83}, {84}, {85}, {86}, {87}, {88}, {89}, {90}, {91}, {92}, {93}, {94}, {95}, {96}, ",
                "{97}, {98}, {99}, {100}, {101}, {102}, {103}, {104}, {105}, {106}, {107}, {108}, {109}, {110}, ",
                "{111}, {112}, {113}, {114}, {115}, {116}, {117}, {118}, {119}, {120}, {121}, {122}, {123}, ",
                "{124}, {125}, {126}, {127}}}, {128}, {129}, p, 1, 1, 0, 1; }}",
            ),
            inout(reg32) d[0], inout(reg32) d[1], inout(reg32) d[2], inout(reg32) d[3], inout(reg32) d[4], inout(reg32) d[5],
            inout(reg32) d[6], inout(reg32) d[7], inout(reg32) d[8], inout(reg32) d[9], inout(reg32) d[10], inout(reg32) d[11],
            inout(reg32) d[12], inout(reg32) d[13], inout(reg32) d[14], inout(reg32) d[15], inout(reg32) d[16], inout(reg32) d[17],
            inout(reg32) d[18], inout(reg32) d[19], inout(reg32) d[20], inout(reg32) d[21], inout(reg32) d[22], inout(reg32) d[23],
            inout(reg32) d[24], inout(reg32) d[25], inout(reg32) d[26], inout(reg32) d[27], inout(reg32) d[28], inout(reg32) d[29],
            inout(reg32) d[30], inout(reg32) d[31], inout(reg32) d[32], inout(reg32) d[33], inout(reg32) d[34], inout(reg32) d[35],
            inout(reg32) d[36], inout(reg32) d[37], inout(reg32) d[38], inout(reg32) d[39], inout(reg32) d[40], inout(reg32) d[41],
            inout(reg32) d[42], inout(reg32) d[43], inout(reg32) d[44], inout(reg32) d[45], inout(reg32) d[46], inout(reg32) d[47],
            inout(reg32) d[48], inout(reg32) d[49], inout(reg32) d[50], inout(reg32) d[51], inout(reg32) d[52], inout(reg32) d[53],
            inout(reg32) d[54], inout(reg32) d[55], inout(reg32) d[56], inout(reg32) d[57], inout(reg32) d[58], inout(reg32) d[59],
            inout(reg32) d[60], inout(reg32) d[61], inout(reg32) d[62], inout(reg32) d[63], inout(reg32) d[64], inout(reg32) d[65],
            inout(reg32) d[66], inout(reg32) d[67], inout(reg32) d[68], inout(reg32) d[69], inout(reg32) d[70], inout(reg32) d[71],
            inout(reg32) d[72], inout(reg32) d[73], inout(reg32) d[74], inout(reg32) d[75], inout(reg32) d[76], inout(reg32) d[77],
            inout(reg32) d[78], inout(reg32) d[79], inout(reg32) d[80], inout(reg32) d[81], inout(reg32) d[82], inout(reg32) d[83],
            inout(reg32) d[84], inout(reg32) d[85], inout(reg32) d[86], inout(reg32) d[87], inout(reg32) d[88], inout(reg32) d[89],
            inout(reg32) d[90], inout(reg32) d[91], inout(reg32) d[92], inout(reg32) d[93], inout(reg32) d[94], inout(reg32) d[95],
            inout(reg32) d[96], inout(reg32) d[97], inout(reg32) d[98], inout(reg32) d[99], inout(reg32) d[100], inout(reg32) d[101],
            inout(reg32) d[102], inout(reg32) d[103], inout(reg32) d[104], inout(reg32) d[105], inout(reg32) d[106], inout(reg32) d[107],
            inout(reg32) d[108], inout(reg32) d[109], inout(reg32) d[110], inout(reg32) d[111], inout(reg32) d[112], inout(reg32) d[113],
            inout(reg32) d[114], inout(reg32) d[115], inout(reg32) d[116], inout(reg32) d[117], inout(reg32) d[118], inout(reg32) d[119],
            inout(reg32) d[120], inout(reg32) d[121], inout(reg32) d[122], inout(reg32) d[123], inout(reg32) d[124], inout(reg32) d[125],
            inout(reg32) d[126], inout(reg32) d[127],
            in(reg64) desc_a,
            in(reg64) desc_b,
            in(reg32) accumulate as u32,
        )
    }
}

/// `wgmma.mma_async.sync.aligned.m64n192k16.f32.bf16.bf16`: as
/// [`mma_bf16_m64n256k16`], 192 columns wide (BF16 rung 14's tiles).
///
/// # Safety
/// As [`mma_bf16_m64n256k16`].
#[inline(always)]
pub unsafe fn mma_bf16_m64n192k16(d: &mut [f32; 96], desc_a: u64, desc_b: u64, accumulate: bool) {
    unsafe {
        core::arch::asm!(
            "{{ .reg .pred p;",
            "setp.ne.u32 p, {98}, 0;",
            concat!(
                "wgmma.mma_async.sync.aligned.m64n192k16.f32.bf16.bf16 ",
                "{{{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}, {8}, {9}, {10}, {11}, {12}, {13}, {14}, {15}, ",
                "{16}, {17}, {18}, {19}, {20}, {21}, {22}, {23}, {24}, {25}, {26}, {27}, {28}, {29}, {30}, {31}, ",
                "{32}, {33}, {34}, {35}, {36}, {37}, {38}, {39}, {40}, {41}, {42}, {43}, {44}, {45}, {46}, {47}, ",
                "{48}, {49}, {50}, {51}, {52}, {53}, {54}, {55}, {56}, {57}, {58}, {59}, {60}, {61}, {62}, {63}, ",
                "{64}, {65}, {66}, {67}, {68}, {69}, {70}, {71}, {72}, {73}, {74}, {75}, {76}, {77}, {78}, {79}, ",
                "{80}, {81}, {82}, {83}, {84}, {85}, {86}, {87}, {88}, {89}, {90}, {91}, {92}, {93}, {94}, {95}}}, {96}, {97}, p, 1, 1, 0, 1; }}",
            ),
            inout(reg32) d[0], inout(reg32) d[1], inout(reg32) d[2], inout(reg32) d[3], inout(reg32) d[4], inout(reg32) d[5],
            inout(reg32) d[6], inout(reg32) d[7], inout(reg32) d[8], inout(reg32) d[9], inout(reg32) d[10], inout(reg32) d[11],
            inout(reg32) d[12], inout(reg32) d[13], inout(reg32) d[14], inout(reg32) d[15], inout(reg32) d[16], inout(reg32) d[17],
            inout(reg32) d[18], inout(reg32) d[19], inout(reg32) d[20], inout(reg32) d[21], inout(reg32) d[22], inout(reg32) d[23],
            inout(reg32) d[24], inout(reg32) d[25], inout(reg32) d[26], inout(reg32) d[27], inout(reg32) d[28], inout(reg32) d[29],
            inout(reg32) d[30], inout(reg32) d[31], inout(reg32) d[32], inout(reg32) d[33], inout(reg32) d[34], inout(reg32) d[35],
            inout(reg32) d[36], inout(reg32) d[37], inout(reg32) d[38], inout(reg32) d[39], inout(reg32) d[40], inout(reg32) d[41],
            inout(reg32) d[42], inout(reg32) d[43], inout(reg32) d[44], inout(reg32) d[45], inout(reg32) d[46], inout(reg32) d[47],
            inout(reg32) d[48], inout(reg32) d[49], inout(reg32) d[50], inout(reg32) d[51], inout(reg32) d[52], inout(reg32) d[53],
            inout(reg32) d[54], inout(reg32) d[55], inout(reg32) d[56], inout(reg32) d[57], inout(reg32) d[58], inout(reg32) d[59],
            inout(reg32) d[60], inout(reg32) d[61], inout(reg32) d[62], inout(reg32) d[63], inout(reg32) d[64], inout(reg32) d[65],
            inout(reg32) d[66], inout(reg32) d[67], inout(reg32) d[68], inout(reg32) d[69], inout(reg32) d[70], inout(reg32) d[71],
            inout(reg32) d[72], inout(reg32) d[73], inout(reg32) d[74], inout(reg32) d[75], inout(reg32) d[76], inout(reg32) d[77],
            inout(reg32) d[78], inout(reg32) d[79], inout(reg32) d[80], inout(reg32) d[81], inout(reg32) d[82], inout(reg32) d[83],
            inout(reg32) d[84], inout(reg32) d[85], inout(reg32) d[86], inout(reg32) d[87], inout(reg32) d[88], inout(reg32) d[89],
            inout(reg32) d[90], inout(reg32) d[91], inout(reg32) d[92], inout(reg32) d[93], inout(reg32) d[94], inout(reg32) d[95],
            in(reg64) desc_a,
            in(reg64) desc_b,
            in(reg32) accumulate as u32,
        )
    }
}

/// The accumulators of a 64×N wgmma with B MN-major, by their count per
/// thread (N/2): 128 for N = 256, 96 for N = 192, 64 for N = 128. The clustered GEMM with
/// deferred stores ([`crate::gemm::hopper::deferred`]) is generic over its
/// tile's width through this.
pub trait Accumulators: Copy {
    /// One 64×N×16 step into these accumulators.
    ///
    /// # Safety
    /// As [`mma_bf16_m64n256k16`].
    unsafe fn mma(&mut self, desc_a: u64, desc_b: u64);
}

impl Accumulators for [f32; 128] {
    #[inline(always)]
    unsafe fn mma(&mut self, desc_a: u64, desc_b: u64) {
        unsafe { mma_bf16_m64n256k16(self, desc_a, desc_b, true) }
    }
}

impl Accumulators for [f32; 96] {
    #[inline(always)]
    unsafe fn mma(&mut self, desc_a: u64, desc_b: u64) {
        unsafe { mma_bf16_m64n192k16(self, desc_a, desc_b, true) }
    }
}

impl Accumulators for [f32; 64] {
    #[inline(always)]
    unsafe fn mma(&mut self, desc_a: u64, desc_b: u64) {
        unsafe { mma_bf16_m64n128k16::<false>(self, desc_a, desc_b, true) }
    }
}

/// `wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32`: a 64×128×8
/// step; TF32 has no transpose, so A and B are both K-major (B is stored
/// N×K).
///
/// # Safety
/// Every thread of the warpgroup calls it together, after [`fence`], with
/// descriptors of tiles that have landed in shared memory.
#[inline(always)]
pub unsafe fn mma_tf32_m64n128k8(d: &mut [f32; 64], desc_a: u64, desc_b: u64, accumulate: bool) {
    unsafe {
        core::arch::asm!(
            "{{ .reg .pred p;",
            "setp.ne.u32 p, {66}, 0;",
            concat!(
                "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 ",
                "{{{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}, {8}, {9}, {10}, {11}, {12}, {13}, {14}, {15}, {16}, ",
                "{17}, {18}, {19}, {20}, {21}, {22}, {23}, {24}, {25}, {26}, {27}, {28}, {29}, {30}, {31}, {32}, ",
                "{33}, {34}, {35}, {36}, {37}, {38}, {39}, {40}, {41}, {42}, {43}, {44}, {45}, {46}, {47}, {48}, ",
                "{49}, {50}, {51}, {52}, {53}, {54}, {55}, {56}, {57}, {58}, {59}, {60}, {61}, {62}, {63}}}, ",
                "{64}, {65}, p, 1, 1; }}",
            ),
            inout(reg32) d[0], inout(reg32) d[1], inout(reg32) d[2], inout(reg32) d[3], inout(reg32) d[4], inout(reg32) d[5],
            inout(reg32) d[6], inout(reg32) d[7], inout(reg32) d[8], inout(reg32) d[9], inout(reg32) d[10], inout(reg32) d[11],
            inout(reg32) d[12], inout(reg32) d[13], inout(reg32) d[14], inout(reg32) d[15], inout(reg32) d[16], inout(reg32) d[17],
            inout(reg32) d[18], inout(reg32) d[19], inout(reg32) d[20], inout(reg32) d[21], inout(reg32) d[22], inout(reg32) d[23],
            inout(reg32) d[24], inout(reg32) d[25], inout(reg32) d[26], inout(reg32) d[27], inout(reg32) d[28], inout(reg32) d[29],
            inout(reg32) d[30], inout(reg32) d[31], inout(reg32) d[32], inout(reg32) d[33], inout(reg32) d[34], inout(reg32) d[35],
            inout(reg32) d[36], inout(reg32) d[37], inout(reg32) d[38], inout(reg32) d[39], inout(reg32) d[40], inout(reg32) d[41],
            inout(reg32) d[42], inout(reg32) d[43], inout(reg32) d[44], inout(reg32) d[45], inout(reg32) d[46], inout(reg32) d[47],
            inout(reg32) d[48], inout(reg32) d[49], inout(reg32) d[50], inout(reg32) d[51], inout(reg32) d[52], inout(reg32) d[53],
            inout(reg32) d[54], inout(reg32) d[55], inout(reg32) d[56], inout(reg32) d[57], inout(reg32) d[58], inout(reg32) d[59],
            inout(reg32) d[60], inout(reg32) d[61], inout(reg32) d[62], inout(reg32) d[63],
            in(reg64) desc_a,
            in(reg64) desc_b,
            in(reg32) accumulate as u32,
        )
    }
}

/// `wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16`: a 64×16×16
/// step with A MN-major (its 64 rows contiguous in each 128-byte row: the
/// transpose flag set) and B K-major (16 rows of 16 values along K). The
/// swap-AB rung's shape: A is a tile of the weights (their N as wgmma's
/// M), B a tile of the few rows of the activations (their M as wgmma's N).
///
/// # Safety
/// Every thread of the warpgroup calls it together, after [`fence`], with
/// descriptors of tiles that have landed in shared memory.
#[inline(always)]
pub unsafe fn mma_bf16_m64n16k16_a_transposed(d: &mut [f32; 8], desc_a: u64, desc_b: u64, accumulate: bool) {
    unsafe {
        core::arch::asm!(
            "{{ .reg .pred p;",
            "setp.ne.u32 p, {10}, 0;",
            "wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 {{{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}}}, {8}, {9}, p, 1, 1, 1, 0; }}",
            inout(reg32) d[0], inout(reg32) d[1], inout(reg32) d[2], inout(reg32) d[3],
            inout(reg32) d[4], inout(reg32) d[5], inout(reg32) d[6], inout(reg32) d[7],
            in(reg64) desc_a,
            in(reg64) desc_b,
            in(reg32) accumulate as u32,
        )
    }
}

/// `wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16`: as
/// [`mma_bf16_m64n16k16_a_transposed`], with 64 rows of the activations
/// as wgmma's N (BF16 rung 13's tiles).
///
/// # Safety
/// As [`mma_bf16_m64n16k16_a_transposed`].
#[inline(always)]
pub unsafe fn mma_bf16_m64n64k16_a_transposed(d: &mut [f32; 32], desc_a: u64, desc_b: u64, accumulate: bool) {
    unsafe {
        core::arch::asm!(
            "{{ .reg .pred p;",
            "setp.ne.u32 p, {34}, 0;",
            concat!(
                "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 ",
                "{{{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}, {8}, {9}, {10}, {11}, {12}, {13}, {14}, {15}, {16}, {17}, {18}, {19}, {20}, {21}, {22}, {23}, {24}, {25}, {26}, {27}, {28}, {29}, {30}, {31}}}, {32}, {33}, p, 1, 1, 1, 0; }}",
            ),
            inout(reg32) d[0], inout(reg32) d[1], inout(reg32) d[2], inout(reg32) d[3], inout(reg32) d[4], inout(reg32) d[5],
            inout(reg32) d[6], inout(reg32) d[7], inout(reg32) d[8], inout(reg32) d[9], inout(reg32) d[10], inout(reg32) d[11],
            inout(reg32) d[12], inout(reg32) d[13], inout(reg32) d[14], inout(reg32) d[15], inout(reg32) d[16], inout(reg32) d[17],
            inout(reg32) d[18], inout(reg32) d[19], inout(reg32) d[20], inout(reg32) d[21], inout(reg32) d[22], inout(reg32) d[23],
            inout(reg32) d[24], inout(reg32) d[25], inout(reg32) d[26], inout(reg32) d[27], inout(reg32) d[28], inout(reg32) d[29],
            inout(reg32) d[30], inout(reg32) d[31],
            in(reg64) desc_a,
            in(reg64) desc_b,
            in(reg32) accumulate as u32,
        )
    }
}

/// `wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16`: as
/// [`mma_bf16_m64n16k16_a_transposed`], with 32 rows of the activations
/// as wgmma's N (BF16 rung 13's tiles).
///
/// # Safety
/// As [`mma_bf16_m64n16k16_a_transposed`].
#[inline(always)]
pub unsafe fn mma_bf16_m64n32k16_a_transposed(d: &mut [f32; 16], desc_a: u64, desc_b: u64, accumulate: bool) {
    unsafe {
        core::arch::asm!(
            "{{ .reg .pred p;",
            "setp.ne.u32 p, {18}, 0;",
            concat!(
                "wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16 ",
                "{{{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}, {8}, {9}, {10}, {11}, {12}, {13}, {14}, {15}}}, {16}, {17}, p, 1, 1, 1, 0; }}",
            ),
            inout(reg32) d[0], inout(reg32) d[1], inout(reg32) d[2], inout(reg32) d[3], inout(reg32) d[4], inout(reg32) d[5],
            inout(reg32) d[6], inout(reg32) d[7], inout(reg32) d[8], inout(reg32) d[9], inout(reg32) d[10], inout(reg32) d[11],
            inout(reg32) d[12], inout(reg32) d[13], inout(reg32) d[14], inout(reg32) d[15],
            in(reg64) desc_a,
            in(reg64) desc_b,
            in(reg32) accumulate as u32,
        )
    }
}

/// The accumulators of a swapped wgmma (the weights MN-major as wgmma's A,
/// the activations' rows K-major as its B), by their count per thread:
/// 8 for 16 rows of the activations, 16 for 32, 32 for 64, 40 for 80,
/// 48 for 96, 56 for 112, 64 for 128.
/// The swap-AB GEMM ([`crate::gemm::hopper::swap_ab`]) is generic over
/// its rows through this.
pub trait SwappedAccumulators: Copy {
    /// One 64×N×16 step into these accumulators.
    ///
    /// # Safety
    /// As [`mma_bf16_m64n16k16_a_transposed`].
    unsafe fn mma_a_transposed(&mut self, desc_a: u64, desc_b: u64);
}

impl SwappedAccumulators for [f32; 8] {
    #[inline(always)]
    unsafe fn mma_a_transposed(&mut self, desc_a: u64, desc_b: u64) {
        unsafe { mma_bf16_m64n16k16_a_transposed(self, desc_a, desc_b, true) }
    }
}

impl SwappedAccumulators for [f32; 16] {
    #[inline(always)]
    unsafe fn mma_a_transposed(&mut self, desc_a: u64, desc_b: u64) {
        unsafe { mma_bf16_m64n32k16_a_transposed(self, desc_a, desc_b, true) }
    }
}

impl SwappedAccumulators for [f32; 32] {
    #[inline(always)]
    unsafe fn mma_a_transposed(&mut self, desc_a: u64, desc_b: u64) {
        unsafe { mma_bf16_m64n64k16_a_transposed(self, desc_a, desc_b, true) }
    }
}

/// `wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16`: a 64×128×16
/// step in either layout: with `A_MN_MAJOR` false, A K-major and B
/// MN-major, as [`mma_bf16_m64n256k16`] (BF16 rung 16's tiles); with it
/// true, A MN-major and B K-major, as [`mma_bf16_m64n16k16_a_transposed`],
/// 128 rows of the activations as wgmma's N (rung 13's tiles).
///
/// # Safety
/// As [`mma_bf16_m64n256k16`].
#[inline(always)]
pub unsafe fn mma_bf16_m64n128k16<const A_MN_MAJOR: bool>(d: &mut [f32; 64], desc_a: u64, desc_b: u64, accumulate: bool) {
    unsafe {
        core::arch::asm!(
            "{{ .reg .pred p;",
            "setp.ne.u32 p, {66}, 0;",
            concat!(
                "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 ",
                "{{{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}, {8}, {9}, {10}, {11}, {12}, {13}, {14}, {15}, {16}, {17}, {18}, {19}, {20}, {21}, {22}, {23}, {24}, {25}, {26}, {27}, {28}, {29}, {30}, {31}, {32}, {33}, {34}, {35}, {36}, {37}, {38}, {39}, {40}, {41}, {42}, {43}, {44}, {45}, {46}, {47}, {48}, {49}, {50}, {51}, {52}, {53}, {54}, {55}, {56}, {57}, {58}, {59}, {60}, {61}, {62}, {63}}}, {64}, {65}, p, 1, 1, {a_mn_major}, {b_mn_major}; }}",
            ),
            inout(reg32) d[0], inout(reg32) d[1], inout(reg32) d[2], inout(reg32) d[3], inout(reg32) d[4], inout(reg32) d[5],
            inout(reg32) d[6], inout(reg32) d[7], inout(reg32) d[8], inout(reg32) d[9], inout(reg32) d[10], inout(reg32) d[11],
            inout(reg32) d[12], inout(reg32) d[13], inout(reg32) d[14], inout(reg32) d[15], inout(reg32) d[16], inout(reg32) d[17],
            inout(reg32) d[18], inout(reg32) d[19], inout(reg32) d[20], inout(reg32) d[21], inout(reg32) d[22], inout(reg32) d[23],
            inout(reg32) d[24], inout(reg32) d[25], inout(reg32) d[26], inout(reg32) d[27], inout(reg32) d[28], inout(reg32) d[29],
            inout(reg32) d[30], inout(reg32) d[31], inout(reg32) d[32], inout(reg32) d[33], inout(reg32) d[34], inout(reg32) d[35],
            inout(reg32) d[36], inout(reg32) d[37], inout(reg32) d[38], inout(reg32) d[39], inout(reg32) d[40], inout(reg32) d[41],
            inout(reg32) d[42], inout(reg32) d[43], inout(reg32) d[44], inout(reg32) d[45], inout(reg32) d[46], inout(reg32) d[47],
            inout(reg32) d[48], inout(reg32) d[49], inout(reg32) d[50], inout(reg32) d[51], inout(reg32) d[52], inout(reg32) d[53],
            inout(reg32) d[54], inout(reg32) d[55], inout(reg32) d[56], inout(reg32) d[57], inout(reg32) d[58], inout(reg32) d[59],
            inout(reg32) d[60], inout(reg32) d[61], inout(reg32) d[62], inout(reg32) d[63],
            in(reg64) desc_a,
            in(reg64) desc_b,
            in(reg32) accumulate as u32,
            a_mn_major = const A_MN_MAJOR as u32,
            b_mn_major = const !A_MN_MAJOR as u32,
        )
    }
}

impl SwappedAccumulators for [f32; 64] {
    #[inline(always)]
    unsafe fn mma_a_transposed(&mut self, desc_a: u64, desc_b: u64) {
        unsafe { mma_bf16_m64n128k16::<true>(self, desc_a, desc_b, true) }
    }
}

/// `wgmma.mma_async.sync.aligned.m64n80k16.f32.bf16.bf16`: as
/// [`mma_bf16_m64n16k16_a_transposed`], with 80 rows of the activations
/// as wgmma's N (BF16 rung 13's tiles fitted to M in steps of 16).
///
/// # Safety
/// As [`mma_bf16_m64n16k16_a_transposed`].
#[inline(always)]
pub unsafe fn mma_bf16_m64n80k16_a_transposed(d: &mut [f32; 40], desc_a: u64, desc_b: u64, accumulate: bool) {
    unsafe {
        core::arch::asm!(
            "{{ .reg .pred p;",
            "setp.ne.u32 p, {42}, 0;",
            concat!(
                "wgmma.mma_async.sync.aligned.m64n80k16.f32.bf16.bf16 ",
                "{{{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}, {8}, {9}, {10}, {11}, {12}, {13}, {14}, {15}, {16}, {17}, {18}, {19}, {20}, {21}, {22}, {23}, {24}, {25}, {26}, {27}, {28}, {29}, {30}, {31}, {32}, {33}, {34}, {35}, {36}, {37}, {38}, {39}}}, {40}, {41}, p, 1, 1, 1, 0; }}",
            ),
            inout(reg32) d[0], inout(reg32) d[1], inout(reg32) d[2], inout(reg32) d[3], inout(reg32) d[4], inout(reg32) d[5],
            inout(reg32) d[6], inout(reg32) d[7], inout(reg32) d[8], inout(reg32) d[9], inout(reg32) d[10], inout(reg32) d[11],
            inout(reg32) d[12], inout(reg32) d[13], inout(reg32) d[14], inout(reg32) d[15], inout(reg32) d[16], inout(reg32) d[17],
            inout(reg32) d[18], inout(reg32) d[19], inout(reg32) d[20], inout(reg32) d[21], inout(reg32) d[22], inout(reg32) d[23],
            inout(reg32) d[24], inout(reg32) d[25], inout(reg32) d[26], inout(reg32) d[27], inout(reg32) d[28], inout(reg32) d[29],
            inout(reg32) d[30], inout(reg32) d[31], inout(reg32) d[32], inout(reg32) d[33], inout(reg32) d[34], inout(reg32) d[35],
            inout(reg32) d[36], inout(reg32) d[37], inout(reg32) d[38], inout(reg32) d[39],
            in(reg64) desc_a,
            in(reg64) desc_b,
            in(reg32) accumulate as u32,
        )
    }
}

impl SwappedAccumulators for [f32; 40] {
    #[inline(always)]
    unsafe fn mma_a_transposed(&mut self, desc_a: u64, desc_b: u64) {
        unsafe { mma_bf16_m64n80k16_a_transposed(self, desc_a, desc_b, true) }
    }
}

/// `wgmma.mma_async.sync.aligned.m64n96k16.f32.bf16.bf16`: as
/// [`mma_bf16_m64n16k16_a_transposed`], with 96 rows of the activations
/// as wgmma's N (BF16 rung 13's tiles fitted to M in steps of 16).
///
/// # Safety
/// As [`mma_bf16_m64n16k16_a_transposed`].
#[inline(always)]
pub unsafe fn mma_bf16_m64n96k16_a_transposed(d: &mut [f32; 48], desc_a: u64, desc_b: u64, accumulate: bool) {
    unsafe {
        core::arch::asm!(
            "{{ .reg .pred p;",
            "setp.ne.u32 p, {50}, 0;",
            concat!(
                "wgmma.mma_async.sync.aligned.m64n96k16.f32.bf16.bf16 ",
                "{{{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}, {8}, {9}, {10}, {11}, {12}, {13}, {14}, {15}, {16}, {17}, {18}, {19}, {20}, {21}, {22}, {23}, {24}, {25}, {26}, {27}, {28}, {29}, {30}, {31}, {32}, {33}, {34}, {35}, {36}, {37}, {38}, {39}, {40}, {41}, {42}, {43}, {44}, {45}, {46}, {47}}}, {48}, {49}, p, 1, 1, 1, 0; }}",
            ),
            inout(reg32) d[0], inout(reg32) d[1], inout(reg32) d[2], inout(reg32) d[3], inout(reg32) d[4], inout(reg32) d[5],
            inout(reg32) d[6], inout(reg32) d[7], inout(reg32) d[8], inout(reg32) d[9], inout(reg32) d[10], inout(reg32) d[11],
            inout(reg32) d[12], inout(reg32) d[13], inout(reg32) d[14], inout(reg32) d[15], inout(reg32) d[16], inout(reg32) d[17],
            inout(reg32) d[18], inout(reg32) d[19], inout(reg32) d[20], inout(reg32) d[21], inout(reg32) d[22], inout(reg32) d[23],
            inout(reg32) d[24], inout(reg32) d[25], inout(reg32) d[26], inout(reg32) d[27], inout(reg32) d[28], inout(reg32) d[29],
            inout(reg32) d[30], inout(reg32) d[31], inout(reg32) d[32], inout(reg32) d[33], inout(reg32) d[34], inout(reg32) d[35],
            inout(reg32) d[36], inout(reg32) d[37], inout(reg32) d[38], inout(reg32) d[39], inout(reg32) d[40], inout(reg32) d[41],
            inout(reg32) d[42], inout(reg32) d[43], inout(reg32) d[44], inout(reg32) d[45], inout(reg32) d[46], inout(reg32) d[47],
            in(reg64) desc_a,
            in(reg64) desc_b,
            in(reg32) accumulate as u32,
        )
    }
}

impl SwappedAccumulators for [f32; 48] {
    #[inline(always)]
    unsafe fn mma_a_transposed(&mut self, desc_a: u64, desc_b: u64) {
        unsafe { mma_bf16_m64n96k16_a_transposed(self, desc_a, desc_b, true) }
    }
}

/// `wgmma.mma_async.sync.aligned.m64n112k16.f32.bf16.bf16`: as
/// [`mma_bf16_m64n16k16_a_transposed`], with 112 rows of the activations
/// as wgmma's N (BF16 rung 13's tiles fitted to M in steps of 16).
///
/// # Safety
/// As [`mma_bf16_m64n16k16_a_transposed`].
#[inline(always)]
pub unsafe fn mma_bf16_m64n112k16_a_transposed(d: &mut [f32; 56], desc_a: u64, desc_b: u64, accumulate: bool) {
    unsafe {
        core::arch::asm!(
            "{{ .reg .pred p;",
            "setp.ne.u32 p, {58}, 0;",
            concat!(
                "wgmma.mma_async.sync.aligned.m64n112k16.f32.bf16.bf16 ",
                "{{{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}, {8}, {9}, {10}, {11}, {12}, {13}, {14}, {15}, {16}, {17}, {18}, {19}, {20}, {21}, {22}, {23}, {24}, {25}, {26}, {27}, {28}, {29}, {30}, {31}, {32}, {33}, {34}, {35}, {36}, {37}, {38}, {39}, {40}, {41}, {42}, {43}, {44}, {45}, {46}, {47}, {48}, {49}, {50}, {51}, {52}, {53}, {54}, {55}}}, {56}, {57}, p, 1, 1, 1, 0; }}",
            ),
            inout(reg32) d[0], inout(reg32) d[1], inout(reg32) d[2], inout(reg32) d[3], inout(reg32) d[4], inout(reg32) d[5],
            inout(reg32) d[6], inout(reg32) d[7], inout(reg32) d[8], inout(reg32) d[9], inout(reg32) d[10], inout(reg32) d[11],
            inout(reg32) d[12], inout(reg32) d[13], inout(reg32) d[14], inout(reg32) d[15], inout(reg32) d[16], inout(reg32) d[17],
            inout(reg32) d[18], inout(reg32) d[19], inout(reg32) d[20], inout(reg32) d[21], inout(reg32) d[22], inout(reg32) d[23],
            inout(reg32) d[24], inout(reg32) d[25], inout(reg32) d[26], inout(reg32) d[27], inout(reg32) d[28], inout(reg32) d[29],
            inout(reg32) d[30], inout(reg32) d[31], inout(reg32) d[32], inout(reg32) d[33], inout(reg32) d[34], inout(reg32) d[35],
            inout(reg32) d[36], inout(reg32) d[37], inout(reg32) d[38], inout(reg32) d[39], inout(reg32) d[40], inout(reg32) d[41],
            inout(reg32) d[42], inout(reg32) d[43], inout(reg32) d[44], inout(reg32) d[45], inout(reg32) d[46], inout(reg32) d[47],
            inout(reg32) d[48], inout(reg32) d[49], inout(reg32) d[50], inout(reg32) d[51], inout(reg32) d[52], inout(reg32) d[53],
            inout(reg32) d[54], inout(reg32) d[55],
            in(reg64) desc_a,
            in(reg64) desc_b,
            in(reg32) accumulate as u32,
        )
    }
}

impl SwappedAccumulators for [f32; 56] {
    #[inline(always)]
    unsafe fn mma_a_transposed(&mut self, desc_a: u64, desc_b: u64) {
        unsafe { mma_bf16_m64n112k16_a_transposed(self, desc_a, desc_b, true) }
    }
}
