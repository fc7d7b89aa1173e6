//! Server text made safe to print: no raw control characters, no ANSI escape
//! sequences, no bidi overrides or invisible characters from the server reach the
//! terminal.

use frontdesk_url::escape_for_display;
use frontdesk_wire::Implementation;

/// The most characters of a server message shown (the rest is cut with `…`).
pub const MAX_MESSAGE_CHARS: usize = 4000;

/// A server-supplied text (message, title, description) made safe for a terminal.
///
/// Line breaks are kept (at most `max_chars` characters in all), tabs become spaces,
/// and every other C0/C1 control, bidi override and invisible character is shown as a
/// visible `\u{…}` escape, so a server cannot move the cursor, recolour the screen or
/// reorder what the person reads.
///
/// ```
/// use frontdesk_host::sanitize::display_text;
/// assert_eq!(display_text("hi\x1b[2Jthere", 100), "hi\\u{001B}[2Jthere");
/// assert_eq!(display_text("a\nb\tc", 100), "a\nb    c");
/// ```
pub fn display_text(text: &str, max_chars: usize) -> String {
    let mut out = String::new();
    let mut budget = max_chars;
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        if budget == 0 {
            out.push('…');
            break;
        }
        let line = line.trim_end_matches('\r').replace('\t', "    ");
        let shown = escape_for_display(&line, budget);
        budget = budget.saturating_sub(line.chars().count().max(1));
        out.push_str(&shown);
    }
    out
}

/// A one-line text: like [`display_text`], but line breaks are escaped too.
pub fn display_line(text: &str, max_chars: usize) -> String {
    escape_for_display(text, max_chars)
}

/// How a server names itself to a person: its title (or name) and version, escaped.
pub fn server_label(server: &Implementation) -> String {
    let name = server
        .title
        .as_deref()
        .filter(|t| !t.trim().is_empty())
        .unwrap_or(&server.name);
    let name = display_line(name, 80);
    if server.version.is_empty() {
        name
    } else {
        format!("{name} {}", display_line(&server.version, 40))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_ansi_bidi_and_c1() {
        let shown = display_text("pay \u{202E}evil\u{202C} now\u{9b}31m", 100);
        assert!(!shown.contains('\u{202E}'));
        assert!(!shown.contains('\u{9b}'));
        assert!(shown.contains("\\u{202E}"));
    }

    #[test]
    fn cuts_long_text() {
        let long = "x".repeat(50);
        let shown = display_text(&long, 10);
        assert_eq!(shown.chars().count(), 11);
        assert!(shown.ends_with('…'));
    }

    #[test]
    fn one_line_escapes_newlines() {
        assert_eq!(display_line("a\nb", 10), "a\\u{000A}b");
    }
}
