//! The PTX fingerprint: a digest of every `.entry` of each PTX module the
//! builder makes, compared with the digests committed under
//! `tests/ptx-fingerprints/`. The kernels were measured on the H200 as they
//! are; a change to their PTX must be deliberate, re-measured, and recorded
//! by rewriting the file with [`BLESS`].
//!
//! Each entry is normalised first, so only what changes code counts:
//! comments, blank lines and trailing spaces go, and LLVM's per-function
//! numbering of labels (`$L__BB12_3`) is dropped, since it shifts when a
//! kernel before it is added or removed.
//!
//! A second module (for example one built for sm_90a) is one more line in
//! [`MODULES`] and one more file.

use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// The one command that rewrites the fingerprint files on purpose.
const BLESS: &str = "PTX_LADDER_BLESS=1 cargo test --release --test ptx_fingerprint";

/// A PTX module and the file holding its fingerprints.
struct Module {
    /// What the module is, for messages.
    name: &'static str,
    ptx: &'static str,
    /// The GPU architecture it was built for: digests are only comparable
    /// for the architecture they were recorded with.
    arch: &'static str,
    /// Relative to the repository root.
    file: &'static str,
}

const MODULES: &[Module] = &[
    Module { name: "kernels", ptx: ptx_ladder::PTX, arch: ptx_ladder::PTX_ARCH, file: "tests/ptx-fingerprints/kernels.txt" },
    Module { name: "kernels_sm90a", ptx: ptx_ladder::PTX_SM90A, arch: "sm_90a", file: "tests/ptx-fingerprints/kernels_sm90a.txt" },
];

/// Name of the pseudo-entry that covers everything outside the entries
/// (header, `.extern`/`.global` declarations, `.func` helpers).
const MODULE_LEVEL: &str = "(module)";

/// One line of PTX as it counts for the fingerprint: no comment, no
/// trailing space, labels without LLVM's function number; `None` if nothing
/// is left.
fn normalise(line: &str) -> Option<String> {
    let code = line.split("//").next().unwrap_or("").trim_end();
    if code.trim().is_empty() {
        return None;
    }
    Some(strip_label_numbers(code))
}

/// `$L__BB12_3` → `$L__BB_3`.
fn strip_label_numbers(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    let mut rest = code;
    while let Some(at) = rest.find("$L__BB") {
        let (before, after) = rest.split_at(at + "$L__BB".len());
        out.push_str(before);
        rest = after.trim_start_matches(|c: char| c.is_ascii_digit());
    }
    out.push_str(rest);
    out
}

/// SHA-256 of each normalised `.entry` of `ptx`, by kernel name, plus one
/// for the module-level text under [`MODULE_LEVEL`].
fn fingerprints(ptx: &str) -> BTreeMap<String, String> {
    let mut texts: BTreeMap<String, String> = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in ptx.lines() {
        if current.is_none()
            && let Some(at) = line.find(".entry ")
        {
            let rest = &line[at + ".entry ".len()..];
            let name = rest[..rest.find('(').unwrap_or(rest.len())].trim().to_string();
            assert!(!texts.contains_key(&name), "two entries named {name}");
            current = Some(name);
        }
        let Some(code) = normalise(line) else { continue };
        let key = current.clone().unwrap_or_else(|| MODULE_LEVEL.to_string());
        let text = texts.entry(key).or_default();
        text.push_str(&code);
        text.push('\n');
        // A function's body ends with a `}` in the first column.
        if current.is_some() && line.starts_with('}') {
            current = None;
        }
    }
    texts.into_iter().map(|(name, text)| (name, hex(&Sha256::digest(text.as_bytes())))).collect()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn path(file: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(file)
}

/// The file's text for these fingerprints.
fn render(module: &Module, prints: &BTreeMap<String, String>) -> String {
    let mut text = format!(
        "# SHA-256 of each normalised .entry of the {} PTX module ({}), one kernel a line.\n\
         # Checked by tests/ptx_fingerprint.rs; rewrite only on purpose, after re-measuring: {BLESS}\n\
         arch {}\n",
        module.name, module.arch, module.arch
    );
    for (name, digest) in prints {
        text.push_str(&format!("{name} {digest}\n"));
    }
    text
}

/// The recorded architecture and fingerprints of a file's text.
fn parse(text: &str) -> (Option<&str>, BTreeMap<String, String>) {
    let mut arch = None;
    let mut prints = BTreeMap::new();
    for line in text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let (key, value) = line.split_once(' ').unwrap_or((line, ""));
        if key == "arch" {
            arch = Some(value);
        } else {
            prints.insert(key.to_string(), value.to_string());
        }
    }
    (arch, prints)
}

/// Every difference between the recorded and the built fingerprints, one
/// line each.
fn differences(recorded: &BTreeMap<String, String>, built: &BTreeMap<String, String>) -> Vec<String> {
    let mut out = Vec::new();
    for (name, digest) in built {
        match recorded.get(name) {
            None => out.push(format!("added:   {name}")),
            Some(old) if old != digest => out.push(format!("changed: {name}")),
            Some(_) => {}
        }
    }
    out.extend(recorded.keys().filter(|name| !built.contains_key(*name)).map(|name| format!("removed: {name}")));
    out
}

#[test]
fn every_kernel_matches_its_recorded_fingerprint() {
    let bless = std::env::var_os("PTX_LADDER_BLESS").is_some();
    for module in MODULES {
        let built = fingerprints(module.ptx);
        let file = path(module.file);
        if bless {
            std::fs::write(&file, render(module, &built)).unwrap_or_else(|e| panic!("writing {}: {e}", file.display()));
            eprintln!("wrote {} fingerprints to {}", built.len(), file.display());
            continue;
        }
        let text = std::fs::read_to_string(&file)
            .unwrap_or_else(|e| panic!("reading {}: {e}; record the fingerprints with: {BLESS}", file.display()));
        let (arch, recorded) = parse(&text);
        if arch != Some(module.arch) {
            // Other architectures produce other code; the record is for one.
            eprintln!(
                "skipping the {} fingerprints: recorded for {}, built for {} (unset PTX_LADDER_ARCH to check them)",
                module.name,
                arch.unwrap_or("no architecture"),
                module.arch
            );
            continue;
        }
        let diff = differences(&recorded, &built);
        assert!(
            diff.is_empty(),
            "the PTX of the {} module differs from {}:\n  {}\nIf this is on purpose (and the changed kernels were re-measured on a GPU), record it with:\n  {BLESS}",
            module.name,
            module.file,
            diff.join("\n  ")
        );
    }
}

const SAMPLE: &str = "//\n// Generated by LLVM\n.version 7.0\n.target sm_80\n\n\
    \t// .globl\tone // -- Begin function one\n.visible .entry one(\n\t.param .u32 one_param_0\n)\n{\n\
    $L__BB0_1:\n\tadd.s32 \t%r1, %r1, 1;   // @one\n\t@%p1 bra \t$L__BB0_1;\n\tret;\n}\n\
    .visible .entry two(\n)\n{\n\tret;\n}\n";

#[test]
fn comments_blank_lines_and_label_numbers_do_not_count() {
    let reworded = SAMPLE
        .replace("// @one", "// something else")
        .replace("$L__BB0_", "$L__BB7_")
        .replace("ret;\n}\n.visible", "ret;   \n}\n\n\n.visible");
    assert_eq!(fingerprints(SAMPLE), fingerprints(&reworded));
    let prints = fingerprints(SAMPLE);
    assert_eq!(prints.keys().collect::<Vec<_>>(), [MODULE_LEVEL, "one", "two"]);
}

#[test]
fn code_changes_count_and_are_named() {
    let before = fingerprints(SAMPLE);
    let after = fingerprints(&SAMPLE.replace("add.s32 \t%r1, %r1, 1;", "add.s32 \t%r1, %r1, 2;").replace(".entry two(", ".entry three("));
    let diff = differences(&before, &after);
    assert_eq!(diff, ["changed: one", "added:   three", "removed: two"]);
    // The label's index within a function still counts.
    assert_ne!(fingerprints(SAMPLE)["one"], fingerprints(&SAMPLE.replace("$L__BB0_1", "$L__BB0_2"))["one"]);
}

#[test]
fn the_file_format_round_trips() {
    let module = &MODULES[0];
    let prints = fingerprints(SAMPLE);
    let text = render(module, &prints);
    let (arch, parsed) = parse(&text);
    assert_eq!((arch, parsed), (Some(module.arch), prints));
}
