//! Reproducible random inputs (SplitMix64): tests and benchmarks never run
//! on zeros, which hide unwritten outputs and wrong indexing.

/// A small, fast, seedable generator.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in [-1, 1), on a grid of 2^-23 so every value is exact in f32.
    pub fn next_f32(&mut self) -> f32 {
        ((self.next_u64() >> 40) as f32) * (2.0 / (1u64 << 24) as f32) - 1.0
    }

    /// Uniform integer in `0..bound` (`bound` > 0).
    pub fn below(&mut self, bound: u64) -> u64 {
        self.next_u64() % bound
    }
}

/// `len` values uniform in [-1, 1).
pub fn uniform(len: usize, seed: u64) -> Vec<f32> {
    let mut rng = Rng::new(seed);
    (0..len).map(|_| rng.next_f32()).collect()
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
        assert!(mean.abs() < 0.05, "mean {mean}");
        assert!(v.iter().any(|&x| x < -0.9) && v.iter().any(|&x| x > 0.9));
        assert!(v.iter().all(|&x| x != 0.0) || v.iter().filter(|&&x| x == 0.0).count() < 3);
    }
}
