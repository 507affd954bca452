//! The built book (`target/book`, built here as `tests/book_html.rs` builds
//! it) in a real browser: headless chromium, driven over WebDriver by
//! chromedriver, loads every page from a small local HTTP server, and each
//! page must load with no SEVERE console message (a script error, a file
//! that failed to load), show every picture (`complete` and a
//! `naturalWidth`, so an SVG that does not render fails) and find the
//! target of every link into itself.
//!
//! Ignored by default: it needs `chromium` and `chromedriver` (Debian's
//! `chromium` and `chromium-driver`). `.ci/run` installs both and runs it
//! with `cargo test --release --test book_browser -- --ignored`.

mod book_build;

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// Serves the files under `root` on a free local port, one thread, until
/// the test ends; returns the port.
fn serve(root: PathBuf) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a local port for the book");
    let port = listener.local_addr().expect("the server's address").port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            // A reply the browser does not read to the end is its business.
            let _ = answer(&root, stream);
        }
    });
    port
}

fn answer(root: &Path, mut stream: TcpStream) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request = String::new();
    reader.read_line(&mut request)?;
    // The headers are read and dropped: every answer closes the connection.
    let mut header = String::new();
    while reader.read_line(&mut header)? > 2 {
        header.clear();
    }
    let target = request.split_whitespace().nth(1).unwrap_or("/");
    let path = target.split(['?', '#']).next().unwrap_or_default().trim_start_matches('/');
    let mut file = root.join(path);
    if file.is_dir() {
        file = file.join("index.html");
    }
    let body = (!path.split('/').any(|p| p == "..")).then(|| std::fs::read(&file).ok()).flatten();
    let kind = match file.extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("css") => "text/css",
        Some("js") => "text/javascript",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("woff2") => "font/woff2",
        Some("json") => "application/json",
        _ => "text/plain; charset=utf-8",
    };
    let (status, kind, body) = match body {
        Some(body) => ("200 OK", kind, body),
        None => ("404 Not Found", "text/plain", format!("no {path}").into_bytes()),
    };
    write!(stream, "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", body.len())?;
    stream.write_all(&body)
}

/// chromedriver, stopped when the test ends (also when it fails).
struct Driver {
    process: Child,
    url: String,
    agent: ureq::Agent,
}

impl Drop for Driver {
    fn drop(&mut self) {
        // Already gone is fine: the test is over either way.
        let _ = self.process.kill();
        let _ = self.process.wait();
    }
}

impl Driver {
    fn start() -> Driver {
        let port = TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).expect("a free local port").port();
        let process = Command::new("chromedriver")
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start chromedriver (Debian: apt-get install chromium chromium-driver): {e}"));
        let config = ureq::Agent::config_builder().http_status_as_error(false).timeout_global(Some(Duration::from_secs(60))).build();
        let driver = Driver { process, url: format!("http://127.0.0.1:{port}"), agent: config.into() };
        let started = Instant::now();
        while driver.call("GET", "/status", None).map(|s| s["ready"] != true).unwrap_or(true) {
            assert!(started.elapsed() < Duration::from_secs(20), "chromedriver did not answer on port {port} within 20 s");
            std::thread::sleep(Duration::from_millis(100));
        }
        driver
    }

    /// One WebDriver command (`GET`, `DELETE`, or `POST` with a body): its
    /// `value`, or the error it answered.
    fn call(&self, method: &str, path: &str, body: Option<Value>) -> Result<Value, String> {
        let url = format!("{}{path}", self.url);
        let response = match (method, body) {
            ("GET", None) => self.agent.get(&url).call(),
            ("DELETE", None) => self.agent.delete(&url).call(),
            ("POST", Some(body)) => self.agent.post(&url).header("Content-Type", "application/json").send(body.to_string()),
            _ => return Err(format!("{method} {path}: not a command this client sends")),
        };
        let text = response.and_then(|mut r| r.body_mut().read_to_string()).map_err(|e| format!("{method} {path}: {e}"))?;
        let answer: Value = serde_json::from_str(&text).map_err(|e| format!("{method} {path}: not JSON ({e}): {text}"))?;
        match answer["value"].get("error") {
            Some(error) => Err(format!("{method} {path}: {error}: {}", answer["value"]["message"])),
            None => Ok(answer["value"].clone()),
        }
    }
}

/// A chromium session, ended (chromium closed) when the test ends, also
/// when it fails.
struct Session<'a> {
    driver: &'a Driver,
    id: String,
}

impl Session<'_> {
    fn call(&self, command: &str, body: Value) -> Result<Value, String> {
        self.driver.call("POST", &format!("/session/{}/{command}", self.id), Some(body))
    }
}

impl Drop for Session<'_> {
    fn drop(&mut self) {
        // A session that is already gone needs no ending.
        let _ = self.driver.call("DELETE", &format!("/session/{}", self.id), None);
    }
}

/// Inside a loaded page: whether it has content, the pictures that did not
/// render and the links into the page whose target is missing.
const INSPECT: &str = r#"
const here = location.origin + location.pathname;
const main = document.querySelector("main");
return {
    ready: document.readyState,
    text: main ? main.textContent.trim().length : 0,
    pictures: document.images.length,
    broken: [...document.images]
        .filter(i => !(i.complete && i.naturalWidth > 0))
        .map(i => i.getAttribute("src")),
    missing: [...document.links]
        .filter(a => a.hash.length > 1 && a.origin + a.pathname === here)
        .filter(a => !document.getElementById(decodeURIComponent(a.hash.slice(1))))
        .map(a => a.getAttribute("href")),
};
"#;

/// The problems of one page, each naming it, and how many pictures it has.
fn page_problems(session: &Session, site: &str, page: &str) -> Result<(Vec<String>, u64), String> {
    session.call("url", json!({ "url": format!("{site}/{page}") }))?;
    let seen = session.call("execute/sync", json!({ "script": INSPECT, "args": [] }))?;
    // chromedriver's log command; each call returns the messages since the last.
    let log = session.call("se/log", json!({ "type": "browser" }))?;
    let mut problems = Vec::new();
    if seen["ready"] != "complete" || seen["text"].as_u64().unwrap_or(0) == 0 {
        problems.push(format!("{page}: did not load (readyState {}, {} characters of text)", seen["ready"], seen["text"]));
    }
    for src in seen["broken"].as_array().into_iter().flatten() {
        problems.push(format!("{page}: picture {src} did not render (not complete, or naturalWidth 0)"));
    }
    for href in seen["missing"].as_array().into_iter().flatten() {
        problems.push(format!("{page}: link {href} names no id of the page"));
    }
    // mdBook writes each picture twice (inline and zoomed): one line each.
    problems.dedup();
    for entry in log.as_array().into_iter().flatten().filter(|e| e["level"] == "SEVERE") {
        problems.push(format!("{page}: console: {}", entry["message"]));
    }
    Ok((problems, seen["pictures"].as_u64().unwrap_or(0)))
}

#[test]
#[ignore = "needs chromium and chromedriver"]
fn every_page_of_the_book_loads_in_chromium_with_its_pictures_and_anchors() {
    let built = book_build::build().unwrap_or_else(|problems| panic!("the book does not build cleanly:\n{problems}"));
    let site = format!("http://127.0.0.1:{}", serve(built.dir.clone()));
    let driver = Driver::start();
    let capabilities = json!({ "capabilities": { "alwaysMatch": {
        "browserName": "chrome",
        "goog:chromeOptions": { "args": ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,1000"] },
        "goog:loggingPrefs": { "browser": "ALL" },
    } } });
    let started = driver.call("POST", "/session", Some(capabilities)).unwrap_or_else(|e| panic!("chromium did not start: {e}"));
    let session = Session { driver: &driver, id: started["sessionId"].as_str().expect("a session id").to_string() };

    let mut pages = built.chapters.clone();
    pages.extend(["index.html", "print.html", "404.html"].map(String::from));
    let started = Instant::now();
    let mut problems = Vec::new();
    let mut pictures = 0;
    for page in &pages {
        match page_problems(&session, &site, page) {
            Ok((found, shown)) => {
                problems.extend(found);
                pictures += shown;
            }
            Err(e) => problems.push(format!("{page}: WebDriver: {e}")),
        }
    }
    eprintln!("{} pages, {pictures} pictures, in chromium in {:.1} s", pages.len(), started.elapsed().as_secs_f64());
    assert!(pictures > 10, "the pictures were counted: {pictures}");
    assert!(problems.is_empty(), "{} problems in the book in chromium:\n{}", problems.len(), problems.join("\n"));
}
