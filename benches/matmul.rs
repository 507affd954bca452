//! `cargo bench --bench matmul`: every rung of the SGEMM ladder this GPU
//! runs and cuBLAS, then every BF16 rung this GPU runs and cuBLAS BF16,
//! timed by criterion with CUDA events (GPU time, not host time), reporting
//! FLOP/s. Size: 2048³ unless `PTX_LADDER_BENCH_SIZE` says otherwise: `N`
//! for N³, or `MxNxK` for one of a model's shapes (`1x4096x14336`).
//! Without a GPU it prints why and exits successfully, so `cargo test
//! --all-targets` stays green on machines without one.

use criterion::measurement::{Measurement, ValueFormatter};
use criterion::{BenchmarkId, Criterion, Throughput};
use cust::event::{Event, EventFlags};
use ptx_ladder::device::Gpu;
use ptx_ladder::matmul::accuracy::Arithmetic;
use ptx_ladder::matmul::check::verdict;
use ptx_ladder::matmul::cublas::Cublas;
use ptx_ladder::matmul::element::{Element, Gemm};
use ptx_ladder::matmul::ladder::{Options, measure, parse_size, prepare};
use ptx_ladder::matmul::rung::Ladder;
use ptx_ladder::matmul::{bf16, sgemm};
use std::time::Duration;

/// Criterion measurement that reads GPU time between two CUDA events
/// recorded on the stream the kernels run on.
struct CudaEvents<'a> {
    stream: &'a cust::stream::Stream,
}

impl Measurement for CudaEvents<'_> {
    type Intermediate = Event;
    type Value = Duration;

    fn start(&self) -> Event {
        let start = Event::new(EventFlags::DEFAULT).expect("creating a CUDA event");
        start.record(self.stream).expect("recording a CUDA event");
        start
    }

    fn end(&self, start: Event) -> Duration {
        let stop = Event::new(EventFlags::DEFAULT).expect("creating a CUDA event");
        stop.record(self.stream).expect("recording a CUDA event");
        stop.synchronize().expect("waiting for the benchmarked kernels");
        Duration::from_secs_f64(stop.elapsed_time_f32(&start).expect("reading CUDA events") as f64 * 1e-3)
    }

    fn add(&self, a: &Duration, b: &Duration) -> Duration {
        *a + *b
    }

    fn zero(&self) -> Duration {
        Duration::ZERO
    }

    fn to_f64(&self, value: &Duration) -> f64 {
        value.as_nanos() as f64
    }

    fn formatter(&self) -> &dyn ValueFormatter {
        &NanosecondsAndFlops
    }
}

/// Times in ns/µs/ms; throughput as FLOP/s (elements are FLOPs here).
struct NanosecondsAndFlops;

impl ValueFormatter for NanosecondsAndFlops {
    fn scale_values(&self, typical: f64, values: &mut [f64]) -> &'static str {
        let (factor, unit) = match typical {
            t if t < 1e3 => (1.0, "ns"),
            t if t < 1e6 => (1e-3, "µs"),
            t if t < 1e9 => (1e-6, "ms"),
            _ => (1e-9, "s"),
        };
        values.iter_mut().for_each(|v| *v *= factor);
        unit
    }

    fn scale_throughputs(&self, typical: f64, throughput: &Throughput, values: &mut [f64]) -> &'static str {
        let per_iteration = match throughput {
            Throughput::Elements(n) | Throughput::Bytes(n) | Throughput::BytesDecimal(n) => *n as f64,
        };
        let flops = |ns: f64| per_iteration / (ns * 1e-9);
        let (factor, unit) = if flops(typical) >= 1e12 { (1e-12, "TFLOP/s") } else { (1e-9, "GFLOP/s") };
        values.iter_mut().for_each(|v| *v = flops(*v) * factor);
        unit
    }

    fn scale_for_machines(&self, _values: &mut [f64]) -> &'static str {
        "ns"
    }
}

fn main() {
    let size = match std::env::var("PTX_LADDER_BENCH_SIZE") {
        Err(_) => (2048, 2048, 2048),
        Ok(text) => match parse_size(&text) {
            Ok(size) => size,
            Err(e) => {
                eprintln!("benches/matmul: PTX_LADDER_BENCH_SIZE: {e}");
                std::process::exit(2);
            }
        },
    };
    let gpu = match Gpu::open() {
        Ok(gpu) => gpu,
        Err(e) => {
            eprintln!("benches/matmul: skipped, no usable GPU: {e}");
            return;
        }
    };
    let options = Options { size, reps: Some(1), warmup: 0, seed: 1 };
    let measurement = CudaEvents { stream: gpu.stream() };
    let mut criterion = Criterion::default().with_measurement(measurement).sample_size(10).configure_from_args();
    bench(&gpu, &options, &mut criterion, "sgemm", sgemm::ladder(&kernels_gpu::sgemm::r08_autotuned::CONFIGS[0].kernel));
    bench(&gpu, &options, &mut criterion, "bf16", bf16::ladder());
    criterion.final_summary();
}

/// One ladder's group: cuBLAS at its element type and every rung that runs
/// on this GPU at this size.
fn bench<E: Element>(gpu: &Gpu, options: &Options, criterion: &mut Criterion<CudaEvents>, name: &str, ladder: Ladder<E>) {
    let (mut buffers, reference) = match prepare::<E>(gpu, options, &mut |_| {}) {
        Ok(prepared) => prepared,
        Err(e) => {
            eprintln!("benches/matmul: {name}: preparing the inputs: {e}");
            std::process::exit(1);
        }
    };
    let (m, n, k) = options.size;
    let size = if (m, m) == (n, k) { format!("{m}^3") } else { format!("{m}x{n}x{k}") };
    let mut group = criterion.benchmark_group(format!("{name} {size} on {}", gpu.info.name));
    group.throughput(Throughput::Elements(buffers.flops() as u64));
    let mut gemms: Vec<(String, Box<dyn Gemm<E>>, Arithmetic)> = Vec::new();
    match Cublas::load(gpu) {
        Ok(cublas) => gemms.push((E::cublas_title("cuBLAS"), Box::new(cublas), E::ARITHMETIC)),
        Err(e) => eprintln!("benches/matmul: no {name} cuBLAS baseline: {e}"),
    }
    for rung in ladder.rungs {
        if let Some(why) = rung.skip_reason(gpu.info.compute_capability, options.size) {
            eprintln!("benches/matmul: {name} rung {} skipped: {why}", rung.id);
            continue;
        }
        let gemm = rung.prepare(gpu, &buffers).expect("setting up a rung");
        gemms.push((format!("{} {}", rung.id, rung.title), gemm, rung.kernel.arithmetic()));
    }
    for (name, gemm, arithmetic) in &gemms {
        // Check once before timing: a wrong kernel's speed means nothing.
        let reference = reference.for_arithmetic(*arithmetic);
        let (c, _) = measure(gpu, &mut buffers, gemm.as_ref(), &reference, Some(1), 0).expect("running the kernel");
        let v = verdict(&reference, &c);
        assert!(v.passed(), "{name}: {}", v.describe());
        let args = buffers.args();
        group.bench_function(BenchmarkId::from_parameter(name), |b| b.iter(|| gemm.run(gpu, &args).expect("launch")));
    }
    group.finish();
}
