//! Tensor cores through `mma.sync` (sm_80 and newer): one instruction in
//! which the 32 lanes of a warp multiply a 16×8 tile of A by an 8×8 tile of
//! B and add a 16×8 tile of C. Each lane holds a fixed part of every
//! operand in its registers; PTX's "matrix fragment" tables say which.
//!
//! The BF16 path ([`mma_bf16`], 16×8×16 per instruction) takes bf16 inputs
//! straight from memory; [`ldmatrix_x4`] loads its fragments from shared
//! memory in one instruction per four 8×8 tiles.
//!
//! The fp32 path multiplies TF32 numbers: fp32's sign and exponent with 10
//! of its 23 mantissa bits. [`split_tf32`] writes an fp32 value as the sum of
//! two TF32 values, so three products (big·big + big·small + small·big)
//! recover nearly fp32 accuracy; the small·small term is below fp32's
//! rounding.

/// Lane `lane` of a warp holds these elements of the 16×8 A tile
/// (row-major): `a[0]` = (g, t), `a[1]` = (g+8, t), `a[2]` = (g, t+4),
/// `a[3]` = (g+8, t+4), with `g = lane / 4`, `t = lane % 4`.
pub type FragmentA = [u32; 4];
/// ... of the 8×8 B tile: `b[0]` = (t, g), `b[1]` = (t+4, g).
pub type FragmentB = [u32; 2];
/// ... of the 16×8 C tile: `c[0]` = (g, 2t), `c[1]` = (g, 2t+1),
/// `c[2]` = (g+8, 2t), `c[3]` = (g+8, 2t+1).
pub type FragmentC = [f32; 4];

/// The low mantissa bits TF32 drops.
const TF32_DROPPED: u32 = 0x1fff;

/// `x` rounded to TF32 (nearest, ties away from zero, like
/// `cvt.rna.tf32.f32` for finite `x`), as fp32 bits whose low 13 bits are
/// zero. Two integer instructions; `cvt.rna` adds NaN and infinity checks
/// that cost as much again on every fragment element.
#[inline(always)]
pub fn to_tf32(x: f32) -> u32 {
    // Adding half of the dropped range to the magnitude bits, then
    // truncating, rounds to nearest with ties away from zero.
    x.to_bits().wrapping_add(TF32_DROPPED.div_ceil(2)) & !TF32_DROPPED
}

/// `x` as `big + small`, both TF32: `big` is `x` rounded to TF32 and
/// `small` the rounding error, truncated to TF32 (error below 2^-21 of
/// `x`). A NaN gives NaN; an infinite `x` also gives NaN (∞ − ∞), where
/// FFMA would give ±∞.
#[inline(always)]
pub fn split_tf32(x: f32) -> (u32, u32) {
    let big = to_tf32(x);
    (big, (x - f32::from_bits(big)).to_bits() & !TF32_DROPPED)
}

/// `c + a·b` for a 16×8×8 tile, TF32 inputs, fp32 accumulation
/// (`mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32`). Every lane of
/// the warp must call it together, with its own fragments.
#[inline(always)]
pub fn mma_tf32(a: FragmentA, b: FragmentB, c: FragmentC) -> FragmentC {
    #[cfg(target_arch = "nvptx64")]
    unsafe {
        let mut d = c;
        core::arch::asm!(
            "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {{{d0}, {d1}, {d2}, {d3}}}, {{{a0}, {a1}, {a2}, {a3}}}, {{{b0}, {b1}}}, {{{d0}, {d1}, {d2}, {d3}}};",
            d0 = inout(reg32) d[0], d1 = inout(reg32) d[1], d2 = inout(reg32) d[2], d3 = inout(reg32) d[3],
            a0 = in(reg32) a[0], a1 = in(reg32) a[1], a2 = in(reg32) a[2], a3 = in(reg32) a[3],
            b0 = in(reg32) b[0], b1 = in(reg32) b[1],
            options(pure, nomem, nostack),
        );
        d
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        // The hardware reads only a TF32 operand's top 19 bits.
        let value = |bits: u32| f32::from_bits(bits & !TF32_DROPPED);
        emulate_mma(
            (a, b, c),
            8,
            |warp, row, k| value(warp[((row % 8) * 4 + k % 4) as usize][(row / 8 + 2 * (k / 4)) as usize]),
            |warp, k, col| value(warp[(col * 4 + k % 4) as usize][(4 + k / 4) as usize]),
        )
    }
}

/// Host emulation of an `mma.sync` 16×8×`depth` tile: every lane publishes
/// its fragments, then computes its four results from the whole warp's, as
/// the tensor core would. `a_at(warp, row, k)` and `b_at(warp, k, col)` read
/// one operand element out of the gathered fragments (the instruction's
/// fragment table); C's layout is [`FragmentC`]'s for every shape.
#[cfg(not(target_arch = "nvptx64"))]
fn emulate_mma(
    (a, b, c): ([u32; 4], [u32; 2], FragmentC),
    depth: u32,
    a_at: impl Fn(&crate::gpu::emulated::WarpValues, u32, u32) -> f32,
    b_at: impl Fn(&crate::gpu::emulated::WarpValues, u32, u32) -> f32,
) -> FragmentC {
    let warp = crate::gpu::emulated::warp_exchange([a[0], a[1], a[2], a[3], b[0], b[1], 0, 0]);
    let lane = crate::gpu::lane_id();
    let (g, t) = (lane / 4, lane % 4);
    let mut d = c;
    for (i, (row, col)) in [(g, 2 * t), (g, 2 * t + 1), (g + 8, 2 * t), (g + 8, 2 * t + 1)].into_iter().enumerate() {
        for k in 0..depth {
            d[i] = crate::gpu::fma(a_at(&warp, row, k), b_at(&warp, k, col), d[i]);
        }
    }
    d
}

/// The 16×16 A tile of a BF16 `mma` (row-major), two bf16 per register
/// (lower column in the low half): `a[0]` = (g, 2t..2t+1),
/// `a[1]` = (g+8, 2t..2t+1), `a[2]` = (g, 2t+8..2t+9), `a[3]` = (g+8, 2t+8..2t+9).
pub type FragmentA16 = [u32; 4];
/// ... of the 16×8 B tile (k-major pairs): `b[0]` = (2t..2t+1, g),
/// `b[1]` = (2t+8..2t+9, g), lower k in the low half.
pub type FragmentB16 = [u32; 2];

/// `c + a·b` for a 16×8×16 tile, BF16 inputs, fp32 accumulation
/// (`mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32`). The product of
/// two bf16 numbers (8 significant bits each) is exact in fp32, so only the
/// additions round. Every lane of the warp must call it together.
#[inline(always)]
pub fn mma_bf16(a: FragmentA16, b: FragmentB16, c: FragmentC) -> FragmentC {
    #[cfg(target_arch = "nvptx64")]
    unsafe {
        let mut d = c;
        core::arch::asm!(
            "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {{{d0}, {d1}, {d2}, {d3}}}, {{{a0}, {a1}, {a2}, {a3}}}, {{{b0}, {b1}}}, {{{d0}, {d1}, {d2}, {d3}}};",
            d0 = inout(reg32) d[0], d1 = inout(reg32) d[1], d2 = inout(reg32) d[2], d3 = inout(reg32) d[3],
            a0 = in(reg32) a[0], a1 = in(reg32) a[1], a2 = in(reg32) a[2], a3 = in(reg32) a[3],
            b0 = in(reg32) b[0], b1 = in(reg32) b[1],
            options(pure, nomem, nostack),
        );
        d
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        // Register `reg` of lane `from`, half `k % 2`, as an fp32 value.
        let half = |warp: &crate::gpu::emulated::WarpValues, from: u32, reg: u32, k: u32| {
            bf16_to_f32((warp[from as usize][reg as usize] >> (16 * (k % 2))) as u16)
        };
        emulate_mma(
            (a, b, c),
            16,
            |warp, row, k| half(warp, (row % 8) * 4 + (k % 8) / 2, row / 8 + 2 * (k / 8), k),
            |warp, k, col| half(warp, col * 4 + (k % 8) / 2, 4 + k / 8, k),
        )
    }
}

/// A bf16 value (its 16 bits) as fp32: the same number, exactly.
#[inline(always)]
pub fn bf16_to_f32(bits: u16) -> f32 {
    f32::from_bits((bits as u32) << 16)
}

/// Loads four 8×8 tiles of 16-bit values from shared memory into the
/// warp's registers, laid out as `mma` fragments
/// (`ldmatrix.sync.aligned.m8n8.x4.shared.b16`). Lanes 8i..8i+7 give the
/// addresses of the 8 rows of tile i (16-byte aligned, 8 values each);
/// register i of lane l then holds row l/4, columns 2(l%4) and 2(l%4)+1 of
/// tile i. One instruction replaces eight 32-bit shared loads per lane,
/// and a row of 16 bytes is read whole. Every lane must call it together.
///
/// # Safety
/// `row` must point to 8 readable 16-bit values in shared memory.
#[inline(always)]
pub unsafe fn ldmatrix_x4(row: *const u16) -> [u32; 4] {
    #[cfg(target_arch = "nvptx64")]
    unsafe {
        let mut r = [0u32; 4];
        core::arch::asm!(
            "{{ .reg .u64 s;",
            "cvta.to.shared.u64 s, {row};",
            "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {{{r0}, {r1}, {r2}, {r3}}}, [s]; }}",
            row = in(reg64) row,
            r0 = out(reg32) r[0], r1 = out(reg32) r[1], r2 = out(reg32) r[2], r3 = out(reg32) r[3],
            options(readonly, nostack),
        );
        r
    }
    #[cfg(not(target_arch = "nvptx64"))]
    unsafe {
        emulated_ldmatrix(row, false)
    }
}

/// [`ldmatrix_x4`] with each 8×8 tile transposed on the way
/// (`ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16`): register i of lane l
/// holds rows 2(l%4) and 2(l%4)+1 of column l/4. For a K×N row-major B tile
/// that is exactly the k-major pair an `mma` B fragment wants, so B needs no
/// transposed copy in shared memory.
///
/// # Safety
/// As for [`ldmatrix_x4`].
#[inline(always)]
pub unsafe fn ldmatrix_x4_trans(row: *const u16) -> [u32; 4] {
    #[cfg(target_arch = "nvptx64")]
    unsafe {
        let mut r = [0u32; 4];
        core::arch::asm!(
            "{{ .reg .u64 s;",
            "cvta.to.shared.u64 s, {row};",
            "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {{{r0}, {r1}, {r2}, {r3}}}, [s]; }}",
            row = in(reg64) row,
            r0 = out(reg32) r[0], r1 = out(reg32) r[1], r2 = out(reg32) r[2], r3 = out(reg32) r[3],
            options(readonly, nostack),
        );
        r
    }
    #[cfg(not(target_arch = "nvptx64"))]
    unsafe {
        emulated_ldmatrix(row, true)
    }
}

/// Host emulation of `ldmatrix`: the lanes publish their row addresses,
/// then each reads its fragment elements from them.
#[cfg(not(target_arch = "nvptx64"))]
unsafe fn emulated_ldmatrix(row: *const u16, transposed: bool) -> [u32; 4] {
    let address = row as usize as u64;
    assert!(address % 16 == 0, "ldmatrix row address {address:#x} is not 16-byte aligned");
    let warp = crate::gpu::emulated::warp_exchange([address as u32, (address >> 32) as u32, 0, 0, 0, 0, 0, 0]);
    let row_of = |lane: u32| (warp[lane as usize][0] as u64 | (warp[lane as usize][1] as u64) << 32) as usize as *const u16;
    let lane = crate::gpu::lane_id();
    let (g, t) = (lane / 4, lane % 4);
    core::array::from_fn(|i| {
        let tile = 8 * i as u32;
        let (low, high) = if transposed {
            unsafe { (*row_of(tile + 2 * t).add(g as usize), *row_of(tile + 2 * t + 1).add(g as usize)) }
        } else {
            let r = row_of(tile + g);
            unsafe { (*r.add(2 * t as usize), *r.add(2 * t as usize + 1)) }
        };
        low as u32 | (high as u32) << 16
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tf32_keeps_ten_mantissa_bits_rounding_to_nearest() {
        assert_eq!(f32::from_bits(to_tf32(1.0)), 1.0);
        // 1 + 2^-11 is exactly halfway between two TF32 values: away from zero.
        assert_eq!(f32::from_bits(to_tf32(1.0 + 2f32.powi(-11))), 1.0 + 2f32.powi(-10));
        assert_eq!(f32::from_bits(to_tf32(-(1.0 + 2f32.powi(-11)))), -(1.0 + 2f32.powi(-10)));
        assert_eq!(f32::from_bits(to_tf32(1.0 + 2f32.powi(-12))), 1.0);
        assert_eq!(to_tf32(0.1) & TF32_DROPPED, 0);
    }

    #[test]
    fn split_recovers_about_21_bits() {
        for x in [0.1f32, 2.718_281_7, -3.3e-3, 123_456.79, 1.0e-20] {
            let (big, small) = split_tf32(x);
            let sum = f32::from_bits(big) as f64 + f32::from_bits(small) as f64;
            assert!(((sum - x as f64) / x as f64).abs() < 2f64.powi(-21), "{x}: {sum}");
            assert!((f32::from_bits(small) / x).abs() < 2f32.powi(-10), "{x}: small part too big");
        }
    }
}
