//! The concept labs: `coalesce`, `banks`, `divergence`, `reduce`,
//! `occupancy`, `warps`, and `tour`, which runs them in teaching order.
//! Each prints the model first (no GPU needed), then, on a GPU, the
//! measurement beside it; with `--svg PATH` it writes its pictures (the
//! model's alone when there is no GPU).

use super::{needs_gpu, open_gpu};
use crate::Failure;
use crate::cli::{Archs, BanksArgs, CoalesceArgs, DivergenceArgs, OccupancyArgs, ReduceArgs, WarpsArgs};
use crate::output::{Files, check_writable, out, outln};
use crate::progress::tracked;
use ptx_ladder::device::Gpu;
use ptx_ladder::labs::models::{banks as banks_model, coalesce as coalesce_model, divergence as divergence_model};
use ptx_ladder::labs::models::{occupancy as occupancy_model, warps as warps_model};
use ptx_ladder::labs::{banks, coalesce, divergence, occupancy, reduce, warps};
use ptx_ladder::matmul::check::verdict;
use ptx_ladder::matmul::ladder::{self, measure};
use ptx_ladder::svg;
use ptx_ladder::text::plural;

/// "1 sector", "32 sectors": sectors per warp request.
fn sectors(count: u32) -> String {
    plural(count.into(), "sector")
}
use std::path::{Path, PathBuf};

fn model_error(e: String) -> Failure {
    Failure::Runtime(ptx_ladder::Error::new(e))
}

/// Checks `--svg` before any work.
pub(super) fn check_svg(path: &Option<PathBuf>) -> Result<(), Failure> {
    path.as_deref().map_or(Ok(()), |p| check_writable("--svg", p))
}

pub(super) fn write_svg(
    files: &mut Files,
    path: &Option<PathBuf>,
    picture: impl FnOnce() -> Result<String, Failure>,
) -> Result<(), Failure> {
    match path {
        Some(path) => files.write(path, &picture()?),
        None => Ok(()),
    }
}

/// Runs one lab: checks `--svg`, opens the GPU if there is one, runs `lab`,
/// writes the picture, and ends with exit 3 when the GPU part could not run.
pub(super) fn lab_command(svg: &Option<PathBuf>, lab: impl FnOnce(Option<&Gpu>, &mut Files) -> Result<(), Failure>) -> Result<(), Failure> {
    check_svg(svg)?;
    let gpu = open_gpu()?;
    let mut files = Files::default();
    lab(gpu.as_ref().ok(), &mut files)?;
    files.finish()?;
    needs_gpu(&gpu)
}

/// Where the GPU part of a lab would have been, in the tour (a lab run on
/// its own ends with the error line instead).
pub(super) fn skipped(gpu: Option<&Gpu>) -> Result<(), Failure> {
    match gpu {
        Some(_) => Ok(()),
        None => outln!("(the measurement needs a CUDA GPU: skipped)"),
    }
}

pub fn coalesce_command(args: CoalesceArgs) -> Result<(), Failure> {
    coalesce::validate(&args.strides.0, args.mib << 18).map_err(|e| Failure::Usage(e.to_string()))?;
    lab_command(&args.svg.svg.clone(), |gpu, files| coalesce_lab(gpu, &args, files))
}

pub fn coalesce_lab(gpu: Option<&Gpu>, o: &CoalesceArgs, files: &mut Files) -> Result<(), Failure> {
    super::exercise::your_turn(&[2, 3, 8], "index orders that coalesce")?;
    outln!("model: a warp's request is served in 32-byte sectors; 32 lanes reading 4-byte floats")?;
    let strides = &o.strides.0;
    for &stride in strides {
        outln!("  stride {stride:>3}: {}", coalesce_model::summary(&coalesce_model::strided_addresses(stride), 4))?;
    }
    // The sector maps of the smallest and largest stride asked for (the
    // picture has one for each).
    let (smallest, largest) = (strides.iter().min(), strides.iter().max());
    for stride in smallest.into_iter().chain(largest.filter(|&l| Some(l) != smallest)) {
        outln!("  stride {stride}:\n{}", coalesce_model::render(&coalesce_model::strided_addresses(*stride), 4).map_err(model_error)?)?;
    }
    let size = o.matmul_size;
    let (naive_a, naive_b) = coalesce_model::naive_matmul_sectors(size, size, 0).map_err(model_error)?;
    let (coal_a, coal_b) = coalesce_model::coalesced_matmul_sectors(size, size, 0).map_err(model_error)?;
    let mut pictures = Vec::new();
    for &stride in strides {
        pictures.push(
            coalesce_model::svg(&coalesce_model::strided_addresses(stride), 4, &format!("one warp, stride {stride}"))
                .map_err(model_error)?,
        );
    }
    let Some(gpu) = gpu else {
        outln!("matmul {size}^3, sectors per warp request for A and B in one inner-loop step (model):")?;
        outln!("  {:<16} A: {:>10}, B: {:>10}", kernels_gpu::sgemm::r01_naive::KERNEL.name(), sectors(naive_a), sectors(naive_b))?;
        outln!("  {:<16} A: {:>10}, B: {:>10}", kernels_gpu::sgemm::r02_coalesced::KERNEL.name(), sectors(coal_a), sectors(coal_b))?;
        return write_svg(files, &o.svg.svg, || Ok(svg::stack(&pictures)));
    };
    let rows = tracked(|progress| coalesce::run(gpu, &o.strides.0, o.mib << 18, o.reps.reps, progress))?;
    outln!("measured on {} ({} MiB array, every thread's sum checked):", gpu.info.name, o.mib)?;
    out!("{}", coalesce::table(&rows))?;
    if let (Some(first), Some(last)) = (rows.first(), rows.last()) {
        outln!(
            "stride {} delivers {:.1}x less useful bandwidth than stride {}",
            last.stride,
            first.useful_gbps / last.useful_gbps,
            first.stride
        )?;
    }

    // The same rule in the matmul ladder: rung 1 maps lanes to rows, rung 2 to columns.
    let options = ladder::Options { size: (size, size, size), reps: Some(o.reps.reps.min(10)), warmup: 1, seed: 3 };
    let (mut buffers, reference) = tracked(|progress| ladder::prepare(gpu, &options, progress))?;
    outln!("matmul {size}^3, sectors per warp request for A and B in one inner-loop step (model) and measured speed:")?;
    for (kernel, (a, b)) in
        [(kernels_gpu::sgemm::r01_naive::KERNEL, (naive_a, naive_b)), (kernels_gpu::sgemm::r02_coalesced::KERNEL, (coal_a, coal_b))]
    {
        let (c, timing) = measure(gpu, &mut buffers, &kernel, &reference, options.reps, 1)?;
        let ok = verdict(&reference, &c);
        let speed = timing.map_or("-".into(), |t| format!("{:.0} GFLOP/s", t.billions_per_second(buffers.flops())));
        outln!("  {:<16} A: {:>10}, B: {:>10}   {speed:>14}   {}", kernel.name(), sectors(a), sectors(b), ok.describe())?;
    }
    write_svg(files, &o.svg.svg, || {
        let bars: Vec<(String, f64)> = rows.iter().map(|r| (format!("stride {}", r.stride), r.useful_gbps)).collect();
        pictures.push(svg::bar_chart(&format!("Useful bandwidth by stride ({})", gpu.info.name), &bars, None, "GB/s"));
        Ok(svg::stack(&pictures))
    })
}

pub fn banks_command(args: BanksArgs) -> Result<(), Failure> {
    lab_command(&args.svg.svg.clone(), |gpu, files| banks_lab(gpu, &args, files))
}

pub fn banks_lab(gpu: Option<&Gpu>, o: &BanksArgs, files: &mut Files) -> Result<(), Failure> {
    super::exercise::your_turn(&[9], "a transpose free of bank conflicts")?;
    outln!("model: shared memory has 32 banks of 4 bytes; a warp's loads of different words in one bank take turns")?;
    for pattern in [banks_model::Pattern::Column, banks_model::Pattern::PaddedColumn] {
        outln!("  {}: {}\n{}", pattern.name(), pattern.explain(), banks_model::render(&pattern.addresses()))?;
    }
    outln!("conflict degree of one warp load, by pattern (model):")?;
    for pattern in banks_model::Pattern::ALL {
        outln!("  {:<17} {}-way", pattern.name(), banks_model::conflict_degree(&pattern.addresses()))?;
    }
    let mut pictures: Vec<String> =
        [banks_model::Pattern::Column, banks_model::Pattern::PaddedColumn, banks_model::Pattern::SwizzledColumn]
            .iter()
            .map(|p| banks_model::svg(&p.addresses(), &format!("{}: {}-way", p.name(), banks_model::conflict_degree(&p.addresses()))))
            .collect();
    let Some(gpu) = gpu else {
        return write_svg(files, &o.svg.svg, || Ok(svg::stack(&pictures)));
    };
    let rows = tracked(|progress| banks::run(gpu, o.rounds, o.reps.reps, progress))?;
    outln!("measured on {} (every thread's sum checked):", gpu.info.name)?;
    out!("{}", banks::table(&rows))?;
    write_svg(files, &o.svg.svg, || {
        let bars: Vec<(String, f64)> = rows.iter().map(|r| (r.pattern.name().to_string(), r.cycles_per_access)).collect();
        pictures.push(svg::bar_chart(&format!("Cycles per warp-wide shared load ({})", gpu.info.name), &bars, None, "cycles"));
        Ok(svg::stack(&pictures))
    })
}

/// SMs assumed by the divergence model when there is no GPU to ask (an H200's).
const MODEL_SMS: u32 = 132;

pub fn divergence_command(args: DivergenceArgs) -> Result<(), Failure> {
    lab_command(&args.svg.svg.clone(), |gpu, files| divergence_lab(gpu, &args, files))
}

pub fn divergence_lab(gpu: Option<&Gpu>, o: &DivergenceArgs, files: &mut Files) -> Result<(), Failure> {
    let sms = gpu.map_or(MODEL_SMS, |g| g.info.multiprocessors);
    let blocks = sms * 16;
    let (work, threads) = (o.work as u64, divergence::THREADS);
    outln!("model: both sides of a branch cost {}; a warp pays both only if its lanes disagree", plural(o.work.into(), "dependent FMA"))?;
    if gpu.is_none() {
        outln!("(for {blocks} blocks of {threads} threads: 16 per SM of a {MODEL_SMS}-SM GPU)")?;
    }
    out!("{}", divergence_model::render_table(threads, blocks, work, work).map_err(model_error)?)?;
    let model = divergence_model::svg(threads, blocks, work, work).map_err(model_error)?;
    let Some(gpu) = gpu else {
        return write_svg(files, &o.svg.svg, || Ok(model));
    };
    let rows = tracked(|progress| divergence::run(gpu, o.work, o.reps.reps, progress))?;
    outln!("measured on {} ({blocks} blocks of {threads} threads, a sample of threads checked bit for bit):", gpu.info.name)?;
    out!("{}", divergence::table(&rows))?;
    write_svg(files, &o.svg.svg, || {
        let bars: Vec<(String, f64)> =
            rows.iter().map(|r| (format!("{} ({})", r.pattern.name(), r.pattern.condition()), r.timing.median_ms)).collect();
        Ok(svg::stack(&[model, svg::bar_chart(&format!("Measured time ({})", gpu.info.name), &bars, None, "ms")]))
    })
}

pub fn reduce_command(args: ReduceArgs) -> Result<(), Failure> {
    lab_command(&args.svg.svg.clone(), |gpu, files| reduce_lab(gpu, &args, files))
}

pub fn reduce_lab(gpu: Option<&Gpu>, o: &ReduceArgs, files: &mut Files) -> Result<(), Failure> {
    super::exercise::your_turn(&[5, 6, 7, 10, 11], "trees, shuffles, scans and atomics")?;
    outln!(
        "model: four ways for threads to cooperate on one sum of {} ({:.3} GB read once):",
        plural(o.n, "float"),
        o.n as f64 * 4.0 / 1e9
    )?;
    for method in reduce::Method::ALL {
        outln!("  {}: {}", method.name(), method.explain())?;
    }
    let Some(gpu) = gpu else {
        // Only the measured chart exists for this lab, so no picture is written.
        return match &o.svg.svg {
            Some(path) => {
                outln!("{} not written: this lab's picture is its measurement", path.display())
            }
            None => Ok(()),
        };
    };
    let report = tracked(|progress| reduce::run(gpu, o.n, o.reps.reps, progress))?;
    outln!("measured on {} (each sum compared with the exact f64 sum; tolerance {:.0e} of Σ|x|):", gpu.info.name, reduce::TOLERANCE)?;
    out!("{}", reduce::table(&report))?;
    write_svg(files, &o.svg.svg, || {
        let bars: Vec<(String, f64)> = report.rows.iter().map(|r| (r.method.name().to_string(), r.gbps)).collect();
        Ok(svg::bar_chart(
            &format!("Sum of {}: GB/s read ({})", plural(report.n, "float"), gpu.info.name),
            &bars,
            Some(("copy (read+write)".into(), report.copy_gbps())),
            "GB/s",
        ))
    })?;
    if let Some(bad) = report.rows.iter().find(|r| !r.passed()) {
        return Err(
            ptx_ladder::Error::new(format!("{} gave {} (error {:.1e} of Σ|x|): WRONG", bad.method.name(), bad.sum, bad.error)).into()
        );
    }
    Ok(())
}

pub fn occupancy_command(args: OccupancyArgs) -> Result<(), Failure> {
    check_svg(&args.svg)?;
    let mut files = Files::default();
    occupancy_calculator(&args)?;
    if !args.live {
        outln!("(add --live to compare with the driver on this GPU and run the latency-hiding experiment)")?;
        write_svg(&mut files, &args.svg, || occupancy_picture(&args))?;
        return files.finish();
    }
    let gpu = open_gpu()?;
    if let Ok(gpu) = &gpu {
        occupancy_live(gpu, &args, &mut files)?;
    }
    files.finish()?;
    needs_gpu(&gpu)
}

fn archs(o: &OccupancyArgs) -> Vec<&'static occupancy_model::Arch> {
    match o.arch {
        Archs::One(arch) => vec![arch],
        Archs::All => occupancy_model::ARCHS.iter().collect(),
    }
}

/// The calculator's own picture: occupancy against registers, shared
/// memory and block size, with this kernel marked.
fn occupancy_picture(o: &OccupancyArgs) -> Result<String, Failure> {
    Ok(occupancy_model::calculator_svg(&archs(o), o.threads, o.registers, o.shared))
}

pub fn occupancy_calculator(o: &OccupancyArgs) -> Result<(), Failure> {
    let rows: Vec<_> =
        archs(o).into_iter().map(|arch| (arch.name, occupancy_model::occupancy(arch, o.threads, o.registers, o.shared))).collect();
    outln!(
        "calculator: {} per block, {} per thread, {} of shared memory per block",
        plural(o.threads.into(), "thread"),
        plural(o.registers.into(), "register"),
        plural(o.shared.into(), "byte")
    )?;
    out!("{}", occupancy_model::render_table(&rows))?;
    if let [(_, Ok(only))] = rows.as_slice() {
        outln!("{}", only.explain().trim_end())?;
    }
    Ok(())
}

pub fn occupancy_live(gpu: &Gpu, o: &OccupancyArgs, files: &mut Files) -> Result<(), Failure> {
    let rows = occupancy::kernels(gpu)?;
    let arch = occupancy::arch_of(gpu)?;
    outln!("this project's kernels on {} (calculator table: {}):", gpu.info.name, arch.name)?;
    out!("{}", occupancy::kernels_table(&rows))?;
    let agree = rows.iter().filter(|r| r.agrees()).count();
    outln!("calculator and driver agree on {agree} of {} kernels", rows.len())?;
    let latency = tracked(|progress| occupancy::latency(gpu, o.floats, o.reps.reps, progress))?;
    outln!("latency hiding: a memory-bound copy of {} floats, occupancy lowered by reserving shared memory:", o.floats)?;
    out!("{}", occupancy::latency_table(&latency))?;
    write_svg(files, &o.svg, || Ok(occupancy::latency_svg(&latency, &gpu.info.name)))?;
    if agree != rows.len() {
        return Err(ptx_ladder::Error::new("the calculator disagrees with the driver (rows marked DIFFERENT)").into());
    }
    Ok(())
}

pub fn warps_command(args: WarpsArgs) -> Result<(), Failure> {
    lab_command(&args.svg.svg.clone(), |gpu, files| warps_lab(gpu, args.block, args.svg.svg.as_deref(), files))
}

/// Prints the model's warp map; with a GPU, also checks it on the hardware.
pub fn warps_lab(gpu: Option<&Gpu>, block: (u32, u32, u32), svg_path: Option<&Path>, files: &mut Files) -> Result<(), Failure> {
    out!("{}", warps_model::render(block).map_err(model_error)?)?;
    if let Some(gpu) = gpu {
        let threads = warps::check(gpu, block)?;
        outln!("checked on {}: all {} ran as lane (linear rank mod 32), as the map says", gpu.info.name, plural(threads.into(), "thread"))?;
    }
    write_svg(files, &svg_path.map(Path::to_path_buf), || warps_model::svg(block).map_err(model_error))
}

/// `ptx-ladder tour`: the labs in teaching order, with a few sentences
/// between; without a GPU, every model and calculator still runs.
pub fn tour_command() -> Result<(), Failure> {
    let gpu = open_gpu()?;
    let g = gpu.as_ref().ok();
    let mut files = Files::default();
    let say = |title: &str, text: &str| outln!("\n━━ {title}\n{text}\n");
    say(
        "1. Warps",
        "A block is cut into warps of 32 threads, counting x fastest. The warp, not the thread, is what the\nhardware schedules: everything below is about what one warp asks for at once.",
    )?;
    warps_lab(g, (30, 2, 1), None, &mut files)?;
    skipped(g)?;
    say(
        "2. The memory hierarchy",
        "A number lives in a register (one thread), shared memory (one block), the L2 (the chip) or DRAM\n(everything). Each step out holds more and answers slower; the rest of the tour is about staying close.",
    )?;
    let memory =
        crate::cli::MemoryArgs { max_mib: 2048, quick: false, arch: None, json: None, reps: 3, svg: crate::cli::SvgArg { svg: None } };
    super::memory::memory_lab(g, &memory, &mut files)?;
    skipped(g)?;
    say(
        "3. Coalescing",
        "A warp's 32 loads become as few 32-byte sectors as their addresses allow. Neighbouring lanes reading\nneighbouring floats need 4 sectors; lanes 32 bytes apart need 32, for the same 128 useful bytes.",
    )?;
    let coalesce = CoalesceArgs {
        strides: crate::cli::NumberList(vec![1, 2, 4, 8, 32]),
        mib: 256,
        matmul_size: 1024,
        reps: crate::cli::RepsArg { reps: 10 },
        svg: crate::cli::SvgArg { svg: None },
    };
    coalesce_lab(g, &coalesce, &mut files)?;
    skipped(g)?;
    say(
        "4. Shared-memory banks",
        "Shared memory is 32 banks side by side. A warp reading 32 different banks is served at once; 32 words\nfrom one bank queue up. Padding or swizzling moves the data so a column spreads over all banks.",
    )?;
    let banks = BanksArgs { rounds: 128, reps: crate::cli::RepsArg { reps: 10 }, svg: crate::cli::SvgArg { svg: None } };
    banks_lab(g, &banks, &mut files)?;
    skipped(g)?;
    say(
        "5. Divergence",
        "Lanes of a warp share one instruction stream. When a branch splits them, the warp runs both sides,\neach with some lanes switched off; warps that agree internally pay one side.",
    )?;
    let divergence = DivergenceArgs { work: 4096, reps: crate::cli::RepsArg { reps: 10 }, svg: crate::cli::SvgArg { svg: None } };
    divergence_lab(g, &divergence, &mut files)?;
    skipped(g)?;
    say(
        "6. Reduction",
        "Summing is the first algorithm where threads must cooperate: through global memory, shared memory,\nregisters (shuffles) or atomics. Each step up removes trips to memory.",
    )?;
    let reduce = ReduceArgs { n: 1 << 26, reps: crate::cli::RepsArg { reps: 10 }, svg: crate::cli::SvgArg { svg: None } };
    reduce_lab(g, &reduce, &mut files)?;
    skipped(g)?;
    say(
        "7. Occupancy",
        "Registers, shared memory and thread slots decide how many warps an SM holds. More resident warps give\nthe scheduler more work to switch to while others wait for memory.",
    )?;
    let occupancy = OccupancyArgs {
        arch: Archs::All,
        threads: 256,
        registers: 64,
        shared: 8192,
        live: true,
        floats: 1 << 25,
        reps: crate::cli::RepsArg { reps: 10 },
        svg: None,
    };
    occupancy_calculator(&occupancy)?;
    match g {
        Some(gpu) => occupancy_live(gpu, &occupancy, &mut files)?,
        None => skipped(None)?,
    }
    say(
        "8. Bugs the GPU does not report",
        "A barrier some threads never reach, two threads racing on shared memory, a thread past the end of an\narray, a block waiting for another: the GPU answers with a hang or a wrong number, never an error.\nThe CPU emulator's checkers name each one (no GPU needed).",
    )?;
    super::pitfalls::lab(&ptx_ladder::labs::pitfalls::Options::default())?;
    say(
        "Your turn",
        "`ptx-ladder exercise` lists 14 kernels to write yourself, from the first index to a register-blocked\nmatmul, each checked on the CPU emulator by the checkers above (no GPU needed).",
    )?;
    say("End of the tour", "`ptx-ladder matmul` puts all of it together: the SGEMM ladder, rung by rung, against cuBLAS.")?;
    files.finish()?;
    needs_gpu(&gpu)
}
