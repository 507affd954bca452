//! The book built by mdBook's library (`book/` into `target/book`), without
//! a browser: the build logs no warning, every chapter of `SUMMARY.md` has
//! its page, and in every page every local link, stylesheet, script and
//! picture names a file of the built book and every `#fragment` names an
//! `id` of its page. `tests/book_browser.rs` loads the same pages in
//! chromium.

mod book_build;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use scraper::{Html, Selector};

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
const REFERENCES: [(&str, &str, &str); 5] = [
    ("a[href]", "href", "a href"),
    ("link[href]", "href", "link href"),
    ("script[src]", "src", "script src"),
    ("img[src]", "src", "img src"),
    ("source[src]", "src", "source src"),
];

fn parse_page(html: &str) -> Page {
    let document = Html::parse_document(html);
    let select = |css: &str| Selector::parse(css).unwrap_or_else(|e| panic!("selector {css}: {e:?}"));
    let mut page = Page::default();
    for (css, attribute) in [("[id]", "id"), ("a[name]", "name")] {
        page.ids.extend(document.select(&select(css)).filter_map(|e| e.value().attr(attribute)).map(str::to_string));
    }
    for (css, attribute, what) in REFERENCES {
        for element in document.select(&select(css)) {
            let target = element.value().attr(attribute).unwrap_or_default();
            if !is_external(target) {
                page.references.push((what, target.to_string()));
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

/// A built site: its pages by path, and every file (pages included).
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

    /// One line for each reference of each page that names no file, or a
    /// fragment that the page it names lacks.
    fn errors(&self) -> Vec<String> {
        let mut errors = Vec::new();
        for (name, page) in &self.pages {
            for (what, target) in &page.references {
                let (path, fragment) = target.split_once('#').unwrap_or((target, ""));
                let path = path.split_once('?').map_or(path, |(p, _)| p);
                let resolved = if path.is_empty() { Some(name.clone()) } else { resolve(name, &percent_decode(path)) };
                let Some(mut resolved) = resolved else {
                    errors.push(format!("{name}: {what}=\"{target}\" leaves the book"));
                    continue;
                };
                // A folder's page is its index.html, as a web server serves it.
                let index = if resolved.is_empty() { "index.html".to_string() } else { format!("{resolved}/index.html") };
                if !self.files.contains(&resolved) && self.files.contains(&index) {
                    resolved = index;
                }
                if !self.files.contains(&resolved) {
                    errors.push(format!("{name}: {what}=\"{target}\": no file {resolved} in the book"));
                } else if let Some(linked) = self.pages.get(&resolved)
                    && !fragment.is_empty()
                    && !linked.ids.contains(&percent_decode(fragment))
                {
                    errors.push(format!("{name}: {what}=\"{target}\": {resolved} has no id \"{fragment}\""));
                }
            }
        }
        errors
    }
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
        <a href="https://example.com/x.html">away</a> <img src="../docs/chart%20one.svg"></body></html>"##;
    let index = r#"<h2 id="the-job">The job</h2><a href="sgemm/r01.html">rung 1</a><a href="sgemm/">rungs</a>"#;
    let files = ["css/book.css", "docs/chart one.svg", "sgemm/index.html"];
    let good = site(&[("sgemm/r01.html", chapter), ("index.html", index)], &files);
    assert_eq!(good.errors(), Vec::<String>::new());

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
