//! The book built by mdBook's library (`book/` into `target/book`), without
//! a browser: the build logs no warning, every chapter of `SUMMARY.md` has
//! its page, and in every page every local link, stylesheet, script and
//! picture names a file of the built book and every `#fragment` names an
//! `id` of its page. `tests/book_browser.rs` loads the same pages in
//! chromium.

mod book_build;

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{BufferQueue, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts};

/// What the checks need of one built page.
#[derive(Default)]
struct Page {
    /// Its `id` attributes and `<a name>`s: the fragments a link may name.
    ids: BTreeSet<String>,
    /// Its local references: `(what, target)` as written, `what` being the
    /// element and attribute (`a href`, `img src`).
    references: Vec<(&'static str, String)>,
}

/// The elements whose attribute names another file of the site.
const REFERENCES: [(&str, &str, &str); 6] = [
    ("a", "href", "a href"),
    ("link", "href", "link href"),
    ("script", "src", "script src"),
    ("img", "src", "img src"),
    ("source", "src", "source src"),
    ("iframe", "src", "iframe src"),
];

/// A start tag: its name and attributes.
type StartTag = (String, Vec<(String, String)>);

/// Keeps the start tags html5ever's tokenizer reads.
#[derive(Default)]
struct StartTags(RefCell<Vec<StartTag>>);

impl TokenSink for StartTags {
    type Handle = ();

    fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
        let Token::TagToken(tag) = token else { return TokenSinkResult::Continue };
        if tag.kind != TagKind::StartTag {
            return TokenSinkResult::Continue;
        }
        let name = tag.name.to_string();
        let attributes = tag.attrs.iter().map(|a| (a.name.local.to_string(), a.value.to_string())).collect();
        self.0.borrow_mut().push((name.clone(), attributes));
        // Without a tree builder the tokenizer must be told that a script's
        // or a style's text is not markup, as the HTML standard's parser does.
        match name.as_str() {
            "script" => TokenSinkResult::RawData(RawKind::ScriptData),
            "style" | "xmp" | "iframe" | "noembed" | "noframes" => TokenSinkResult::RawData(RawKind::Rawtext),
            "title" | "textarea" => TokenSinkResult::RawData(RawKind::Rcdata),
            _ => TokenSinkResult::Continue,
        }
    }
}

/// The start tags of a page, read by html5ever's tokenizer: what a browser
/// sees as elements and attributes (entities decoded, comments skipped).
fn start_tags(html: &str) -> Vec<StartTag> {
    let input = BufferQueue::default();
    input.push_back(StrTendril::from(html));
    let tokenizer = Tokenizer::new(StartTags::default(), TokenizerOpts::default());
    // The sink never asks to pause for a script, so one call reads it all.
    let _ = tokenizer.feed(&input);
    tokenizer.end();
    tokenizer.sink.0.take()
}

fn parse_page(html: &str) -> Page {
    let mut page = Page::default();
    for (name, attributes) in start_tags(html) {
        let attribute = |wanted: &str| attributes.iter().find(|(a, _)| a == wanted).map(|(_, v)| v.clone());
        page.ids.extend(attribute("id"));
        if name == "a" {
            page.ids.extend(attribute("name"));
        }
        for (element, wanted, what) in REFERENCES {
            if let Some(target) = attribute(wanted).filter(|t| name == element && !is_external(t)) {
                page.references.push((what, target));
            }
        }
    }
    // mdBook writes each picture twice (inline and zoomed): one check each.
    page.references.sort();
    page.references.dedup();
    page
}

/// A reference this check leaves alone: another site, an e-mail address,
/// a script URL or inline data.
fn is_external(target: &str) -> bool {
    let scheme = target.split_once(':').map(|(s, _)| s).unwrap_or_default();
    target.starts_with("//")
        || (!scheme.is_empty() && scheme.chars().all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c)) && !scheme.contains('/'))
}

/// `%20` and the like decoded; a malformed escape is kept as written.
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let escaped = (bytes[i] == b'%').then(|| text.get(i + 1..i + 3)).flatten().and_then(|h| u8::from_str_radix(h, 16).ok());
        match escaped {
            Some(byte) => {
                out.push(byte);
                i += 3;
            }
            None => {
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The site path `target` names from page `from` (both relative to the
/// site's root, `/`-separated), or `None` when it climbs above the root.
fn resolve(from: &str, target: &str) -> Option<String> {
    let mut parts: Vec<&str> = from.split('/').collect();
    parts.pop();
    for part in target.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            part => parts.push(part),
        }
    }
    Some(parts.join("/"))
}

/// Where the book links `cargo doc`'s pages: `api/kernels_gpu/gpu/fn.load.html`
/// is `target/doc/kernels_gpu/gpu/fn.load.html`. A published book copies
/// `target/doc` there; the built one links to it.
const API: &str = "api/";

/// A local reference of a page, resolved against the site.
struct Reference {
    /// The page it is on.
    page: String,
    /// As written: `img src="../docs/memory-h200.svg"`.
    written: String,
    /// The site path it names (`docs/memory-h200.svg`) and its fragment.
    path: String,
    fragment: String,
}

/// A built site: its pages by path, and every file (pages included), not
/// counting the API pages.
#[derive(Default)]
struct Site {
    pages: BTreeMap<String, Page>,
    files: BTreeSet<String>,
}

impl Site {
    fn read(root: &Path) -> Site {
        let mut site = Site::default();
        let mut folders = vec![root.to_path_buf()];
        while let Some(folder) = folders.pop() {
            for entry in std::fs::read_dir(&folder).unwrap_or_else(|e| panic!("{}: {e}", folder.display())) {
                let path = entry.expect("a folder entry").path();
                if path == root.join(API.trim_end_matches('/')) {
                    continue;
                }
                if path.is_dir() {
                    folders.push(path);
                    continue;
                }
                let name = path.strip_prefix(root).expect("inside the site").to_string_lossy().replace('\\', "/");
                if name.ends_with(".html") {
                    let html = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
                    site.pages.insert(name.clone(), parse_page(&html));
                }
                site.files.insert(name);
            }
        }
        site
    }

    /// Every local reference of every page, resolved, or an error for one
    /// that climbs out of the site.
    fn references(&self) -> Vec<Result<Reference, String>> {
        let mut references = Vec::new();
        for (name, page) in &self.pages {
            for (what, target) in &page.references {
                let (path, fragment) = target.split_once('#').unwrap_or((target, ""));
                let path = path.split_once('?').map_or(path, |(p, _)| p);
                let resolved = if path.is_empty() { Some(name.clone()) } else { resolve(name, &percent_decode(path)) };
                let written = format!("{what}=\"{target}\"");
                references.push(match resolved {
                    Some(path) => Ok(Reference { page: name.clone(), written, path, fragment: percent_decode(fragment) }),
                    None => Err(format!("{name}: {written} leaves the book")),
                });
            }
        }
        references
    }

    /// One line for each reference of each page that names no file, or a
    /// fragment that the page it names lacks. References to API pages are
    /// left to [`api_errors`].
    fn errors(&self) -> Vec<String> {
        let mut errors = Vec::new();
        for reference in self.references() {
            let Reference { page, written, path: mut resolved, fragment } = match reference {
                Ok(reference) if !reference.path.starts_with(API) => reference,
                Ok(_) => continue,
                Err(e) => {
                    errors.push(e);
                    continue;
                }
            };
            // A folder's page is its index.html, as a web server serves it.
            let index = if resolved.is_empty() { "index.html".to_string() } else { format!("{resolved}/index.html") };
            if !self.files.contains(&resolved) && self.files.contains(&index) {
                resolved = index;
            }
            if !self.files.contains(&resolved) {
                errors.push(format!("{page}: {written}: no file {resolved} in the book"));
            } else if let Some(linked) = self.pages.get(&resolved)
                && !fragment.is_empty()
                && !linked.ids.contains(&fragment)
            {
                errors.push(format!("{page}: {written}: {resolved} has no id \"{fragment}\""));
            }
        }
        errors
    }

    /// The references to API pages.
    fn api_references(&self) -> Vec<Reference> {
        self.references().into_iter().flatten().filter(|r| r.path.starts_with(API)).collect()
    }
}

/// One line for each API reference whose page `cargo doc` did not write to
/// `doc` (its `target/doc`), or whose fragment that page lacks.
fn api_errors(references: &[Reference], doc: &Path) -> Vec<String> {
    let mut errors = Vec::new();
    for Reference { page, written, path, fragment } in references {
        let file = doc.join(&path[API.len()..]);
        match std::fs::read_to_string(&file) {
            Err(_) => errors.push(format!("{page}: {written}: cargo doc wrote no {}", file.display())),
            Ok(html) if !fragment.is_empty() && !parse_page(&html).ids.contains(fragment) => {
                errors.push(format!("{page}: {written}: {} has no id \"{fragment}\"", file.display()))
            }
            Ok(_) => {}
        }
    }
    errors
}

#[test]
fn the_book_builds_without_warnings_and_every_link_picture_and_anchor_resolves() {
    let built = book_build::build().unwrap_or_else(|problems| panic!("the book does not build cleanly:\n{problems}"));
    let site = Site::read(&built.dir);
    assert!(built.chapters.len() > 40, "SUMMARY.md was read: {} chapters", built.chapters.len());
    let missing: Vec<&String> = built.chapters.iter().filter(|c| !site.pages.contains_key(*c)).collect();
    assert!(missing.is_empty(), "chapters without a page in {}: {missing:?}", built.dir.display());
    let errors = site.errors();
    assert!(errors.is_empty(), "{} broken references in {}:\n{}", errors.len(), built.dir.display(), errors.join("\n"));
}

#[test]
#[ignore = "needs cargo doc's pages in target/doc"]
fn the_books_api_links_name_pages_that_cargo_doc_wrote() {
    let built = book_build::build().unwrap_or_else(|problems| panic!("the book does not build cleanly:\n{problems}"));
    let doc = built.dir.parent().expect("target/book is in the target folder").join("doc");
    assert!(
        doc.join("kernels_gpu/index.html").is_file(),
        "no API pages in {}: run `cargo doc --no-deps --workspace` first (.ci/run does)",
        doc.display()
    );
    let references = Site::read(&built.dir).api_references();
    assert!(references.len() >= 5, "the book's API links were found: {}", references.len());
    let errors = api_errors(&references, &doc);
    assert!(errors.is_empty(), "{} broken API links:\n{}", errors.len(), errors.join("\n"));
}

/// A site of the given pages and other files.
fn site(pages: &[(&str, &str)], files: &[&str]) -> Site {
    Site {
        pages: pages.iter().map(|(name, html)| (name.to_string(), parse_page(html))).collect(),
        files: pages.iter().map(|(name, _)| name).chain(files).map(|n| n.to_string()).collect(),
    }
}

#[test]
fn a_broken_link_anchor_or_picture_fails() {
    let chapter = r##"<html><head><link rel="stylesheet" href="../css/book.css"></head><body>
        <h1 id="rung-1">Rung 1</h1><a href="#rung-1">here</a> <a href="../index.html#the-job">job</a>
        <a href="https://example.com/x.html">away</a> <img src="../docs/chart%20one.svg">
        <!-- <a href="gone.html"> --><script>let s = '<img src="gone.svg">';</script></body></html>"##;
    let index = r#"<h2 id="the-job">The job</h2><a href="sgemm/r01.html">rung 1</a><a href="sgemm/">rungs</a>"#;
    let files = ["css/book.css", "docs/chart one.svg", "sgemm/index.html"];
    let good = site(&[("sgemm/r01.html", chapter), ("index.html", index)], &files);
    assert_eq!(good.errors(), Vec::<String>::new(), "markup in a comment or a script is not a reference");

    for (broken, expected) in [
        (chapter.replace("href=\"#rung-1\"", "href=\"#rung-2\""), "sgemm/r01.html has no id \"rung-2\""),
        (chapter.replace("#the-job", "#the-jobs"), "index.html has no id \"the-jobs\""),
        (chapter.replace("../index.html", "../intro.html"), "no file intro.html"),
        (chapter.replace("chart%20one", "chart%20two"), "no file docs/chart two.svg"),
        (chapter.replace("../css/book.css", "../css/books.css"), "no file css/books.css"),
        (chapter.replace("../index.html", "../../index.html"), "leaves the book"),
    ] {
        let errors = site(&[("sgemm/r01.html", &broken), ("index.html", index)], &files).errors();
        assert!(errors.len() == 1 && errors[0].contains(expected), "expected one error with {expected:?}, got {errors:?}");
    }
}

#[test]
fn an_api_link_is_checked_against_cargo_docs_pages() {
    let chapter = r#"<a href="../api/kernels_gpu/gpu/fn.load.html#safety">gpu::load</a>
        <a href="../api/kernels_gpu/gpu/fn.store.html">gpu::store</a>"#;
    let site = site(&[("concepts/pitfalls.html", chapter)], &[]);
    assert_eq!(site.errors(), Vec::<String>::new(), "API links are not the book's files");
    let references = site.api_references();
    assert_eq!(references.len(), 2);

    let doc = Path::new(env!("CARGO_TARGET_TMPDIR")).join("book-html-api");
    let gpu = doc.join("kernels_gpu/gpu");
    std::fs::create_dir_all(&gpu).expect("a scratch folder");
    std::fs::write(gpu.join("fn.load.html"), r#"<h2 id="safety">Safety</h2>"#).expect("a scratch page");
    std::fs::write(gpu.join("fn.store.html"), "<h1>store</h1>").expect("a scratch page");
    assert_eq!(api_errors(&references, &doc), Vec::<String>::new());
    std::fs::write(gpu.join("fn.load.html"), r#"<h2 id="panics">Panics</h2>"#).expect("a scratch page");
    std::fs::remove_file(gpu.join("fn.store.html")).expect("the scratch page");
    let errors = api_errors(&references, &doc);
    assert!(errors.len() == 2 && errors[0].contains("no id \"safety\"") && errors[1].contains("cargo doc wrote no"), "{errors:?}");
}
