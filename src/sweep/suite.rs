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
//! This module holds the shape suites: a built-in one from Llama-3-8B,
//! and any list of `M,N,K` rows from a file. Whether memory or arithmetic
//! bounds a shape is [`crate::matmul::auto::Machine::memory_bound`].

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

    /// The weights' bytes: what a decode step streams from DRAM.
    pub fn weight_bytes(&self, input_bytes: u32) -> f64 {
        input_bytes as f64 * self.k as f64 * self.n as f64
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matmul::auto::{Machine, intensity, min_bytes};

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

    /// The suites shipped in `docs/` parse, and each holds the shapes of
    /// the measured tables it documents, in their order.
    #[test]
    fn the_shipped_suites_match_their_tables() {
        let docs = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs");
        let read = |name: &str| std::fs::read_to_string(docs.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        for (suite, tables) in [
            ("sweep-f32-rungs.csv", &["sweep-h200-f32-rungs.json"][..]),
            ("sweep-small-m.csv", &["sweep-h200-f32-small-m.json", "sweep-h200-bf16-small-m.json"][..]),
            ("sweep-waves.csv", &["sweep-h200-bf16-waves.json"][..]),
            ("sweep-deep-k.csv", &["sweep-h200-bf16-deep-k.json", "sweep-h200-f32-deep-k.json"][..]),
            ("sweep-other-models.csv", &["sweep-h200-bf16-other-models.json"][..]),
            ("sweep-medium-m.csv", &["sweep-h200-bf16-medium-m.json"][..]),
            ("sweep-m32-m64.csv", &["sweep-h200-bf16-m32-m64.json"][..]),
            ("sweep-large-m.csv", &["sweep-h200-bf16-large-m.json"][..]),
            ("sweep-unseen-models.csv", &["sweep-h200-bf16-unseen-models.json", "sweep-h200-f32-unseen-models.json"][..]),
            ("sweep-odd-shapes.csv", &["sweep-h200-bf16-odd-shapes.json", "sweep-h200-f32-odd-shapes.json"][..]),
        ] {
            let shapes = parse(&read(suite)).unwrap();
            for table in tables {
                let sweep = crate::sweep::lesson::Sweep::from_json(&read(table)).unwrap_or_else(|e| panic!("{table}: {e}"));
                let rows: Vec<Shape> = sweep.rows.iter().map(|r| Shape::new(&r.shape, (r.m, r.n, r.k))).collect();
                assert_eq!(rows, shapes, "{table} against {suite}");
            }
        }
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
        let h200 = Machine::H200;
        assert!((h200.ridge() - 219.8).abs() < 0.1);
        let down = Shape::new("down M=1", (1, 4096, 14336));
        assert!(h200.memory_bound(down.size(), 2.0));
        // At M = 1 the weights are almost all of the bytes, 2 FLOPs each.
        assert!((intensity(down.size(), 2.0) - 1.0).abs() < 0.01);
        // Its shortest time is its bytes' time.
        assert!((min_bytes(down.size(), 2.0) / h200.dram_bytes * 1e6 - 26.1).abs() < 0.1);
        assert!(!h200.memory_bound((4096, 4096, 4096), 2.0));
        assert!(h200.memory_bound((128, 4096, 4096), 2.0));
    }
}
