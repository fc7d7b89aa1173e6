//! `frontdesk lab` in an 80-column terminal, used as a person uses it: book a return
//! (readline keys, the live email check, a multi-line note, the review, a one-key
//! confirmation), read the result as text, connect a store account through the
//! consent screen, switch protocol; Esc at the first field to decline; --show-wire.

use crate::support::BIN;
use crate::tmux::{Tmux, assert_no_terminal_wrap, between, flat, keep, last_json_object};

/// The demo's book_return questions, answered the `round`-th time on this screen:
/// wrong item, 2 boxes (Ctrl-U clears the default), a date typed out of order
/// (Ctrl-A), an email fixed after the live check, a two-line note, review, accept;
/// then the confirmation, one key.
pub fn answer_the_return_form(tmux: &Tmux, round: usize) {
    let screen = tmux.prompt("? Reason *  (1 of 5)");
    assert!(screen.contains("It arrived damaged"), "{screen}");
    assert!(
        screen.contains("Wrong item"),
        "titles, not values:\n{screen}"
    );
    assert!(screen.contains("asks you to fill in a form"), "{screen}");
    assert!(screen.contains("5 fields, 3 required (*)"), "{screen}");
    assert!(screen.contains("── brightgrid"), "{screen}");
    assert!(screen.contains("tools/call book_return"), "{screen}");
    assert!(
        screen.contains("Esc: decline, cancel or stop asking"),
        "{screen}"
    );
    if round == 1 {
        keep("form-first-field.txt", &screen);
    }
    tmux.keys(&["Down", "Enter"]); // Wrong item
    let screen = tmux.prompt("? Number of boxes  (2 of 5)");
    assert!(screen.contains("a whole number from 1 to 3"), "{screen}");
    assert!(
        screen.contains("› 1"),
        "the default is pre-filled:\n{screen}"
    );
    tmux.keys(&["C-u"]);
    tmux.text("2");
    tmux.keys(&["Enter"]);
    tmux.prompt("✔ Number of boxes  (2 of 5): 2");
    tmux.prompt("? Pickup date *  (3 of 5)");
    tmux.text("026-12-01");
    tmux.keys(&["C-a"]);
    tmux.text("2");
    tmux.keys(&["Enter"]);
    tmux.prompt("✔ Pickup date *  (3 of 5): 2026-12-01");
    tmux.prompt("? Contact email *  (4 of 5)");
    tmux.text("ann@");
    // Checked as it is typed: the problem shows before Enter.
    let screen = tmux.prompt("! Contact email must be an email address");
    if round == 1 {
        keep("form-live-check.txt", &screen);
        assert_no_terminal_wrap(tmux, "the form at 80 columns");
    }
    tmux.text("example.com");
    tmux.keys(&["Enter"]);
    tmux.prompt("? Notes  (5 of 5)");
    tmux.text("ring");
    tmux.keys(&["M-Enter"]);
    tmux.text("twice");
    tmux.keys(&["Enter"]);
    let screen = tmux.prompt("Review:");
    let review = between(&screen, "Review your answer to brightgrid", "[c] cancel");
    if round == 1 {
        keep("review.txt", review);
    }
    assert!(review.contains("Wrong item"), "{review}");
    assert!(review.contains("ann@example.com"), "{review}");
    assert!(review.contains("ring ⏎ twice"), "{review}");
    assert!(review.contains("[a] accept and send"), "{review}");
    assert!(review.contains("[d] decline"), "{review}");
    tmux.keys(&["a"]);
    // The confirmation: one key sends it.
    let screen = tmux.prompt("Book this pickup? [y] answer Yes  [n] answer No");
    assert!(screen.contains("[Enter] keep Yes"), "{screen}");
    assert!(
        screen.contains("[d] decline to answer  [c] cancel"),
        "an answer No is told apart from declining:\n{screen}"
    );
    tmux.keys(&["y"]);
}

fn book_a_return(tmux: &Tmux, round: usize) -> String {
    tmux.prompt("Choose:");
    tmux.keys(&["1"]);
    tmux.prompt("? Order to return");
    tmux.keys(&["Enter"]); // keeps A-1001
    answer_the_return_form(tmux, round);
    let screen = tmux.wait_for_n("What travelled on the wire", round);
    let result = between(
        &screen,
        "Result of book_return:",
        "What travelled on the wire",
    );
    assert!(
        flat(result).contains("Return booked for order A-1001: 2 box(es) collected on 2026-12-01"),
        "the text content, not JSON:\n{result}"
    );
    assert!(!result.contains("\"status\""), "{result}");
    result.to_owned()
}

#[test]
fn lab_books_a_return_and_connects_an_account_in_an_80_column_terminal() {
    let Some(tmux) = Tmux::start("lab", 80, &format!("{BIN} lab --protocol 2025-11-25"), &[])
    else {
        return;
    };
    let result = book_a_return(&tmux, 1);
    keep("result.txt", &result);
    let screen = tmux.screen();
    assert!(screen.contains("elicitation/create"), "{screen}");

    // The result said "[j] shows the result as JSON": the menu offers [j], and
    // the JSON copies back valid (no line cut inside its long text string).
    let screen = tmux.prompt("Choose:");
    assert!(
        screen.contains("[j] see the last result as JSON"),
        "{screen}"
    );
    tmux.keys(&["j"]);
    tmux.wait_for("\"structuredContent\"");
    tmux.prompt("Choose:");
    let json = last_json_object(&tmux.joined());
    assert_eq!(json["structuredContent"]["status"], "booked", "{json}");
    assert!(
        json["content"][0]["text"]
            .as_str()
            .is_some_and(|t| t.chars().count() > 80),
        "{json}"
    );

    // URL mode: the consent screen, then a simulated sign-in.
    tmux.keys(&["2"]);
    let screen = tmux.wait_for("Your choice:");
    let consent = between(&screen, "── brightgrid", "[c] cancel");
    keep("consent.txt", consent);
    assert!(consent.contains("asks you to open a link"), "{consent}");
    assert!(
        consent.contains("\nhttp://127.0.0.1:"),
        "the whole URL on one line:\n{consent}"
    );
    assert!(
        consent.contains("       ^^^^^^^^^ host: check it"),
        "{consent}"
    );
    assert!(
        flat(consent).contains("Sign in to your Brightgrid store account"),
        "{consent}"
    );
    assert!(consent.contains("[o] open in browser"), "{consent}");
    assert!(consent.contains("[s] simulate signing in"), "{consent}");
    assert_no_terminal_wrap(&tmux, "the consent screen at 80 columns");
    tmux.keys(&["s"]);
    let screen = tmux.wait_for_n("What travelled on the wire", 2);
    assert!(
        screen.contains("Your store account is connected."),
        "{screen}"
    );

    // Switch to 2026-07-28 and book again.
    tmux.keys(&["3"]);
    tmux.wait_for("protocol 2026-07-28");
    book_a_return(&tmux, 2);
    let screen = tmux.screen();
    assert!(
        screen.contains("returned input_required with 1 question"),
        "{screen}"
    );
    tmux.keys(&["q"]);
    tmux.wait_for("EXITED 0");
}

#[test]
fn esc_at_the_first_field_declines_and_the_server_hears_it() {
    let Some(tmux) = Tmux::start("esc", 80, &format!("{BIN} lab"), &[]) else {
        return;
    };
    tmux.wait_for("Choose:");
    tmux.keys(&["1"]);
    tmux.wait_for("Order to return");
    tmux.keys(&["Enter"]);
    tmux.prompt("? Reason *  (1 of 5)");
    tmux.keys(&["Escape"]);
    let screen = tmux.prompt("[b] back");
    assert!(
        screen.contains("Leave this request from brightgrid"),
        "{screen}"
    );
    assert!(
        screen.contains("[d] decline: tell the server no"),
        "{screen}"
    );
    assert!(screen.contains("[s] stop asking"), "{screen}");
    tmux.keys(&["d"]);
    let screen = tmux.wait_for("What travelled on the wire");
    assert!(
        screen.contains("Declined: the server was told no"),
        "{screen}"
    );
    assert!(
        screen.contains("No return was booked: the person declined."),
        "{screen}"
    );
    // Esc twice cancels, and the screen says the server was told.
    tmux.prompt("Choose:");
    tmux.keys(&["1"]);
    tmux.prompt("? Order to return");
    tmux.keys(&["Enter"]);
    tmux.prompt("? Reason *  (1 of 5)");
    tmux.keys(&["Escape"]);
    tmux.prompt("[b] back");
    tmux.keys(&["Escape"]);
    let screen = tmux.wait_for_n("What travelled on the wire", 2);
    assert!(
        screen.contains("Cancelled: the server was told you dismissed it"),
        "{screen}"
    );
    assert!(
        screen.contains("No return was booked: the question was dismissed."),
        "{screen}"
    );
    tmux.keys(&["q"]);
    tmux.wait_for("EXITED 0");
}

#[test]
fn lab_show_wire_prints_every_json_rpc_message() {
    let Some(tmux) = Tmux::start(
        "wire",
        100,
        &format!("{BIN} lab --show-wire --protocol 2025-11-25"),
        &[],
    ) else {
        return;
    };
    tmux.wait_for("Choose:");
    let screen = tmux.joined();
    assert!(
        screen.contains(r#"wire → {"jsonrpc":"2.0","id":"#) && screen.contains("initialize"),
        "{screen}"
    );
    assert!(
        screen.contains(r#""method":"notifications/initialized""#),
        "{screen}"
    );
    tmux.keys(&["1"]);
    tmux.wait_for("Order to return");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Reason *");
    tmux.keys(&["C-c"]);
    tmux.wait_for("What travelled on the wire");
    let screen = tmux.joined();
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
    tmux.wait_for("EXITED 0");
}
