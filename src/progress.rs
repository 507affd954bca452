//! Progress messages of long jobs. Jobs report through a plain
//! `&mut dyn FnMut(&str)`; a message made by [`step`] says "item i of n"
//! in a form [`parse_step`] reads back, so the CLI can draw a progress bar
//! for sweeps and print other messages as they are.

/// "[3/12] what": item `index` (counted from 0) of `total`.
pub fn step(index: usize, total: usize, what: &str) -> String {
    format!("[{}/{total}] {what}", index + 1)
}

/// `(done before this item, total, what)` for a message made by [`step`].
pub fn parse_step(message: &str) -> Option<(u64, u64, &str)> {
    let (counts, what) = message.strip_prefix('[')?.split_once("] ")?;
    let (number, total) = counts.split_once('/')?;
    let (number, total): (u64, u64) = (number.parse().ok()?, total.parse().ok()?);
    (1..=total).contains(&number).then_some((number - 1, total, what))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_read_back() {
        assert_eq!(parse_step(&step(0, 12, "rung 1 naive")), Some((0, 12, "rung 1 naive")));
        assert_eq!(parse_step(&step(11, 12, "[x] y")), Some((11, 12, "[x] y")));
        for plain in ["uploading", "[0/3] zero", "[4/3] past", "[a/3] b", "[1/3]no space"] {
            assert_eq!(parse_step(plain), None, "{plain}");
        }
    }
}
