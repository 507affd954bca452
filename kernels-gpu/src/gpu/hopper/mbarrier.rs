//! `mbarrier`: a 64-bit barrier object in shared memory that completes a
//! *phase* when its expected arrivals have arrived and its expected bytes
//! (the transaction count) have landed. TMA copies report their bytes to it
//! (`complete_tx`), so a consumer waits for data, not for threads.
//!
//! Phases alternate 0, 1, 0, ...: a waiter passes the parity of the phase
//! it waits for, and `try_wait.parity` returns true once that phase is
//! over. A ring of stages keeps one "full" and one "empty" barrier per
//! stage; the n-th use of a stage waits for parity `(n / stages) % 2`.

/// `mbarrier.init.shared::cta.b64 [bar], count`: a new barrier expecting
/// `count` arrivals per phase. One thread initialises; then
/// [`super::tma::fence_barrier_init`] and a block barrier publish it.
///
/// # Safety
/// `bar` is an 8-byte aligned shared-window address that nothing else uses.
#[inline(always)]
pub unsafe fn init(bar: u32, count: u32) {
    unsafe { core::arch::asm!("mbarrier.init.shared::cta.b64 [{b}], {c};", b = in(reg32) bar, c = in(reg32) count) }
}

/// `mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], bytes`: this
/// thread's arrival, plus `bytes` more to wait for in the current phase
/// (what the TMA copies issued next will deliver).
///
/// # Safety
/// `bar` is an initialised mbarrier.
#[inline(always)]
pub unsafe fn arrive_expect_tx(bar: u32, bytes: u32) {
    unsafe { core::arch::asm!("mbarrier.arrive.expect_tx.shared::cta.b64 _, [{b}], {n};", b = in(reg32) bar, n = in(reg32) bytes) }
}

/// `mbarrier.arrive.shared::cta.b64 _, [bar]`: one arrival.
///
/// # Safety
/// `bar` is an initialised mbarrier.
#[inline(always)]
pub unsafe fn arrive(bar: u32) {
    unsafe { core::arch::asm!("mbarrier.arrive.shared::cta.b64 _, [{b}];", b = in(reg32) bar) }
}

/// Waits until the phase with parity `parity` of `bar` has completed.
/// `mbarrier.try_wait.parity` suspends the thread for a while inside the
/// instruction, so this loop does not spin hot; the loop is in Rust because
/// `asm!` cannot hold a labelled PTX loop.
///
/// # Safety
/// `bar` is an initialised mbarrier.
#[inline(always)]
pub unsafe fn wait(bar: u32, parity: u32) {
    loop {
        let done: u32;
        unsafe {
            core::arch::asm!(
                "{{ .reg .pred p;",
                "mbarrier.try_wait.parity.shared::cta.b64 p, [{b}], {parity};",
                "selp.u32 {d}, 1, 0, p; }}",
                b = in(reg32) bar,
                parity = in(reg32) parity,
                d = out(reg32) done,
            )
        };
        if done != 0 {
            return;
        }
    }
}

/// `mapa.shared::cluster.u32` then `mbarrier.arrive.shared::cluster.b64`:
/// arrives on the mbarrier at shared address `bar` of the cluster's block
/// `rank` (this block's own when `rank` is its rank).
///
/// # Safety
/// `bar` is an initialised mbarrier in every block of the cluster, and
/// block `rank` has not exited.
#[inline(always)]
pub unsafe fn arrive_cluster(bar: u32, rank: u32) {
    unsafe {
        core::arch::asm!(
            "{{ .reg .b32 remote;",
            "mapa.shared::cluster.u32 remote, {b}, {r};",
            "mbarrier.arrive.shared::cluster.b64 _, [remote]; }}",
            b = in(reg32) bar,
            r = in(reg32) rank,
        )
    }
}
