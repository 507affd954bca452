//! The ladder's rungs in order, and the `--rungs` selector.

use crate::error::{Error, Result};
use kernels_gpu::gemm::hopper::HopperKernel;
use kernels_gpu::sgemm::{self as k, GemmKernel};

/// One rung: its number on the ladder, a short title and its kernel.
#[derive(Clone, Copy)]
pub struct Rung {
    pub id: &'static str,
    pub title: &'static str,
    pub kernel: GemmKernel,
}

/// Every rung, bottom to top. Rung 8 runs whichever tile shape tuning
/// chose (`autotuned`).
pub fn in_order(autotuned: GemmKernel) -> Vec<Rung> {
    vec![
        Rung { id: "1", title: "naive", kernel: k::r01_naive::KERNEL },
        Rung { id: "2", title: "coalesced", kernel: k::r02_coalesced::KERNEL },
        Rung { id: "3", title: "shared-memory tiles", kernel: k::r03_shared_tiling::KERNEL },
        Rung { id: "4", title: "1D register blocking", kernel: k::r04_blocktile_1d::KERNEL },
        Rung { id: "5", title: "2D register blocking", kernel: k::r05_blocktile_2d::KERNEL },
        Rung { id: "6", title: "128-bit accesses", kernel: k::r06_vectorized::KERNEL },
        Rung { id: "7a", title: "bank conflicts: padded", kernel: k::r07_bank_conflicts::PADDED },
        Rung { id: "7b", title: "bank conflicts: swizzled", kernel: k::r07_bank_conflicts::SWIZZLED },
        Rung { id: "8", title: "autotuned", kernel: autotuned },
        Rung { id: "9", title: "warptiling", kernel: k::r09_warptiling::KERNEL },
        Rung { id: "10", title: "async copies, 4 stages", kernel: k::r10_async_pipeline::KERNEL },
        Rung { id: "11", title: "tensor cores, 3xTF32", kernel: k::r11_tensor_cores::KERNEL },
    ]
}

/// Rungs named by `list`: comma-separated ids ("7a"), numbers ("7" is 7a
/// and 7b) and ranges ("3-6"), kept in ladder order, then any other SGEMM
/// kernel of the module named in full (rung 8's candidates, for example).
pub fn select(all: &[Rung], list: &str) -> Result<Selection> {
    let hopper = hopper_in_order();
    let mut extra = Vec::new();
    let ids: Vec<&str> = all.iter().map(|r| r.id).chain(hopper.iter().map(|r| r.id)).collect();
    let mut chosen = vec![false; ids.len()];
    for item in list.split(',').map(str::trim) {
        if let Some(kernel) = kernels_gpu::sgemm::KERNELS.iter().find(|k| k.name() == item) {
            match all.iter().position(|r| r.kernel.name() == item) {
                Some(i) => chosen[i] = true,
                None => extra.push(Rung { id: "·", title: kernel.name(), kernel: *kernel }),
            }
            continue;
        }
        if let Some(i) = hopper.iter().position(|r| r.kernel.name() == item) {
            chosen[all.len() + i] = true;
            continue;
        }
        for i in matching(&ids, item, " and full kernel names")? {
            chosen[i] = true;
        }
    }
    let mut portable: Vec<Rung> = all.iter().zip(&chosen).filter_map(|(r, &c)| c.then_some(*r)).collect();
    portable.extend(extra);
    let hopper = hopper.into_iter().zip(&chosen[all.len()..]).filter_map(|(r, &c)| c.then_some(r)).collect();
    Ok(Selection { portable, hopper })
}

/// A rung of the sm_90a module: it runs only on a Hopper GPU (elsewhere its
/// row says why it was skipped), after the portable rungs.
#[derive(Clone, Copy)]
pub struct HopperRung {
    pub id: &'static str,
    pub title: &'static str,
    pub kernel: HopperKernel,
}

/// The SGEMM ladder's rungs past the FP32 pipes and `mma.sync`.
pub fn hopper_in_order() -> Vec<HopperRung> {
    vec![HopperRung { id: "12", title: "3xTF32 on wgmma + TMA", kernel: kernels_gpu::sgemm::r12_tf32x3_wgmma::KERNEL }]
}

/// The rungs one run measures: the portable module's, then the sm_90a
/// module's.
pub struct Selection {
    pub portable: Vec<Rung>,
    pub hopper: Vec<HopperRung>,
}

impl Selection {
    /// Every rung of both modules.
    pub fn everything(portable: Vec<Rung>) -> Selection {
        Selection { portable, hopper: hopper_in_order() }
    }

    pub fn len(&self) -> usize {
        self.portable.len() + self.hopper.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Positions in `ids` that one `--rungs` item names: an id ("7a"), a
/// number ("7" is 7a and 7b) or a range ("3-6"). `also` completes the
/// error message's list of accepted forms.
pub fn matching(ids: &[&str], item: &str, also: &str) -> Result<Vec<usize>> {
    let number = |id: &str| id.trim_end_matches(|c: char| c.is_ascii_alphabetic()).parse::<u32>().ok();
    let highest = ids.iter().filter_map(|id| number(id)).max().unwrap_or(0);
    let matched: Vec<usize> = if let Some((from, to)) = item.split_once('-') {
        let (from, to) = match (from.trim().parse::<u32>(), to.trim().parse::<u32>()) {
            (Ok(f), Ok(t)) if f <= t => (f, t),
            _ => return Err(Error::new(format!("--rungs: '{item}' is not a range like 3-6"))),
        };
        (0..ids.len()).filter(|&i| number(ids[i]).is_some_and(|x| (from..=to).contains(&x))).collect()
    } else if item.chars().all(|c| c.is_ascii_digit()) && !item.is_empty() {
        (0..ids.len()).filter(|&i| number(ids[i]).map(|x| x.to_string()).as_deref() == Some(item)).collect()
    } else {
        (0..ids.len()).filter(|&i| ids[i].eq_ignore_ascii_case(item)).collect()
    };
    if matched.is_empty() {
        return Err(Error::new(format!(
            "--rungs: no rung '{item}' (rungs are {}; ranges like 3-6, lists like 1,7b,10{also} work, up to {highest})",
            ids.join(", ")
        )));
    }
    Ok(matched)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_fit_the_tables_column() {
        for rung in in_order(k::r08_autotuned::CONFIGS[0].kernel) {
            assert!(rung.title.chars().count() <= crate::matmul::report::TITLE_WIDTH, "{:?} is too long", rung.title);
        }
    }

    fn ids(list: &str) -> Vec<&'static str> {
        let all = in_order(k::r08_autotuned::CONFIGS[0].kernel);
        let picked = select(&all, list).unwrap();
        picked.portable.iter().map(|r| r.id).chain(picked.hopper.iter().map(|r| r.id)).collect()
    }

    #[test]
    fn ladder_has_every_rung_once_with_distinct_kernels() {
        let all = in_order(k::r08_autotuned::CONFIGS[0].kernel);
        assert_eq!(all.len(), 12);
        let mut names: Vec<&str> = all.iter().map(|r| r.kernel.name()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), 12);
    }

    #[test]
    fn selections() {
        assert_eq!(ids("1"), ["1"]);
        assert_eq!(ids("7"), ["7a", "7b"]);
        assert_eq!(ids("10,3-5,7B"), ["3", "4", "5", "7b", "10"]);
        assert_eq!(ids("1-10").len(), 11);
        assert_eq!(ids("11-12"), ["11", "12"]);
        assert_eq!(ids("sgemm_tf32x3_wgmma"), ["12"]);
    }

    #[test]
    fn any_kernel_of_the_module_can_be_named() {
        let candidate = k::r08_autotuned::CONFIGS[3].kernel.name();
        let all = in_order(k::r08_autotuned::CONFIGS[0].kernel);
        let picked = select(&all, &format!("2,{candidate},sgemm_naive")).unwrap();
        let names: Vec<&str> = picked.portable.iter().map(|r| r.kernel.name()).collect();
        assert_eq!(names, ["sgemm_naive", "sgemm_coalesced", candidate]);
    }

    #[test]
    fn bad_selections_say_what_exists() {
        let all = in_order(k::r08_autotuned::CONFIGS[0].kernel);
        for bad in ["13", "x", "5-3", "", "7c"] {
            let err = select(&all, bad).err().expect(bad);
            assert!(err.message().starts_with("--rungs:"), "{err}");
        }
    }
}
