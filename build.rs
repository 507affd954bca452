//! The builder: compiles the `kernels-gpu` crate to PTX with rustc's own
//! nvptx64 backend, twice, and hands both modules to the library (embedded by
//! `src/lib.rs`):
//! - `$OUT_DIR/kernels.ptx`: every portable kernel, for `PTX_LADDER_ARCH`
//!   (default sm_80, which the driver also compiles for newer GPUs);
//! - `$OUT_DIR/kernels_sm90a.ptx`: the Hopper kernels (wgmma, TMA,
//!   setmaxnreg), which exist only for the arch-specific target `sm_90a`.
//!   That build sets `--cfg ptx_ladder_hopper`, which swaps the portable
//!   kernels out and the Hopper kernels in.
//!
//! Steps (docs/toolchain.md says why each is needed):
//! 1. `cargo rustc --crate-type cdylib --target nvptx64-nvidia-cuda
//!    -Zbuild-std=core`: there is no prebuilt `core` for that target, and a
//!    cdylib makes rustc "link", which is where the PTX comes from;
//! 2. panics become `trap` (`panic=immediate-abort`), so the module has no
//!    undefined functions and loads as it is;
//! 3. the `ptx` profile (fat LTO, one codegen unit) hands the whole crate
//!    to the linker as one bitcode module, and `tools/ptx-link.sh` turns it
//!    into PTX with `llvm-link` and `llc` from the `llvm-tools` component.
//!
//! The nested cargo runs in its own target directory (`target/ptx-builder`)
//! with a cleaned environment, so nothing of the outer build leaks in.

use std::env;
use std::path::{Path, PathBuf};
use std::process::{Command, exit};

/// GPU architecture of the PTX unless `PTX_LADDER_ARCH` says otherwise.
/// sm_80 PTX runs on A100/A6000-class cards and, compiled by the driver at
/// load time, on H100/H200.
const DEFAULT_ARCH: &str = "sm_80";

/// Environment variables the nested cargo may see; everything else (the
/// outer build's CARGO_*, RUSTFLAGS, TARGET, ...) is dropped.
const PASSED_THROUGH: &[&str] = &["PATH", "HOME", "USER", "TMPDIR", "RUSTUP_HOME", "CARGO_HOME", "RUSTUP_TOOLCHAIN"];

fn main() {
    let root = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let out_dir = PathBuf::from(env::var("OUT_DIR").unwrap());
    let arch = env::var("PTX_LADDER_ARCH").unwrap_or_else(|_| DEFAULT_ARCH.to_string());

    println!("cargo:rerun-if-changed=kernels-gpu/src");
    println!("cargo:rerun-if-changed=kernels-gpu/Cargo.toml");
    println!("cargo:rerun-if-changed=kernels-macros/src");
    println!("cargo:rerun-if-changed=tools/ptx-link.sh");
    println!("cargo:rerun-if-env-changed=PTX_LADDER_ARCH");
    println!("cargo:rustc-env=PTX_LADDER_ARCH={arch}");

    if !is_sm_arch(&arch) {
        fail(&format!("PTX_LADDER_ARCH={arch} is not a GPU architecture; use the form sm_80, sm_86, sm_90 (unset it for sm_80)"));
    }

    let cargo = env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let sysroot = rustc_sysroot();
    let llvm_bin = sysroot.join("lib/rustlib").join(host_triple()).join("bin");
    for tool in ["llc", "llvm-link"] {
        if !llvm_bin.join(tool).is_file() {
            fail(&format!("{tool} not found in {}; install it with: rustup component add llvm-tools", llvm_bin.display()));
        }
    }
    if !sysroot.join("lib/rustlib/src/rust/library/core").is_dir() {
        fail("the Rust sources for building `core` are missing; install them with: rustup component add rust-src");
    }

    let portable = Flavor { arch: &arch, cfg: None, ptx_isa: None, dir: "ptx-builder" };
    let ptx = build_module(&cargo, &root, &out_dir, &llvm_bin, &portable);
    let ptx = apply_launch_bounds(ptx, kernels_gpu::launch_bounds()).unwrap_or_else(|e| fail(&e));
    std::fs::write(out_dir.join("kernels.ptx"), ptx).unwrap_or_else(|e| fail(&format!("writing kernels.ptx: {e}")));

    // wgmma and setmaxnreg exist only for sm_90a, and need PTX ISA 8.0.
    let hopper = Flavor { arch: "sm_90a", cfg: Some("ptx_ladder_hopper"), ptx_isa: Some("+ptx80"), dir: "ptx-builder-sm90a" };
    let ptx = build_module(&cargo, &root, &out_dir, &llvm_bin, &hopper);
    let ptx = apply_launch_bounds(ptx, kernels_gpu::sm90a::launch_bounds()).unwrap_or_else(|e| fail(&e));
    std::fs::write(out_dir.join("kernels_sm90a.ptx"), ptx).unwrap_or_else(|e| fail(&format!("writing kernels_sm90a.ptx: {e}")));
}

/// One PTX module: the architecture, an optional `--cfg` that selects its
/// kernels, an optional PTX ISA feature for `llc`, and the nested build's
/// own target folder (flags differ, so sharing one would rebuild `core`).
struct Flavor<'a> {
    arch: &'a str,
    cfg: Option<&'a str>,
    ptx_isa: Option<&'a str>,
    dir: &'a str,
}

/// Compiles `kernels-gpu` for one flavor and returns the PTX text.
fn build_module(cargo: &str, root: &Path, out_dir: &Path, llvm_bin: &Path, flavor: &Flavor) -> String {
    let target_dir = builder_target_dir(out_dir, flavor.dir);
    let mut rustflags = vec![
        format!("-Ctarget-cpu={}", flavor.arch),
        "-Zunstable-options".into(),
        "-Cpanic=immediate-abort".into(),
        format!("-Clinker={}", root.join("tools/ptx-link.sh").display()),
        // Fully unroll the fixed-size tile loops (as `#pragma unroll` would),
        // so register arrays are indexed by constants and stay in registers.
        "-Cllvm-args=-unroll-threshold=8000".into(),
    ];
    if let Some(cfg) = flavor.cfg {
        rustflags.push(format!("--cfg={cfg}"));
    }

    let mut build = Command::new(cargo);
    build
        .env_clear()
        .envs(env::vars().filter(|(key, _)| PASSED_THROUGH.contains(&key.as_str())))
        .env("CARGO_ENCODED_RUSTFLAGS", rustflags.join("\x1f"))
        .env("PTX_LADDER_LLVM_BIN", llvm_bin)
        .args(["rustc", "--lib", "--crate-type", "cdylib", "--profile", "ptx"])
        .args(["--target", "nvptx64-nvidia-cuda", "-Zbuild-std=core"])
        .arg("--manifest-path")
        .arg(root.join("kernels-gpu/Cargo.toml"))
        .arg("--target-dir")
        .arg(&target_dir);
    if let Some(attr) = flavor.ptx_isa {
        build.env("PTX_LADDER_PTX_ATTR", attr);
    }
    let status = build.status().unwrap_or_else(|e| fail(&format!("could not run {cargo}: {e}")));
    if !status.success() {
        fail(&format!("compiling kernels-gpu for nvptx64-nvidia-cuda ({}) failed (errors above)", flavor.arch));
    }

    let ptx_path = target_dir.join("nvptx64-nvidia-cuda/ptx/kernels_gpu.ptx");
    std::fs::read_to_string(&ptx_path)
        .unwrap_or_else(|e| fail(&format!("the GPU build finished but {} is unreadable: {e}", ptx_path.display())))
}

/// Writes each kernel's launch bounds into its `.entry` as the PTX
/// performance directives `.maxntid` and `.minnctapersm`, between the
/// parameter list and the body: what `__launch_bounds__` makes nvcc emit;
/// and `.reqnctapercluster` for a kernel run in clusters (`__cluster_dims__`).
fn apply_launch_bounds(mut ptx: String, bounds: impl Iterator<Item = kernels_gpu::LaunchBounds>) -> Result<String, String> {
    for b in bounds {
        let mut directives = format!(".maxntid {}, 1, 1\n.minnctapersm {}\n", b.max_threads, b.min_blocks_per_sm);
        if b.cluster > 1 {
            directives += &format!(".reqnctapercluster {}, 1, 1\n", b.cluster);
        }
        ptx = insert_directives(ptx, b.kernel, &directives)?;
    }
    Ok(ptx)
}

/// Inserts `directives` into `kernel`'s `.entry`, right after its
/// parameter list.
fn insert_directives(mut ptx: String, kernel: &str, directives: &str) -> Result<String, String> {
    let entry = format!(".entry {kernel}(");
    let start = ptx.find(&entry).ok_or_else(|| format!("a kernel directive names {kernel}, which the PTX lacks"))?;
    let params_end = ptx[start..].find("\n)").map(|i| start + i + 2).ok_or("unterminated .entry")?;
    let line_end = ptx[params_end..].find('\n').map(|i| params_end + i + 1).ok_or("truncated PTX")?;
    ptx.insert_str(line_end, directives);
    Ok(ptx)
}

fn is_sm_arch(arch: &str) -> bool {
    arch.strip_prefix("sm_").is_some_and(|v| v.len() >= 2 && v.trim_end_matches('a').chars().all(|c| c.is_ascii_digit()))
}

/// `target/<dir>`, next to the outer build's profile folders: shared by
/// debug and release builds, so `core` is compiled for the GPU once.
fn builder_target_dir(out_dir: &Path, dir: &str) -> PathBuf {
    // OUT_DIR is <target>/<profile>/build/<package>-<hash>/out
    let target = out_dir.ancestors().nth(4).unwrap_or(out_dir);
    target.join(dir)
}

fn rustc_sysroot() -> PathBuf {
    let rustc = env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let output =
        Command::new(&rustc).args(["--print", "sysroot"]).output().unwrap_or_else(|e| fail(&format!("could not run {rustc}: {e}")));
    PathBuf::from(String::from_utf8_lossy(&output.stdout).trim())
}

fn host_triple() -> String {
    env::var("HOST").unwrap_or_else(|_| "x86_64-unknown-linux-gnu".into())
}

/// One actionable line, then stop the build.
fn fail(message: &str) -> ! {
    eprintln!("error: ptx-ladder builder: {message}");
    exit(1)
}
