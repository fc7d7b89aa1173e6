//! `frontdesk connect` in a terminal: a tool's arguments asked as a form, the result
//! as text and as JSON on a key, a form asked again keeping the answers, "stop
//! asking", and log lines held while a form is on screen.

use crate::lab::answer_the_return_form;
use crate::support::{BIN, scenario_server};
use crate::tmux::{Tmux, assert_no_terminal_wrap, between, flat, keep, last_json_object};

#[test]
fn connect_asks_arguments_as_a_form_and_shows_the_result_as_text_then_json() {
    let Some(tmux) = Tmux::start("connect", 80, &format!("{BIN} connect --demo"), &[]) else {
        return;
    };
    let screen = tmux.wait_for("Call which tool?");
    assert!(
        // The demo is versioned with the workspace, as this crate is.
        screen.contains(&format!(
            "connected to brightgrid {} (2026-07-28)",
            env!("CARGO_PKG_VERSION")
        )),
        "{screen}"
    );
    assert!(
        screen.contains("book_return — Book the return of an order"),
        "{screen}"
    );
    assert!(screen.contains("(quit)"), "{screen}");
    tmux.keys(&["Enter"]); // book_return
    let screen = tmux.prompt("? Order id *");
    assert!(
        screen.contains("── Arguments of book_return ──"),
        "{screen}"
    );
    assert!(
        screen.contains("The order to return items from."),
        "{screen}"
    );
    tmux.text("A-1001");
    tmux.keys(&["Enter"]);
    let screen = tmux.prompt("Arguments: [a] call it");
    assert!(screen.contains("Call book_return with:"), "{screen}");
    assert!(screen.contains("Order id *  A-1001"), "{screen}");
    tmux.keys(&["a"]);
    answer_the_return_form(&tmux, 1);
    let screen = tmux.prompt("Next: [n] call another tool");
    let result = between(&screen, "Result of book_return:", "[q] quit");
    keep("connect-result.txt", result);
    assert!(
        flat(result).contains(
            "Return booked for order A-1001: 2 box(es) collected on 2026-12-01 (Wrong item)"
        ),
        "{result}"
    );
    assert!(
        flat(result).contains("(it also sent structured content: [j] shows the result as JSON)"),
        "{result}"
    );
    assert!(!result.contains("resultType"), "{result}");
    tmux.keys(&["j"]);
    let screen = tmux.wait_for("\"structuredContent\"");
    assert!(screen.contains("\"status\": \"booked\""), "{screen}");
    assert!(
        screen.contains("\"contactEmail\": \"ann@example.com\""),
        "{screen}"
    );
    // The text block is longer than 80 columns: the terminal folds it on
    // screen, but no line break is put inside the string, so what a person
    // copies (rows joined) is the JSON itself.
    tmux.prompt("Next: [n] call another tool");
    let json = last_json_object(&tmux.joined());
    assert_eq!(json["structuredContent"]["status"], "booked", "{json}");
    let text = json["content"][0]["text"].as_str().unwrap_or_default();
    assert!(
        text.chars().count() > 80,
        "a string longer than a row: {text}"
    );
    assert!(
        text.starts_with("Return booked for order A-1001: 2 box(es)"),
        "{text}"
    );
    tmux.keys(&["q"]);
    tmux.wait_for("EXITED 0");
}

#[test]
fn a_form_asked_again_keeps_the_answers_and_stop_asking_silences_the_server() {
    let server = scenario_server("reask");
    let Some(tmux) = Tmux::start("reask", 80, &format!("{BIN} connect -- {server}"), &[]) else {
        return;
    };
    tmux.prompt("Call which tool?");
    tmux.keys(&["Enter"]); // book_pickup: no arguments
    tmux.prompt("? Your name *  (1 of 4)");
    tmux.text("Ann");
    tmux.keys(&["Enter"]);
    tmux.prompt("? Pickup date *  (2 of 4)");
    tmux.text("2026-12-05");
    tmux.keys(&["Enter"]);
    tmux.prompt("? Contact email *  (3 of 4)");
    tmux.text("ann@example.com");
    tmux.keys(&["Enter"]);
    tmux.prompt("? Notes  (4 of 4)");
    tmux.text("side door");
    tmux.keys(&["Enter"]);
    tmux.prompt("Review:");
    tmux.keys(&["a"]);
    // The server says the day is full and asks the same form again.
    let screen = tmux.prompt("? Your name *  (1 of 4)");
    let again = between(&screen, "2026-12-05 is full", "(1 of 4)");
    keep(
        "reask.txt",
        between(&screen, "── pickups", "or stop asking"),
    );
    assert!(
        again.contains("Filled in from your last answer to this form; check each field."),
        "{screen}"
    );
    assert!(screen.contains("› Ann"), "{screen}");
    tmux.keys(&["Enter"]);
    let screen = tmux.prompt("? Pickup date *  (2 of 4)");
    assert!(screen.contains("› 2026-12-05"), "{screen}");
    tmux.keys(&["C-u"]);
    tmux.text("2026-12-07");
    tmux.keys(&["Enter"]);
    tmux.prompt("? Contact email *  (3 of 4)");
    tmux.keys(&["Enter"]);
    tmux.prompt("? Notes  (4 of 4)");
    tmux.keys(&["Enter"]);
    let screen = tmux.prompt("Review:");
    keep(
        "reask-review.txt",
        between(&screen, "Review your answer to pickups", "[c] cancel"),
    );
    tmux.keys(&["a"]);
    let screen = tmux.prompt("Next: [n] call another tool");
    for kept in [
        r#"name="Ann""#,
        r#"contact_email="ann@example.com""#,
        r#"notes="side door""#,
        r#"pickup_date="2026-12-07""#,
    ] {
        assert!(screen.contains(kept), "{kept} in:\n{screen}");
    }

    // Call again and stop the server asking: this question and the next are cancelled.
    tmux.keys(&["n"]);
    tmux.prompt("Call which tool?");
    tmux.keys(&["Enter"]);
    tmux.prompt("? Your name *  (1 of 4)");
    tmux.keys(&["Escape"]);
    tmux.prompt("[b] back");
    tmux.keys(&["s"]);
    let screen = tmux.prompt("Next: [n] call another tool");
    assert!(
        flat(&screen).contains("pickups 1.0 will not ask you anything more on this connection"),
        "{screen}"
    );
    assert_eq!(
        screen.matches("Not booked (cancel).").count(),
        1,
        "{screen}"
    );
    tmux.keys(&["n"]);
    tmux.prompt("Call which tool?");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for_n("Not booked (cancel).", 2);
    assert_eq!(
        screen.matches("Your name *  (1 of 4)").count(),
        3,
        "not asked a fourth time:\n{screen}"
    );
    tmux.keys(&["q"]);
    tmux.wait_for("EXITED 0");
}

#[test]
fn log_lines_wait_while_a_form_is_on_screen() {
    let server = scenario_server("noisy");
    let Some(tmux) = Tmux::start(
        "noisy",
        80,
        &format!("{BIN} connect -- {server}"),
        &[("RUST_LOG", "warn,frontdesk::server_stderr=info")],
    ) else {
        return;
    };
    tmux.prompt("Call which tool?");
    tmux.keys(&["Enter"]);
    tmux.prompt("? Your name *  (1 of 2)");
    // The server writes a line every 50 ms while it waits; none lands in the form.
    std::thread::sleep(std::time::Duration::from_millis(800));
    tmux.text("Ann");
    tmux.keys(&["Enter"]);
    tmux.prompt("? City  (2 of 2)");
    std::thread::sleep(std::time::Duration::from_millis(300));
    let screen = tmux.screen();
    let form = between(&screen, "── noisy", "? City");
    assert!(
        !form.contains("tick"),
        "a log line inside the form:\n{form}"
    );
    assert_no_terminal_wrap(&tmux, "the noisy form");
    tmux.keys(&["Enter"]);
    tmux.prompt("Review:");
    tmux.keys(&["a"]);
    // Once the form is gone, the held lines are written out.
    let screen = tmux.wait_for("tick 5");
    let form = between(&screen, "── noisy", "Review:");
    assert!(!form.contains("tick"), "{form}");
    assert!(screen.contains("Hello"), "{screen}");
    tmux.keys(&["q"]);
    tmux.wait_for("EXITED 0");
}
