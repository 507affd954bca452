//! Small helpers for the sentences the program prints.

/// "1 block", "2 blocks", "0 blocks": a count and a regular English noun
/// (one that takes an "s"), given in the singular.
pub fn plural(count: u64, noun: &str) -> String {
    match count {
        1 => format!("1 {noun}"),
        n => format!("{n} {noun}s"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_is_singular_and_every_other_count_plural() {
        assert_eq!(plural(1, "block"), "1 block");
        assert_eq!(plural(0, "sector"), "0 sectors");
        assert_eq!(plural(2, "element"), "2 elements");
        assert_eq!(plural(u64::MAX, "thread"), format!("{} threads", u64::MAX));
    }
}
