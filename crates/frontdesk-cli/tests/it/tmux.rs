//! A pseudo-terminal a test types into and reads, as a person would: tmux, at a fixed
//! size, with the program's raw output also recorded (to check no escape sequence a
//! server sent reaches the terminal). Skips (with a note) when tmux is not installed.
//!
//! Screens worth reading are kept as text under `target/tmp/screens/` (and in
//! `$FRONTDESK_PTY_CAPTURE` when set).

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

/// How long a wait for the screen may take before the test fails.
const PATIENCE: Duration = Duration::from_secs(15);

/// A tmux session running one command.
pub struct Tmux {
    socket: String,
    raw: PathBuf,
    /// The pane's width in columns.
    pub width: usize,
}

/// Whether tmux can be used here (else the test notes why and returns).
fn available() -> bool {
    let ok = Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("note: tmux is not installed; skipping the pseudo-terminal test");
    }
    ok
}

impl Tmux {
    /// Start `command` in a `width`×50 terminal, with `env` set.
    pub fn start(name: &str, width: usize, command: &str, env: &[(&str, &str)]) -> Option<Tmux> {
        if !available() {
            return None;
        }
        let socket = format!("frontdesk-{name}-{}", std::process::id());
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("pty");
        std::fs::create_dir_all(&dir).expect("a temp dir");
        let raw = dir.join(format!("{name}.raw"));
        let _ = std::fs::remove_file(&raw);
        let mut tmux = Command::new("tmux");
        tmux.args(["-L", &socket, "-f", "/dev/null", "new-session", "-d"])
            .args(["-x", &width.to_string(), "-y", "50"]);
        tmux.arg(format!("{command}; echo EXITED $?; sleep 60"))
            .env("NO_COLOR", "1")
            .env_remove("RUST_LOG")
            .env_remove("DISPLAY")
            .env_remove("WAYLAND_DISPLAY")
            .env_remove("BROWSER");
        for (k, v) in env {
            tmux.env(k, v);
        }
        assert!(
            tmux.status().expect("tmux runs").success(),
            "tmux could not start"
        );
        let session = Tmux { socket, raw, width };
        // Everything the program writes to the terminal, byte for byte.
        let pipe = format!("cat >> '{}'", session.raw.display());
        session.tmux(&["pipe-pane", "-o", &pipe]);
        Some(session)
    }

    fn tmux(&self, args: &[&str]) -> String {
        let out = Command::new("tmux")
            .args(["-L", &self.socket])
            .args(args)
            .output()
            .expect("tmux runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The screen and its scrollback, as shown (one line per terminal row).
    pub fn screen(&self) -> String {
        self.tmux(&["capture-pane", "-p", "-S", "-1000"])
    }

    /// The same with rows the terminal wrapped joined back into their lines.
    pub fn joined(&self) -> String {
        self.tmux(&["capture-pane", "-p", "-J", "-S", "-1000"])
    }

    /// The visible screen only (what a person sees now).
    pub fn visible(&self) -> String {
        self.tmux(&["capture-pane", "-p"])
    }

    /// Everything the program wrote to the terminal so far, raw.
    pub fn raw_output(&self) -> Vec<u8> {
        std::fs::read(&self.raw).unwrap_or_default()
    }

    /// Wait until the screen shows `text` at least `times` times.
    pub fn wait_for_n(&self, text: &str, times: usize) -> String {
        let started = Instant::now();
        loop {
            let screen = self.screen();
            if screen.matches(text).count() >= times {
                return screen;
            }
            assert!(
                started.elapsed() < PATIENCE,
                "waited {PATIENCE:?} for {text:?} (x{times}); the screen shows:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Wait until the screen shows `text`.
    pub fn wait_for(&self, text: &str) -> String {
        self.wait_for_n(text, 1)
    }

    /// Wait until `text` is among the last lines of the visible screen: the prompt
    /// waiting for the person now (earlier rounds of the same prompt are higher up).
    /// Returns the whole screen.
    pub fn prompt(&self, text: &str) -> String {
        let started = Instant::now();
        loop {
            let visible = self.visible();
            let lines: Vec<&str> = visible.lines().filter(|l| !l.trim().is_empty()).collect();
            let tail = &lines[lines.len().saturating_sub(12)..];
            if tail.iter().any(|l| l.contains(text)) {
                return self.screen();
            }
            assert!(
                started.elapsed() < PATIENCE,
                "waited {PATIENCE:?} for the prompt {text:?}; the screen shows:\n{visible}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Press keys (tmux key names: `Enter`, `Escape`, `C-u`, `M-Enter`, `Down`…).
    pub fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys"];
        args.extend_from_slice(keys);
        self.tmux(&args);
        std::thread::sleep(Duration::from_millis(150));
    }

    /// Type text as it is.
    pub fn text(&self, text: &str) {
        self.keys(&["-l", text]);
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        self.tmux(&["kill-server"]);
    }
}

/// Keep a screen as a text file under `target/tmp/screens/` (and
/// `$FRONTDESK_PTY_CAPTURE`).
pub fn keep(name: &str, screen: &str) {
    let mut dirs = vec![PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("screens")];
    if let Some(dir) = std::env::var_os("FRONTDESK_PTY_CAPTURE") {
        dirs.push(PathBuf::from(dir));
    }
    for dir in dirs {
        let _ = std::fs::create_dir_all(&dir);
        let _ = std::fs::write(dir.join(name), screen);
    }
}

/// `text` with every run of whitespace (line breaks and indents included) as one
/// space: what a person reads, however it was wrapped.
pub fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The part of `screen` from the last line containing `from` to the first line after
/// it containing `to` (both included).
pub fn between<'a>(screen: &'a str, from: &str, to: &str) -> &'a str {
    let start = screen.rfind(from).unwrap_or(0);
    let rest = &screen[start..];
    let end = rest.find(to).map_or(rest.len(), |i| i + to.len());
    &rest[..end]
}

/// Assert that no row of the screen was wrapped by the terminal (so no line was cut
/// inside a word): the screen and its joined form have the same lines, except lines
/// holding a word longer than the whole width (a long URL), which cannot fit.
pub fn assert_no_terminal_wrap(tmux: &Tmux, what: &str) {
    let rows = tmux.screen();
    let joined = tmux.joined();
    let rows: Vec<&str> = rows.lines().collect();
    for line in joined.lines() {
        // A line of the JSON view is never cut by the program (so it copies as
        // JSON): only the terminal folds it.
        if line.chars().count() <= tmux.width || line.trim_start().starts_with('"') {
            continue;
        }
        let unbreakable = line
            .split(' ')
            .any(|w| w.chars().count() >= tmux.width.saturating_sub(12));
        assert!(
            unbreakable,
            "{what}: the terminal wrapped this line at {} columns (a line cut inside a word):\n{line}\n\nscreen:\n{}",
            tmux.width,
            rows.join("\n")
        );
    }
}

/// The last pretty-printed JSON object on `joined` (a screen captured with its
/// wrapped rows joined, as a person's copy gives it back): from the last line
/// that is `{` to the next line that is `}`, parsed. Panics when it is not
/// valid JSON (a line cut inside a string).
pub fn last_json_object(joined: &str) -> serde_json::Value {
    let lines: Vec<&str> = joined.lines().collect();
    let start = lines
        .iter()
        .rposition(|l| l.trim_end() == "{")
        .unwrap_or_else(|| panic!("no JSON object on the screen:\n{joined}"));
    let end = start
        + lines[start..]
            .iter()
            .position(|l| l.trim_end() == "}")
            .unwrap_or_else(|| panic!("the JSON object never ends:\n{joined}"));
    let text = lines[start..=end].join("\n");
    serde_json::from_str(&text).unwrap_or_else(|e| {
        panic!("the JSON as copied from the screen is not valid ({e}):\n{text}")
    })
}
