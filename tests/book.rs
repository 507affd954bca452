//! The README and the book (`book/`) against the repository, without a GPU
//! and without mdBook:
//! - every `{{#include path:anchor}}` names an existing file and anchor, so
//!   the book's code is the code the build compiles;
//! - every relative link and picture points to an existing file (and, for a
//!   Markdown file, to an existing heading);
//! - every chapter is in `SUMMARY.md` and every entry there exists;
//! - every measured number quoted with a marker agrees with the committed
//!   result file it names, and a quoted program output equals its file;
//! - every quoted source location (`file.rs:line:column`) points at code.
//!
//! A quoted number is written after a marker, as in
//! `<!-- json docs/sweep-h200-bf16.json geometric_mean_percent 0 -->70%`:
//! the file (from the repository root), the path into the JSON (keys and
//! array indices separated by dots; `rungs[id=7]` picks the element whose
//! `id` is 7), the decimals, and optionally a divisor (`/1000`). A block
//! after `<!-- output docs/matmul-h200.txt -->` must equal that file.

use std::path::{Path, PathBuf};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The Markdown files checked: the README, the book's chapters (not
/// through the `book/src/docs` link to `docs/`) and `docs/*.md`.
fn markdown_files() -> Vec<PathBuf> {
    let root = Path::new(ROOT);
    let mut files = vec![root.join("README.md")];
    walk(&root.join("book/src"), &mut files);
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("docs/")
        .map(|e| e.expect("docs/ entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    files
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir).expect("book/src").map(|e| e.expect("entry").path()).collect();
    entries.sort();
    for path in entries {
        let meta = std::fs::symlink_metadata(&path).expect("metadata");
        if meta.is_dir() {
            walk(&path, out);
        } else if meta.is_file() && path.extension().is_some_and(|e| e == "md") {
            out.push(path);
        }
    }
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn name(path: &Path) -> String {
    path.strip_prefix(ROOT).unwrap_or(path).display().to_string()
}

/// The lines outside fenced code blocks, with their line numbers.
fn prose_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut fenced = false;
    text.lines().enumerate().filter_map(move |(i, line)| {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            return None;
        }
        (!fenced).then_some((i + 1, line))
    })
}

/// The targets of the Markdown links and pictures on a line: `](target)`.
fn link_targets(line: &str) -> Vec<&str> {
    let mut targets = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("](") {
        let after = &rest[at + 2..];
        match after.find(')') {
            Some(end) => {
                targets.push(&after[..end]);
                rest = &after[end..];
            }
            None => break,
        }
    }
    targets
}

/// GitHub's and mdBook's anchor for a heading: lower case, spaces to
/// hyphens, punctuation other than `-` and `_` dropped.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

fn heading_slugs(text: &str) -> Vec<String> {
    prose_lines(text).filter(|(_, l)| l.starts_with('#')).map(|(_, l)| slug(l.trim_start_matches('#'))).collect()
}

/// `path` with its `.` and `..` components applied, without touching the
/// file system (an API page's path does not exist in the source tree).
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            part => out.push(part),
        }
    }
    out
}

/// Errors for the relative links of one file: a missing file, or a
/// fragment that names no heading of the Markdown file it points to.
fn link_errors(file: &Path, text: &str) -> Vec<String> {
    let dir = file.parent().expect("a file's folder");
    let mut errors = Vec::new();
    for (number, line) in prose_lines(text) {
        for target in link_targets(line) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (path, fragment) = target.split_once('#').unwrap_or((target, ""));
            let resolved = if path.is_empty() { file.to_path_buf() } else { dir.join(path) };
            // `cargo doc`'s pages, linked under the built book's `api/`:
            // tests/book_html.rs checks those links against target/doc.
            if normalize(&resolved).starts_with(Path::new(ROOT).join("book/src/api")) {
                continue;
            }
            if !resolved.exists() {
                errors.push(format!("{}:{number}: link to missing {target}", name(file)));
            } else if !fragment.is_empty()
                && resolved.extension().is_some_and(|e| e == "md")
                && !heading_slugs(&read(&resolved)).iter().any(|s| s == fragment)
            {
                errors.push(format!("{}:{number}: no heading #{fragment} in {}", name(file), name(&resolved)));
            }
        }
    }
    errors
}

/// Errors for mdBook's `{{#include path}}`, `path:anchor` and
/// `path:first:last` directives of one chapter.
fn include_errors(file: &Path, text: &str) -> Vec<String> {
    let dir = file.parent().expect("a file's folder");
    let mut errors = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let mut rest = line;
        while let Some(at) = rest.find("{{#include ") {
            let after = &rest[at + "{{#include ".len()..];
            let Some(end) = after.find("}}") else {
                errors.push(format!("{}:{}: unterminated include", name(file), number + 1));
                break;
            };
            let spec = after[..end].trim();
            rest = &after[end..];
            let mut parts = spec.split(':');
            let path = dir.join(parts.next().unwrap_or_default());
            let Ok(source) = std::fs::read_to_string(&path) else {
                errors.push(format!("{}:{}: include of missing {spec}", name(file), number + 1));
                continue;
            };
            let selector: Vec<&str> = parts.collect();
            match selector.as_slice() {
                [] => {}
                [anchor] if anchor.parse::<usize>().is_err() => {
                    let opens = source.lines().any(|l| l.trim() == format!("// ANCHOR: {anchor}"));
                    let closes = source.lines().any(|l| l.trim() == format!("// ANCHOR_END: {anchor}"));
                    if !(opens && closes) {
                        errors.push(format!(
                            "{}:{}: no anchor {anchor} (ANCHOR and ANCHOR_END) in {}",
                            name(file),
                            number + 1,
                            name(&path)
                        ));
                    }
                }
                lines => {
                    let last = lines.iter().filter_map(|l| l.parse::<usize>().ok()).max().unwrap_or(0);
                    if last == 0 || last > source.lines().count() {
                        errors.push(format!("{}:{}: {spec}: the file has {} lines", name(file), number + 1, source.lines().count()));
                    }
                }
            }
        }
    }
    errors
}

/// The value at `path` in `json`: keys and indices separated by dots, and
/// `key[field=value]` for the element of an array whose field is `value`.
fn json_at<'a>(json: &'a serde_json::Value, path: &str) -> Option<&'a serde_json::Value> {
    path.split('.').try_fold(json, |value, segment| {
        if let Ok(index) = segment.parse::<usize>() {
            return value.get(index);
        }
        let Some((key, selector)) = segment.strip_suffix(']').and_then(|s| s.split_once('[')) else {
            return value.get(segment);
        };
        let array = value.get(key)?;
        match selector.split_once('=') {
            None => array.get(selector.parse::<usize>().ok()?),
            Some((field, wanted)) => array.as_array()?.iter().find(|item| match item.get(field) {
                Some(serde_json::Value::String(s)) => s == wanted,
                Some(serde_json::Value::Number(n)) => n.as_f64() == wanted.parse::<f64>().ok(),
                _ => false,
            }),
        }
    })
}

/// Errors for the `<!-- json ... -->` and `<!-- output ... -->` markers of
/// one text; result files are read through `load` (relative to the root).
fn marker_errors(label: &str, text: &str, load: &dyn Fn(&str) -> Option<String>) -> Vec<String> {
    let mut errors = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("<!-- ") {
        let after = &rest[at + 5..];
        let Some(end) = after.find("-->") else { break };
        let words: Vec<&str> = after[..end].split_whitespace().collect();
        let quoted = &after[end + 3..];
        rest = quoted;
        match words.as_slice() {
            ["json", file, path, decimals, divisor @ ..] => {
                let Some(json) = load(file).and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok()) else {
                    errors.push(format!("{label}: marker names {file}, which is not readable JSON"));
                    continue;
                };
                let Some(value) = json_at(&json, path).and_then(serde_json::Value::as_f64) else {
                    errors.push(format!("{label}: no number at {path} in {file}"));
                    continue;
                };
                let divisor = match divisor {
                    [] => Some(1.0),
                    [d] => d.strip_prefix('/').and_then(|d| d.parse::<f64>().ok()),
                    _ => None,
                };
                let (Ok(decimals), Some(divisor)) = (decimals.parse::<usize>(), divisor) else {
                    errors.push(format!("{label}: marker {path}: bad decimals or divisor"));
                    continue;
                };
                let expected = format!("{:.*}", decimals, value / divisor);
                let number_ends_at = expected.len().min(quoted.len());
                let follows_digit = quoted[number_ends_at..].starts_with(|c: char| c.is_ascii_digit());
                if !quoted.starts_with(&expected) || follows_digit {
                    let shown: String = quoted.chars().take(expected.len() + 2).collect();
                    errors.push(format!("{label}: {file} {path} is {expected}, the text says {shown:?}"));
                }
            }
            ["output", file] => {
                let Some(expected) = load(file) else {
                    errors.push(format!("{label}: marker names missing {file}"));
                    continue;
                };
                let block = quoted
                    .trim_start()
                    .split_once('\n')
                    .and_then(|(fence, body)| fence.starts_with("```").then_some(body))
                    .and_then(|body| body.split_once("\n```"));
                match block {
                    Some((body, _)) if body.trim_end() == expected.trim_end() => {}
                    _ => errors.push(format!("{label}: the block after the output marker differs from {file}")),
                }
            }
            ["json", ..] | ["output", ..] => errors.push(format!("{label}: malformed marker {:?}", words.join(" "))),
            _ => {}
        }
    }
    errors
}

fn load_from_root(file: &str) -> Option<String> {
    std::fs::read_to_string(Path::new(ROOT).join(file)).ok()
}

/// Errors for quoted source locations `path.rs:line:column` (paths from
/// the repository root), as the emulator's checkers print them: the line
/// must exist and have code at the column.
fn location_errors(label: &str, text: &str) -> Vec<String> {
    let mut errors = Vec::new();
    for word in text.split(|c: char| c.is_whitespace() || c == '`' || c == '(' || c == ')' || c == ',' || c == ';') {
        let Some((path, position)) = word.split_once(".rs:") else { continue };
        let mut numbers = position.split(':').map(|n| n.trim_end_matches(|c: char| !c.is_ascii_digit()).parse::<usize>());
        let (Some(Ok(line)), Some(Ok(column))) = (numbers.next(), numbers.next()) else { continue };
        let file = format!("{path}.rs");
        // An exercise's file is the learner's: a location in it quotes their edit.
        if file.starts_with("exercises/src/e") {
            continue;
        }
        let Some(source) = load_from_root(&file) else {
            errors.push(format!("{label}: {word}: no file {file}"));
            continue;
        };
        let at = source.lines().nth(line.wrapping_sub(1)).and_then(|l| l.chars().nth(column.wrapping_sub(1)));
        if !at.is_some_and(|c| !c.is_whitespace()) {
            errors.push(format!("{label}: {word}: no code at line {line}, column {column} of {file}"));
        }
    }
    errors
}

#[test]
fn includes_links_numbers_and_locations_agree_with_the_repository() {
    let mut errors = Vec::new();
    for file in markdown_files() {
        let text = read(&file);
        errors.extend(include_errors(&file, &text));
        errors.extend(link_errors(&file, &text));
        errors.extend(marker_errors(&name(&file), &text, &load_from_root));
        errors.extend(location_errors(&name(&file), &text));
    }
    assert!(errors.is_empty(), "{} problems:\n{}", errors.len(), errors.join("\n"));
}

#[test]
fn every_chapter_is_in_the_summary_and_every_entry_exists() {
    let src = Path::new(ROOT).join("book/src");
    let summary = read(&src.join("SUMMARY.md"));
    let listed: Vec<PathBuf> = prose_lines(&summary).flat_map(|(_, l)| link_targets(l)).map(|t| src.join(t)).collect();
    let mut chapters = Vec::new();
    walk(&src, &mut chapters);
    for chapter in &chapters {
        assert!(chapter.ends_with("SUMMARY.md") || listed.contains(chapter), "{} is not in SUMMARY.md", name(chapter));
    }
    for entry in &listed {
        assert!(entry.is_file(), "SUMMARY.md lists missing {}", name(entry));
    }
    assert!(listed.len() > 40, "the summary was read: {} entries", listed.len());
}

#[test]
fn every_rung_of_both_ladders_has_a_chapter_that_includes_its_source() {
    for ladder in ["sgemm", "bf16"] {
        let sources = std::fs::read_dir(Path::new(ROOT).join("kernels-gpu/src").join(ladder)).expect("the ladder's folder");
        for source in sources.map(|e| e.expect("entry").file_name().into_string().expect("UTF-8 name")) {
            let Some(stem) = source.strip_suffix(".rs").filter(|s| s.starts_with('r')) else { continue };
            let chapter = Path::new(ROOT).join("book/src").join(ladder).join(format!("{}.md", stem.replace('_', "-")));
            let text = read(&chapter);
            let include = format!("{{{{#include ../../../kernels-gpu/src/{ladder}/{source}:rung}}}}");
            assert!(text.contains(&include), "{} does not include {source} by its anchor", name(&chapter));
        }
    }
}

const SWEEP: &str = r#"{"geometric_mean_percent": 69.63, "rows": [{"shape": "o M=1", "ours": {"micros": 24.9}}], "list": [{"id": "7", "gflops": 638372.4}]}"#;

fn check(text: &str) -> Vec<String> {
    marker_errors("test", text, &|file| (file == "sweep.json").then(|| SWEEP.to_string()))
}

#[test]
fn a_quoted_number_that_disagrees_with_its_result_file_fails() {
    assert!(check("mean <!-- json sweep.json geometric_mean_percent 0 -->70%").is_empty());
    assert!(
        check("<!-- json sweep.json rows[shape=o M=1].ours.micros 1 -->24.9 µs").len() == 1,
        "a selector with a space is not a marker word"
    );
    assert!(check("<!-- json sweep.json rows[0].ours.micros 1 -->24.9 µs").is_empty());
    assert!(check("<!-- json sweep.json list[id=7].gflops 1 /1000 -->638.4 TFLOP/s").is_empty());
    // One digit changed, more digits than the file holds, a wrong path, a
    // missing file: each is an error.
    assert_eq!(check("mean <!-- json sweep.json geometric_mean_percent 0 -->71%").len(), 1);
    assert_eq!(check("<!-- json sweep.json list[id=7].gflops 1 /1000 -->638.45").len(), 1);
    assert_eq!(check("<!-- json sweep.json list[id=8].gflops 0 -->638").len(), 1);
    assert_eq!(check("<!-- json other.json geometric_mean_percent 0 -->70").len(), 1);
    assert_eq!(check("<!-- json sweep.json geometric_mean_percent -->70").len(), 1);
}

#[test]
fn a_quoted_output_that_differs_from_its_file_fails() {
    let load = |file: &str| (file == "out.txt").then(|| "rung 1  498\nrung 2  6307\n".to_string());
    let quoted = |body: &str| format!("<!-- output out.txt -->\n```text\n{body}\n```\n");
    assert!(marker_errors("test", &quoted("rung 1  498\nrung 2  6307"), &load).is_empty());
    assert_eq!(marker_errors("test", &quoted("rung 1  498\nrung 2  6308"), &load).len(), 1);
    assert_eq!(marker_errors("test", &quoted("rung 1  498"), &load).len(), 1);
}

#[test]
fn a_broken_link_include_or_location_fails() {
    let chapter = Path::new(ROOT).join("book/src/sgemm/r01-naive.md");
    assert!(link_errors(&chapter, "[the job](../main-job.md) ![chart](../docs/matmul-h200.svg)").is_empty());
    assert_eq!(link_errors(&chapter, "[the job](../main-jobs.md)").len(), 1);
    // An API page is checked in the built book (tests/book_html.rs).
    assert!(link_errors(&chapter, "[`gpu::load`](../api/kernels_gpu/gpu/fn.load.html)").is_empty());
    assert_eq!(link_errors(&chapter, "[codes](../running.md#exit-codez)").len(), 1);
    assert!(include_errors(&chapter, "{{#include ../../../kernels-gpu/src/sgemm/r01_naive.rs:rung}}").is_empty());
    assert_eq!(include_errors(&chapter, "{{#include ../../../kernels-gpu/src/sgemm/r01_naive.rs:kernel}}").len(), 1);
    assert_eq!(include_errors(&chapter, "{{#include ../../../kernels-gpu/src/sgemm/r00.rs:rung}}").len(), 1);
    assert!(location_errors("test", "threads 0-43 wait at kernels-gpu/src/labs/pitfalls.rs:133:5;").is_empty());
    assert_eq!(location_errors("test", "threads 0-43 wait at kernels-gpu/src/labs/pitfalls.rs:133:1;").len(), 1);
}

/// Errors where the main job's committed output (text) and its JSON (the
/// same run) disagree: each ladder's table is one paragraph of the text, in
/// the JSON's order, and every rung's row shows the JSON's time, GFLOP/s
/// and percentage as the table rounds them.
fn output_errors(text: &str, json: &serde_json::Value) -> Vec<String> {
    let tables: Vec<&str> = text.split("\n\n").collect();
    let ladders = json.as_array().map(Vec::as_slice).unwrap_or_default();
    if tables.len() != ladders.len() {
        return vec![format!("{} tables in the text, {} ladders in the JSON", tables.len(), ladders.len())];
    }
    let mut errors = Vec::new();
    for (table, ladder) in tables.iter().zip(ladders) {
        let rows = ladder["rungs"].as_array().map(Vec::as_slice).unwrap_or_default();
        for row in std::iter::once(&ladder["cublas"]).chain(rows) {
            let id = row["id"].as_str().unwrap_or_default();
            let cells = ["median_ms", "gflops", "percent_of_cublas"].map(|key| row[key].as_f64());
            let [Some(ms), Some(gflops), Some(percent)] = cells else {
                errors.push(format!("rung {id}: no time, GFLOP/s or percentage in the JSON"));
                continue;
            };
            let title = row["title"].as_str().unwrap_or_default();
            let shown = format!(" {ms:.3} {gflops:.0} {percent:.1}% ");
            let found = table.lines().any(|line| {
                let words: Vec<&str> = line.split_whitespace().collect();
                line.starts_with(&format!("{id} ")) && line.contains(title) && format!(" {} ", words.join(" ")).contains(&shown)
            });
            if !found {
                errors.push(format!("rung {id} {title}: no row shows{shown}"));
            }
        }
    }
    errors
}

#[test]
fn the_main_jobs_output_and_its_json_are_the_same_run() {
    let text = load_from_root("docs/matmul-h200.txt").expect("docs/matmul-h200.txt");
    let json = serde_json::from_str(&load_from_root("docs/matmul-h200.json").expect("docs/matmul-h200.json")).expect("JSON");
    let errors = output_errors(&text, &json);
    assert!(errors.is_empty(), "{}", errors.join("\n"));
    // One number changed in the text is found: rung 2's GFLOP/s, plus one.
    let gflops =
        json[0]["rungs"].as_array().and_then(|r| r.iter().find(|r| r["id"] == "2")).and_then(|r| r["gflops"].as_f64()).expect("rung 2");
    let changed = text.replacen(&format!(" {gflops:.0} "), &format!(" {:.0} ", gflops.round() + 1.0), 1);
    assert_ne!(changed, text, "rung 2's GFLOP/s is in the text");
    assert_eq!(output_errors(&changed, &json).len(), 1);
}

/// Errors where the memory chapter's quoted output and the committed JSON
/// of the same run (`docs/memory-h200.json`) disagree: the bandwidth table
/// row by row, the plateaus, shared memory against its model, and the
/// latency table, each as the program rounds it.
fn memory_errors(text: &str, json: &serde_json::Value) -> Vec<String> {
    let number = |value: &serde_json::Value, key: &str| value[key].as_f64().unwrap_or(f64::NAN);
    let mut errors = Vec::new();
    let table: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("working set"))
        .skip(1)
        .take_while(|l| !l.starts_with("plateaus:"))
        .filter_map(|l| l.split_whitespace().nth(2))
        .collect();
    let measured: Vec<String> =
        json["bandwidth"].as_array().into_iter().flatten().map(|row| format!("{:.0}", number(row, "gbps"))).collect();
    if table != measured {
        errors.push(format!("the bandwidth table shows {table:?} GB/s, the JSON {measured:?}"));
    }
    let plateaus = &json["plateaus"];
    let shared = number(json, "shared_gbps");
    let model = number(json, "shared_model_gbps");
    for line in [
        format!(
            "plateaus: L1 {:.0} GB/s, L2 {:.0} GB/s, DRAM {:.0} GB/s",
            number(plateaus, "on_chip_gbps"),
            number(plateaus, "l2_gbps"),
            number(plateaus, "dram_gbps")
        ),
        format!("shared memory: {shared:.0} GB/s measured = {:.1}% of the model's", 100.0 * shared / model),
    ] {
        if !text.lines().any(|l| l.starts_with(&line)) {
            errors.push(format!("no line starts with {line:?}"));
        }
    }
    for row in json["latencies"].as_array().into_iter().flatten() {
        let level = row["level"].as_str().unwrap_or_default();
        let shown = format!(" {:.1} {:.1} ", number(row, "cycles"), number(row, "ns"));
        let found = text.lines().any(|l| {
            let words: Vec<&str> = l.split_whitespace().collect();
            l.starts_with(level) && format!(" {} ", words.join(" ")).contains(&shown)
        });
        if !found {
            errors.push(format!("latency {level}: no row shows{shown}"));
        }
    }
    errors
}

#[test]
fn the_memory_chapters_output_and_its_json_are_the_same_run() {
    let text = load_from_root("book/src/concepts/memory.md").expect("the memory chapter");
    let json = serde_json::from_str(&load_from_root("docs/memory-h200.json").expect("docs/memory-h200.json")).expect("JSON");
    let errors = memory_errors(&text, &json);
    assert!(errors.is_empty(), "{}", errors.join("\n"));
    // One number changed in each of the four parts is found.
    for (from, to) in [("  31558  ", "  31559  "), ("L2 10126 GB/s", "L2 10127 GB/s"), ("= 96.7%", "= 96.6%"), (" 280.0 ", " 280.1 ")] {
        let changed = text.replacen(from, to, 1);
        assert_ne!(changed, text, "{from:?} is in the chapter");
        assert_eq!(memory_errors(&changed, &json).len(), 1, "{from:?} changed to {to:?}");
    }
}
