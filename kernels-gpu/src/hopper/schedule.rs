//! Which work each block of a persistent GEMM does: whole tiles, then,
//! with stream-K, a fair share of the k-steps left over.
//!
//! A persistent grid of `blocks` blocks walks `tiles` tiles of
//! `k_tiles` k-steps each. When `tiles` is not a multiple of `blocks`, the
//! last wave is partial: at 4096³ with 128×256 tiles on 132
//! multiprocessors, 512 tiles make 3 full waves and 116 tiles, so 16
//! multiprocessors idle for a quarter of the run.
//!
//! Stream-K deals out the k-steps of the last `tiles % blocks + blocks`
//! tiles (the partial wave and one full wave before it) evenly: block `b`
//! gets steps `[b·S/blocks, (b+1)·S/blocks)` of the `S` steps those tiles
//! have, in tile order. Each share holds at least `k_tiles` steps, so a
//! tile is split between at most two neighbouring blocks:
//! - block `b` starts its share with the **tail** of a tile (steps
//!   `k0..k_tiles`): it writes that partial sum to its workspace slot and
//!   raises its flag;
//! - block `b - 1` ends its share with the **head** of the same tile
//!   (steps `0..k0`): by then the tail's flag is long up, so it adds the
//!   partial sum of slot `b` and stores the tile.
//!
//! The owner of a split tile is the block that computes its head last, so
//! nobody waits for work that has not started. The tiles before are
//! dealt out whole, `b, b + blocks, ...`, as in the persistent rung.

/// What a block does with one piece of work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// All of the tile's k-steps: store it.
    Whole,
    /// Steps `0..k_end` of a tile whose tail the next block computes: add
    /// that block's partial sum, then store.
    Head,
    /// Steps `k_begin..k_tiles` of a tile whose head the previous block
    /// computes: publish the partial sum.
    Tail,
}

/// One piece of a block's work: k-steps `k_begin..k_end` of tile `tile`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Work {
    pub tile: u32,
    pub k_begin: u32,
    pub k_end: u32,
    pub role: Role,
}

/// The split of `tiles` tiles of `k_tiles` steps over `blocks` blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StreamK {
    tiles: u32,
    k_tiles: u32,
    blocks: u32,
    /// Tiles dealt out whole; the rest are shared out by k-steps.
    whole_tiles: u32,
}

impl StreamK {
    /// The schedule; with `stream_k` false, or when the tiles fill whole
    /// waves (or just one), every tile is dealt out whole.
    pub const fn new(tiles: u32, k_tiles: u32, blocks: u32, stream_k: bool) -> StreamK {
        let shared = if !stream_k || k_tiles == 0 || tiles <= blocks || tiles.is_multiple_of(blocks) {
            0
        } else if tiles >= 2 * blocks {
            tiles % blocks + blocks
        } else {
            tiles
        };
        StreamK { tiles, k_tiles, blocks, whole_tiles: tiles - shared }
    }

    /// Whether any tile is split (and so the workspace is used).
    pub const fn splits(&self) -> bool {
        self.whole_tiles < self.tiles
    }

    /// k-steps the busiest block saves by the split: the idle part of the
    /// last wave, spread over all blocks.
    pub const fn saved_steps(&self) -> u32 {
        if self.splits() { (self.blocks - self.tiles % self.blocks) * self.k_tiles / self.blocks } else { 0 }
    }

    /// Block `block`'s work, in the order it does it.
    pub const fn walk(&self, block: u32) -> Walk {
        Walk { schedule: *self, next_whole: block, step: self.share_start(block), end: self.share_start(block + 1) }
    }

    /// Where block `block`'s share of the shared tiles' k-steps starts.
    const fn share_start(&self, block: u32) -> u64 {
        let shared_steps = (self.tiles - self.whole_tiles) as u64 * self.k_tiles as u64;
        block as u64 * shared_steps / self.blocks as u64
    }
}

/// A block's walk through its [`StreamK`] schedule.
#[derive(Clone, Copy, Debug)]
pub struct Walk {
    schedule: StreamK,
    next_whole: u32,
    /// This block's next and end k-step among the shared tiles' steps.
    step: u64,
    end: u64,
}

impl Iterator for Walk {
    type Item = Work;

    #[inline(always)]
    fn next(&mut self) -> Option<Work> {
        let s = self.schedule;
        if self.next_whole < s.whole_tiles {
            let tile = self.next_whole;
            self.next_whole += s.blocks;
            return Some(Work { tile, k_begin: 0, k_end: s.k_tiles, role: Role::Whole });
        }
        if self.step >= self.end {
            return None;
        }
        let k_tiles = s.k_tiles as u64;
        let tile = s.whole_tiles + (self.step / k_tiles) as u32;
        let k_begin = (self.step % k_tiles) as u32;
        let k_end = (k_begin as u64 + (self.end - self.step)).min(k_tiles) as u32;
        self.step += (k_end - k_begin) as u64;
        let role = if k_begin > 0 {
            Role::Tail
        } else if k_end < s.k_tiles {
            Role::Head
        } else {
            Role::Whole
        };
        Some(Work { tile, k_begin, k_end, role })
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec;
    use std::vec::Vec;

    /// Every (tile, k-step) is computed exactly once; a split tile has one
    /// head, in block `b - 1`, and one tail, at the start of block `b`.
    fn check(tiles: u32, k_tiles: u32, blocks: u32) {
        let schedule = StreamK::new(tiles, k_tiles, blocks, true);
        let mut done = vec![0u32; (tiles * k_tiles) as usize];
        let mut heads: Vec<(u32, u32)> = Vec::new();
        let mut tails: Vec<(u32, u32)> = Vec::new();
        for b in 0..blocks {
            let work: Vec<Work> = schedule.walk(b).collect();
            for (i, w) in work.iter().enumerate() {
                assert!(w.k_begin < w.k_end && w.k_end <= k_tiles, "{w:?}");
                for kt in w.k_begin..w.k_end {
                    done[(w.tile * k_tiles + kt) as usize] += 1;
                }
                match w.role {
                    Role::Whole => assert_eq!((w.k_begin, w.k_end), (0, k_tiles)),
                    Role::Head => {
                        assert_eq!(i, work.len() - 1, "a head is a block's last work");
                        heads.push((w.tile, b));
                    }
                    Role::Tail => {
                        let first_shared = work.iter().position(|w| w.tile >= schedule.whole_tiles);
                        assert_eq!(Some(i), first_shared, "a tail is a block's first shared work");
                        tails.push((w.tile, b));
                    }
                }
            }
        }
        assert!(done.iter().all(|&d| d == 1), "{tiles} tiles, {k_tiles} steps, {blocks} blocks");
        assert_eq!(heads.len(), tails.len());
        for ((head_tile, owner), (tail_tile, helper)) in heads.iter().zip(&tails) {
            assert_eq!((head_tile, owner + 1), (tail_tile, *helper));
        }
    }

    #[test]
    fn every_step_once_and_splits_between_neighbours() {
        for (tiles, k_tiles, blocks) in
            [(512, 64, 132), (2048, 128, 132), (200, 3, 132), (133, 1, 132), (7, 5, 3), (1, 9, 1), (12, 4, 4), (130, 17, 132)]
        {
            check(tiles, k_tiles, blocks);
        }
    }

    #[test]
    fn only_the_last_partial_wave_and_one_before_are_shared() {
        let s = StreamK::new(512, 64, 132, true);
        assert_eq!(s.whole_tiles, 512 - (116 + 132));
        assert!(s.splits());
        // Each block gets the same number of steps, to within one.
        let steps: Vec<u32> = (0..132).map(|b| s.walk(b).map(|w| w.k_end - w.k_begin).sum()).collect();
        assert!(steps.iter().max().unwrap() - steps.iter().min().unwrap() <= 1, "{steps:?}");
        assert_eq!(s.saved_steps(), 16 * 64 / 132);
        assert_eq!(StreamK::new(2048, 128, 132, true).saved_steps(), 64 * 128 / 132);
        assert!(!StreamK::new(512, 64, 128, true).splits());
        assert!(!StreamK::new(512, 64, 132, false).splits());
        assert!(!StreamK::new(100, 64, 132, true).splits());
    }
}
