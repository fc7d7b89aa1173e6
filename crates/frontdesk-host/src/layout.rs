//! Lines fitted to the terminal's width: wrapped between words, continuation lines
//! indented under the text (not under the marker) of the line they continue, so a
//! message box `  │ …`, a bullet `  - …` or a warning `  ! …` stays one block.

use textwrap::{Options, WordSeparator, WordSplitter, WrapAlgorithm};

/// Width used when the terminal cannot be asked (not a terminal, a test).
pub const DEFAULT_WIDTH: usize = 80;

/// The narrowest width wrapped to.
const MIN_WIDTH: usize = 20;

/// The columns text may use on this terminal: its width less one (so a full line
/// never leaves the cursor in the terminal's pending-wrap state).
pub fn terminal_width() -> usize {
    crossterm::terminal::size()
        .map(|(cols, _)| usize::from(cols))
        .unwrap_or(DEFAULT_WIDTH)
        .saturating_sub(1)
        .max(MIN_WIDTH)
}

/// The part of `line` that starts every continuation: its leading spaces, then a
/// marker that should repeat (`│ `) or be stepped over (`! `, `- `, `• `, `? `).
fn hanging_indent(line: &str) -> (String, usize) {
    let spaces = line.len() - line.trim_start_matches(' ').len();
    let rest = &line[spaces..];
    let pad = " ".repeat(spaces);
    if rest.starts_with("│ ") {
        return (format!("{pad}│ "), spaces + 2);
    }
    for marker in ["! ", "- ", "• ", "? ", "> "] {
        if rest.starts_with(marker) {
            return (format!("{pad}  "), spaces + 2);
        }
    }
    (pad, spaces)
}

/// `line` wrapped to `width` columns. Words longer than a line (long URLs) are
/// broken; nothing else is.
///
/// ```
/// use frontdesk_host::layout::wrap;
/// let lines = wrap("  │ Tell us about the return of order A-1001 please", 24);
/// assert_eq!(lines, ["  │ Tell us about the", "  │ return of order", "  │ A-1001 please"]);
/// ```
pub fn wrap(line: &str, width: usize) -> Vec<String> {
    let width = width.max(MIN_WIDTH);
    if textwrap::core::display_width(line) <= width {
        return vec![line.to_owned()];
    }
    let (indent, _) = hanging_indent(line);
    let options = Options::new(width)
        .subsequent_indent(&indent)
        .word_separator(WordSeparator::AsciiSpace)
        .word_splitter(WordSplitter::NoHyphenation)
        .wrap_algorithm(WrapAlgorithm::FirstFit)
        .break_words(true);
    textwrap::wrap(line, options)
        .into_iter()
        .map(|l| l.into_owned())
        .collect()
}

/// `line` wrapped to `width` with every continuation starting with `indent` (log
/// lines, status lines).
pub fn wrap_indented(line: &str, width: usize, indent: &str) -> Vec<String> {
    let width = width.max(MIN_WIDTH);
    if textwrap::core::display_width(line) <= width {
        return vec![line.to_owned()];
    }
    let options = Options::new(width)
        .subsequent_indent(indent)
        .word_separator(WordSeparator::AsciiSpace)
        .word_splitter(WordSplitter::NoHyphenation)
        .wrap_algorithm(WrapAlgorithm::FirstFit)
        .break_words(true);
    textwrap::wrap(line, options)
        .into_iter()
        .map(|l| l.into_owned())
        .collect()
}

/// Text for stderr: when stderr is a terminal, every line wrapped to its width
/// (continuations indented by four spaces); otherwise unchanged.
pub fn fit_stderr(text: &str) -> String {
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() {
        return text.to_owned();
    }
    let width = terminal_width();
    let mut out = String::with_capacity(text.len());
    let ends_with_newline = text.ends_with('\n');
    let body = text.strip_suffix('\n').unwrap_or(text);
    for (i, line) in body.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&wrap_indented(line, width, "    ").join("\n"));
    }
    if ends_with_newline {
        out.push('\n');
    }
    out
}

/// Every line of `text` (split on `\n`) wrapped to `width`.
pub fn wrap_text(text: &str, width: usize) -> Vec<String> {
    text.split('\n').flat_map(|l| wrap(l, width)).collect()
}

/// Menu items (`[a] accept and send`) laid out after `prompt` on as few lines as
/// fit, never breaking an item.
///
/// ```
/// use frontdesk_host::layout::menu_lines;
/// let items = ["[a] accept and send", "[e] edit", "[d] decline", "[c] cancel"];
/// assert_eq!(
///     menu_lines("Review:", &items, 40),
///     ["Review: [a] accept and send  [e] edit", "        [d] decline  [c] cancel"]
/// );
/// ```
pub fn menu_lines(prompt: &str, items: &[impl AsRef<str>], width: usize) -> Vec<String> {
    let width = width.max(MIN_WIDTH);
    let lead = if prompt.is_empty() {
        String::new()
    } else {
        format!("{prompt} ")
    };
    let indent = " ".repeat(textwrap::core::display_width(&lead).min(width / 2));
    let mut lines = Vec::new();
    let mut current = lead;
    let mut has_item = false;
    for item in items {
        let item = item.as_ref();
        let sep = if has_item { "  " } else { "" };
        let fits = textwrap::core::display_width(&current)
            + sep.len()
            + textwrap::core::display_width(item)
            <= width;
        if has_item && !fits {
            lines.push(std::mem::replace(&mut current, indent.clone()));
            current.push_str(item);
        } else {
            current.push_str(sep);
            current.push_str(item);
        }
        has_item = true;
    }
    lines.push(current);
    lines
}

/// `text` cut to `width` columns with `…` (for list items, which must stay one line).
pub fn truncate(text: &str, width: usize) -> String {
    if textwrap::core::display_width(text) <= width {
        return text.to_owned();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if used + w + 1 > width {
            break;
        }
        used += w;
        out.push(c);
    }
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warnings_and_bullets_hang_under_their_text() {
        let lines = wrap(
            "  ! Servers must not ask for secrets in a form. Decline unless you trust it.",
            40,
        );
        assert!(lines.len() > 1);
        assert!(lines.iter().skip(1).all(|l| l.starts_with("    ")));
        assert!(lines.iter().all(|l| l.chars().count() <= 40));
    }

    #[test]
    fn long_words_are_broken_only_when_they_cannot_fit() {
        let url = format!("  URL:      https://example.com/{}", "x".repeat(90));
        let lines = wrap(&url, 40);
        assert!(lines.iter().all(|l| l.chars().count() <= 40));
        assert_eq!(lines[0], "  URL:");
    }
}
