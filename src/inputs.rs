//! Reproducible random inputs: tests and benchmarks never run on zeros,
//! which hide unwritten outputs and wrong indexing.
//!
//! The generator is ChaCha8 from `rand_chacha`: its output for a given seed
//! is fixed by the algorithm, so a seed names the same inputs on every
//! machine and with every `rand` release.

use rand::{RngExt as _, SeedableRng as _};
use rand_chacha::ChaCha8Rng;

/// A seeded generator; use `rand`'s methods on it (`random_range` draws
/// integers without modulo bias).
pub fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

/// `len` values uniform in [-1, 1).
pub fn uniform(len: usize, seed: u64) -> Vec<f32> {
    let mut rng = rng(seed);
    (0..len).map(|_| rng.random_range(-1.0f32..1.0)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_cover_the_interval_and_are_reproducible() {
        let v = uniform(10_000, 7);
        assert_eq!(v, uniform(10_000, 7));
        assert_ne!(v, uniform(10_000, 8));
        assert!(v.iter().all(|x| (-1.0..1.0).contains(x)));
        let mean = v.iter().map(|&x| x as f64).sum::<f64>() / v.len() as f64;
        approx::assert_abs_diff_eq!(mean, 0.0, epsilon = 0.05);
        assert!(v.iter().any(|&x| x < -0.9) && v.iter().any(|&x| x > 0.9));
    }

    #[test]
    fn integers_in_a_range_are_all_reached_evenly() {
        // 3 does not divide 2^64: a plain `% 3` would favour 0 very slightly;
        // here every value must appear close to a third of the time.
        let mut r = rng(11);
        let mut counts = [0u32; 3];
        for _ in 0..30_000 {
            counts[r.random_range(0..3usize)] += 1;
        }
        assert!(counts.iter().all(|&c| (9_500..10_500).contains(&c)), "{counts:?}");
    }
}
