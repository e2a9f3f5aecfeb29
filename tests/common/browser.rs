//! Headless Chromium for the page tests (report.html in tests/html.rs,
//! the fleet page in tests/fleet.rs): find a browser, screenshot or dump
//! the DOM of a page, and measure a screenshot's pixels.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// [`chromium`], or `None` after printing, on stdout and stderr, that
/// the check named `what` did not run (`SKIPPED: chromium not found …`,
/// which .ci/run looks for).
pub fn chromium_or_skip(what: &str) -> Option<String> {
    let found = chromium();
    if found.is_none() {
        let msg =
            format!("SKIPPED: chromium not found (apt-get install chromium); {what} did not run");
        println!("{msg}");
        eprintln!("{msg}");
    }
    found
}

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
    let (pixels, width, height) = rgb_pixels(png_path);
    let mut colours = std::collections::HashSet::new();
    let mut drawn = 0usize;
    let mut total = 0usize;
    for &rgb in &pixels {
        total += 1;
        if rgb.iter().any(|&c| c < 245) {
            drawn += 1;
        }
        colours.insert(rgb);
    }
    (drawn as f64 / total as f64, colours.len(), width, height)
}

/// The PNG at `png_path` as RGB pixels, row by row (grey as three equal
/// channels, alpha dropped), with its width and height.
fn rgb_pixels(png_path: &Path) -> (Vec<[u8; 3]>, u32, u32) {
    let decoder = png::Decoder::new(std::io::BufReader::new(
        std::fs::File::open(png_path).unwrap(),
    ));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    let channels = info.color_type.samples();
    let pixels = buf[..info.buffer_size()]
        .chunks(channels)
        .map(|px| match channels {
            1 | 2 => [px[0], px[0], px[0]],
            _ => [px[0], px[1], px[2]],
        })
        .collect();
    (pixels, info.width, info.height)
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

/// The first screen a reader sees: the window's size.
pub const FIRST_SCREEN: (u32, u32) = (1280, 800);

/// A box on the page, px from the page's top left (layout coordinates,
/// before any scrolling).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rect {
    /// Left edge.
    pub left: f64,
    /// Top edge.
    pub top: f64,
    /// Right edge.
    pub right: f64,
    /// Bottom edge.
    pub bottom: f64,
}

/// What the JavaScript expression `expr` (a string) evaluates to on
/// `page` in a [`FIRST_SCREEN`] window, as Chromium lays it out: a copy
/// of the page with a script that writes it into the DOM, read back with
/// `--dump-dom`.
fn probe(browser: &str, work: &Path, page: &Path, expr: &str) -> String {
    let html = std::fs::read_to_string(page).unwrap();
    let script = format!(
        "<script>(function(){{var o=document.createElement('pre');o.id='probed';\
         o.textContent={expr};document.body.appendChild(o);}})();</script></body>"
    );
    let probe = work.join("probed.html");
    std::fs::write(&probe, html.replacen("</body>", &script, 1)).unwrap();
    let (w, h) = FIRST_SCREEN;
    let (dom, err) = headless(
        browser,
        work,
        &probe,
        &[&format!("--window-size={w},{h}"), "--dump-dom"],
    );
    let from = dom
        .find("id=\"probed\">")
        .unwrap_or_else(|| panic!("the probing script did not run: {err}"));
    let text = &dom[from + "id=\"probed\">".len()..];
    text[..text.find('<').unwrap()].to_string()
}

/// Where the first element matching each of `selectors` lies on `page`
/// in a [`FIRST_SCREEN`] window (`None`: nothing matches), as Chromium
/// lays it out (each `getBoundingClientRect()`).
pub fn rects(browser: &str, work: &Path, page: &Path, selectors: &[&str]) -> Vec<Option<Rect>> {
    let list = selectors
        .iter()
        .map(|s| format!("{s:?}"))
        .collect::<Vec<_>>()
        .join(",");
    let expr = format!(
        "[{list}].map(function(s){{var e=document.querySelector(s);\
         if(!e){{return 'none';}}var b=e.getBoundingClientRect();\
         return [b.left,b.top,b.right,b.bottom].join(',');}}).join(';')"
    );
    probe(browser, work, page, &expr)
        .split(';')
        .map(|r| {
            let v: Vec<f64> = r.split(',').filter_map(|x| x.parse().ok()).collect();
            (v.len() == 4).then(|| Rect {
                left: v[0],
                top: v[1],
                right: v[2],
                bottom: v[3],
            })
        })
        .collect()
}

/// Every chart on `page` (each `figure.chart`) in a [`FIRST_SCREEN`]
/// window, as Chromium shows it: its caption and the size of its smallest
/// text in screen px (each text's computed font size times the chart's
/// scale, its shown width over its viewBox's).
pub fn chart_text_px(browser: &str, work: &Path, page: &Path) -> Vec<(String, f64)> {
    let expr = "Array.prototype.map.call(document.querySelectorAll('figure.chart'),\
         function(f){var s=f.querySelector('svg');\
         var k=s.getBoundingClientRect().width/s.viewBox.baseVal.width;var m=1e9;\
         s.querySelectorAll('text').forEach(function(t){\
         m=Math.min(m,parseFloat(getComputedStyle(t).fontSize)*k);});\
         var c=f.querySelector('figcaption');return (c?c.textContent:'?')+'='+m;}).join(';')";
    probe(browser, work, page, expr)
        .split(';')
        .filter_map(|c| {
            let (name, px) = c.split_once('=')?;
            Some((name.to_string(), px.parse().ok()?))
        })
        .collect()
}

/// Screenshots `page` in a [`FIRST_SCREEN`] window into `work`: the
/// PNG's path.
pub fn first_screen(browser: &str, work: &Path, page: &Path) -> std::path::PathBuf {
    let shot = work.join("first-screen.png");
    let (w, h) = FIRST_SCREEN;
    let (_, err) = headless(
        browser,
        work,
        page,
        &[
            &format!("--window-size={w},{h}"),
            &format!("--screenshot={}", shot.display()),
        ],
    );
    assert!(shot.exists(), "chromium made no screenshot: {err}");
    shot
}

/// How many pixels of the PNG at `png_path` inside `r` satisfy `hit`.
pub fn pixels_in(png_path: &Path, r: Rect, hit: impl Fn([u8; 3]) -> bool) -> usize {
    let (pixels, w, h) = rgb_pixels(png_path);
    let (w, h) = (w as usize, h as usize);
    let clamp = |v: f64, hi: usize| (v.max(0.0) as usize).min(hi);
    let mut n = 0;
    for y in clamp(r.top, h)..clamp(r.bottom, h) {
        for x in clamp(r.left, w)..clamp(r.right, w) {
            if hit(pixels[y * w + x]) {
                n += 1;
            }
        }
    }
    n
}

/// Asserts that `page`'s headline (its answer, its flat-out sentence) and
/// its cost chart are all on the first [`FIRST_SCREEN`] of a window, in
/// that order, the chart at least 250 px tall, and that the screenshot
/// shows them: dark text in the answer's box, each regime's bar colour in
/// the chart's. `work` holds the browser's files.
pub fn assert_headline_on_first_screen(browser: &str, work: &Path, page: &Path) {
    // Where Chromium lays out the headline's two sentences and its chart
    // in a 1280 x 800 window.
    let found = rects(
        browser,
        work,
        page,
        &[
            "section.headline p.answer",
            "section.headline p.flat",
            "section.headline figure.chart svg",
        ],
    );
    let [answer, flat, chart] = [found[0], found[1], found[2]]
        .map(|r| r.expect("the headline's answer, flat-out line and chart are on the page"));
    eprintln!("first screen: answer {answer:?}, flat out {flat:?}, chart {chart:?}");
    let (w, h) = FIRST_SCREEN;
    for (what, r) in [("answer", answer), ("flat out", flat), ("chart", chart)] {
        assert!(
            r.top >= 0.0 && r.left >= 0.0,
            "{what} starts off screen: {r:?}"
        );
        assert!(
            r.bottom <= h as f64 && r.right <= w as f64,
            "{what} ends beyond the first {w}x{h} screen: {r:?}"
        );
        assert!(r.bottom - r.top >= 20.0, "{what} has no height: {r:?}");
    }
    // In reading order: the answer, flat out, then the chart.
    assert!(answer.bottom <= flat.top && flat.bottom <= chart.top);
    // Tall enough to read: at least 250 px of chart.
    assert!(chart.bottom - chart.top >= 250.0, "{chart:?}");

    // The screenshot shows them: text in the answer's box, the chart's
    // two regimes' bars (the first two series colours) in its box.
    let shot = first_screen(browser, work, page);
    let ink = pixels_in(&shot, answer, |p| p.iter().all(|&c| c < 100));
    assert!(ink >= 500, "the answer's box has {ink} dark pixels");
    for colour in [[0x4e, 0x79, 0xa7], [0xf2, 0x8e, 0x2b]] {
        let bars = pixels_in(&shot, chart, |p| p == colour);
        assert!(
            bars >= 200,
            "{colour:02x?}: {bars} pixels of its bars on the first screen"
        );
    }
}
