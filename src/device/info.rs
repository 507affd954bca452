//! What the driver says about the GPU, and the two ceilings derived from it.

use crate::error::{Context as _, Result};
use cust::device::{Device, DeviceAttribute};
use cust::sys::CUdevice_attribute as Attr;

#[derive(Clone, Debug)]
pub struct DeviceInfo {
    pub name: String,
    pub compute_capability: (u32, u32),
    pub multiprocessors: u32,
    pub warp_size: u32,
    pub max_threads_per_block: u32,
    pub max_threads_per_multiprocessor: u32,
    pub max_blocks_per_multiprocessor: u32,
    pub registers_per_multiprocessor: u32,
    pub registers_per_block: u32,
    pub shared_per_multiprocessor: u32,
    pub shared_per_block: u32,
    pub shared_per_block_optin: u32,
    pub shared_reserved_per_block: u32,
    pub l2_bytes: u32,
    pub sm_clock_khz: u32,
    pub memory_clock_khz: u32,
    pub memory_bus_bits: u32,
    pub total_memory: usize,
    pub max_grid: [u32; 3],
    pub max_block: [u32; 3],
}

impl DeviceInfo {
    pub fn query(device: Device) -> Result<DeviceInfo> {
        let get = |attribute: DeviceAttribute| -> Result<u32> {
            device.get_attribute(attribute).map(|v| v.max(0) as u32).context(format_args!("reading device attribute {attribute:?}"))
        };
        let get_raw = |attribute: Attr| -> Result<u32> {
            let mut value = 0;
            super::driver(
                unsafe { cust::sys::cuDeviceGetAttribute(&mut value, attribute, device.as_raw()) },
                format_args!("reading device attribute {attribute:?}"),
            )
            .map(|_| value.max(0) as u32)
        };
        use DeviceAttribute::*;
        Ok(DeviceInfo {
            name: device.name().context("reading the device name")?,
            compute_capability: (get(ComputeCapabilityMajor)?, get(ComputeCapabilityMinor)?),
            multiprocessors: get(MultiprocessorCount)?,
            warp_size: get(WarpSize)?,
            max_threads_per_block: get(MaxThreadsPerBlock)?,
            max_threads_per_multiprocessor: get(MaxThreadsPerMultiprocessor)?,
            max_blocks_per_multiprocessor: get_raw(Attr::CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR)?,
            registers_per_multiprocessor: get(MaxRegistersPerMultiprocessor)?,
            registers_per_block: get(MaxRegistersPerBlock)?,
            shared_per_multiprocessor: get(MaxSharedMemoryPerMultiprocessor)?,
            shared_per_block: get(MaxSharedMemoryPerBlock)?,
            shared_per_block_optin: get_raw(Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)?,
            shared_reserved_per_block: get_raw(Attr::CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK)?,
            l2_bytes: get(L2CacheSize)?,
            sm_clock_khz: get(ClockRate)?,
            memory_clock_khz: get(MemoryClockRate)?,
            memory_bus_bits: get(GlobalMemoryBusWidth)?,
            total_memory: device.total_memory().context("reading total device memory")?,
            max_grid: [get(MaxGridDimX)?, get(MaxGridDimY)?, get(MaxGridDimZ)?],
            max_block: [get(MaxBlockDimX)?, get(MaxBlockDimY)?, get(MaxBlockDimZ)?],
        })
    }

    /// FP32 lanes per multiprocessor, by architecture (NVIDIA's tables).
    pub fn fp32_lanes_per_multiprocessor(&self) -> Option<u32> {
        fp32_lanes(self.compute_capability)
    }

    /// FP32 peak in FLOP/s: SMs × lanes × 2 (an FMA is two FLOPs) × clock.
    pub fn fp32_peak_flops(&self) -> Option<f64> {
        self.fp32_lanes_per_multiprocessor().map(|lanes| self.multiprocessors as f64 * lanes as f64 * 2.0 * self.sm_clock_khz as f64 * 1e3)
    }

    /// DRAM bandwidth in bytes/s from the driver's memory clock and bus
    /// width, counting two transfers per clock (DDR).
    pub fn dram_bandwidth(&self) -> f64 {
        2.0 * self.memory_clock_khz as f64 * 1e3 * self.memory_bus_bits as f64 / 8.0
    }

    /// Warps one multiprocessor can hold.
    pub fn max_warps_per_multiprocessor(&self) -> u32 {
        self.max_threads_per_multiprocessor / self.warp_size.max(1)
    }
}

/// FP32 lanes per SM for a compute capability, None where unknown.
pub fn fp32_lanes((major, minor): (u32, u32)) -> Option<u32> {
    match (major, minor) {
        (5, _) => Some(128),
        (6, 0) => Some(64),
        (6, _) => Some(128),
        (7, _) => Some(64),
        (8, 0) => Some(64),
        (8, _) => Some(128),
        (9, 0) => Some(128),
        (10, _) | (12, _) => Some(128),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::{DeviceInfo, fp32_lanes};

    /// What the driver reported for the H200 on 2026-11-29 (`ptx-ladder info`).
    fn h200() -> DeviceInfo {
        DeviceInfo {
            name: "NVIDIA H200".into(),
            compute_capability: (9, 0),
            multiprocessors: 132,
            warp_size: 32,
            max_threads_per_block: 1024,
            max_threads_per_multiprocessor: 2048,
            max_blocks_per_multiprocessor: 32,
            registers_per_multiprocessor: 65536,
            registers_per_block: 65536,
            shared_per_multiprocessor: 233472,
            shared_per_block: 49152,
            shared_per_block_optin: 232448,
            shared_reserved_per_block: 1024,
            l2_bytes: 62914560,
            sm_clock_khz: 1_980_000,
            memory_clock_khz: 3_201_000,
            memory_bus_bits: 6016,
            total_memory: 150_080_000_000,
            max_grid: [2147483647, 65535, 65535],
            max_block: [1024, 1024, 64],
        }
    }

    #[test]
    fn h200_ceilings_match_the_datasheet() {
        let info = h200();
        // 132 SMs × 128 lanes × 2 FLOP × 1.98 GHz = 66.9 TFLOP/s.
        assert!((info.fp32_peak_flops().unwrap() / 1e12 - 66.9).abs() < 0.05);
        // 2 × 3.201 GHz × 6016 bit / 8 = 4.81 TB/s (datasheet: 4.8 TB/s).
        assert!((info.dram_bandwidth() / 1e12 - 4.81).abs() < 0.01);
        assert_eq!(info.max_warps_per_multiprocessor(), 64);
    }

    #[test]
    fn unknown_architectures_have_no_peak() {
        let info = DeviceInfo { compute_capability: (3, 5), ..h200() };
        assert_eq!(info.fp32_peak_flops(), None);
    }

    #[test]
    fn lanes_per_sm_match_the_architecture_tables() {
        assert_eq!(fp32_lanes((8, 0)), Some(64)); // A100
        assert_eq!(fp32_lanes((8, 6)), Some(128)); // RTX A6000
        assert_eq!(fp32_lanes((9, 0)), Some(128)); // H100 / H200
        assert_eq!(fp32_lanes((7, 5)), Some(64)); // T4
        assert_eq!(fp32_lanes((3, 5)), None);
    }
}
