//! Server text made safe to print: the one path every server-controlled string takes
//! before the host or the CLI prints or logs it.
//!
//! A character is *unsafe* ([`is_unsafe`]) when a terminal would act on it or hide it
//! instead of showing it: C0 and C1 controls (ESC starts CSI, OSC — window titles,
//! OSC 8 links —, DCS…; U+009B is an 8-bit CSI), DEL, format characters (bidi
//! overrides and isolates, zero-width joiners, tags), line and paragraph separators,
//! spaces other than U+0020, and the invisible fillers (Hangul fillers, braille blank,
//! variation selectors). Unsafe characters are shown as a visible `\u{…}` escape, so
//! the person reads exactly what the server sent and the terminal does nothing.
//!
//! - Content: [`display_text`] (line breaks kept), [`display_line`] (one line),
//!   [`server_label`].
//! - Sinks: [`terminal_safe`] is applied by every writer to the terminal (the
//!   terminal screen, the CLI's output, the log formatter) on top of the above, so a
//!   path that forgot still cannot emit a raw control; [`json_for_terminal`] prints
//!   JSON with unsafe characters as `\u` escapes (the same JSON value, nothing raw).

use std::borrow::Cow;

use frontdesk_wire::Implementation;
use serde_json::Value;
use unicode_general_category::{GeneralCategory, get_general_category};

/// The most characters of a server message shown (the rest is cut with `…`).
pub const MAX_MESSAGE_CHARS: usize = 4000;

/// Whether `c` must never reach a terminal as itself (see the module docs).
///
/// ```
/// use frontdesk_host::sanitize::is_unsafe;
/// assert!(is_unsafe('\u{1b}') && is_unsafe('\u{9b}') && is_unsafe('\u{202e}'));
/// assert!(is_unsafe('\u{200b}') && is_unsafe('\u{e0041}') && is_unsafe('\u{a0}'));
/// assert!(!is_unsafe('é') && !is_unsafe(' ') && !is_unsafe('→'));
/// ```
pub fn is_unsafe(c: char) -> bool {
    match get_general_category(c) {
        GeneralCategory::Control
        | GeneralCategory::Format
        | GeneralCategory::LineSeparator
        | GeneralCategory::ParagraphSeparator
        | GeneralCategory::Surrogate => true,
        GeneralCategory::SpaceSeparator => c != ' ',
        _ => matches!(
            c,
            '\u{034F}'
                | '\u{115F}'
                | '\u{1160}'
                | '\u{17B4}'
                | '\u{17B5}'
                | '\u{180B}'..='\u{180F}'
                | '\u{2800}'
                | '\u{3164}'
                | '\u{FE00}'..='\u{FE0F}'
                | '\u{FFA0}'
                | '\u{E0100}'..='\u{E01EF}'
        ),
    }
}

fn push_escaped(out: &mut String, c: char) {
    out.push_str(&format!("\\u{{{:04X}}}", u32::from(c)));
}

/// Escape every unsafe character of one line, cutting after `max_chars` characters.
fn escape_line(line: &str, max_chars: usize, out: &mut String) {
    for (i, c) in line.chars().enumerate() {
        if i >= max_chars {
            out.push('…');
            return;
        }
        if is_unsafe(c) {
            push_escaped(out, c);
        } else {
            out.push(c);
        }
    }
}

/// A server-supplied text (message, title, description) made safe for a terminal.
///
/// Line breaks are kept (at most `max_chars` characters in all), tabs become spaces,
/// and every other unsafe character is shown as a visible `\u{…}` escape, so a server
/// cannot move the cursor, recolour the screen, retitle the window, print a link or
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
        escape_line(&line, budget, &mut out);
        budget = budget.saturating_sub(line.chars().count().max(1));
    }
    out
}

/// A one-line text: like [`display_text`], but line breaks are escaped too.
///
/// ```
/// use frontdesk_host::sanitize::display_line;
/// assert_eq!(display_line("a\nb", 10), "a\\u{000A}b");
/// ```
pub fn display_line(text: &str, max_chars: usize) -> String {
    let mut out = String::new();
    escape_line(text, max_chars, &mut out);
    out
}

/// A message for one line of an error report: runs of whitespace (line breaks
/// included) become one space, then it is escaped and cut like [`display_line`].
///
/// ```
/// use frontdesk_host::sanitize::one_line;
/// assert_eq!(one_line("bad\n  gateway\x1b]0;x\x07", 100), "bad gateway\\u{001B}]0;x\\u{0007}");
/// ```
pub fn one_line(text: &str, max_chars: usize) -> String {
    let collapsed: Vec<&str> = text
        .split(|c: char| c.is_whitespace() && c != '\u{a0}')
        .filter(|w| !w.is_empty())
        .collect();
    display_line(&collapsed.join(" "), max_chars)
}

/// What every writer to the terminal applies last: unsafe characters escaped, line
/// breaks kept, tabs as four spaces. Text that is already safe comes back borrowed,
/// and applying it twice changes nothing.
///
/// ```
/// use frontdesk_host::sanitize::terminal_safe;
/// assert_eq!(terminal_safe("ok\nfine"), "ok\nfine");
/// let once = terminal_safe("\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\");
/// assert!(!once.contains('\x1b'));
/// assert_eq!(terminal_safe(&once), once);
/// ```
pub fn terminal_safe(text: &str) -> Cow<'_, str> {
    if !text.chars().any(|c| c != '\n' && is_unsafe(c)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            '\n' => out.push('\n'),
            '\t' => out.push_str("    "),
            c if is_unsafe(c) => push_escaped(&mut out, c),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// JSON for a terminal: `value` serialized (pretty or compact) with every unsafe
/// character inside its strings written as a `\u` escape (a surrogate pair above
/// U+FFFF). It parses back to the same value; nothing in it acts on a terminal.
///
/// ```
/// use frontdesk_host::sanitize::json_for_terminal;
/// let v = serde_json::json!({"name": "x\u{9b}31m\u{202e}"});
/// let text = json_for_terminal(&v, false);
/// assert_eq!(text, r#"{"name":"x\u009b31m\u202e"}"#);
/// assert_eq!(serde_json::from_str::<serde_json::Value>(&text).ok(), Some(v));
/// ```
pub fn json_for_terminal(value: &Value, pretty: bool) -> String {
    let text = if pretty {
        serde_json::to_string_pretty(value)
    } else {
        serde_json::to_string(value)
    }
    .unwrap_or_else(|_| "null".to_owned());
    // Outside strings JSON text is ASCII punctuation, digits, letters and (pretty)
    // line breaks and spaces; serde_json already escapes C0 controls inside strings,
    // so every other unsafe character sits inside a string, where a \u escape means
    // the same character.
    let unsafe_here = |c: char| c != '\n' && is_unsafe(c);
    if !text.chars().any(unsafe_here) {
        return text;
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if unsafe_here(c) {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// How a server names itself to a person: its title (or name) and version, escaped.
/// No trailing space when the version is empty.
pub fn server_label(server: &Implementation) -> String {
    let name = server
        .title
        .as_deref()
        .filter(|t| !t.trim().is_empty())
        .unwrap_or(&server.name);
    let name = one_line(name, 80);
    let version = one_line(&server.version, 40);
    match (name.is_empty(), version.is_empty()) {
        (true, _) => "(a server with no name)".to_owned(),
        (false, true) => name,
        (false, false) => format!("{name} {version}"),
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
    fn server_label_has_no_double_space_and_no_controls() {
        let mut s = Implementation::new("shop\x1b]0;owned\x07", "");
        assert_eq!(server_label(&s), "shop\\u{001B}]0;owned\\u{0007}");
        s.version = "1.0".into();
        assert!(server_label(&s).ends_with("\\u{0007} 1.0"));
    }

    #[test]
    fn pretty_json_keeps_its_line_breaks() {
        let text = json_for_terminal(&serde_json::json!({"a": "x\u{1b}"}), true);
        assert_eq!(text, "{\n  \"a\": \"x\\u001b\"\n}");
    }

    #[test]
    fn astral_unsafe_characters_become_surrogate_pairs_in_json() {
        let v = serde_json::json!(["tag\u{E0041}"]);
        let text = json_for_terminal(&v, false);
        assert_eq!(text, r#"["tag\udb40\udc41"]"#);
        assert_eq!(serde_json::from_str::<Value>(&text).ok(), Some(v));
    }
}
