//! Global-memory coalescing: how many 32-byte sectors one warp's load moves.
//!
//! DRAM is not read one float at a time. When a warp issues a load, the
//! memory system gathers the addresses of all its lanes and fetches every
//! 32-byte sector that any of them touches, whole. Lanes that read
//! neighbouring addresses share sectors, so 32 consecutive floats cost 4
//! sectors. Lanes that read far-apart addresses each need a sector of their
//! own, so the same 32 floats cost 32 sectors: eight times the traffic for
//! the same useful data.
//!
//! This model counts sectors only. Caches may later serve a repeated sector
//! without going to DRAM, but the count is what the load instruction asks
//! the memory system for, and it is what profilers report per request.

use std::collections::BTreeMap;

use crate::svg::{Anchor, Svg, TextStyle};
use crate::text::plural;

/// Size of the unit global memory is fetched in.
pub const SECTOR_BYTES: u64 = 32;
const LANES: usize = 32;
const FLOAT_BYTES: u64 = 4;
/// The widest load one lane can issue (a float4 or int4).
const MAX_ACCESS_BYTES: u32 = 16;

/// Total length covered by a set of half-open intervals, overlaps counted
/// once. Works on the interval ends, so huge ranges cost nothing extra.
fn union_len(mut intervals: Vec<(u128, u128)>) -> u128 {
    intervals.sort_unstable();
    let mut total = 0;
    let mut covered_to = 0;
    for (lo, hi) in intervals {
        let lo = lo.max(covered_to);
        if hi > lo {
            total += hi - lo;
            covered_to = hi;
        }
    }
    total
}

/// First and one-past-last sector of a lane's access (empty if 0 bytes).
fn sector_range(address: u64, access_bytes: u32) -> (u128, u128) {
    if access_bytes == 0 {
        return (0, 0);
    }
    let first = u128::from(address) / u128::from(SECTOR_BYTES);
    let last = (u128::from(address) + u128::from(access_bytes) - 1) / u128::from(SECTOR_BYTES);
    (first, last + 1)
}

/// Distinct 32-byte sectors touched when each lane reads `access_bytes`
/// bytes starting at its address. A lane whose bytes straddle a sector
/// boundary touches two sectors. Saturates at `u32::MAX`.
pub fn sectors(byte_addresses: &[u64], access_bytes: u32) -> u32 {
    let ranges = byte_addresses.iter().map(|&a| sector_range(a, access_bytes)).collect();
    u32::try_from(union_len(ranges)).unwrap_or(u32::MAX)
}

/// Fraction of the moved bytes that some lane asked for: distinct bytes
/// requested divided by sectors times 32. An empty request moves nothing
/// and wastes nothing, so it counts as 1.
pub fn efficiency_of(byte_addresses: &[u64], access_bytes: u32) -> f64 {
    let ranges: Vec<(u128, u128)> = byte_addresses.iter().map(|&a| (u128::from(a), u128::from(a) + u128::from(access_bytes))).collect();
    let useful = union_len(ranges);
    let moved = f64::from(sectors(byte_addresses, access_bytes)) * SECTOR_BYTES as f64;
    if moved == 0.0 { 1.0 } else { useful as f64 / moved }
}

/// Byte addresses when lane i reads the float at index `i * stride_elements`
/// of an array that starts on a sector boundary.
pub fn strided_addresses(stride_elements: u32) -> [u64; 32] {
    std::array::from_fn(|lane| lane as u64 * u64::from(stride_elements) * FLOAT_BYTES)
}

/// [`efficiency_of`] for [`strided_addresses`]: 1.0 at stride 1, 0.125
/// once every lane needs its own sector.
pub fn efficiency(stride_elements: u32) -> f64 {
    efficiency_of(&strided_addresses(stride_elements), FLOAT_BYTES as u32)
}

/// How the 32 lanes of a warp are laid over the output of a matrix multiply
/// C = A * B (row-major, A is M x K, B is K x N), one thread per element of
/// C.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatmulMapping {
    /// Consecutive lanes take consecutive rows of C (the naive kernel,
    /// where `threadIdx.x` picks the row).
    LanesAlongRows,
    /// Consecutive lanes take consecutive columns of C (the coalesced
    /// kernel, where `threadIdx.x` picks the column).
    LanesAlongColumns,
}

/// Byte addresses the warp reads from A and from B at inner-loop step
/// `step` (0-based), where the warp's lane 0 computes `C[0][0]` and both
/// matrices start at address 0. Errors on an empty matrix or a step
/// outside `0..k`.
pub fn matmul_step_addresses(mapping: MatmulMapping, k: u32, n: u32, step: u32) -> Result<([u64; 32], [u64; 32]), String> {
    if k == 0 || n == 0 {
        return Err(format!("matrix sizes must be at least 1; got K = {k}, N = {n}"));
    }
    if step >= k {
        return Err(format!("inner-loop step {step} is out of range; with K = {k} the steps are 0 to {}", k - 1));
    }
    let (k, n, step) = (u64::from(k), u64::from(n), u64::from(step));
    let a: [u64; 32] = std::array::from_fn(|lane| {
        let row = match mapping {
            MatmulMapping::LanesAlongRows => lane as u64,
            MatmulMapping::LanesAlongColumns => 0,
        };
        (row * k + step) * FLOAT_BYTES
    });
    let b: [u64; 32] = std::array::from_fn(|lane| {
        let col = match mapping {
            MatmulMapping::LanesAlongRows => 0,
            MatmulMapping::LanesAlongColumns => lane as u64,
        };
        (step * n + col) * FLOAT_BYTES
    });
    Ok((a, b))
}

/// Sectors per warp request (reading A, reading B) for one inner-loop step.
fn matmul_sectors(mapping: MatmulMapping, k: u32, n: u32, step: u32) -> Result<(u32, u32), String> {
    let (a, b) = matmul_step_addresses(mapping, k, n, step)?;
    Ok((sectors(&a, FLOAT_BYTES as u32), sectors(&b, FLOAT_BYTES as u32)))
}

/// (A sectors, B sectors) for the naive mapping: the lanes read A down a
/// column, K floats apart, so each lane needs its own sector once K >= 8,
/// while all lanes read the same element of B.
pub fn naive_matmul_sectors(k: u32, n: u32, step: u32) -> Result<(u32, u32), String> {
    matmul_sectors(MatmulMapping::LanesAlongRows, k, n, step)
}

/// (A sectors, B sectors) for the coalesced mapping: all lanes read the
/// same element of A, and 32 consecutive floats of a row of B, which is 4
/// sectors when that row segment starts on a sector boundary and 5 when it
/// does not (N not a multiple of 8).
pub fn coalesced_matmul_sectors(k: u32, n: u32, step: u32) -> Result<(u32, u32), String> {
    matmul_sectors(MatmulMapping::LanesAlongColumns, k, n, step)
}

/// Lanes that touch each sector, by sector number.
fn lanes_by_sector(addresses: &[u64], access_bytes: u32) -> BTreeMap<u64, Vec<u32>> {
    let mut map: BTreeMap<u64, Vec<u32>> = BTreeMap::new();
    for (lane, &a) in (0u32..).zip(addresses) {
        let (lo, hi) = sector_range(a, access_bytes);
        for s in lo..hi {
            // Sector numbers are at most u64::MAX / 32, so this always fits.
            let s = u64::try_from(s).unwrap_or(u64::MAX);
            map.entry(s).or_default().push(lane);
        }
    }
    map
}

/// Pictures cover one warp's request with realistic access sizes.
fn validate_request(addresses: &[u64], access_bytes: u32) -> Result<(), String> {
    if addresses.is_empty() || addresses.len() > LANES {
        return Err(format!("a warp request has 1 to 32 addresses; got {}", addresses.len()));
    }
    if access_bytes == 0 || access_bytes > MAX_ACCESS_BYTES {
        return Err(format!(
            "each lane reads {access_bytes} bytes; a lane reads at least 1 and at most {MAX_ACCESS_BYTES} bytes (a float4)"
        ));
    }
    Ok(())
}

/// One column of a sector strip: a sector, or a run of untouched sectors
/// too long to draw one by one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cell {
    Sector(u64),
    Gap(u64),
}

/// Gaps up to this many sectors are drawn sector by sector.
const SHORT_GAP: u64 = 3;

fn strip(touched: &BTreeMap<u64, Vec<u32>>) -> Vec<Cell> {
    let mut cells = Vec::new();
    let mut previous: Option<u64> = None;
    for &s in touched.keys() {
        if let Some(p) = previous {
            let gap = s - p - 1;
            if gap > SHORT_GAP {
                cells.push(Cell::Gap(gap));
            } else {
                cells.extend((p + 1..s).map(Cell::Sector));
            }
        }
        cells.push(Cell::Sector(s));
        previous = Some(s);
    }
    cells
}

/// Compact list of lane numbers: "0-7" or "3, 9".
fn lane_list(lanes: &[u32]) -> String {
    match (lanes.first(), lanes.last()) {
        (Some(a), Some(b)) if lanes.len() as u32 == b - a + 1 && a != b => format!("{a}-{b}"),
        _ => lanes.iter().map(u32::to_string).collect::<Vec<_>>().join(", "),
    }
}

/// One line: lanes, sectors moved, and the share of moved bytes requested.
pub fn summary(addresses: &[u64], access_bytes: u32) -> String {
    let count = sectors(addresses, access_bytes);
    format!(
        "{} x {access_bytes} B; {} moved ({} B); {:.1}% of the moved bytes were requested",
        plural(addresses.len() as u64, "lane"),
        plural(count.into(), "sector"),
        u64::from(count) * SECTOR_BYTES,
        efficiency_of(addresses, access_bytes) * 100.0
    )
}

/// Text picture of one warp request: a strip with `#` for each fetched
/// sector and `.` for skipped ones, then the lanes served by each sector.
pub fn render(addresses: &[u64], access_bytes: u32) -> Result<String, String> {
    validate_request(addresses, access_bytes)?;
    let touched = lanes_by_sector(addresses, access_bytes);
    let mut out = summary(addresses, access_bytes);
    out += "\nsectors (# fetched, . skipped, ~n~ n skipped):\n";
    let mut line = String::new();
    for cell in strip(&touched) {
        let token = match cell {
            Cell::Sector(s) if touched.contains_key(&s) => "#".to_string(),
            Cell::Sector(_) => ".".to_string(),
            Cell::Gap(n) => format!(" ~{n}~ "),
        };
        if line.len() + token.len() > 64 {
            out += line.trim_end();
            out.push('\n');
            line.clear();
        }
        line += &token;
    }
    out += line.trim_end();
    out.push('\n');
    for (s, lanes) in &touched {
        let first = s * SECTOR_BYTES;
        let word = if lanes.len() == 1 { "lane" } else { "lanes" };
        out += &format!("sector {s} (bytes {first}-{}): {word} {}\n", first + SECTOR_BYTES - 1, lane_list(lanes));
    }
    Ok(out)
}

/// SVG of one warp request: the lanes in a row at the top, the strip of
/// sectors below (fetched ones filled), and a line from each lane to every
/// sector it touches.
pub fn svg(addresses: &[u64], access_bytes: u32, title: &str) -> Result<String, String> {
    validate_request(addresses, access_bytes)?;
    const WIDTH: f64 = 900.0;
    const LEFT: f64 = 30.0;
    const LANE_Y: f64 = 100.0;
    const STRIP_Y: f64 = 240.0;
    const CELL_H: f64 = 28.0;
    let touched = lanes_by_sector(addresses, access_bytes);
    let cells = strip(&touched);
    let usable = WIDTH - 2.0 * LEFT;
    let cell_w = (usable / cells.len().max(1) as f64).min(40.0);

    let mut pic = Svg::new(WIDTH, STRIP_Y + CELL_H + 50.0);
    pic.text(LEFT, 24.0, title, TextStyle::new(16.0).bold());
    pic.text(LEFT, 44.0, &summary(addresses, access_bytes), TextStyle::new(12.0));

    // Where each sector's cell is centred.
    let mut centre: BTreeMap<u64, f64> = BTreeMap::new();
    let small = TextStyle::new(9.0).anchor(Anchor::Middle);
    for (i, cell) in cells.iter().enumerate() {
        let x = LEFT + i as f64 * cell_w;
        match *cell {
            Cell::Sector(s) => {
                let fill = if touched.contains_key(&s) { "#4c78a8" } else { "#eeeeee" };
                pic.rect(x, STRIP_Y, cell_w, CELL_H, fill, "#ffffff");
                centre.insert(s, x + cell_w / 2.0);
                if cell_w >= 24.0 {
                    pic.text(x + cell_w / 2.0, STRIP_Y + CELL_H + 14.0, &s.to_string(), small);
                }
            }
            Cell::Gap(n) => {
                pic.rect(x, STRIP_Y, cell_w, CELL_H, "#ffffff", "#cccccc");
                pic.text(x + cell_w / 2.0, STRIP_Y + CELL_H / 2.0 + 3.0, "~", small);
                if cell_w >= 24.0 {
                    pic.text(x + cell_w / 2.0, STRIP_Y + CELL_H + 14.0, &format!("+{n}"), small);
                }
            }
        }
    }
    let lane_w = usable / LANES as f64;
    for (lane, &a) in (0u32..).zip(addresses) {
        let lx = LEFT + f64::from(lane) * lane_w + lane_w / 2.0;
        pic.circle(lx, LANE_Y, (lane_w * 0.35).min(8.0), "#f28482");
        if lane % 4 == 0 {
            pic.text(lx, LANE_Y - 12.0, &lane.to_string(), small);
        }
        let (lo, hi) = sector_range(a, access_bytes);
        for s in lo..hi {
            let sx = u64::try_from(s).ok().and_then(|s| centre.get(&s).copied()).unwrap_or(lx);
            pic.line(lx, LANE_Y + 6.0, sx, STRIP_Y, "#888888", 0.8);
        }
    }
    pic.text(LEFT, LANE_Y - 30.0, "lanes", TextStyle::new(12.0).bold());
    let has_gap = cells.iter().any(|c| matches!(c, Cell::Gap(_)));
    let legend = if has_gap {
        "32-byte sectors: filled = fetched, grey = skipped, ~ = a longer skipped run not drawn"
    } else {
        "32-byte sectors: filled = fetched, grey = skipped"
    };
    pic.text(LEFT, STRIP_Y + CELL_H + 34.0, legend, TextStyle::new(12.0).bold());
    Ok(pic.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strided(stride: u32) -> u32 {
        sectors(&strided_addresses(stride), 4)
    }

    #[test]
    fn strided_sector_counts() {
        assert_eq!(strided(1), 4);
        assert_eq!(strided(2), 8);
        assert_eq!(strided(4), 16);
        assert_eq!(strided(8), 32);
        assert_eq!(strided(32), 32);
        assert_eq!(strided(0), 1); // every lane on one float
    }

    #[test]
    fn strided_efficiency() {
        assert_eq!(efficiency(1), 1.0);
        assert_eq!(efficiency(2), 0.5);
        assert_eq!(efficiency(4), 0.25);
        assert_eq!(efficiency(8), 0.125);
        assert_eq!(efficiency(32), 0.125);
        assert_eq!(efficiency(0), 0.125); // 4 useful bytes out of 32
    }

    #[test]
    fn misalignment_and_straddling() {
        // 32 consecutive floats starting 4 bytes into a sector need 5.
        let shifted: Vec<u64> = (0..32).map(|i| 4 + 4 * i).collect();
        assert_eq!(sectors(&shifted, 4), 5);
        // One 4-byte read at byte 30 straddles two sectors.
        assert_eq!(sectors(&[30], 4), 2);
        // float4 loads, consecutive: 512 bytes in 16 sectors, all useful.
        let vec4: Vec<u64> = (0..32).map(|i| 16 * i).collect();
        assert_eq!(sectors(&vec4, 16), 16);
        assert_eq!(efficiency_of(&vec4, 16), 1.0);
        assert_eq!(sectors(&[], 4), 0);
        assert_eq!(efficiency_of(&[], 4), 1.0);
        assert_eq!(sectors(&[0, 64], 0), 0);
        assert_eq!(sectors(&[u64::MAX], 16), 2); // runs past the end: no overflow
        assert_eq!(sectors(&[0], u32::MAX), 134_217_728);
    }

    #[test]
    fn matmul_mappings() {
        assert_eq!(naive_matmul_sectors(4096, 4096, 0), Ok((32, 1)));
        assert_eq!(coalesced_matmul_sectors(4096, 4096, 0), Ok((1, 4)));
        assert_eq!(naive_matmul_sectors(4096, 4096, 17), Ok((32, 1)));
        assert_eq!(coalesced_matmul_sectors(4096, 4096, 17), Ok((1, 4)));
        // Small K: rows 16 bytes apart, two lanes per sector.
        assert_eq!(naive_matmul_sectors(4, 4, 0), Ok((16, 1)));
        // N = 100: row 1 of B starts 400 bytes in, mid-sector, so 5.
        assert_eq!(coalesced_matmul_sectors(100, 100, 1), Ok((1, 5)));
        let (a, b) = matmul_step_addresses(MatmulMapping::LanesAlongRows, 8, 8, 2).expect("valid");
        assert_eq!((a[1], b[1]), ((8 + 2) * 4, 2 * 8 * 4));
    }

    #[test]
    fn matmul_rejects_bad_sizes() {
        assert!(naive_matmul_sectors(0, 8, 0).expect_err("k").contains("at least 1"));
        assert!(coalesced_matmul_sectors(8, 0, 0).is_err());
        assert_eq!(naive_matmul_sectors(8, 8, 8).expect_err("step"), "inner-loop step 8 is out of range; with K = 8 the steps are 0 to 7");
    }

    #[test]
    fn render_shows_the_strip_and_lanes() {
        let text = render(&strided_addresses(1), 4).expect("valid");
        assert!(text.contains("4 sectors moved (128 B); 100.0%"), "{text}");
        assert!(text.contains("\n####\n"), "{text}");
        assert!(text.contains("sector 0 (bytes 0-31): lanes 0-7"));
        assert!(text.contains("sector 3 (bytes 96-127): lanes 24-31"));

        let text = render(&strided_addresses(2), 4).expect("valid");
        assert!(text.contains("\n########\n"), "{text}");

        let text = render(&strided_addresses(32), 4).expect("valid");
        assert!(text.contains("#...#...#") && !text.contains("~3~"), "{text}");
        assert!(text.contains("sector 4 (bytes 128-159): lane 1"));
        assert!(text.contains("12.5%"));

        let text = render(&[0, 64], 4).expect("valid");
        assert!(text.contains("\n#.#\n"), "{text}");
        let text = render(&[0, 1024], 4).expect("valid");
        assert!(text.contains("\n# ~31~ #\n"), "{text}");
    }

    #[test]
    fn render_and_svg_validate() {
        assert!(render(&[], 4).expect_err("empty").contains("1 to 32 addresses"));
        assert!(render(&[0; 33], 4).is_err());
        assert!(render(&[0], 32).expect_err("wide").contains("at most 16 bytes"));
        assert!(svg(&[0], 0, "t").is_err());
    }

    #[test]
    fn svg_draws_fetched_sectors_and_lane_lines() {
        let doc = svg(&strided_addresses(1), 4, "stride 1").expect("valid");
        crate::svg::tests::assert_well_formed(&doc);
        assert_eq!(doc.matches("fill=\"#4c78a8\"").count(), 4);
        assert_eq!(doc.matches("<line").count(), 32);
        let doc = svg(&strided_addresses(32), 4, "stride 32 & up").expect("valid");
        crate::svg::tests::assert_well_formed(&doc);
        assert_eq!(doc.matches("fill=\"#4c78a8\"").count(), 32);
        assert!(doc.contains("stride 32 &amp; up"));
        // A lane that straddles two sectors gets two lines.
        let doc = svg(&[30], 4, "straddle").expect("valid");
        assert_eq!(doc.matches("<line").count(), 2);
    }
}
