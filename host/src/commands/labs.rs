//! The concept labs: `coalesce`, `banks`, `divergence`, `reduce`,
//! `occupancy`, `warps`, and `tour`, which runs them in teaching order.
//! Each prints the model's prediction beside the measurement and, with
//! `--svg PATH`, writes its picture.

use crate::args::{Flags, UsageError, parse_number};
use crate::{Failure, progress};
use ptx_ladder::device::Gpu;
use ptx_ladder::labs::models::{banks as banks_model, coalesce as coalesce_model, divergence as divergence_model};
use ptx_ladder::labs::models::{occupancy as occupancy_model, warps as warps_model};
use ptx_ladder::labs::{banks, coalesce, divergence, occupancy, reduce, warps};
use ptx_ladder::matmul::check::verdict;
use ptx_ladder::matmul::ladder::{self, measure};
use ptx_ladder::svg;
use std::path::PathBuf;

fn model_error(e: String) -> Failure {
    Failure::Runtime(ptx_ladder::Error::new(e))
}

fn write_svg(path: &Option<PathBuf>, picture: impl FnOnce() -> Result<String, Failure>) -> Result<(), Failure> {
    if let Some(path) = path {
        std::fs::write(path, picture()?).map_err(|e| ptx_ladder::Error::new(format!("writing {}: {e}", path.display())))?;
        println!("wrote {}", path.display());
    }
    Ok(())
}

/// "1,2,4" → [1, 2, 4].
fn list(flag: &str, text: &str) -> Result<Vec<u32>, UsageError> {
    text.split(',')
        .map(|item| {
            parse_number(item)
                .filter(|&v| v <= u32::MAX as u64)
                .map(|v| v as u32)
                .ok_or_else(|| UsageError(format!("{flag} expects numbers separated by commas (got '{text}')")))
        })
        .collect()
}

pub struct CoalesceOptions {
    pub strides: Vec<u32>,
    pub mebibytes: u64,
    pub matmul_size: u32,
    pub reps: u32,
    pub svg: Option<PathBuf>,
}

pub fn coalesce_command(mut flags: Flags) -> Result<(), Failure> {
    let strides = list("--strides", &flags.value("--strides")?.unwrap_or_else(|| "1,2,4,8,16,32,64".into()))?;
    let options = CoalesceOptions {
        strides,
        mebibytes: flags.number("--mib", 1, 16384)?.unwrap_or(512),
        matmul_size: flags.number("--matmul-size", 32, 8192)?.unwrap_or(2048) as u32,
        reps: flags.number("--reps", 1, 10_000)?.unwrap_or(20) as u32,
        svg: flags.value("--svg")?.map(PathBuf::from),
    };
    flags.finish()?;
    coalesce::validate(&options.strides, options.mebibytes << 18).map_err(|e| UsageError(e.to_string()))?;
    coalesce_lab(&Gpu::open()?, &options)
}

pub fn coalesce_lab(gpu: &Gpu, o: &CoalesceOptions) -> Result<(), Failure> {
    println!("model: a warp's request is served in 32-byte sectors; 32 lanes reading 4-byte floats");
    for stride in [1, 32] {
        println!("  stride {stride}:\n{}", coalesce_model::render(&coalesce_model::strided_addresses(stride), 4).map_err(model_error)?);
    }
    let rows = coalesce::run(gpu, &o.strides, o.mebibytes << 18, o.reps, &mut progress)?;
    println!("measured on {} ({} MiB array, every thread's sum checked):", gpu.info.name, o.mebibytes);
    print!("{}", coalesce::table(&rows));
    if let (Some(first), Some(last)) = (rows.first(), rows.last()) {
        println!("stride {} delivers {:.1}x less useful bandwidth than stride {}", last.stride, first.useful_gbps / last.useful_gbps, first.stride);
    }

    // The same rule in the matmul ladder: rung 1 maps lanes to rows, rung 2 to columns.
    let size = o.matmul_size;
    let options = ladder::Options { size: (size, size, size), reps: Some(o.reps.min(10)), warmup: 1, seed: 3 };
    let (mut buffers, reference) = ladder::prepare(gpu, &options, &mut progress)?;
    let (naive_a, naive_b) = coalesce_model::naive_matmul_sectors(size, size, 0).map_err(model_error)?;
    let (coal_a, coal_b) = coalesce_model::coalesced_matmul_sectors(size, size, 0).map_err(model_error)?;
    println!("matmul {size}^3, sectors per warp request for A and B in one inner-loop step (model) and measured speed:");
    for (kernel, (a, b)) in [
        (kernels_gpu::matmul::r01_naive::KERNEL, (naive_a, naive_b)),
        (kernels_gpu::matmul::r02_coalesced::KERNEL, (coal_a, coal_b)),
    ] {
        let (c, timing) = measure(gpu, &mut buffers, &kernel, &reference, options.reps, 1)?;
        let ok = verdict(&reference, &c);
        let speed = timing.map_or("-".into(), |t| format!("{:.0} GFLOP/s", t.billions_per_second(buffers.flops())));
        println!("  {:<16} A: {a:>2} sectors, B: {b:>2} sectors   {speed:>14}   {}", kernel.name, ok.describe());
    }
    write_svg(&o.svg, || {
        let mut pictures = Vec::new();
        for stride in [1, 2, 32] {
            pictures.push(
                coalesce_model::svg(&coalesce_model::strided_addresses(stride), 4, &format!("one warp, stride {stride}"))
                    .map_err(model_error)?,
            );
        }
        let bars: Vec<(String, f64)> = rows.iter().map(|r| (format!("stride {}", r.stride), r.useful_gbps)).collect();
        pictures.push(svg::bar_chart(&format!("Useful bandwidth by stride ({})", gpu.info.name), &bars, None, "GB/s"));
        Ok(svg::stack(&pictures))
    })
}

pub struct BanksOptions {
    pub rounds: u32,
    pub reps: u32,
    pub svg: Option<PathBuf>,
}

pub fn banks_command(mut flags: Flags) -> Result<(), Failure> {
    let options = BanksOptions {
        rounds: flags.number("--rounds", 1, kernels_gpu::labs::banks::MAX_ROUNDS as u64)?.unwrap_or(256) as u32,
        reps: flags.number("--reps", 1, 10_000)?.unwrap_or(20) as u32,
        svg: flags.value("--svg")?.map(PathBuf::from),
    };
    flags.finish()?;
    banks_lab(&Gpu::open()?, &options)
}

pub fn banks_lab(gpu: &Gpu, o: &BanksOptions) -> Result<(), Failure> {
    println!("model: shared memory has 32 banks of 4 bytes; a warp's loads of different words in one bank take turns");
    for pattern in [banks_model::Pattern::Column, banks_model::Pattern::PaddedColumn] {
        println!("  {}: {}\n{}", pattern.name(), pattern.explain(), banks_model::render(&pattern.addresses()));
    }
    let rows = banks::run(gpu, o.rounds, o.reps, &mut progress)?;
    println!("measured on {} (every thread's sum checked):", gpu.info.name);
    print!("{}", banks::table(&rows));
    write_svg(&o.svg, || {
        let mut pictures: Vec<String> = [banks_model::Pattern::Column, banks_model::Pattern::PaddedColumn, banks_model::Pattern::SwizzledColumn]
            .iter()
            .map(|p| banks_model::svg(&p.addresses(), &format!("{}: {}-way", p.name(), banks_model::conflict_degree(&p.addresses()))))
            .collect();
        let bars: Vec<(String, f64)> = rows.iter().map(|r| (r.pattern.name().to_string(), r.cycles_per_access)).collect();
        pictures.push(svg::bar_chart(&format!("Cycles per warp-wide shared load ({})", gpu.info.name), &bars, None, "cycles"));
        Ok(svg::stack(&pictures))
    })
}

pub struct DivergenceOptions {
    pub work: u32,
    pub reps: u32,
    pub svg: Option<PathBuf>,
}

pub fn divergence_command(mut flags: Flags) -> Result<(), Failure> {
    let options = DivergenceOptions {
        work: flags.number("--work", 1, 1 << 20)?.unwrap_or(8192) as u32,
        reps: flags.number("--reps", 1, 10_000)?.unwrap_or(20) as u32,
        svg: flags.value("--svg")?.map(PathBuf::from),
    };
    flags.finish()?;
    divergence_lab(&Gpu::open()?, &options)
}

pub fn divergence_lab(gpu: &Gpu, o: &DivergenceOptions) -> Result<(), Failure> {
    let blocks = gpu.info.multiprocessors * 16;
    println!("model: both sides of a branch cost {} dependent FMAs; a warp pays both only if its lanes disagree", o.work);
    print!("{}", divergence_model::render_table(divergence::THREADS, blocks, o.work as u64, o.work as u64).map_err(model_error)?);
    let rows = divergence::run(gpu, o.work, o.reps, &mut progress)?;
    println!("measured on {} ({blocks} blocks of {} threads, a sample of threads checked bit for bit):", gpu.info.name, divergence::THREADS);
    print!("{}", divergence::table(&rows));
    write_svg(&o.svg, || {
        let model = divergence_model::svg(divergence::THREADS, blocks, o.work as u64, o.work as u64).map_err(model_error)?;
        let bars: Vec<(String, f64)> =
            rows.iter().map(|r| (format!("{} ({})", r.pattern.name(), r.pattern.condition()), r.timing.median_ms)).collect();
        Ok(svg::stack(&[model, svg::bar_chart(&format!("Measured time ({})", gpu.info.name), &bars, None, "ms")]))
    })
}

pub struct ReduceOptions {
    pub n: u64,
    pub reps: u32,
    pub svg: Option<PathBuf>,
}

pub fn reduce_command(mut flags: Flags) -> Result<(), Failure> {
    let options = ReduceOptions {
        n: flags.number("--n", 1, u32::MAX as u64)?.unwrap_or(1 << 28),
        reps: flags.number("--reps", 1, 10_000)?.unwrap_or(20) as u32,
        svg: flags.value("--svg")?.map(PathBuf::from),
    };
    flags.finish()?;
    reduce_lab(&Gpu::open()?, &options)
}

pub fn reduce_lab(gpu: &Gpu, o: &ReduceOptions) -> Result<(), Failure> {
    let report = reduce::run(gpu, o.n, o.reps, &mut progress)?;
    println!("measured on {} (each sum compared with the exact f64 sum; tolerance {:.0e} of Σ|x|):", gpu.info.name, reduce::TOLERANCE);
    print!("{}", reduce::table(&report));
    for method in reduce::Method::ALL {
        println!("  {}: {}", method.name(), method.explain());
    }
    write_svg(&o.svg, || {
        let bars: Vec<(String, f64)> = report.rows.iter().map(|r| (r.method.name().to_string(), r.gbps)).collect();
        Ok(svg::bar_chart(
            &format!("Sum of {} floats: GB/s read ({})", report.n, gpu.info.name),
            &bars,
            Some(("copy (read+write)".into(), report.copy_gbps())),
            "GB/s",
        ))
    })?;
    if let Some(bad) = report.rows.iter().find(|r| !r.passed()) {
        return Err(ptx_ladder::Error::new(format!("{} gave {} (error {:.1e} of Σ|x|): WRONG", bad.method.name(), bad.sum, bad.error)).into());
    }
    Ok(())
}

pub struct OccupancyOptions {
    pub arch: Option<String>,
    pub threads: u32,
    pub registers: u32,
    pub shared: u32,
    pub live: bool,
    pub floats: u64,
    pub reps: u32,
    pub svg: Option<PathBuf>,
}

pub fn occupancy_command(mut flags: Flags) -> Result<(), Failure> {
    let options = OccupancyOptions {
        arch: flags.value("--arch")?,
        threads: flags.number("--threads", 1, 1024)?.unwrap_or(256) as u32,
        registers: flags.number("--registers", 1, 255)?.unwrap_or(64) as u32,
        shared: flags.number("--shared", 0, 1 << 20)?.unwrap_or(8192) as u32,
        live: flags.switch("--live")?,
        floats: flags.number("--floats", 4, 1 << 32)?.unwrap_or(1 << 26),
        reps: flags.number("--reps", 1, 10_000)?.unwrap_or(20) as u32,
        svg: flags.value("--svg")?.map(PathBuf::from),
    };
    flags.finish()?;
    occupancy_calculator(&options)?;
    if options.live {
        occupancy_live(&Gpu::open()?, &options)?;
    } else {
        println!("(add --live to compare with the driver on this GPU and run the latency-hiding experiment)");
    }
    Ok(())
}

pub fn occupancy_calculator(o: &OccupancyOptions) -> Result<(), Failure> {
    let archs: Vec<&occupancy_model::Arch> = match &o.arch {
        Some(name) => vec![occupancy_model::arch_by_name(name).map_err(|e| UsageError(format!("--arch: {e}")))?],
        None => occupancy_model::ARCHS.iter().collect(),
    };
    let rows = archs
        .iter()
        .map(|arch| occupancy_model::occupancy(arch, o.threads, o.registers, o.shared))
        .collect::<Result<Vec<_>, _>>()
        .map_err(UsageError)?;
    println!("calculator: {} threads per block, {} registers per thread, {} bytes of shared memory per block", o.threads, o.registers, o.shared);
    print!("{}", occupancy_model::render_table(&rows));
    if let [only] = rows.as_slice() {
        println!("{}", only.explain());
    }
    Ok(())
}

pub fn occupancy_live(gpu: &Gpu, o: &OccupancyOptions) -> Result<(), Failure> {
    let rows = occupancy::kernels(gpu)?;
    let arch = occupancy::arch_of(gpu)?;
    println!("this project's kernels on {} (calculator table: {}):", gpu.info.name, arch.name);
    print!("{}", occupancy::kernels_table(&rows));
    let agree = rows.iter().filter(|r| r.agrees()).count();
    println!("calculator and driver agree on {agree} of {} kernels", rows.len());
    let latency = occupancy::latency(gpu, o.floats, o.reps, &mut progress)?;
    println!("latency hiding: a memory-bound copy of {} floats, occupancy lowered by reserving shared memory:", o.floats);
    print!("{}", occupancy::latency_table(&latency));
    write_svg(&o.svg, || Ok(occupancy::latency_svg(&latency, &gpu.info.name)))?;
    if agree != rows.len() {
        return Err(ptx_ladder::Error::new("the calculator disagrees with the driver (rows marked DIFFERENT)").into());
    }
    Ok(())
}

pub struct WarpsOptions {
    pub block: (u32, u32, u32),
    pub svg: Option<PathBuf>,
}

pub fn warps_command(mut flags: Flags) -> Result<(), Failure> {
    let text = flags.value("--block")?.unwrap_or_else(|| "16,16".into());
    let dims = list("--block", &text)?;
    let block = match dims.as_slice() {
        [x] => (*x, 1, 1),
        [x, y] => (*x, *y, 1),
        [x, y, z] => (*x, *y, *z),
        _ => return Err(UsageError(format!("--block takes 1 to 3 sizes like 16,16 (got '{text}')")).into()),
    };
    let options = WarpsOptions { block, svg: flags.value("--svg")?.map(PathBuf::from) };
    flags.finish()?;
    warps_model::warps(block).map_err(UsageError)?;
    warps_lab(Gpu::open().ok().as_ref(), &options)
}

/// Prints the model's warp map; with a GPU, also checks it on the hardware.
pub fn warps_lab(gpu: Option<&Gpu>, o: &WarpsOptions) -> Result<(), Failure> {
    let block = o.block;
    print!("{}", warps_model::render(block).map_err(UsageError)?);
    match gpu {
        Some(gpu) => {
            let threads = warps::check(gpu, block)?;
            println!("checked on {}: all {threads} threads ran as lane (linear rank mod 32), as the map says", gpu.info.name);
        }
        None => println!("(no GPU available: the hardware check was skipped)"),
    }
    write_svg(&o.svg, || warps_model::svg(block).map_err(model_error))
}

/// `host tour`: the labs in teaching order, with a few sentences between.
pub fn tour_command(flags: Flags) -> Result<(), Failure> {
    flags.finish()?;
    let gpu = Gpu::open()?;
    let say = |title: &str, text: &str| println!("\n━━ {title}\n{text}\n");
    say(
        "1. Warps",
        "A block is cut into warps of 32 threads, counting x fastest. The warp, not the thread, is what the\nhardware schedules: everything below is about what one warp asks for at once.",
    );
    warps_lab(Some(&gpu), &WarpsOptions { block: (30, 2, 1), svg: None })?;
    say(
        "2. Coalescing",
        "A warp's 32 loads become as few 32-byte sectors as their addresses allow. Neighbouring lanes reading\nneighbouring floats need 4 sectors; lanes 32 bytes apart need 32, for the same 128 useful bytes.",
    );
    coalesce_lab(&gpu, &CoalesceOptions { strides: vec![1, 2, 4, 8, 32], mebibytes: 256, matmul_size: 1024, reps: 10, svg: None })?;
    say(
        "3. Shared-memory banks",
        "Shared memory is 32 banks side by side. A warp reading 32 different banks is served at once; 32 words\nfrom one bank queue up. Padding or swizzling moves the data so a column spreads over all banks.",
    );
    banks_lab(&gpu, &BanksOptions { rounds: 128, reps: 10, svg: None })?;
    say(
        "4. Divergence",
        "Lanes of a warp share one instruction stream. When a branch splits them, the warp runs both sides,\neach with some lanes switched off; warps that agree internally pay one side.",
    );
    divergence_lab(&gpu, &DivergenceOptions { work: 4096, reps: 10, svg: None })?;
    say(
        "5. Reduction",
        "Summing is the first algorithm where threads must cooperate: through global memory, shared memory,\nregisters (shuffles) or atomics. Each step up removes trips to memory.",
    );
    reduce_lab(&gpu, &ReduceOptions { n: 1 << 26, reps: 10, svg: None })?;
    say(
        "6. Occupancy",
        "Registers, shared memory and thread slots decide how many warps an SM holds. More resident warps give\nthe scheduler more work to switch to while others wait for memory.",
    );
    let occupancy = OccupancyOptions { arch: None, threads: 256, registers: 64, shared: 8192, live: true, floats: 1 << 25, reps: 10, svg: None };
    occupancy_calculator(&occupancy)?;
    occupancy_live(&gpu, &occupancy)?;
    say(
        "7. Bugs the GPU does not report",
        "A barrier some threads never reach, two threads racing on shared memory, a thread past the end of an\narray, a block waiting for another: the GPU answers with a hang or a wrong number, never an error.\nThe CPU emulator's checkers name each one.",
    );
    super::pitfalls::lab(&ptx_ladder::labs::pitfalls::Options::default())?;
    say("End of the tour", "`host matmul` puts all of it together: the SGEMM ladder, rung by rung, against cuBLAS.");
    Ok(())
}
