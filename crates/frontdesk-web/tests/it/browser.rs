//! The browser scenarios (`tests/browser/*.mjs`) in Debian's Chromium, driven by
//! playwright-core, against the real binary: `frontdesk lab --web --no-open` and
//! `frontdesk connect --web --no-open -- hostile_server` (its hostile texts, and
//! its form with every kind of field), on both revisions; and `frontdesk lab --web`
//! opening the browser through its one-time address (`$BROWSER` a recording script).
//!
//! Needs Chromium (`/usr/bin/chromium`, or `$CHROMIUM`), `node`, and
//! playwright-core and axe-core in `target/browser-tests` (`scripts/browser-tests.sh
//! install`).
//! Without them the test says what is missing and passes; with
//! `FRONTDESK_REQUIRE_BROWSER=1` (CI) it fails instead. `FRONTDESK_SCENARIOS=a,b`
//! runs only those scenarios. Screenshots land in `target/browser-tests/screenshots`.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime};

/// How long the whole browser run may take before it is stopped.
const RUN_LIMIT: Duration = Duration::from_secs(600);

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `target/debug` (the profile directory this test binary was built into).
fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    // target/debug/deps/it-HASH → target/debug
    exe.parent()
        .and_then(Path::parent)
        .expect("the test binary lives in target/PROFILE/deps")
        .to_path_buf()
}

/// The newest modification time among the crates' `src` (and, with `examples`,
/// `examples`) files and manifests.
fn newest_source(root: &Path, examples: bool) -> SystemTime {
    fn walk(dir: &Path, newest: &mut SystemTime) {
        let Ok(entries) = fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, newest);
            } else if let Ok(modified) = entry.metadata().and_then(|m| m.modified()) {
                *newest = (*newest).max(modified);
            }
        }
    }
    let mut newest = SystemTime::UNIX_EPOCH;
    for crate_dir in fs::read_dir(root.join("crates"))
        .expect("crates/")
        .flatten()
    {
        let dir = crate_dir.path();
        walk(&dir.join("src"), &mut newest);
        if examples {
            walk(&dir.join("examples"), &mut newest);
        }
        if let Ok(m) = fs::metadata(dir.join("Cargo.toml")).and_then(|m| m.modified()) {
            newest = newest.max(m);
        }
    }
    newest
}

/// `binary`, built with `cargo ARGS` first when it is missing or older than the
/// sources (`cargo test --workspace` has built both already; `cargo test -p
/// frontdesk-web` has not).
fn fresh(binary: PathBuf, args: &[&str]) -> PathBuf {
    let built = fs::metadata(&binary).and_then(|m| m.modified()).ok();
    let example = args.contains(&"--example");
    if built.is_some_and(|b| b >= newest_source(&repo(), example)) {
        return binary;
    }
    let profile = profile_dir();
    let target = profile.parent().expect("target/");
    let mut command = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    command
        .args(args)
        .arg("--target-dir")
        .arg(target)
        .current_dir(repo());
    if profile.file_name().is_some_and(|n| n == "release") {
        command.arg("--release");
    }
    eprintln!(
        "browser tests: building {} ({})",
        binary.display(),
        args.join(" ")
    );
    let status = command.status().expect("cargo runs");
    assert!(status.success(), "cargo {} failed", args.join(" "));
    binary
}

fn missing_tools(chromium: &Path, playwright: &Path) -> Vec<String> {
    let mut missing = Vec::new();
    if !chromium.is_file() {
        missing.push(format!("no Chromium at {}", chromium.display()));
    }
    if !playwright.join("package.json").is_file() {
        missing.push(format!("no playwright-core in {}", playwright.display()));
    }
    let axe = playwright.with_file_name("axe-core");
    if !axe.join("axe.min.js").is_file() {
        missing.push(format!("no axe-core in {}", axe.display()));
    }
    let node = Command::new("node")
        .arg("--version")
        .stdout(Stdio::null())
        .status();
    if !node.is_ok_and(|s| s.success()) {
        missing.push("no node".to_owned());
    }
    missing
}

#[test]
fn browser_scenarios_on_both_revisions() {
    let required = std::env::var("FRONTDESK_REQUIRE_BROWSER").is_ok_and(|v| v == "1");
    let target = profile_dir().parent().expect("target/").to_path_buf();
    let tests_dir = std::env::var_os("BROWSER_TESTS_DIR")
        .map_or_else(|| target.join("browser-tests"), PathBuf::from);
    let chromium = std::env::var_os("CHROMIUM")
        .map_or_else(|| PathBuf::from("/usr/bin/chromium"), PathBuf::from);
    let playwright = tests_dir.join("node_modules/playwright-core");
    let missing = missing_tools(&chromium, &playwright);
    if !missing.is_empty() {
        let note = format!(
            "browser tests skipped: {} (install with scripts/browser-tests.sh install)",
            missing.join("; ")
        );
        assert!(!required, "FRONTDESK_REQUIRE_BROWSER=1 but {note}");
        eprintln!("{note}");
        return;
    }
    let profile = profile_dir();
    let frontdesk = fresh(
        profile.join("frontdesk"),
        &["build", "-p", "frontdesk-cli", "--bin", "frontdesk"],
    );
    let hostile = fresh(
        profile.join("examples/hostile_server"),
        &[
            "build",
            "-p",
            "frontdesk-web",
            "--example",
            "hostile_server",
        ],
    );
    let screenshots = tests_dir.join("screenshots");
    let log_path = tests_dir.join("last-run.log");
    fs::create_dir_all(&tests_dir).expect("target/browser-tests");
    let log = fs::File::create(&log_path).expect("a log file");
    let mut child = Command::new("node")
        .arg(repo().join("crates/frontdesk-web/tests/browser/run.mjs"))
        .env("FRONTDESK_BIN", &frontdesk)
        .env("FRONTDESK_HOSTILE_BIN", &hostile)
        .env("FRONTDESK_PLAYWRIGHT", &playwright)
        .env(
            "FRONTDESK_AXE",
            playwright.with_file_name("axe-core").join("axe.min.js"),
        )
        .env("FRONTDESK_SCREENSHOTS", &screenshots)
        .env("CHROMIUM", &chromium)
        .stdin(Stdio::null())
        .stdout(log.try_clone().expect("the log"))
        .stderr(log)
        .spawn()
        .expect("node starts");
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("the run") {
            break Some(status);
        }
        if started.elapsed() > RUN_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let output = fs::read_to_string(&log_path).unwrap_or_default();
    eprintln!("{output}");
    eprintln!("browser tests: screenshots in {}", screenshots.display());
    let status = status.unwrap_or_else(|| panic!("the browser run took longer than {RUN_LIMIT:?}"));
    assert!(
        status.success(),
        "browser scenarios failed (log: {})",
        log_path.display()
    );
    let passed = output.lines().filter(|l| l.starts_with("ok ")).count();
    assert!(passed >= 2, "no scenario ran:\n{output}");
}
