//! `ptx-ladder memory`: the four places a number can live, measured. Capacities
//! from the driver; read bandwidth against the size of the working set
//! (L1, L2 and DRAM plateaus); shared-memory bandwidth against the banks'
//! model; load latency by pointer chasing, in SM cycles.

use super::models::memory::{
    BandwidthPoint, Capacities, Latency, Measured, a6000_shared_to_dram, bytes, chip_for_compute_capability, cycles_to_ns, expected_level,
    plateaus, random_cycle, shared_bandwidth_model, working_set,
};
use crate::device::{DeviceInfo, Gpu, pointer};
use crate::error::{Context as _, Error, Result};
use crate::svg::{Anchor, Svg, TextStyle};
use cust::memory::{CopyDestination, DeviceBuffer};
use kernels_gpu::labs::memory::{
    FMAS_PER_STEP, LOADS_PER_STEP, MEMORY_CHASE_L1, MEMORY_CHASE_L2, MEMORY_CHASE_SHARED, MEMORY_FMA_CHAIN, MEMORY_READ,
    MEMORY_SHARED_READ, SHARED_LOADS_PER_ROUND, THREADS, TILE_QUADS, read_launch, wrap_add,
};
use kernels_gpu::launch::{Dim3, Kernel, LaunchShape};

const KIB: u64 = 1024;
const MIB: u64 = 1024 * 1024;

/// Smallest and largest working sets the sweep accepts.
pub const MIN_BYTES: u64 = 16 * KIB;
pub const MAX_BYTES: u64 = 16 << 30;
/// The pointer-chasing kernels' typed handle (both chases share it).
type ChaseKernel = Kernel<(u64, u32, u32, *mut u64)>;

/// Distance between the slots of a global chase: one 128-byte line each.
const CHASE_STRIDE: u64 = 128;

/// How much work each measurement does.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Settings {
    /// Largest working set of the sweep.
    pub max_bytes: u64,
    pub reps: u32,
    /// Bytes each bandwidth launch reads at least, so even the fastest
    /// level runs long enough for events to time it well.
    pub bytes_per_launch: u64,
    pub shared_rounds: u32,
    /// Timed steps of each chase, and the FMA chain's steps / 25.
    pub chase_steps: u32,
}

impl Settings {
    /// The real measurement: 4 GB per launch (about 0.1 ms at L1 speed).
    pub fn full(max_bytes: u64, reps: u32) -> Settings {
        Settings { max_bytes, reps, bytes_per_launch: 4 << 30, shared_rounds: 4096, chase_steps: 20_000 }
    }

    /// Every kernel and check once, with tiny launches: for running under
    /// compute-sanitizer, which slows each access down a thousandfold.
    pub fn quick(max_bytes: u64) -> Settings {
        Settings { max_bytes, reps: 1, bytes_per_launch: 1 << 20, shared_rounds: 2, chase_steps: 100 }
    }
}

/// Working sets of the sweep: doubling from 16 KB, with extra points
/// around the L2 size where the curve falls, up to `max_bytes`.
pub fn working_sets(max_bytes: u64) -> Vec<u64> {
    let mut sets: Vec<u64> = (0..).map(|i| MIN_BYTES << i).take_while(|&b| b <= max_bytes).collect();
    sets.extend([24, 40, 48, 56, 80, 96].iter().map(|m| m * MIB).filter(|&b| b <= max_bytes));
    sets.sort_unstable();
    sets
}

/// Capacities as the driver reports them (the L1 size, which it does not
/// report, from the architecture table).
pub fn capacities(info: &DeviceInfo) -> Capacities {
    Capacities {
        sms: info.multiprocessors,
        register_file_per_sm: info.registers_per_multiprocessor as u64 * 4,
        l1_shared_per_sm: chip_for_compute_capability(info.compute_capability).map(|c| c.l1_shared_per_sm),
        shared_per_sm: info.shared_per_multiprocessor as u64,
        l2: info.l2_bytes as u64,
        dram: info.total_memory as u64,
    }
}

/// The grid stride of the read kernel over `quads` quads: about the number
/// of threads (so a large set streams past the grid window by window), a
/// multiple of 32 quads where possible (so warps read whole 512-byte
/// pieces), and sharing no factor with the set's length in those units, so
/// that every thread's walk visits every part of the set. With the plain
/// `threads % quads`, a power-of-two set would give each thread a handful of
/// quads, each SM a fixed corner of the set, and L1 would seem to hold sets
/// many times its size.
pub fn read_stride(threads: u32, quads: u32) -> u32 {
    let unit = if quads.is_multiple_of(32) && quads > 32 { 32 } else { 1 };
    let units = quads / unit;
    if units <= 1 {
        return 0;
    }
    let gcd = |mut a: u32, mut b: u32| {
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a
    };
    let mut p = ((threads % quads) / unit).clamp(1, units - 1);
    while gcd(p, units) != 1 {
        p = if p + 1 < units { p + 1 } else { 1 };
    }
    p * unit
}

/// What thread `t` of `threads` sums in [`memory_read`](kernels_gpu::labs::memory::memory_read)
/// over `quads` quads whose four floats sum to `quad_sum(q)`: the kernel's
/// walk, replayed on the CPU.
pub fn expected_read_sum(t: u32, threads: u32, quads: u32, steps: u32, mut quad_sum: impl FnMut(u32) -> f32) -> f32 {
    let stride = read_stride(threads, quads);
    let mut i = t % quads;
    let mut acc = [0.0f32; 4];
    for _ in 0..steps {
        for a in acc.iter_mut() {
            *a += quad_sum(i);
            i = wrap_add(i, stride, quads);
        }
    }
    (acc[0] + acc[1]) + (acc[2] + acc[3])
}

/// Reads every working set in `sets` (bytes, multiples of 16) and returns
/// GB/s read; checks every thread's sum.
pub fn bandwidth(gpu: &Gpu, sets: &[u64], reps: u32, bytes_per_launch: u64, progress: &mut dyn FnMut(&str)) -> Result<Vec<BandwidthPoint>> {
    let largest = sets.iter().copied().max().unwrap_or(MIN_BYTES);
    if let Some(bad) = sets.iter().find(|&&b| !(MIN_BYTES..=MAX_BYTES).contains(&b) || !b.is_multiple_of(16)) {
        return Err(Error::new(format!("working sets must be multiples of 16 bytes from {MIN_BYTES} to {MAX_BYTES} (got {bad})")));
    }
    gpu.ensure_fits(largest as u128 + (1 << 24), "the bandwidth sweep")?;
    let mut data = gpu.alloc((largest / 4) as usize, "working set")?;
    data.set_32(1.0f32.to_bits()).context("filling the working set")?;
    let shape = read_launch(gpu.info.multiprocessors);
    let threads = shape.grid.x * THREADS;
    let mut out = gpu.alloc(threads as usize, "sums")?;
    let mut points = Vec::new();
    for &set in sets {
        progress(&format!("reading a {} working set", working_set(set)));
        let quads = (set / 16) as u32;
        let per_step = threads as u64 * 16 * LOADS_PER_STEP as u64;
        let steps = bytes_per_launch.max(2 * set).div_ceil(per_step) as u32;
        let params = (pointer(&data), quads, read_stride(threads, quads), steps, pointer(&out));
        gpu.poison(&mut out)?;
        gpu.launch(&MEMORY_READ, shape, params)?;
        let mut sums = vec![0.0f32; threads as usize];
        gpu.download(&out, &mut sums, "sums")?;
        // Every float is 1.0, so every load adds 4.
        let want = (16 * steps) as f32;
        if let Some((t, got)) = sums.iter().enumerate().find(|(_, v)| v.to_bits() != want.to_bits()) {
            return Err(Error::new(format!("{MEMORY_READ} over {}: thread {t} summed {got}, expected {want}", bytes(set))));
        }
        let timing = gpu.time(1, reps, || gpu.launch(&MEMORY_READ, shape, params))?;
        points.push(BandwidthPoint { bytes: set, gbps: timing.billions_per_second((per_step * steps as u64) as f64) });
    }
    Ok(points)
}

/// Shared-memory read bandwidth in GB/s, every thread's sum checked.
pub fn shared_bandwidth(gpu: &Gpu, rounds: u32, reps: u32) -> Result<f64> {
    let blocks = gpu.info.multiprocessors * 4;
    let shape = LaunchShape { grid: Dim3::new(blocks, 1, 1), block: Dim3::new(THREADS, 1, 1), shared_bytes: TILE_QUADS * 16 };
    let threads = (blocks * THREADS) as usize;
    let mut out = gpu.alloc(threads, "sums")?;
    let params = (pointer(&out), rounds);
    gpu.poison(&mut out)?;
    gpu.launch(&MEMORY_SHARED_READ, shape, params)?;
    let mut sums = vec![0.0f32; threads];
    gpu.download(&out, &mut sums, "sums")?;
    for (g, &got) in sums.iter().enumerate() {
        let want = expected_shared_sum(g as u32 % THREADS, rounds);
        if got.to_bits() != want.to_bits() {
            return Err(Error::new(format!("{MEMORY_SHARED_READ}: thread {g} summed {got}, expected {want}")));
        }
    }
    let timing = gpu.time(1, reps, || gpu.launch(&MEMORY_SHARED_READ, shape, params))?;
    Ok(timing.billions_per_second(threads as f64 * rounds as f64 * SHARED_LOADS_PER_ROUND as f64 * 16.0))
}

/// What thread `t` of a block sums in `memory_shared_read`: every quad it
/// reads has index ≡ t (mod 4), and the four floats of quad q sum to
/// 16·(q mod 4) + 6.
pub fn expected_shared_sum(t: u32, rounds: u32) -> f32 {
    let per_load = (16 * (t % 4) + 6) as f32;
    let mut acc = [0.0f32; 4];
    for _ in 0..rounds {
        for k in 0..SHARED_LOADS_PER_ROUND {
            acc[(k % 4) as usize] += per_load;
        }
    }
    (acc[0] + acc[1]) + (acc[2] + acc[3])
}

/// A chain of addresses in device memory: slot `i` (every
/// `CHASE_STRIDE` bytes) holds the address of the slot after it in a
/// random cycle.
pub fn address_chain(base: u64, set_bytes: u64, seed: u64) -> (Vec<u64>, Vec<u32>) {
    let slots = (set_bytes / CHASE_STRIDE).max(1) as usize;
    let next = random_cycle(slots, seed);
    let words_per_slot = (CHASE_STRIDE / 8) as usize;
    let mut words = vec![0u64; slots * words_per_slot];
    for (slot, &n) in next.iter().enumerate() {
        words[slot * words_per_slot] = base + n as u64 * CHASE_STRIDE;
    }
    (words, next)
}

/// Where a chase of `steps` steps from slot 0 ends.
pub fn chase_end(next: &[u32], steps: u64) -> u32 {
    let cycle = next.len() as u64;
    (0..steps % cycle).fold(0u32, |slot, _| next[slot as usize])
}

fn read_result(out: &DeviceBuffer<u64>) -> Result<[u64; 2]> {
    let mut host = [0u64; 2];
    out.copy_to(&mut host[..]).context("copying a chase result back")?;
    Ok(host)
}

/// Cycles per step of a global chase over `set_bytes` with `kernel`.
fn global_chase(gpu: &Gpu, kernel: &ChaseKernel, set_bytes: u64, warmup: u32, steps: u32, seed: u64) -> Result<f64> {
    gpu.ensure_fits(set_bytes as u128, "a pointer chase")?;
    let mut chain = unsafe { DeviceBuffer::<u64>::uninitialized((set_bytes / 8) as usize) }.context("allocating a chase")?;
    let base = pointer(&chain).as_raw();
    let (words, next) = address_chain(base, set_bytes, seed);
    chain.copy_from(&words[..]).context("copying a chase to the GPU")?;
    let out = DeviceBuffer::from_slice(&[0u64; 2]).context("allocating a chase result")?;
    let one = LaunchShape { grid: Dim3::new(1, 1, 1), block: Dim3::new(1, 1, 1), shared_bytes: 0 };
    gpu.launch(kernel, one, (base, warmup, steps, pointer(&out)))?;
    gpu.synchronize()?;
    let [cycles, last] = read_result(&out)?;
    let want = base + chase_end(&next, warmup as u64 + steps as u64) as u64 * CHASE_STRIDE;
    if last != want {
        return Err(Error::new(format!("{kernel}: the chase over {} ended at {last:#x}, expected {want:#x}", bytes(set_bytes))));
    }
    Ok(cycles as f64 / steps as f64)
}

/// Cycles per step of a chase through `slots` words of shared memory.
fn shared_chase(gpu: &Gpu, slots: u32, steps: u32) -> Result<f64> {
    let next = random_cycle(slots as usize, 11);
    let device_next = DeviceBuffer::from_slice(&next).context("copying a chase to the GPU")?;
    let out = DeviceBuffer::from_slice(&[0u64; 2]).context("allocating a chase result")?;
    let one = LaunchShape { grid: Dim3::new(1, 1, 1), block: Dim3::new(1, 1, 1), shared_bytes: slots * 4 };
    gpu.launch(&MEMORY_CHASE_SHARED, one, (pointer(&device_next), slots, steps, pointer(&out)))?;
    gpu.synchronize()?;
    let [cycles, last] = read_result(&out)?;
    let want = chase_end(&next, steps as u64) as u64;
    if last != want {
        return Err(Error::new(format!("{MEMORY_CHASE_SHARED}: the chase ended at slot {last}, expected {want}")));
    }
    Ok(cycles as f64 / steps as f64)
}

/// The FMA chain's result on the CPU (fused multiply-adds round the same).
pub fn expected_fma_chain(x: f32, a: f32, b: f32, steps: u32) -> f32 {
    (0..steps as u64 * FMAS_PER_STEP as u64).fold(x, |x, _| x.mul_add(a, b))
}

/// Cycles per dependent FMA, and the SM clock in MHz the chain ran at
/// (its cycles over its event-timed duration).
fn fma_chain(gpu: &Gpu, steps: u32, reps: u32) -> Result<(f64, f64)> {
    let out = DeviceBuffer::from_slice(&[0u64; 2]).context("allocating a chain result")?;
    let one = LaunchShape { grid: Dim3::new(1, 1, 1), block: Dim3::new(1, 1, 1), shared_bytes: 0 };
    let params = (0.5f32, 0.999f32, 0.001f32, steps, pointer(&out));
    let timing = gpu.time(1, reps.clamp(1, 5), || gpu.launch(&MEMORY_FMA_CHAIN, one, params))?;
    let [cycles, bits] = read_result(&out)?;
    let want = expected_fma_chain(0.5, 0.999, 0.001, steps);
    if bits as u32 != want.to_bits() {
        return Err(Error::new(format!("{MEMORY_FMA_CHAIN}: got {}, expected {want}", f32::from_bits(bits as u32))));
    }
    let fmas = steps as f64 * FMAS_PER_STEP as f64;
    Ok((cycles as f64 / fmas, cycles as f64 / (timing.median_ms * 1e3)))
}

/// Runs the whole lab.
pub fn run(gpu: &Gpu, settings: &Settings, progress: &mut dyn FnMut(&str)) -> Result<Measured> {
    let (reps, steps) = (settings.reps, settings.chase_steps);
    let caps = capacities(&gpu.info);
    let points = bandwidth(gpu, &working_sets(settings.max_bytes), reps, settings.bytes_per_launch, progress)?;
    progress("shared-memory bandwidth");
    let shared_gbps = shared_bandwidth(gpu, settings.shared_rounds, reps)?;
    progress("latencies: FMA chain, shared, L1, L2, DRAM chases");
    let (fma_cycles, clock_mhz) = fma_chain(gpu, steps * 25, reps)?;
    let l1 = caps.l1_shared_per_sm.unwrap_or(caps.shared_per_sm);
    let l2_set = (caps.l2 / 8).max(MIB);
    let dram_set = (caps.l2 * 16).clamp(64 * MIB, 1 << 30);
    let rows: [(&str, u64, Result<f64>, &str); 5] = [
        ("registers (dependent FMA)", 0, Ok(fma_cycles), "~1 to read a register; an FMA's result after ~4"),
        ("shared memory", 4 * KIB, shared_chase(gpu, 1024, steps), "~30"),
        ("L1 hit (ld.ca)", 16 * KIB, global_chase(gpu, &MEMORY_CHASE_L1, 16 * KIB, 256, steps, 3), "~30"),
        ("L2 hit (ld.cg)", l2_set, global_chase(gpu, &MEMORY_CHASE_L2, l2_set, (l2_set / CHASE_STRIDE) as u32, steps, 5), "~200"),
        ("DRAM (random, ld.cg)", dram_set, global_chase(gpu, &MEMORY_CHASE_L2, dram_set, 0, steps, 7), "400-800"),
    ];
    let mut latencies = Vec::new();
    for (level, set, cycles, texts) in rows {
        let cycles = cycles?;
        latencies.push(Latency { level: level.into(), bytes: set, cycles, ns: cycles_to_ns(cycles, clock_mhz), texts: texts.into() });
    }
    Ok(Measured {
        device: gpu.info.name.clone(),
        plateaus: plateaus(&points, l1, caps.l2),
        capacities: caps,
        sm_clock_mhz: clock_mhz,
        bandwidth: points,
        shared_gbps,
        shared_model_gbps: shared_bandwidth_model(gpu.info.multiprocessors, gpu.info.sm_clock_khz as f64 / 1e3) / 1e9,
        latencies,
    })
}

/// The bandwidth curve as a table, each point with the level the model
/// expects it to come from.
pub fn bandwidth_table(m: &Measured) -> String {
    let l1 = m.capacities.l1_shared_per_sm.unwrap_or(m.capacities.shared_per_sm);
    let mut out = format!("{:>12} {:>10}   {}\n", "working set", "GB/s", "expected from");
    for p in &m.bandwidth {
        out.push_str(&format!("{:>12} {:>10.0}   {}\n", working_set(p.bytes), p.gbps, expected_level(p.bytes, l1, m.capacities.l2).name()));
    }
    let show = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.0} GB/s"));
    let p = &m.plateaus;
    out.push_str(&format!(
        "plateaus: L1 {}, L2 {}, DRAM {}; the L2 cliff: first below the L2/DRAM midpoint at {}\n",
        show(p.on_chip_gbps),
        show(p.l2_gbps),
        show(p.dram_gbps),
        p.l2_cliff_bytes.map_or("-".into(), working_set)
    ));
    out
}

/// Shared memory against its model and against DRAM, beside the texts' A6000.
pub fn shared_summary(m: &Measured) -> String {
    let (a6000_shared, a6000_ratio) = a6000_shared_to_dram();
    let ratio = m.plateaus.dram_gbps.map_or("-".into(), |d| format!("{:.1}x", m.shared_gbps / d));
    format!(
        "shared memory: {:.0} GB/s measured = {:.1}% of the model's 128 B/clock x {} SMs = {:.0} GB/s\n\
         shared / DRAM plateau: {ratio} (the texts' RTX A6000: {:.0} GB/s / 768 GB/s = {a6000_ratio:.1}x)\n",
        m.shared_gbps,
        100.0 * m.shared_gbps / m.shared_model_gbps,
        m.capacities.sms,
        m.shared_model_gbps,
        a6000_shared
    )
}

pub fn latency_table(m: &Measured) -> String {
    let mut out = format!(
        "{:<26} {:>12} {:>10} {:>9}   texts (cycles); ns at the measured {:.0} MHz\n",
        "level", "working set", "cycles", "ns", m.sm_clock_mhz
    );
    for l in &m.latencies {
        let set = if l.bytes == 0 { "-".into() } else { working_set(l.bytes) };
        out.push_str(&format!("{:<26} {:>12} {:>10.1} {:>9.1}   {}\n", l.level, set, l.cycles, l.ns, l.texts));
    }
    out
}

/// The bandwidth curve on a log axis of working-set size, with the L1 and
/// L2 sizes marked.
pub fn svg(m: &Measured) -> String {
    const W: f64 = 820.0;
    const H: f64 = 440.0;
    const LEFT: f64 = 80.0;
    const RIGHT: f64 = 30.0;
    const TOP: f64 = 56.0;
    const BOTTOM: f64 = 70.0;
    let mut svg = Svg::new(W, H);
    svg.text(
        W / 2.0,
        26.0,
        &format!("Read bandwidth against working-set size ({})", m.device),
        TextStyle::new(16.0).anchor(Anchor::Middle).bold(),
    );
    let (lo, hi) =
        m.bandwidth.iter().fold((MIN_BYTES as f64, MIN_BYTES as f64 * 2.0), |(lo, hi), p| (lo.min(p.bytes as f64), hi.max(p.bytes as f64)));
    let top = m.bandwidth.iter().map(|p| p.gbps).fold(1.0, f64::max) * 1.1;
    let (pw, ph) = (W - LEFT - RIGHT, H - TOP - BOTTOM);
    let px = |b: f64| LEFT + (b.log2() - lo.log2()) / (hi.log2() - lo.log2()) * pw;
    let py = |g: f64| TOP + ph - g / top * ph;
    let step = if top > 20000.0 {
        5000.0
    } else if top > 5000.0 {
        1000.0
    } else {
        200.0
    };
    let mut g = 0.0;
    while g <= top {
        svg.line(LEFT, py(g), LEFT + pw, py(g), "#e4e4e4", 1.0);
        svg.text(LEFT - 8.0, py(g) + 4.0, &format!("{g:.0}"), TextStyle::new(11.0).anchor(Anchor::End));
        g += step;
    }
    let mut b = lo;
    while b <= hi * 1.001 {
        svg.line(px(b), TOP + ph, px(b), TOP + ph + 5.0, "#444", 1.0);
        svg.text(px(b), TOP + ph + 18.0, &working_set(b as u64), TextStyle::new(10.0).anchor(Anchor::Middle));
        b *= 8.0;
    }
    svg.line(LEFT, TOP + ph, LEFT + pw, TOP + ph, "#444", 1.0);
    svg.line(LEFT, TOP, LEFT, TOP + ph, "#444", 1.0);
    svg.text(LEFT, TOP - 12.0, "GB/s read", TextStyle::new(12.0).anchor(Anchor::Middle));
    svg.text(
        LEFT + pw / 2.0,
        H - 22.0,
        "working set (log scale), re-read by every thread of the grid",
        TextStyle::new(12.0).anchor(Anchor::Middle),
    );
    let mut marks = vec![("L2", m.capacities.l2 as f64), ("L2 / 2", m.capacities.l2 as f64 / 2.0)];
    if let Some(l1) = m.capacities.l1_shared_per_sm {
        marks.push(("L1 of one SM", l1 as f64));
    }
    for (name, at) in marks {
        if at >= lo && at <= hi {
            svg.dashed_line(px(at), TOP, px(at), TOP + ph, "#d62728", 1.2);
            svg.text(px(at) + 4.0, TOP + 12.0, name, TextStyle::new(11.0).fill("#d62728"));
        }
    }
    let points: Vec<(f64, f64)> = m.bandwidth.iter().map(|p| (px(p.bytes as f64), py(p.gbps))).collect();
    svg.polyline(&points, "#1f77b4", 2.0);
    for &(x, y) in &points {
        svg.circle(x, y, 3.0, "#1f77b4");
    }
    if m.shared_gbps < top {
        svg.dashed_line(LEFT, py(m.shared_gbps), LEFT + pw, py(m.shared_gbps), "#2ca02c", 1.2);
        svg.text(
            LEFT + pw - 4.0,
            py(m.shared_gbps) - 5.0,
            &format!("shared memory {:.0} GB/s", m.shared_gbps),
            TextStyle::new(11.0).anchor(Anchor::End).fill("#2ca02c"),
        );
    } else {
        svg.text(
            LEFT + pw - 4.0,
            TOP + 12.0,
            &format!("shared memory: {:.0} GB/s (above the axis)", m.shared_gbps),
            TextStyle::new(11.0).anchor(Anchor::End).fill("#2ca02c"),
        );
    }
    svg.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_read_stride_lets_every_thread_visit_the_whole_set() {
        let threads = 132 * 8 * 256;
        for quads in [1024u32, 8192, 65536, 1 << 22, 1 << 28, 3 << 20, 327_683, 33, 32, 1] {
            let stride = read_stride(threads, quads);
            assert!(stride < quads.max(1), "{quads}: stride {stride}");
            if quads > 32 {
                // The walk i, i + stride, ... covers every residue of the unit.
                let unit = if quads.is_multiple_of(32) { 32 } else { 1 };
                let orbit = (quads / unit) as u64;
                let mut seen = std::collections::HashSet::new();
                let mut i = 0u32;
                for _ in 0..orbit.min(100_000) {
                    seen.insert(i / unit);
                    i = wrap_add(i, stride, quads);
                }
                assert_eq!(seen.len() as u64, orbit.min(100_000), "{quads}: a short orbit");
            }
        }
        // Near the grid size for large sets, a multiple of a warp's 32 quads.
        let big = read_stride(threads, 1 << 28);
        assert_eq!(big % 32, 0);
        assert!(big.abs_diff(threads) < 1024, "{big}");
    }

    #[test]
    fn working_sets_double_and_add_points_near_l2() {
        let sets = working_sets(4 << 30);
        assert_eq!(sets.first(), Some(&(16 * KIB)));
        assert_eq!(sets.last(), Some(&(4 << 30)));
        assert!(sets.contains(&(48 * MIB)) && sets.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(working_sets(1 << 20).len(), 7);
    }
}
