//! Shared-memory bank conflicts for one warp-wide 4-byte access.
//!
//! Shared memory is split into 32 banks, and consecutive 4-byte words go to
//! consecutive banks, wrapping after 32: word `w` lives in bank `w % 32`.
//! Each bank can deliver one word per pass. If the 32 lanes of a warp ask
//! for words in 32 different banks, one pass serves them all. If several
//! lanes ask for *different* words in the same bank, that bank needs one
//! pass per word, and the whole warp waits for the slowest bank. Lanes that
//! ask for the *same* word share one delivery (a broadcast), so they cost
//! nothing extra.
//!
//! The conflict degree is therefore the largest number of distinct words
//! any one bank must deliver: 1 is conflict-free, 32 is fully serialised.

use crate::svg::{Anchor, Svg, TextStyle};

/// Number of banks; also the number of lanes in a warp.
pub const BANKS: u32 = 32;

/// Row or column of the 32x32 tile that the [`Pattern`]s read. Any value
/// gives the same conflict degrees; 5 is used so that the XOR swizzle is
/// visibly a shuffle rather than the identity.
pub const TILE_INDEX: u32 = 5;

/// The bank that holds 4-byte word number `word`.
pub fn bank_of(word: u32) -> u32 {
    word % BANKS
}

/// What one bank is asked for during the access.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct BankLoad {
    lanes: Vec<u32>,
    /// Distinct words, ascending.
    words: Vec<u32>,
}

fn bank_loads(word_addresses: &[u32; 32]) -> Vec<BankLoad> {
    let mut loads = vec![BankLoad::default(); BANKS as usize];
    for (lane, &word) in (0u32..).zip(word_addresses) {
        let load = &mut loads[bank_of(word) as usize];
        load.lanes.push(lane);
        if let Err(at) = load.words.binary_search(&word) {
            load.words.insert(at, word);
        }
    }
    loads
}

/// How many passes the warp's access takes: the most distinct words that
/// any single bank must deliver. `word_addresses[lane]` is the index of the
/// 4-byte word that lane reads.
pub fn conflict_degree(word_addresses: &[u32; 32]) -> u32 {
    bank_loads(word_addresses).iter().map(|l| l.words.len() as u32).max().unwrap_or(1).max(1)
}

/// Ways a warp can read a 32x32 tile of floats held in shared memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pattern {
    /// Lane i reads `tile[r][i]`: one row, consecutive words.
    Row,
    /// Lane i reads `tile[i][c]` of a `[32][32]` tile: one column.
    Column,
    /// Lane i reads `tile[i][c]` of a `[32][33]` tile: the padded column.
    PaddedColumn,
    /// Lane i reads `tile[i][c ^ i]` of a `[32][32]` tile: XOR-swizzled.
    SwizzledColumn,
    /// Lane i reads word `2 * i` (plus `64 * k` to move the pattern around
    /// the tile), e.g. one field of an array of pairs.
    Stride2,
    /// Every lane reads the same word.
    Broadcast,
}

impl Pattern {
    pub const ALL: [Pattern; 6] =
        [Pattern::Row, Pattern::Column, Pattern::PaddedColumn, Pattern::SwizzledColumn, Pattern::Stride2, Pattern::Broadcast];

    /// The word each lane reads, with r and c both [`TILE_INDEX`]. The
    /// formulas are the GPU kernels' own (`kernels_gpu::labs::banks::word`).
    pub fn addresses(self) -> [u32; 32] {
        std::array::from_fn(|lane| kernels_gpu::labs::banks::word(self.id(), lane as u32, TILE_INDEX))
    }

    /// The pattern's number in `kernels_gpu::labs::banks`.
    pub fn id(self) -> u32 {
        use kernels_gpu::labs::banks as k;
        match self {
            Pattern::Row => k::ROW,
            Pattern::Column => k::COLUMN,
            Pattern::PaddedColumn => k::PADDED_COLUMN,
            Pattern::SwizzledColumn => k::SWIZZLED_COLUMN,
            Pattern::Stride2 => k::STRIDE_2,
            Pattern::Broadcast => k::BROADCAST,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Pattern::Row => "row",
            Pattern::Column => "column",
            Pattern::PaddedColumn => "padded column",
            Pattern::SwizzledColumn => "swizzled column",
            Pattern::Stride2 => "stride 2",
            Pattern::Broadcast => "broadcast",
        }
    }

    /// One sentence on why the pattern has the conflict degree it has.
    pub fn explain(self) -> &'static str {
        match self {
            Pattern::Row => "Consecutive lanes read consecutive words, so each lands in its own bank and one pass serves the warp.",
            Pattern::Column => {
                "Rows are exactly 32 words long, so every element of a column sits in the same bank and the 32 reads queue up one after another."
            }
            Pattern::PaddedColumn => {
                "One unused float per row makes each row start one bank later than the last, so a column steps through all 32 banks."
            }
            Pattern::SwizzledColumn => {
                "XOR-ing the column with the row number gives every row a different column, landing each lane in a different bank without wasting memory."
            }
            Pattern::Stride2 => {
                "Skipping every other word uses only the 16 even banks, so each of them has to deliver two different words."
            }
            Pattern::Broadcast => "All lanes want the very same word, which the bank reads once and hands to everyone.",
        }
    }
}

/// Compact list of lane numbers: "0-3, 8, 10-11".
fn lane_list(lanes: &[u32]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < lanes.len() {
        let start = lanes[i];
        let mut end = start;
        while i + 1 < lanes.len() && lanes[i + 1] == end + 1 {
            i += 1;
            end = lanes[i];
        }
        parts.push(if start == end { start.to_string() } else { format!("{start}-{end}") });
        i += 1;
    }
    parts.join(", ")
}

/// At most four words, then an ellipsis.
fn word_list(words: &[u32]) -> String {
    let shown: Vec<String> = words.iter().take(4).map(u32::to_string).collect();
    let more = if words.len() > 4 { ", ..." } else { "" };
    format!("{}{more}", shown.join(", "))
}

fn summary(degree: u32) -> String {
    if degree == 1 {
        "conflict degree 1: conflict-free, one pass".to_string()
    } else {
        format!("conflict degree {degree}: {degree}-way conflict, the access takes {degree} passes")
    }
}

/// One line per bank: which lanes use it and which words they want.
pub fn render(addresses: &[u32; 32]) -> String {
    let loads = bank_loads(addresses);
    let mut out = String::new();
    for (bank, load) in loads.iter().enumerate() {
        out += &format!("bank {bank:>2}: ");
        match load.words.len() {
            0 => out += "-",
            1 if load.lanes.len() > 1 => out += &format!("lanes {} -> word {} (broadcast)", lane_list(&load.lanes), load.words[0]),
            1 => out += &format!("lane {} -> word {}", load.lanes[0], load.words[0]),
            n => out += &format!("lanes {} -> {n} words ({}): {n}-way conflict", lane_list(&load.lanes), word_list(&load.words)),
        }
        out.push('\n');
    }
    out += &summary(conflict_degree(addresses));
    out.push('\n');
    out
}

/// Lanes on the left, banks on the right, a line from each lane to the bank
/// it reads. Banks that must deliver more than one word are drawn in red.
pub fn svg(addresses: &[u32; 32], title: &str) -> String {
    const ROW: f64 = 16.0;
    const TOP: f64 = 70.0;
    const LANE_X: f64 = 90.0;
    const BANK_X: f64 = 430.0;
    const BOX_W: f64 = 64.0;
    let loads = bank_loads(addresses);
    let degree = conflict_degree(addresses);
    let mut pic = Svg::new(680.0, TOP + 32.0 * ROW + 30.0);
    pic.text(20.0, 24.0, title, TextStyle::new(16.0).bold());
    pic.text(20.0, 44.0, &summary(degree), TextStyle::new(12.0));
    pic.text(LANE_X + BOX_W / 2.0, TOP - 8.0, "lane", TextStyle::new(12.0).anchor(Anchor::Middle).bold());
    pic.text(BANK_X + BOX_W / 2.0, TOP - 8.0, "bank", TextStyle::new(12.0).anchor(Anchor::Middle).bold());

    let row_y = |i: u32| TOP + f64::from(i) * ROW;
    let label = TextStyle::new(10.0).anchor(Anchor::Middle);
    for (lane, &word) in (0u32..).zip(addresses) {
        let bank = bank_of(word);
        let conflicted = loads[bank as usize].words.len() > 1;
        let colour = if conflicted { "#d62728" } else { "#888888" };
        pic.line(LANE_X + BOX_W, row_y(lane) + ROW / 2.0, BANK_X, row_y(bank) + ROW / 2.0, colour, 1.0);
        pic.rect(LANE_X, row_y(lane) + 1.0, BOX_W, ROW - 2.0, "#dfe7f2", "none");
        pic.text(LANE_X + BOX_W / 2.0, row_y(lane) + ROW * 0.72, &format!("{lane} (w{word})"), label);
    }
    for (bank, load) in (0u32..).zip(&loads) {
        let (fill, note) = match load.words.len() {
            0 => ("#f0f0f0", String::new()),
            1 if load.lanes.len() > 1 => ("#c7e9c0", "broadcast".to_string()),
            1 => ("#c7e9c0", String::new()),
            n => ("#f4a3a8", format!("{n} words")),
        };
        pic.rect(BANK_X, row_y(bank) + 1.0, BOX_W, ROW - 2.0, fill, "none");
        pic.text(BANK_X + BOX_W / 2.0, row_y(bank) + ROW * 0.72, &bank.to_string(), label);
        if !note.is_empty() {
            pic.text(BANK_X + BOX_W + 8.0, row_y(bank) + ROW * 0.72, &note, TextStyle::new(10.0));
        }
    }
    pic.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn degree(p: Pattern) -> u32 {
        conflict_degree(&p.addresses())
    }

    #[test]
    fn pattern_degrees() {
        assert_eq!(degree(Pattern::Row), 1);
        assert_eq!(degree(Pattern::Column), 32);
        assert_eq!(degree(Pattern::PaddedColumn), 1);
        assert_eq!(degree(Pattern::SwizzledColumn), 1);
        assert_eq!(degree(Pattern::Stride2), 2);
        assert_eq!(degree(Pattern::Broadcast), 1);
    }

    #[test]
    fn degrees_do_not_depend_on_the_column_chosen() {
        for c in 0..32u32 {
            let column: [u32; 32] = std::array::from_fn(|i| i as u32 * 32 + c);
            let padded: [u32; 32] = std::array::from_fn(|i| i as u32 * 33 + c);
            let swizzled: [u32; 32] = std::array::from_fn(|i| i as u32 * 32 + (c ^ i as u32));
            assert_eq!(conflict_degree(&column), 32);
            assert_eq!(conflict_degree(&padded), 1);
            assert_eq!(conflict_degree(&swizzled), 1);
        }
    }

    #[test]
    fn broadcast_counts_a_shared_word_once() {
        // Lanes 0-15 all read word 0, lanes 16-31 read word 32: both in bank 0.
        let addr: [u32; 32] = std::array::from_fn(|i| if i < 16 { 0 } else { 32 });
        assert_eq!(conflict_degree(&addr), 2);
        // Pairs of lanes share a word: still conflict-free.
        let pairs: [u32; 32] = std::array::from_fn(|i| i as u32 / 2);
        assert_eq!(conflict_degree(&pairs), 1);
        // Stride 4 uses 8 banks, four words each.
        let stride4: [u32; 32] = std::array::from_fn(|i| 4 * i as u32);
        assert_eq!(conflict_degree(&stride4), 4);
        assert_eq!(conflict_degree(&[u32::MAX; 32]), 1);
    }

    #[test]
    fn bank_mapping_wraps_every_32_words() {
        assert_eq!(bank_of(0), 0);
        assert_eq!(bank_of(31), 31);
        assert_eq!(bank_of(32), 0);
        assert_eq!(bank_of(33 * 7 + 5), 12);
    }

    #[test]
    fn names_and_explanations_are_present() {
        for p in Pattern::ALL {
            assert!(!p.name().is_empty());
            assert!(p.explain().ends_with('.'));
        }
        assert_eq!(Pattern::SwizzledColumn.name(), "swizzled column");
    }

    #[test]
    fn render_lists_lanes_per_bank() {
        let text = render(&Pattern::Column.addresses());
        assert!(text.contains("bank  5: lanes 0-31 -> 32 words (5, 37, 69, 101, ...): 32-way conflict"), "{text}");
        assert!(text.contains("bank  0: -"));
        assert!(text.ends_with("the access takes 32 passes\n"));
        let text = render(&Pattern::Broadcast.addresses());
        assert!(text.contains("bank  5: lanes 0-31 -> word 5 (broadcast)"));
        let text = render(&Pattern::Row.addresses());
        assert!(text.contains("bank  3: lane 3 -> word 163"));
        assert!(text.contains("conflict-free"));
        let text = render(&Pattern::Stride2.addresses());
        assert!(text.contains("bank  0: lanes 0, 16 -> 2 words (320, 352): 2-way conflict"), "{text}");
    }

    #[test]
    fn svg_highlights_conflicting_banks() {
        let doc = svg(&Pattern::Stride2.addresses(), "stride <2>");
        crate::svg::tests::assert_well_formed(&doc);
        assert!(doc.contains("stride &lt;2&gt;"));
        assert_eq!(doc.matches("fill=\"#f4a3a8\"").count(), 16);
        assert_eq!(doc.matches("stroke=\"#d62728\"").count(), 32);
        let doc = svg(&Pattern::PaddedColumn.addresses(), "padded");
        crate::svg::tests::assert_well_formed(&doc);
        assert_eq!(doc.matches("fill=\"#f4a3a8\"").count(), 0);
        assert_eq!(doc.matches("<line").count(), 32);
    }
}
