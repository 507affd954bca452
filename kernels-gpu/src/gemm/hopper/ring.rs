//! The ring of stages between the TMA producer and the wgmma consumers.
//!
//! Each stage has two mbarriers. *full* completes when the stage's tiles
//! have landed: the producer arrives once with the bytes it expects, and
//! the copy engine counts them in. *empty* completes when every consumer
//! warpgroup has finished reading the stage, so the producer may refill
//! it. Use `n` of a stage (k-tile `i` is use `i / stages` of stage
//! `i % stages`) waits for phase parity `n % 2` of *full*; the producer's
//! refill for use `n ≥ 1` waits for parity `(n - 1) % 2` of *empty*.

use crate::gpu::hopper::descriptor::ATOM_BYTES;
use crate::gpu::hopper::{mbarrier, shared_address};
use crate::gpu::{self, sync_threads};

/// The shared address where a block's stages start: the first byte of its
/// dynamic shared memory aligned to a swizzle atom (1024 bytes), so every
/// stage's tiles have base offset 0 for the 128-byte swizzle. Launches
/// reserve the slack (`HopperTiling::shared_bytes`).
#[inline(always)]
pub fn first_stage() -> u32 {
    shared_address(gpu::dynamic_shared::<u8>()).next_multiple_of(ATOM_BYTES)
}

/// Shared addresses of the ring's barriers: `stages` full barriers, then
/// `stages` empty barriers, 8 bytes each.
#[derive(Clone, Copy)]
pub struct Ring {
    barriers: u32,
    stages: u32,
    /// Blocks of the cluster whose producers fill this block's stages
    /// (TMA multicast), so whose consumers must all release a stage.
    peers: u32,
}

impl Ring {
    /// The ring whose barriers start at shared address `barriers`.
    pub const fn new(barriers: u32, stages: u32) -> Ring {
        Ring { barriers, stages, peers: 1 }
    }

    /// The block's ring, its barriers at shared address `barriers`: thread
    /// 0 (`thread` is the caller's index in the block) sets them up for
    /// `consumers` warpgroups, and every thread of the block waits until
    /// they are ready.
    ///
    /// # Safety
    /// As [`Ring::init`]; every thread of the block calls it.
    #[inline(always)]
    pub unsafe fn set_up(barriers: u32, stages: u32, consumers: u32, thread: u32) -> Ring {
        let ring = Ring::new(barriers, stages);
        if thread == 0 {
            unsafe { ring.init(consumers) };
        }
        sync_threads();
        ring
    }

    /// A ring shared by the `peers` blocks of a cluster: each producer
    /// multicasts part of every stage into all of them, so a stage is free
    /// only when the consumers of every block have read it, and each
    /// consumer's release goes to every block's *empty* barrier.
    pub const fn clustered(barriers: u32, stages: u32, peers: u32) -> Ring {
        Ring { barriers, stages, peers }
    }

    pub const fn full(&self, stage: u32) -> u32 {
        self.barriers + 8 * stage
    }

    pub const fn empty(&self, stage: u32) -> u32 {
        self.barriers + 8 * (self.stages + stage)
    }

    /// One thread sets up every barrier: *full* expects the producer's one
    /// arrival, *empty* one arrival per consumer warpgroup of every peer.
    /// The caller then needs a block (or cluster) barrier before anyone
    /// uses them.
    ///
    /// # Safety
    /// The barrier addresses are shared memory reserved for the ring.
    pub unsafe fn init(&self, consumers: u32) {
        for s in 0..self.stages {
            unsafe {
                mbarrier::init(self.full(s), 1);
                mbarrier::init(self.empty(s), consumers * self.peers);
            }
        }
        crate::gpu::hopper::tma::fence_barrier_init();
    }

    /// Producer: waits until k-tile `i`'s stage is free, then announces
    /// `bytes` of copies into it. Returns the stage.
    ///
    /// # Safety
    /// Called by the one producer thread, for `i` = 0, 1, 2, ... in order.
    pub unsafe fn acquire(&self, i: u32, bytes: u32) -> u32 {
        let stage = i % self.stages;
        let use_ = i / self.stages;
        if use_ > 0 {
            unsafe { mbarrier::wait(self.empty(stage), (use_ - 1) % 2) };
        }
        unsafe { mbarrier::arrive_expect_tx(self.full(stage), bytes) };
        stage
    }

    /// Consumer: waits until k-tile `i`'s tiles have landed. Returns the stage.
    ///
    /// # Safety
    /// Every consumer thread calls it for `i` = 0, 1, 2, ... in order.
    pub unsafe fn wait_full(&self, i: u32) -> u32 {
        let stage = i % self.stages;
        unsafe { mbarrier::wait(self.full(stage), (i / self.stages) % 2) };
        stage
    }

    /// Consumer: k-tile `i`'s stage has been read. One thread per consumer
    /// warpgroup calls it, after the wgmmas reading it have completed.
    ///
    /// # Safety
    /// As [`Ring::wait_full`].
    pub unsafe fn release(&self, i: u32) {
        let empty = self.empty(i % self.stages);
        if self.peers == 1 {
            unsafe { mbarrier::arrive(empty) };
        } else {
            for rank in 0..self.peers {
                unsafe { mbarrier::arrive_cluster(empty, rank) };
            }
        }
    }
}
