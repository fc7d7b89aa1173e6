//! One text input drawn in place on the terminal: its label, the text (wrapped to the
//! width, masked when sensitive), the problem with what is typed so far (checked on
//! every key), and the help line with the keys that matter.
//!
//! Editing is readline's (through `tui-input`): Ctrl-A / Ctrl-E start and end,
//! Ctrl-B / Ctrl-F and the arrows move, Alt-B / Alt-F and Ctrl-arrows move by word,
//! Ctrl-W and Alt-Backspace delete a word, Ctrl-U clears, Ctrl-K deletes to the end,
//! Ctrl-Y puts back what was deleted. Enter submits (only a valid text); Alt-Enter or
//! Ctrl-J starts a new line in a long-text input; Esc and Ctrl-C leave.

use std::io::Write;

use crossterm::cursor::{MoveToColumn, MoveUp};
use crossterm::event::{self, Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use crossterm::style::{Attribute, Print, SetAttribute};
use crossterm::terminal::{Clear, ClearType};
use crossterm::{execute, queue};
use tui_input::Input;
use tui_input::backend::crossterm::to_input_request;
use unicode_width::UnicodeWidthChar;

use super::tty::RawMode;
use crate::layout::{terminal_width, wrap};
use crate::sanitize::{is_unsafe, terminal_safe};
use crate::screen::{Interrupted, LineQuestion, Prompted};

/// How a line of the block is drawn.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Look {
    Plain,
    Title,
    Problem,
    Dim,
}

/// The input being edited and what is drawn for it.
struct Editor<'a> {
    question: &'a LineQuestion,
    input: Input,
    styled: bool,
    /// Rows of the block above the cursor's row, to go back up before a redraw.
    cursor_row: u16,
    /// Enter was pressed on an invalid text: show its problem even when empty.
    submitted: bool,
}

/// Ask `question` on the terminal; the typed text once the validator accepts it.
pub(crate) fn edit_line(question: &LineQuestion, styled: bool) -> Prompted<String> {
    let Some(_raw) = RawMode::enter() else {
        tracing::warn!("cannot switch the terminal to raw mode; answering cancel");
        return Err(Interrupted::Cancel);
    };
    // What the person sees is what they send: a pre-filled value with unsafe
    // characters is pre-filled escaped.
    let initial = terminal_safe(&question.initial).into_owned();
    let mut editor = Editor {
        question,
        input: Input::new(initial),
        styled,
        cursor_row: 0,
        submitted: false,
    };
    editor.draw();
    loop {
        let Ok(ev) = event::read() else {
            editor.finish(None);
            return Err(Interrupted::Cancel);
        };
        match ev {
            Event::Key(key) if key.kind != KeyEventKind::Release => {
                if let Some(done) = editor.key(key) {
                    return done;
                }
            }
            Event::Resize(..) => editor.draw(),
            _ => {}
        }
    }
}

impl Editor<'_> {
    /// Handle one key; `Some` when the prompt is over.
    fn key(&mut self, key: KeyEvent) -> Option<Prompted<String>> {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let alt = key.modifiers.contains(KeyModifiers::ALT);
        match key.code {
            KeyCode::Esc => {
                self.finish(None);
                return Some(Err(Interrupted::Escape));
            }
            KeyCode::Char('c') if ctrl => {
                self.finish(None);
                return Some(Err(Interrupted::Cancel));
            }
            KeyCode::Enter if alt && self.question.multiline => {
                self.input.handle(tui_input::InputRequest::InsertChar('\n'));
            }
            KeyCode::Char('j') if ctrl && self.question.multiline => {
                self.input.handle(tui_input::InputRequest::InsertChar('\n'));
            }
            KeyCode::Enter => {
                let text = self.input.value().to_owned();
                if (self.question.validator)(&text).is_ok() {
                    self.finish(Some(&text));
                    return Some(Ok(text));
                }
                self.submitted = true;
            }
            KeyCode::Char(c) if is_unsafe(c) => {}
            _ => {
                if let Some(request) = to_input_request(&Event::Key(key)) {
                    self.input.handle(request);
                }
            }
        }
        self.draw();
        None
    }

    /// The problem to show now, if any.
    fn problem(&self) -> Option<String> {
        let text = self.input.value();
        if text.is_empty() && !self.submitted {
            return None;
        }
        (self.question.validator)(text).err()
    }

    /// The block's lines, and where the cursor goes (row, column).
    fn layout(&self, width: usize) -> (Vec<(String, Look)>, (usize, usize)) {
        let q = self.question;
        let mut lines: Vec<(String, Look)> = wrap(&format!("? {}", terminal_safe(&q.label)), width)
            .into_iter()
            .map(|l| (l, Look::Title))
            .collect();
        let (rows, cursor) = input_rows(
            self.input.value(),
            self.input.cursor(),
            q.masked,
            width.saturating_sub(2).max(10),
        );
        let first_input = lines.len();
        for (i, row) in rows.into_iter().enumerate() {
            let lead = if i == 0 { "› " } else { "  " };
            lines.push((format!("{lead}{row}"), Look::Plain));
        }
        if let Some(problem) = self.problem() {
            for l in wrap(&format!("  ! {}", terminal_safe(&problem)), width) {
                lines.push((l, Look::Problem));
            }
        }
        if let Some(help) = q.help.as_deref().filter(|h| !h.is_empty()) {
            for l in wrap(&format!("  {}", terminal_safe(help)), width) {
                lines.push((l, Look::Dim));
            }
        }
        (lines, (first_input + cursor.0, 2 + cursor.1))
    }

    fn draw(&mut self) {
        let (lines, (row, col)) = self.layout(terminal_width());
        let mut err = std::io::stderr().lock();
        let _ = queue!(err, MoveToColumn(0));
        if self.cursor_row > 0 {
            let _ = queue!(err, MoveUp(self.cursor_row));
        }
        let _ = queue!(err, Clear(ClearType::FromCursorDown));
        for (i, (text, look)) in lines.iter().enumerate() {
            if i > 0 {
                let _ = queue!(err, Print("\r\n"));
            }
            self.print(&mut err, text, *look);
        }
        let below = lines.len().saturating_sub(row + 1);
        if below > 0 {
            let _ = queue!(err, MoveUp(to_u16(below)));
        }
        let _ = queue!(err, MoveToColumn(to_u16(col)));
        let _ = err.flush();
        self.cursor_row = to_u16(row);
    }

    fn print(&self, out: &mut impl Write, text: &str, look: Look) {
        let attribute = match look {
            _ if !self.styled => None,
            Look::Plain => None,
            Look::Title => Some(Attribute::Bold),
            Look::Problem => Some(Attribute::Bold),
            Look::Dim => Some(Attribute::Dim),
        };
        match attribute {
            Some(a) => {
                let _ = queue!(
                    out,
                    SetAttribute(a),
                    Print(text),
                    SetAttribute(Attribute::Reset)
                );
            }
            None => {
                let _ = queue!(out, Print(text));
            }
        }
    }

    /// Replace the block with one line saying what was answered (`None`: nothing).
    fn finish(&mut self, answer: Option<&str>) {
        let label = terminal_safe(&self.question.label).into_owned();
        let line = match answer {
            Some(_) if self.question.masked => format!("✔ {label}: ••••••••"),
            Some(text) => format!("✔ {label}: {}", terminal_safe(text).replace('\n', " ⏎ ")),
            None => format!("? {label}"),
        };
        let mut err = std::io::stderr().lock();
        let _ = queue!(err, MoveToColumn(0));
        if self.cursor_row > 0 {
            let _ = queue!(err, MoveUp(self.cursor_row));
        }
        let _ = queue!(err, Clear(ClearType::FromCursorDown));
        for (i, l) in wrap(&line, terminal_width()).iter().enumerate() {
            if i > 0 {
                let _ = queue!(err, Print("\r\n"));
            }
            let _ = queue!(err, Print(l));
        }
        let _ = execute!(err, Print("\r\n"));
        self.cursor_row = 0;
    }
}

fn to_u16(n: usize) -> u16 {
    u16::try_from(n).unwrap_or(u16::MAX)
}

/// The text as rows of at most `width` columns (broken at the width and at line
/// breaks), and the cursor's (row, column); `cursor` counts characters.
fn input_rows(
    text: &str,
    cursor: usize,
    masked: bool,
    width: usize,
) -> (Vec<String>, (usize, usize)) {
    let mut rows = vec![String::new()];
    let mut used = 0;
    let mut at = (0, 0);
    for (i, c) in text.chars().enumerate() {
        if i == cursor {
            at = (rows.len() - 1, used);
        }
        if c == '\n' {
            rows.push(String::new());
            used = 0;
            continue;
        }
        let shown = if masked { '•' } else { c };
        let w = shown.width().unwrap_or(0);
        if used + w > width {
            rows.push(String::new());
            used = 0;
            if i == cursor {
                at = (rows.len() - 1, 0);
            }
        }
        if let Some(row) = rows.last_mut() {
            row.push(shown);
        }
        used += w;
    }
    if cursor >= text.chars().count() {
        if used >= width {
            rows.push(String::new());
            used = 0;
        }
        at = (rows.len() - 1, used);
    }
    (rows, at)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_break_at_the_width_and_at_new_lines_and_track_the_cursor() {
        let (rows, at) = input_rows("abcdef\ngh", 9, false, 4);
        assert_eq!(rows, ["abcd", "ef", "gh"]);
        assert_eq!(at, (2, 2));
        let (rows, at) = input_rows("abcdef", 4, false, 4);
        assert_eq!(rows, ["abcd", "ef"]);
        assert_eq!(at, (1, 0));
        let (rows, at) = input_rows("s3cret", 6, true, 10);
        assert_eq!(rows, ["••••••"]);
        assert_eq!(at, (0, 6));
    }
}
