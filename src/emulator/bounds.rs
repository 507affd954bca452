//! Global accesses outside the launch's buffers. A launch declares the
//! address ranges its pointers cover; a load or store through the device
//! helpers that falls outside all of them (and outside the block's shared
//! memory) is reported and skipped, so the emulator never touches memory
//! the kernel does not own.

/// One buffer a launch passes to its kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Buffer {
    pub name: String,
    pub start: usize,
    pub bytes: usize,
}

impl Buffer {
    fn contains(&self, address: usize, bytes: usize) -> bool {
        address >= self.start && address + bytes <= self.start + self.bytes
    }

    /// How far `address` is from the buffer, and that in words.
    fn relation(&self, address: usize) -> (usize, String) {
        let (name, end) = (&self.name, self.start + self.bytes);
        if address < self.start {
            let gap = self.start - address;
            (gap, format!("{gap} bytes before the start of `{name}`"))
        } else if address >= end {
            let gap = address - end;
            let (index, len) = ((address - self.start) / 4, self.bytes / 4);
            (gap, format!("{gap} bytes past the end of `{name}` (float index {index}; it holds {len})"))
        } else {
            (0, format!("partly outside `{name}`"))
        }
    }
}

/// `None` when `address..address + bytes` lies inside one of `buffers`;
/// otherwise the nearest buffer's name and where the access lies from it.
pub(super) fn check(buffers: &[Buffer], address: usize, bytes: usize) -> Option<Option<(String, String)>> {
    if buffers.iter().any(|b| b.contains(address, bytes)) {
        return None;
    }
    let nearest = buffers.iter().map(|b| (b.relation(address), &b.name)).min_by_key(|((gap, _), _)| *gap);
    Some(nearest.map(|((_, relation), name)| (name.clone(), relation)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accesses_are_placed_against_the_nearest_buffer() {
        let buffers = [Buffer { name: "a".into(), start: 1000, bytes: 40 }, Buffer { name: "b".into(), start: 2000, bytes: 8 }];
        assert_eq!(check(&buffers, 1000, 16), None);
        assert_eq!(check(&buffers, 1036, 4), None);
        assert_eq!(check(&buffers, 1040, 4), Some(Some(("a".into(), "0 bytes past the end of `a` (float index 10; it holds 10)".into()))));
        assert_eq!(check(&buffers, 1996, 4), Some(Some(("b".into(), "4 bytes before the start of `b`".into()))));
        assert_eq!(check(&buffers, 1036, 16), Some(Some(("a".into(), "partly outside `a`".into()))));
        assert_eq!(check(&[], 0, 4), Some(None));
    }
}
