//! Headless Chromium for the page tests (report.html in tests/html.rs,
//! the fleet page in tests/fleet.rs): find a browser, screenshot or dump
//! the DOM of a page, and measure a screenshot's pixels.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A Chromium that runs here, if any.
pub fn chromium() -> Option<String> {
    for name in ["chromium", "chromium-browser", "google-chrome"] {
        let ok = Command::new(name)
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if ok {
            return Some(name.to_string());
        }
    }
    None
}

/// Runs headless Chromium on `page` with `args` (as root it needs
/// --no-sandbox), for at most two minutes; returns its stdout and stderr
/// (through files: a piped DOM fills the pipe while we wait).
pub fn headless(browser: &str, work: &Path, page: &Path, args: &[&str]) -> (String, String) {
    let out = work.join("stdout");
    let err = work.join("stderr");
    let mut child = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--window-size=1280,2400",
        ])
        .arg(format!(
            "--user-data-dir={}",
            work.join("profile").display()
        ))
        .args(args)
        .arg(format!("file://{}", page.display()))
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(&err).unwrap())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            let _ = child.wait();
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let read =
        |p: &Path| String::from_utf8_lossy(&std::fs::read(p).unwrap_or_default()).into_owned();
    (read(&out), read(&err))
}

/// Share of pixels that are not (near) white, and how many distinct
/// colours the picture has.
pub fn pixel_check(png_path: &Path) -> (f64, usize, u32, u32) {
    let decoder = png::Decoder::new(std::io::BufReader::new(
        std::fs::File::open(png_path).unwrap(),
    ));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    let channels = info.color_type.samples();
    let bytes = &buf[..info.buffer_size()];
    let mut colours = std::collections::HashSet::new();
    let mut drawn = 0usize;
    let mut total = 0usize;
    for px in bytes.chunks(channels) {
        let rgb = match channels {
            1 | 2 => [px[0], px[0], px[0]],
            _ => [px[0], px[1], px[2]],
        };
        total += 1;
        if rgb.iter().any(|&c| c < 245) {
            drawn += 1;
        }
        colours.insert(rgb);
    }
    (
        drawn as f64 / total as f64,
        colours.len(),
        info.width,
        info.height,
    )
}

/// Screenshots `page` at 1280 x 2400 into `work` and checks that the
/// browser drew it: at least 5% non-white pixels in 64 or more colours.
/// `what` names the page in the printed figures.
pub fn assert_drawn(browser: &str, work: &Path, page: &Path, what: &str) {
    let shot = work.join("page.png");
    let (_, err) = headless(
        browser,
        work,
        page,
        &[&format!("--screenshot={}", shot.display())],
    );
    assert!(
        shot.exists(),
        "chromium made no screenshot of {what}: {err}"
    );
    let (share, colours, w, h) = pixel_check(&shot);
    eprintln!(
        "{what} screenshot {w}x{h}: {:.1}% non-white pixels, {colours} distinct colours",
        100.0 * share
    );
    assert_eq!((w, h), (1280, 2400));
    assert!(share >= 0.05, "only {:.2}% of pixels drawn", 100.0 * share);
    assert!(colours >= 64, "only {colours} colours");
}
