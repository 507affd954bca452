//! A ladder's rungs and the `--rungs` selector.
//!
//! A rung is more than a kernel name: its kernel lives in one of the two
//! PTX modules (the sm_90a one loads only on a compute capability 9.0 GPU),
//! may refuse some shapes (TMA needs 16-byte rows), and is set up once per
//! problem before it runs (a TMA rung encodes its tensor maps there; a
//! plain kernel needs nothing). A rung that cannot run here is listed as
//! skipped with the reason, not as a failure.

use super::accuracy::Arithmetic;
use super::buffers::Buffers;
use super::element::{Element, Gemm};
use crate::device::{Gpu, PtxModule};
use crate::error::{Error, Result};
use kernels_gpu::launch::LaunchShape;

/// The kernel a rung runs, as the ladder needs to know it.
pub trait RungKernel<E: Element> {
    /// The `.entry` name: the table's kernel column and the driver's
    /// resource queries.
    fn name(&self) -> &'static str;

    /// The PTX module the kernel is in.
    fn module(&self) -> PtxModule;

    /// What the kernel computes in, for its error bound.
    fn arithmetic(&self) -> Arithmetic {
        E::ARITHMETIC
    }

    /// What a launch at `size` computes in: [`RungKernel::arithmetic`],
    /// unless the rung picks a kernel per shape.
    fn arithmetic_at(&self, _gpu: &Gpu, _size: (u32, u32, u32)) -> Arithmetic {
        self.arithmetic()
    }

    /// The module and `.entry` a launch at `size` runs: the rung's own
    /// kernel, unless it picks one per shape.
    fn entry(&self, _gpu: &Gpu, _size: (u32, u32, u32)) -> (PtxModule, &'static str) {
        (self.module(), self.name())
    }

    /// Why the rung runs what it does at `size`, for the table's notes.
    fn explain(&self, _gpu: &Gpu, _size: (u32, u32, u32)) -> Option<String> {
        None
    }

    /// Why the kernel cannot take an `m`×`n`×`k` problem, or None.
    fn shape_limit(&self, size: (u32, u32, u32)) -> Option<&'static str>;

    /// The GEMM launch's grid, block and dynamic shared memory on `gpu`.
    fn shape(&self, gpu: &Gpu, size: (u32, u32, u32)) -> LaunchShape;

    /// What runs the GEMM on `buffers`, set up once (tensor maps, scratch
    /// buffers) and then run as often as the timing needs.
    fn prepare(&self, gpu: &Gpu, buffers: &Buffers<E>) -> Result<Box<dyn Gemm<E>>>;
}

/// One rung: its place on the ladder, a short title and its kernel.
pub struct Rung<E: Element> {
    pub id: &'static str,
    pub title: &'static str,
    pub kernel: &'static dyn RungKernel<E>,
}

// Derived, these would ask `E: Clone`; the fields are references.
impl<E: Element> Clone for Rung<E> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<E: Element> Copy for Rung<E> {}

impl<E: Element> Rung<E> {
    /// Why this rung does not run on a GPU of `capability` at `size`.
    pub fn skip_reason(&self, capability: (u32, u32), size: (u32, u32, u32)) -> Option<String> {
        let module = self.kernel.module();
        if !module.runs_on(capability) {
            return Some(module.requirement().into());
        }
        self.kernel.shape_limit(size).map(str::to_string)
    }

    /// The rung set up for `buffers`, or why it cannot run there.
    pub fn prepare(&self, gpu: &Gpu, buffers: &Buffers<E>) -> Result<Box<dyn Gemm<E>>> {
        if let Some(why) = self.skip_reason(gpu.info.compute_capability, buffers.size()) {
            return Err(Error::new(format!("rung {} ({}) {why}", self.id, self.kernel.name())));
        }
        self.kernel.prepare(gpu, buffers)
    }
}

/// A `--rungs` item that names every rung: the documented default.
pub const ALL: &str = "all";

/// One ladder: its rungs bottom to top, and what a run shows beside them.
pub struct Ladder<E: Element> {
    pub rungs: Vec<Rung<E>>,
    /// Other kernels `--rungs` may name in full (SGEMM rung 8's candidates,
    /// BF16 rung 13's tile shapes): they run after the rungs, with the id
    /// "·".
    pub others: Vec<&'static dyn RungKernel<E>>,
    /// A line under the table (how rung 8 was chosen), or empty.
    pub note: String,
}

impl<E: Element> Ladder<E> {
    /// The rungs named by `list`: comma-separated ids ("7a"), numbers ("7"
    /// is 7a and 7b), ranges ("3-6"), kernel names, or `all`; kept in
    /// ladder order, then any of [`Ladder::others`] named.
    pub fn select(self, list: &str) -> Result<Ladder<E>> {
        let ids: Vec<&str> = self.rungs.iter().map(|r| r.id).collect();
        let mut chosen = vec![false; ids.len()];
        let mut others = Vec::new();
        for item in list.split(',').map(str::trim) {
            if item.eq_ignore_ascii_case(ALL) {
                chosen.iter_mut().for_each(|c| *c = true);
            } else if let Some(i) = self.rungs.iter().position(|r| r.kernel.name() == item) {
                chosen[i] = true;
            } else if let Some(other) = self.others.iter().find(|k| k.name() == item) {
                others.push(Rung { id: "·", title: other.name(), kernel: *other });
            } else {
                for i in matching(&ids, item).map_err(|why| Error::new(format!("--rungs: {why} ({})", self.forms())))? {
                    chosen[i] = true;
                }
            }
        }
        let mut rungs: Vec<Rung<E>> = self.rungs.iter().zip(&chosen).filter_map(|(r, &c)| c.then_some(*r)).collect();
        rungs.extend(others);
        Ok(Ladder { rungs, others: Vec::new(), note: self.note })
    }

    /// What `--rungs` accepts on this ladder, with examples from its rungs.
    fn forms(&self) -> String {
        let ids: Vec<&str> = self.rungs.iter().map(|r| r.id).collect();
        let mut numbers: Vec<u32> = ids.iter().filter_map(|id| number(id)).collect();
        numbers.dedup();
        let range = match numbers.as_slice() {
            [first, .., last] => format!("ranges like {first}-{}, ", numbers.get(3).unwrap_or(last)),
            _ => String::new(),
        };
        let list = match ids.as_slice() {
            [first, .., last] => format!("lists like {first},{},{last}, ", ids[ids.len() / 2]),
            _ => String::new(),
        };
        let name = self.rungs.first().map_or(String::new(), |r| format!(" (like {})", r.kernel.name()));
        format!("the {}'s rungs are {}; {range}{list}kernel names{name} and {ALL} work", E::DTYPE.ladder(), ids.join(", "))
    }
}

/// "7" for "7a": the number of a rung id.
fn number(id: &str) -> Option<u32> {
    id.trim_end_matches(|c: char| c.is_ascii_alphabetic()).parse().ok()
}

/// Positions in `ids` that one `--rungs` item names: an id ("7a"), a
/// number ("7" is 7a and 7b) or a range ("3-6"); else what is wrong.
fn matching(ids: &[&str], item: &str) -> std::result::Result<Vec<usize>, String> {
    let matched: Vec<usize> = if let Some((from, to)) = item.split_once('-') {
        let (from, to) = match (from.trim().parse::<u32>(), to.trim().parse::<u32>()) {
            (Ok(f), Ok(t)) if f <= t => (f, t),
            _ => return Err(format!("'{item}' is not a range like 3-6")),
        };
        (0..ids.len()).filter(|&i| number(ids[i]).is_some_and(|x| (from..=to).contains(&x))).collect()
    } else if item.chars().all(|c| c.is_ascii_digit()) && !item.is_empty() {
        (0..ids.len()).filter(|&i| number(ids[i]).map(|x| x.to_string()).as_deref() == Some(item)).collect()
    } else {
        (0..ids.len()).filter(|&i| ids[i].eq_ignore_ascii_case(item)).collect()
    };
    if matched.is_empty() {
        return Err(format!("no rung '{item}'"));
    }
    Ok(matched)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stand-in kernel: `module`, and rows of 16-byte multiples when
    /// `tma`; never prepared here.
    struct Stub {
        name: &'static str,
        module: PtxModule,
        tma: bool,
    }

    impl RungKernel<f32> for Stub {
        fn name(&self) -> &'static str {
            self.name
        }

        fn module(&self) -> PtxModule {
            self.module
        }

        fn shape_limit(&self, (_, n, k): (u32, u32, u32)) -> Option<&'static str> {
            (self.tma && (k % 8 != 0 || n % 8 != 0)).then_some("needs K % 8 == 0 and N % 8 == 0")
        }

        fn shape(&self, _: &Gpu, _: (u32, u32, u32)) -> LaunchShape {
            LaunchShape::linear(1, 32, 0)
        }

        fn prepare(&self, _: &Gpu, _: &Buffers<f32>) -> Result<Box<dyn Gemm<f32>>> {
            Err(Error::new("a stub"))
        }
    }

    static PLAIN: Stub = Stub { name: "plain", module: PtxModule::Portable, tma: false };
    static TMA: Stub = Stub { name: "tma", module: PtxModule::Sm90a, tma: true };
    static OTHER: Stub = Stub { name: "other", module: PtxModule::Portable, tma: false };

    fn ladder() -> Ladder<f32> {
        let rung = |id, kernel| Rung { id, title: "t", kernel };
        Ladder {
            rungs: vec![rung("1", &PLAIN), rung("2a", &PLAIN), rung("2b", &PLAIN), rung("3", &PLAIN), rung("4", &TMA)],
            others: vec![&OTHER],
            note: "how".into(),
        }
    }

    fn ids(list: &str) -> Vec<&'static str> {
        ladder().select(list).unwrap().rungs.iter().map(|r| r.id).collect()
    }

    const H200: (u32, u32) = (9, 0);
    const A100: (u32, u32) = (8, 0);

    #[test]
    fn rungs_say_why_they_are_skipped() {
        let rungs = ladder().rungs;
        let (plain, tma) = (rungs[0], rungs[4]);
        assert_eq!(plain.skip_reason(H200, (17, 33, 9)), None);
        assert_eq!(plain.skip_reason(A100, (1, 1, 1)), None);
        assert_eq!(plain.skip_reason((7, 5), (1, 1, 1)).as_deref(), Some("needs an Ampere or newer GPU (sm_80)"));
        assert_eq!(tma.skip_reason(H200, (4096, 4096, 4096)), None);
        assert_eq!(tma.skip_reason(A100, (4096, 4096, 4096)).as_deref(), Some("needs a Hopper GPU (sm_90)"));
        // sm_90a code does not run on later architectures either.
        assert_eq!(tma.skip_reason((10, 0), (4096, 4096, 4096)).as_deref(), Some("needs a Hopper GPU (sm_90)"));
        assert_eq!(tma.skip_reason(H200, (4097, 1024, 513)).as_deref(), Some("needs K % 8 == 0 and N % 8 == 0"));
    }

    #[test]
    fn selections_by_id_number_range_name_and_all() {
        assert_eq!(ids("1"), ["1"]);
        assert_eq!(ids("2"), ["2a", "2b"]);
        assert_eq!(ids("4,1-2,2B"), ["1", "2a", "2b", "4"]);
        assert_eq!(ids("3-4"), ["3", "4"]);
        assert_eq!(ids("tma"), ["4"]);
        assert_eq!(ids("all"), ["1", "2a", "2b", "3", "4"]);
        assert_eq!(ids(" ALL ,1"), ["1", "2a", "2b", "3", "4"]);
        // Other kernels run after the rungs, under their own name.
        let picked = ladder().select("other,3").unwrap();
        let names: Vec<(&str, &str)> = picked.rungs.iter().map(|r| (r.id, r.title)).collect();
        assert_eq!(names, [("3", "t"), ("·", "other")]);
        assert_eq!(picked.note, "how");
        assert!(picked.others.is_empty());
    }

    #[test]
    fn bad_selections_list_this_ladders_rungs() {
        for bad in ["13", "x", "5-3", "", "2c", "1-x"] {
            let err = ladder().select(bad).err().expect(bad);
            assert!(err.message().starts_with("--rungs: "), "{err}");
            assert!(
                err.message().contains(
                    "(the SGEMM ladder's rungs are 1, 2a, 2b, 3, 4; ranges like 1-4, lists like 1,2b,4, kernel names (like plain) and all work)"
                ),
                "{err}"
            );
        }
        assert!(ladder().select("13").err().unwrap().message().starts_with("--rungs: no rung '13' ("));
        assert!(ladder().select("5-3").err().unwrap().message().starts_with("--rungs: '5-3' is not a range like 3-6 ("));
    }
}
