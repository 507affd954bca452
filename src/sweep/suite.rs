//! The shapes a GEMM meets in a real model, and what bounds each one.
//!
//! A square 4096³ GEMM keeps every SM busy for many waves and does 1365
//! FLOPs per byte it must read: a tensor-core benchmark. A model's
//! projections at decode time are nothing like it: M is the number of
//! tokens in flight (1 to a few thousand), N and K are the weight's sizes.
//! At M = 1 every weight is read once to do two FLOPs, so the time is the
//! weight's bytes over DRAM bandwidth; at M = 128 the output may be so few
//! tiles that most SMs idle; at deep K one tile walks all of K alone.
//!
//! This module holds the shape suites (a built-in one from Llama-3-8B,
//! and any list of `M,N,K` rows from a file) and the roofline arithmetic
//! that says, per shape, whether memory or arithmetic bounds it.

use crate::error::{Error, Result};

/// One GEMM shape of a suite: `C[M×N] = A[M×K]·B[K×N]`, B being the
/// weights.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shape {
    pub name: String,
    pub m: u32,
    pub n: u32,
    pub k: u32,
}

impl Shape {
    pub fn new(name: impl Into<String>, (m, n, k): (u32, u32, u32)) -> Shape {
        Shape { name: name.into(), m, n, k }
    }

    pub fn size(&self) -> (u32, u32, u32) {
        (self.m, self.n, self.k)
    }

    /// 2·M·N·K.
    pub fn flops(&self) -> f64 {
        2.0 * self.m as f64 * self.n as f64 * self.k as f64
    }

    /// Bytes a GEMM must move at least: A and B read once (`input_bytes`
    /// per element), C written once in fp32.
    pub fn min_bytes(&self, input_bytes: u32) -> f64 {
        let (m, n, k) = (self.m as f64, self.n as f64, self.k as f64);
        input_bytes as f64 * (m * k + k * n) + 4.0 * m * n
    }

    /// The weights' bytes: what a decode step streams from DRAM.
    pub fn weight_bytes(&self, input_bytes: u32) -> f64 {
        input_bytes as f64 * self.k as f64 * self.n as f64
    }

    /// FLOPs per byte of the minimum traffic.
    pub fn intensity(&self, input_bytes: u32) -> f64 {
        self.flops() / self.min_bytes(input_bytes)
    }
}

/// Llama-3-8B's projections, weight `[K, N]`: (name, K, N).
pub const LLAMA3_8B: [(&str, u32, u32); 4] = [("qkv", 4096, 6144), ("o", 4096, 4096), ("gate_up", 4096, 28672), ("down", 14336, 4096)];

/// Tokens in flight of the built-in suite.
pub const TOKENS: [u32; 5] = [1, 16, 128, 1024, 8192];

/// The built-in suite: every Llama-3-8B projection at every M of
/// [`TOKENS`], the squares 4096³ and 8192³, and the deep-K 64×64×65536.
pub fn builtin() -> Vec<Shape> {
    let mut shapes = Vec::new();
    for m in TOKENS {
        for (name, k, n) in LLAMA3_8B {
            shapes.push(Shape::new(format!("{name} M={m}"), (m, n, k)));
        }
    }
    shapes.push(Shape::new("square 4096", (4096, 4096, 4096)));
    shapes.push(Shape::new("square 8192", (8192, 8192, 8192)));
    shapes.push(Shape::new("deep K", (64, 64, 65536)));
    shapes
}

/// A suite from text: one shape per line as `M,N,K` or `name,M,N,K`
/// (spaces allowed around fields); blank lines and lines starting with `#`
/// are skipped. Errors name the line.
pub fn parse(text: &str) -> Result<Vec<Shape>> {
    let mut shapes = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        let at = |why: String| Error::new(format!("suite line {}: {why} (want M,N,K or name,M,N,K): {line:?}", i + 1));
        let (name, numbers) = match fields.len() {
            3 => (None, &fields[..]),
            4 => (Some(fields[0]), &fields[1..]),
            count => return Err(at(format!("{count} fields"))),
        };
        let mut size = [0u32; 3];
        for (value, (text, axis)) in size.iter_mut().zip(numbers.iter().zip(["M", "N", "K"])) {
            *value = match text.parse::<u32>() {
                Ok(v) if v > 0 => v,
                _ => return Err(at(format!("{axis} = {text:?} is not a whole number from 1"))),
            };
        }
        let [m, n, k] = size;
        let name = name.map_or_else(|| format!("{m}x{n}x{k}"), str::to_string);
        shapes.push(Shape::new(name, (m, n, k)));
    }
    if shapes.is_empty() {
        return Err(Error::new("the suite has no shapes (one M,N,K per line)"));
    }
    Ok(shapes)
}

/// What bounds a shape on a GPU, by the roofline: below the ridge point
/// (peak FLOP/s over DRAM bytes/s) a GEMM cannot beat its bytes' time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Roofline {
    /// FLOP/s of the arithmetic used (tensor-core BF16, say).
    pub peak_flops: f64,
    /// DRAM bytes/s (the memory lab's plateau).
    pub dram_bytes: f64,
}

impl Roofline {
    /// FLOPs per byte at which memory time and arithmetic time are equal.
    pub fn ridge(&self) -> f64 {
        self.peak_flops / self.dram_bytes
    }

    /// Whether the shape's minimum traffic takes longer than its FLOPs.
    pub fn memory_bound(&self, shape: &Shape, input_bytes: u32) -> bool {
        shape.intensity(input_bytes) < self.ridge()
    }

    /// The shortest time the shape can take, in seconds.
    pub fn floor_seconds(&self, shape: &Shape, input_bytes: u32) -> f64 {
        (shape.flops() / self.peak_flops).max(shape.min_bytes(input_bytes) / self.dram_bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_builtin_suite_has_the_model_and_the_extremes() {
        let suite = builtin();
        assert_eq!(suite.len(), 4 * 5 + 3);
        assert!(suite.contains(&Shape::new("down M=1", (1, 4096, 14336))));
        assert!(suite.contains(&Shape::new("gate_up M=8192", (8192, 28672, 4096))));
        assert!(suite.contains(&Shape::new("deep K", (64, 64, 65536))));
    }

    #[test]
    fn suites_parse_with_and_without_names() {
        let text = "# a comment\n\n1, 4096, 14336\nlm_head,16,128256,4096\n";
        let suite = parse(text).unwrap();
        assert_eq!(suite, [Shape::new("1x4096x14336", (1, 4096, 14336)), Shape::new("lm_head", (16, 128256, 4096))]);
    }

    #[test]
    fn bad_suites_name_the_line() {
        for (text, says) in [
            ("1,2\n", "line 1: 2 fields"),
            ("1,2,3\n4,x,6\n", "line 2: N = \"x\""),
            ("0,1,1", "M = \"0\""),
            ("a,b,1,2,3", "5 fields"),
            ("# nothing\n", "no shapes"),
        ] {
            let err = parse(text).unwrap_err();
            assert!(err.message().contains(says), "{text:?}: {err}");
        }
    }

    /// The H200's numbers: 989 TFLOP/s of dense BF16, 4.5 TB/s from DRAM.
    #[test]
    fn decode_shapes_are_memory_bound_and_squares_are_not() {
        let h200 = Roofline { peak_flops: 989e12, dram_bytes: 4.5e12 };
        assert!((h200.ridge() - 219.8).abs() < 0.1);
        let down = Shape::new("down M=1", (1, 4096, 14336));
        assert!(h200.memory_bound(&down, 2));
        // At M = 1 the weights are almost all of the bytes, 2 FLOPs each.
        assert!((down.intensity(2) - 1.0).abs() < 0.01);
        assert!((h200.floor_seconds(&down, 2) * 1e6 - 26.1).abs() < 0.1);
        assert!(!h200.memory_bound(&Shape::new("square", (4096, 4096, 4096)), 2));
        assert!(h200.memory_bound(&Shape::new("M=128", (128, 4096, 4096)), 2));
    }
}
