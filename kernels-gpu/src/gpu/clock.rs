//! The SM's cycle counter, for timing a stretch of one thread's code in
//! clock cycles (as the texts quote latencies) rather than in nanoseconds.

/// `clock64()`: the multiprocessor's 64-bit cycle counter, read with
/// `mov.u64 %r, %clock64;`. Each SM counts its own cycles at its current
/// clock, so only differences taken on the same SM mean anything.
///
/// The assembly is not marked pure, so the compiler neither merges two reads
/// nor moves a read across the memory operations it is meant to bracket.
/// In the CPU emulator it is a counter that goes up by one per read: it
/// orders events, but its "cycles" are not a time.
#[inline(always)]
pub fn clock64() -> u64 {
    #[cfg(target_arch = "nvptx64")]
    unsafe {
        let cycles: u64;
        core::arch::asm!("mov.u64 {c}, %clock64;", c = out(reg64) cycles, options(nostack));
        cycles
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        use core::sync::atomic::{AtomicU64, Ordering};
        static TICKS: AtomicU64 = AtomicU64::new(0);
        TICKS.fetch_add(1, Ordering::Relaxed)
    }
}
