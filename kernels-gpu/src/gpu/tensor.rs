//! Tensor cores through `mma.sync` (sm_80 and newer): one instruction in
//! which the 32 lanes of a warp multiply a 16×8 tile of A by an 8×8 tile of
//! B and add a 16×8 tile of C. Each lane holds a fixed part of every
//! operand in its registers; PTX's "matrix fragment" tables say which.
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
        // Every lane publishes its fragments, then computes its four
        // results from the whole warp's (as the tensor core would).
        let warp = crate::gpu::emulated::warp_exchange([a[0], a[1], a[2], a[3], b[0], b[1], 0, 0]);
        let lane = crate::gpu::lane_id();
        let (g, t) = (lane / 4, lane % 4);
        // The hardware reads only a TF32 operand's top 19 bits.
        let value = |bits: u32| f32::from_bits(bits & !TF32_DROPPED);
        let a_at = |row: u32, k: u32| value(warp[((row % 8) * 4 + k % 4) as usize][(row / 8 + 2 * (k / 4)) as usize]);
        let b_at = |k: u32, col: u32| value(warp[(col * 4 + k % 4) as usize][(4 + k / 4) as usize]);
        let mut d = c;
        for (i, (row, col)) in [(g, 2 * t), (g, 2 * t + 1), (g + 8, 2 * t), (g + 8, 2 * t + 1)].into_iter().enumerate() {
            for k in 0..8 {
                d[i] = crate::gpu::fma(a_at(row, k), b_at(k, col), d[i]);
            }
        }
        d
    }
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
