//! Host side of the device helpers: the state of one simulated GPU thread.
//!
//! The CPU emulator runs each thread of a block on its own OS thread and
//! calls [`enter`] first; the helpers then answer from that state. Barriers,
//! warp shuffles and memory accesses call back into the emulator (and its
//! checkers) through [`BlockHooks`].

use super::Dim3;
use core::cell::Cell;
use core::panic::Location;

/// Every lane's values in a [`BlockHooks::exchange`]: `[lane][value]`.
pub type WarpValues = [[u32; 8]; 32];

/// Callbacks into the emulator that owns the block. `block` is the
/// emulator's own block state, passed back unchanged.
#[derive(Clone, Copy)]
pub struct BlockHooks {
    pub block: *const (),
    /// Waits until every thread of the block has arrived; `site` is the
    /// source line of the `sync_threads` call, so the emulator can tell
    /// threads waiting at different barriers apart.
    pub barrier: unsafe fn(block: *const (), site: &'static Location<'static>),
    /// Publishes `values` for this lane, waits for the whole warp, and
    /// returns every lane's values: warp shuffles read one of them, the
    /// tensor-core emulation all. `site` is the kernel's source line.
    pub exchange: unsafe fn(block: *const (), warp: u32, lane: u32, values: [u32; 8], site: &'static Location<'static>) -> WarpValues,
    /// Announces a memory access by thread `rank` of the block before it
    /// happens; the emulator's checkers record it. Returns false when the
    /// access must not happen (it lies outside every buffer of the launch).
    pub access: unsafe fn(block: *const (), rank: u32, address: usize, access: Access) -> bool,
    /// Follows thread `rank`'s `cp.async` copies from issue to the wait
    /// that retires them.
    pub copy: unsafe fn(block: *const (), rank: u32, event: CopyEvent),
}

/// A step in the life of a thread's `cp.async` copies. The emulator copies
/// at once; these events tell its race checker when the data may be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CopyEvent {
    /// A copy into `bytes` bytes of shared memory at `address` started.
    Start { address: usize, bytes: u32 },
    /// `cp.async.commit_group`: the copies started since form a group.
    Commit,
    /// `cp.async.wait_group pending`: all but the newest `pending` groups
    /// have landed.
    Wait { pending: u32 },
}

/// What a device helper is about to do at an address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccessKind {
    Read,
    /// A store; the access carries the words written.
    Write,
    /// An atomic read-modify-write: ordered with other atomics, so never a
    /// race with them.
    Atomic,
}

/// One access of 4 to 16 bytes (whole 32-bit words).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    pub kind: AccessKind,
    pub bytes: u32,
    /// The words a write stores (the first `bytes / 4` are meaningful).
    pub words: [u32; 4],
    /// The kernel's source line that made the access (the device helpers
    /// pass their caller's location through), for the checkers' reports.
    pub site: &'static Location<'static>,
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

#[track_caller]
pub(crate) fn barrier() {
    let hooks = current().hooks;
    unsafe { (hooks.barrier)(hooks.block, Location::caller()) }
}

/// Tells the emulator about a step of this thread's `cp.async` copies.
pub(crate) fn copy_event(event: CopyEvent) {
    let hooks = current().hooks;
    unsafe { (hooks.copy)(hooks.block, super::thread_rank(), event) }
}

/// Tells the emulator about an access of `size_of::<T>()` bytes at `ptr`
/// (`value` for a store), made at the caller's caller's source line;
/// false means "skip it".
#[track_caller]
pub(crate) fn announce<T: Copy>(ptr: *const T, kind: AccessKind, value: Option<T>) -> bool {
    let bytes = core::mem::size_of::<T>();
    assert!(bytes == 2 || (bytes % 4 == 0 && bytes <= 16), "checked accesses move 2 bytes, or 4 to 16 bytes of whole words");
    let mut words = [0u32; 4];
    if let Some(value) = value {
        // SAFETY: `value` is `bytes` bytes long and words holds 16.
        unsafe { core::ptr::copy_nonoverlapping(&value as *const T as *const u8, words.as_mut_ptr() as *mut u8, bytes) };
    }
    let context = current();
    let hooks = context.hooks;
    let rank = super::thread_rank();
    unsafe { (hooks.access)(hooks.block, rank, ptr as usize, Access { kind, bytes: bytes as u32, words, site: Location::caller() }) }
}

#[track_caller]
pub(crate) fn shuffle(value: u32, source_lane: u32) -> u32 {
    warp_exchange([value, 0, 0, 0, 0, 0, 0, 0])[(source_lane % super::WARP_SIZE) as usize][0]
}

#[track_caller]
pub(crate) fn warp_exchange(values: [u32; 8]) -> WarpValues {
    let hooks = current().hooks;
    let rank = super::thread_rank();
    unsafe { (hooks.exchange)(hooks.block, rank / super::WARP_SIZE, rank % super::WARP_SIZE, values, Location::caller()) }
}
