//! Builds the book (`book/`) with mdBook's library into `target/book`, for
//! `tests/book_html.rs` and `tests/book_browser.rs`.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use mdbook_driver::MDBook;
use tracing::field::{Field, Visit};
use tracing::{Event, Level, Metadata, Subscriber, span};

/// A built book: where its HTML is and the page of every chapter listed in
/// `SUMMARY.md`, relative to that folder (`sgemm/r01-naive.html`).
pub struct Built {
    pub dir: PathBuf,
    pub chapters: Vec<String>,
}

/// Builds the book into `target/book` (`CARGO_TARGET_DIR` respected), with
/// `target/book/api` a link to `cargo doc`'s `target/doc`, once per test
/// binary: its tests share the build (mdBook empties its output folder, so
/// two builds at once would trip over each other). An error, or any warning
/// mdBook logs (a missing include, a file it cannot copy, a bad footnote),
/// is an `Err` with every message.
pub fn build() -> Result<&'static Built, String> {
    static BUILT: OnceLock<Result<Built, String>> = OnceLock::new();
    BUILT.get_or_init(build_now).as_ref().map_err(Clone::clone)
}

fn build_now() -> Result<Built, String> {
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).parent().expect("target/tmp is inside the target folder");
    let dir = target.join("book");
    // The book links `cargo doc`'s pages under `api/`; here that is a link
    // to `target/doc`, removed before mdBook empties its output folder.
    let api = dir.join("api");
    if api.is_symlink() {
        std::fs::remove_file(&api).map_err(|e| format!("{}: {e}", api.display()))?;
    }
    let logged = Arc::new(Mutex::new(Vec::new()));
    let collector = Collector(Arc::clone(&logged));
    let result = tracing::subscriber::with_default(collector, || -> mdbook_driver::errors::Result<Vec<String>> {
        let mut book = MDBook::load(Path::new(env!("CARGO_MANIFEST_DIR")).join("book"))?;
        // An absolute build folder: the book's root is not joined to it.
        book.config.build.build_dir = dir.clone();
        book.build()?;
        Ok(book
            .book
            .chapters()
            .filter_map(|c| c.path.as_ref())
            .map(|p| p.with_extension("html").to_string_lossy().replace('\\', "/"))
            .collect())
    });
    let mut problems = logged.lock().expect("the log").clone();
    match result {
        Ok(chapters) if problems.is_empty() => {
            // So that `target/book/index.html` opens with working API links
            // once `cargo doc` has run (a published book copies the pages).
            #[cfg(unix)]
            std::os::unix::fs::symlink("../doc", &api).map_err(|e| format!("{}: {e}", api.display()))?;
            Ok(Built { dir, chapters })
        }
        Ok(_) => Err(problems.join("\n")),
        Err(e) => {
            problems.push(format!("mdBook: {e:#}"));
            Err(problems.join("\n"))
        }
    }
}

/// Keeps what mdBook logs at WARN and ERROR, which it reports without
/// failing the build.
struct Collector(Arc<Mutex<Vec<String>>>);

struct Message(String);

impl Visit for Message {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if !self.0.is_empty() {
            self.0.push(' ');
        }
        if field.name() == "message" {
            self.0.push_str(&format!("{value:?}"));
        } else {
            self.0.push_str(&format!("{}={value:?}", field.name()));
        }
    }
}

impl Subscriber for Collector {
    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        // More verbose levels compare greater: this is WARN and ERROR.
        *metadata.level() <= Level::WARN
    }

    fn event(&self, event: &Event<'_>) {
        let mut message = Message(String::new());
        event.record(&mut message);
        let metadata = event.metadata();
        self.0.lock().expect("the log").push(format!("{} {}: {}", metadata.level(), metadata.target(), message.0));
    }

    // No spans are enabled (mdBook's are INFO and below), so none are kept.
    fn new_span(&self, _: &span::Attributes<'_>) -> span::Id {
        span::Id::from_u64(1)
    }
    fn record(&self, _: &span::Id, _: &span::Record<'_>) {}
    fn record_follows_from(&self, _: &span::Id, _: &span::Id) {}
    fn enter(&self, _: &span::Id) {}
    fn exit(&self, _: &span::Id) {}
}
