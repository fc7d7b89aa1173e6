//! `frontdesk lab` in a real pseudo-terminal (tmux), used as a person uses it: book a
//! return with a wrong email first, read the message, fix it, review, accept; then
//! connect a store account through the URL consent screen. Asserts what the screen
//! showed and what the server received (the tool result echoes the booking). Also
//! `frontdesk connect --demo` (pick book_return, fill in its arguments, answer the form,
//! read the result) and `frontdesk lab --show-wire` (every JSON-RPC message printed).
//!
//! Skips (with a note) when tmux is not installed. Set `FRONTDESK_PTY_CAPTURE=DIR` to
//! keep the captured screens as text files.

#![allow(clippy::unwrap_used)]

use std::process::Command;
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_frontdesk");

struct Tmux {
    socket: String,
}

impl Tmux {
    fn start(name: &str, command: &str) -> Option<Tmux> {
        let available = Command::new("tmux")
            .arg("-V")
            .output()
            .is_ok_and(|o| o.status.success());
        if !available {
            eprintln!("note: tmux is not installed; skipping the pseudo-terminal test");
            return None;
        }
        let socket = format!("frontdesk-{name}-{}", std::process::id());
        let status = Command::new("tmux")
            .args([
                "-L",
                &socket,
                "-f",
                "/dev/null",
                "new-session",
                "-d",
                "-x",
                "100",
                "-y",
                "50",
            ])
            .arg(format!("{command}; echo LAB-EXITED $?; sleep 30"))
            .env("NO_COLOR", "1")
            .env("RUST_LOG", "warn")
            .env_remove("DISPLAY")
            .env_remove("WAYLAND_DISPLAY")
            .env_remove("BROWSER")
            .status()
            .unwrap();
        assert!(status.success(), "tmux could not start");
        Some(Tmux { socket })
    }

    fn screen(&self) -> String {
        self.capture(&[])
    }

    /// The screen with wrapped lines joined (for long lines like wire messages).
    fn joined(&self) -> String {
        self.capture(&["-J"])
    }

    fn capture(&self, extra: &[&str]) -> String {
        let out = Command::new("tmux")
            .args(["-L", &self.socket, "capture-pane", "-p", "-S", "-400"])
            .args(extra)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Wait (at most 10 s) until the screen shows `text` `times` times in all.
    fn wait_for_n(&self, text: &str, times: usize) -> String {
        let started = Instant::now();
        loop {
            let screen = self.screen();
            if screen.matches(text).count() >= times {
                return screen;
            }
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "waited 10 s for {text:?} (x{times}); the screen shows:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn wait_for(&self, text: &str) -> String {
        self.wait_for_n(text, 1)
    }

    fn keys(&self, keys: &[&str]) {
        let status = Command::new("tmux")
            .args(["-L", &self.socket, "send-keys"])
            .args(keys)
            .status()
            .unwrap();
        assert!(status.success());
        std::thread::sleep(Duration::from_millis(150));
    }

    fn text(&self, text: &str) {
        self.keys(&["-l", text]);
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .status();
    }
}

fn keep(name: &str, screen: &str) {
    if let Some(dir) = std::env::var_os("FRONTDESK_PTY_CAPTURE") {
        let _ = std::fs::create_dir_all(&dir);
        let _ = std::fs::write(std::path::Path::new(&dir).join(name), screen);
    }
}

fn book_a_return(tmux: &Tmux, round: usize) {
    tmux.wait_for_n("Choose:", round);
    tmux.keys(&["1"]);
    tmux.wait_for_n("Order to return", round);
    tmux.keys(&["Enter"]); // keeps A-1001
    answer_the_return_form(tmux, round);
    let screen = tmux.wait_for_n("What travelled on the wire", round);
    assert!(screen.contains("\"status\": \"booked\""), "{screen}");
    assert!(
        screen.contains("\"contactEmail\": \"ann@example.com\""),
        "{screen}"
    );
    assert!(screen.contains("\"reason\": \"wrong_item\""), "{screen}");
    assert!(screen.contains("\"boxes\": 2"), "{screen}");
}

/// The demo's book_return questions, answered as a person would (the `round`-th
/// time on this screen): wrong item, 2 boxes, a date, a wrong then a fixed email,
/// no notes, review, accept; then the confirmation, accepted with its default.
fn answer_the_return_form(tmux: &Tmux, round: usize) {
    let screen = tmux.wait_for_n("Reason *", round);
    assert!(screen.contains("It arrived damaged"), "{screen}");
    assert!(
        screen.contains("Wrong item"),
        "titles, not raw values:\n{screen}"
    );
    assert!(screen.contains("asks you to fill in a form"), "{screen}");
    assert!(screen.contains("── brightgrid"), "{screen}");
    assert!(screen.contains("tools/call book_return"), "{screen}");
    tmux.keys(&["Down", "Enter"]); // Wrong item
    let screen = tmux.wait_for_n("Number of boxes", round);
    assert!(screen.contains("a whole number from 1 to 3"), "{screen}");
    tmux.keys(&["BSpace"]);
    tmux.text("2");
    tmux.keys(&["Enter"]);
    tmux.wait_for_n("Pickup date *", round);
    tmux.text("2026-12-01");
    tmux.keys(&["Enter"]);
    tmux.wait_for_n("Contact email *", round);
    tmux.text("ann@");
    tmux.keys(&["Enter"]);
    // The message stays only until the input is fixed, so it is on screen once.
    let screen = tmux.wait_for("must be an email address");
    keep(&format!("form-error-{round}.txt"), &screen);
    tmux.text("example.com");
    tmux.keys(&["Enter"]);
    tmux.wait_for_n("Notes", round);
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for_n("Review:", 2 * round - 1);
    keep(&format!("form-review-{round}.txt"), &screen);
    assert!(
        screen.contains("Review your answer to brightgrid"),
        "{screen}"
    );
    assert!(screen.contains("ann@example.com"), "{screen}");
    assert!(screen.contains("[a] accept and send"), "{screen}");
    assert!(screen.contains("[d] decline"), "{screen}");
    assert!(screen.contains("[c] cancel"), "{screen}");
    tmux.keys(&["a"]);
    // The confirmation question: its default (yes) is pre-filled.
    tmux.wait_for_n("Book this pickup", round);
    tmux.keys(&["Enter"]);
    tmux.wait_for_n("Review:", 2 * round);
    tmux.keys(&["a"]);
}

#[test]
fn lab_books_a_return_and_connects_an_account_in_a_terminal() {
    let Some(tmux) = Tmux::start("lab", &format!("{BIN} lab --protocol 2025-11-25")) else {
        return;
    };
    book_a_return(&tmux, 1);
    let screen = tmux.screen();
    assert!(screen.contains("elicitation/create"), "{screen}");

    // URL mode: the consent screen, then a simulated sign-in.
    tmux.keys(&["2"]);
    let screen = tmux.wait_for("asks you to open a link");
    let screen = if screen.contains("Your choice:") {
        screen
    } else {
        tmux.wait_for("Your choice:")
    };
    keep("consent.txt", &screen);
    assert!(screen.contains("URL:      http://127.0.0.1:"), "{screen}");
    assert!(screen.contains("^^^^^^^^^ host: check it"), "{screen}");
    assert!(
        screen.contains("Sign in to your Brightgrid store account"),
        "{screen}"
    );
    assert!(screen.contains("warning"), "{screen}");
    assert!(screen.contains("[o] open in browser"), "{screen}");
    assert!(screen.contains("[s] simulate signing in"), "{screen}");
    tmux.keys(&["s"]);
    let screen = tmux.wait_for_n("What travelled on the wire", 2);
    assert!(
        screen.contains("Your store account is connected."),
        "{screen}"
    );

    // Switch to 2026-07-28 and book again: the explanation speaks of input_required.
    tmux.keys(&["3"]);
    tmux.wait_for("protocol 2026-07-28");
    book_a_return(&tmux, 2);
    let screen = tmux.screen();
    assert!(
        screen.contains("returned input_required with 1 question"),
        "{screen}"
    );
    tmux.keys(&["q"]);
    tmux.wait_for("LAB-EXITED 0");
}

#[test]
fn esc_at_the_form_cancels_and_the_server_hears_it() {
    let Some(tmux) = Tmux::start("esc", &format!("{BIN} lab")) else {
        return;
    };
    tmux.wait_for("Choose:");
    tmux.keys(&["1"]);
    tmux.wait_for("Order to return");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Reason *");
    tmux.keys(&["Escape"]);
    let screen = tmux.wait_for("What travelled on the wire");
    assert!(screen.contains("Cancelled: nothing was sent."), "{screen}");
    assert!(
        screen.contains("No return was booked: the question was dismissed."),
        "{screen}"
    );
    tmux.keys(&["q"]);
    tmux.wait_for("LAB-EXITED 0");
}

#[test]
fn connect_demo_picks_a_tool_fills_its_arguments_and_answers_the_form() {
    let Some(tmux) = Tmux::start("connect", &format!("{BIN} connect --demo")) else {
        return;
    };
    let screen = tmux.wait_for("Call which tool?");
    keep("connect-tools.txt", &screen);
    assert!(screen.contains("connected to brightgrid"), "{screen}");
    assert!(screen.contains("(2026-07-28)"), "{screen}");
    assert!(
        screen.contains("book_return — Book the return of an order"),
        "{screen}"
    );
    assert!(screen.contains("connect_store_account"), "{screen}");
    assert!(screen.contains("(quit)"), "{screen}");
    tmux.keys(&["Enter"]); // book_return, the first tool
    let screen = tmux.wait_for("Arguments of book_return (JSON)");
    assert!(
        screen.contains(r#"{"order_id":""}"#),
        "a skeleton from the input schema:\n{screen}"
    );
    // Fill in the blank: into the empty string, before `"}`.
    tmux.keys(&["Left", "Left"]);
    tmux.text("A-1001");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("Reason *");
    assert!(screen.contains("Calling book_return"), "{screen}");
    assert!(screen.contains("tools/call book_return"), "{screen}");
    assert!(screen.contains("A-1001"), "{screen}");
    answer_the_return_form(&tmux, 1);
    // The result on stdout, then the tool list again.
    let screen = tmux.wait_for_n("Call which tool?", 2);
    keep("connect-result.txt", &screen);
    assert!(screen.contains("\"status\": \"booked\""), "{screen}");
    assert!(screen.contains("\"orderId\": \"A-1001\""), "{screen}");
    assert!(
        screen.contains("\"contactEmail\": \"ann@example.com\""),
        "{screen}"
    );
    assert!(screen.contains("\"boxes\": 2"), "{screen}");
    tmux.keys(&["Escape"]);
    tmux.wait_for("LAB-EXITED 0");
}

#[test]
fn lab_show_wire_prints_every_json_rpc_message() {
    let Some(tmux) = Tmux::start(
        "wire",
        &format!("{BIN} lab --show-wire --protocol 2025-11-25"),
    ) else {
        return;
    };
    tmux.wait_for("Choose:");
    let screen = tmux.joined();
    // The handshake, both ways, before the menu.
    assert!(
        screen.contains(r#"wire → {"jsonrpc":"2.0","id":"#) && screen.contains("initialize"),
        "{screen}"
    );
    assert!(screen.contains("wire ← "), "{screen}");
    assert!(
        screen.contains(r#""method":"notifications/initialized""#),
        "{screen}"
    );
    tmux.keys(&["1"]);
    tmux.wait_for("Order to return");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Reason *");
    tmux.keys(&["Escape"]);
    tmux.wait_for("What travelled on the wire");
    let screen = tmux.joined();
    keep("show-wire.txt", &screen);
    let lines: Vec<&str> = screen.lines().filter(|l| l.contains("  wire ")).collect();
    let has = |arrow: &str, text: &str| {
        lines
            .iter()
            .any(|l| l.contains(&format!("wire {arrow} ")) && l.contains(text))
    };
    assert!(has("→", r#""method":"tools/call""#), "{screen}");
    assert!(has("←", r#""method":"elicitation/create""#), "{screen}");
    assert!(has("→", r#""action":"cancel""#), "{screen}");
    assert!(has("←", "No return was booked"), "{screen}");
    tmux.keys(&["q"]);
    tmux.wait_for("LAB-EXITED 0");
}
