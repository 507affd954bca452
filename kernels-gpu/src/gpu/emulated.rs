//! Host side of the device helpers: the state of one simulated GPU thread.
//!
//! The CPU emulator runs each thread of a block on its own OS thread and
//! calls [`enter`] first; the helpers then answer from that state. Barriers
//! and warp shuffles call back into the emulator through [`BlockHooks`].

use super::Dim3;
use core::cell::Cell;

/// Every lane's values in a [`BlockHooks::exchange`]: `[lane][value]`.
pub type WarpValues = [[u32; 8]; 32];

/// Callbacks into the emulator that owns the block. `block` is the
/// emulator's own block state, passed back unchanged.
#[derive(Clone, Copy)]
pub struct BlockHooks {
    pub block: *const (),
    /// Waits until every thread of the block has arrived.
    pub barrier: unsafe fn(block: *const ()),
    /// Publishes `values` for this lane, waits for the whole warp, and
    /// returns every lane's values: warp shuffles read one of them, the
    /// tensor-core emulation all.
    pub exchange: unsafe fn(block: *const (), warp: u32, lane: u32, values: [u32; 8]) -> WarpValues,
}

/// Everything a simulated thread can ask about itself.
#[derive(Clone, Copy)]
pub struct ThreadContext {
    pub thread: Dim3,
    pub block: Dim3,
    pub block_dim: Dim3,
    pub grid_dim: Dim3,
    /// The block's dynamic shared memory (16-byte aligned).
    pub shared: *mut u8,
    pub hooks: BlockHooks,
}

#[thread_local]
static CONTEXT: Cell<Option<ThreadContext>> = Cell::new(None);

/// Makes the calling OS thread act as one GPU thread until [`leave`].
///
/// # Safety
/// `context.shared` and `context.hooks.block` must stay valid until
/// [`leave`] is called on this thread.
pub unsafe fn enter(context: ThreadContext) {
    CONTEXT.set(Some(context));
}

/// Ends the simulated thread started by [`enter`].
pub fn leave() {
    CONTEXT.set(None);
}

pub(crate) fn current() -> ThreadContext {
    CONTEXT.get().expect("a GPU helper was called outside an emulated launch")
}

pub(crate) fn barrier() {
    let hooks = current().hooks;
    unsafe { (hooks.barrier)(hooks.block) }
}

pub(crate) fn shuffle(value: u32, source_lane: u32) -> u32 {
    warp_exchange([value, 0, 0, 0, 0, 0, 0, 0])[(source_lane % super::WARP_SIZE) as usize][0]
}

pub(crate) fn warp_exchange(values: [u32; 8]) -> WarpValues {
    let hooks = current().hooks;
    let rank = super::thread_rank();
    unsafe { (hooks.exchange)(hooks.block, rank / super::WARP_SIZE, rank % super::WARP_SIZE, values) }
}
