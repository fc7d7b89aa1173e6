//! [`Screen`] on a real terminal: everything drawn on stderr (wrapped to the width,
//! passed through [`terminal_safe`] last), keys read from the terminal itself
//! (`/dev/tty` when stdin is not one), so stdout stays free for results and stdin may
//! be a transport.

use std::io::{IsTerminal, Write};

use crossterm::event::{self, Event, KeyCode, KeyEventKind, KeyModifiers};
use crossterm::terminal;
use inquire::error::InquireError;
use inquire::ui::{ErrorMessageRenderConfig, RenderConfig, Styled};
use inquire::validator::Validation;
use inquire::{MultiSelect, Select};

use super::line_editor::edit_line;
use crate::layout::{menu_lines, terminal_width, truncate, wrap_text};
use crate::sanitize::terminal_safe;
use crate::screen::{
    Interrupted, LineQuestion, ListQuestion, MenuKey, Prompted, Screen, menu_item,
};

/// Whether this process can talk to a person: a controlling terminal can be opened.
pub fn terminal_available() -> bool {
    if std::io::stdin().is_terminal() && std::io::stderr().is_terminal() {
        return true;
    }
    std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/tty")
        .is_ok()
        && std::io::stderr().is_terminal()
}

/// A [`Screen`] on the process's terminal.
#[derive(Debug, Clone)]
pub struct TtyScreen {
    styled: bool,
}

impl Default for TtyScreen {
    fn default() -> Self {
        TtyScreen::new()
    }
}

impl TtyScreen {
    /// A screen on this terminal; styled unless `NO_COLOR` is set or stderr is not a
    /// terminal.
    pub fn new() -> TtyScreen {
        TtyScreen {
            styled: std::io::stderr().is_terminal()
                && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
        }
    }

    fn render_config(&self) -> RenderConfig<'static> {
        let base = if self.styled {
            RenderConfig::default_colored()
        } else {
            RenderConfig::empty()
        };
        let error = if self.styled {
            ErrorMessageRenderConfig::default_colored()
        } else {
            ErrorMessageRenderConfig::empty()
        };
        base.with_error_message(error.with_prefix(Styled::new("!")))
            .with_answered_prompt_prefix(Styled::new("✔"))
    }

    /// A list's label, help and items: escaped, and cut to one line each so the
    /// terminal never wraps them mid-word.
    fn list_parts(&self, q: &ListQuestion) -> (String, String, Vec<String>) {
        let width = terminal_width();
        let label = truncate(&terminal_safe(&q.label), width.saturating_sub(4));
        // inquire puts the help in brackets.
        let help = truncate(
            &terminal_safe(q.help.as_deref().unwrap_or("")),
            width.saturating_sub(4),
        );
        let items = q
            .items
            .iter()
            .map(|i| {
                truncate(
                    &terminal_safe(i).replace('\n', " "),
                    width.saturating_sub(6),
                )
            })
            .collect();
        (label, help, items)
    }
}

/// Columns left for the answer after `? label `.
fn answer_room(label: &str) -> usize {
    terminal_width()
        .saturating_sub(textwrap::core::display_width(label) + 3)
        .max(10)
}

fn interrupted(e: InquireError) -> Interrupted {
    match e {
        InquireError::OperationCanceled => Interrupted::Escape,
        InquireError::OperationInterrupted => Interrupted::Cancel,
        other => {
            tracing::warn!(error = %other, "the terminal prompt failed; answering cancel");
            Interrupted::Cancel
        }
    }
}

impl Screen for TtyScreen {
    fn show(&mut self, text: &str) {
        let mut err = std::io::stderr().lock();
        for line in wrap_text(&terminal_safe(text), terminal_width()) {
            let _ = writeln!(err, "{line}");
        }
        let _ = err.flush();
    }

    fn show_verbatim(&mut self, text: &str) {
        let mut err = std::io::stderr().lock();
        let _ = writeln!(err, "{}", terminal_safe(text));
        let _ = err.flush();
    }

    fn show_marked(&mut self, before: &str, marked: &str, after: &str) {
        let (before, marked, after) = (
            terminal_safe(before),
            terminal_safe(marked),
            terminal_safe(after),
        );
        let line = if self.styled {
            format!("{before}\x1b[1;4m{marked}\x1b[0m{after}")
        } else {
            format!("{before}{marked}{after}")
        };
        let mut err = std::io::stderr().lock();
        for l in wrap_text(&line, terminal_width()) {
            let _ = writeln!(err, "{l}");
        }
        let _ = err.flush();
    }

    fn line(&mut self, q: &LineQuestion) -> Prompted<String> {
        edit_line(q, self.styled)
    }

    fn choose_one(&mut self, q: &ListQuestion) -> Prompted<usize> {
        let (label, help, items) = self.list_parts(q);
        // The answered line is `? label answer`: cut the answer to what fits.
        let room = answer_room(&label);
        let answered = move |o: inquire::list_option::ListOption<&String>| truncate(o.value, room);
        Select::new(&label, items)
            .with_formatter(&answered)
            .with_starting_cursor(q.chosen.first().copied().unwrap_or(0))
            .with_help_message(&help)
            .with_page_size(10)
            .with_render_config(self.render_config())
            .raw_prompt()
            .map(|o| o.index)
            .map_err(interrupted)
    }

    fn choose_many(&mut self, q: &ListQuestion) -> Prompted<Vec<usize>> {
        let (label, help, items) = self.list_parts(q);
        let room = answer_room(&label);
        let answered = move |picked: &[inquire::list_option::ListOption<&String>]| {
            let all: Vec<&str> = picked.iter().map(|o| o.value.as_str()).collect();
            truncate(&all.join(", "), room)
        };
        let mut prompt = MultiSelect::new(&label, items)
            .with_formatter(&answered)
            .with_default(&q.chosen)
            .with_help_message(&help)
            .with_page_size(10)
            .with_render_config(self.render_config());
        if let Some(v) = q.validator.clone() {
            prompt = prompt.with_validator(
                move |picked: &[inquire::list_option::ListOption<&String>]| {
                    let indices: Vec<usize> = picked.iter().map(|o| o.index).collect();
                    Ok(match v(&indices) {
                        Ok(()) => Validation::Valid,
                        Err(m) => Validation::Invalid(terminal_safe(&m).into_owned().into()),
                    })
                },
            );
        }
        prompt
            .raw_prompt()
            .map(|picked| picked.into_iter().map(|o| o.index).collect())
            .map_err(interrupted)
    }

    fn key(&mut self, prompt: &str, keys: &[MenuKey]) -> Prompted<char> {
        let items: Vec<String> = keys
            .iter()
            .map(|k| {
                let item = terminal_safe(&menu_item(k)).into_owned();
                if self.styled {
                    match item.split_once(']') {
                        Some((key, rest)) => format!("\x1b[1m{key}]\x1b[0m{rest}"),
                        None => item,
                    }
                } else {
                    item
                }
            })
            .collect();
        let lines = menu_lines(&terminal_safe(prompt), &items, terminal_width());
        {
            let mut err = std::io::stderr().lock();
            let last = lines.len().saturating_sub(1);
            for (i, l) in lines.iter().enumerate() {
                if i == last {
                    let _ = write!(err, "{l}  ");
                } else {
                    let _ = writeln!(err, "{l}");
                }
            }
            let _ = err.flush();
        }
        let chosen = read_menu_key(keys);
        let mut err = std::io::stderr().lock();
        let _ = match chosen {
            Ok('\n') => writeln!(err, "(Enter)"),
            Ok(k) => writeln!(err, "{k}"),
            Err(Interrupted::Escape) => writeln!(err, "(Esc)"),
            Err(Interrupted::Cancel) => writeln!(err, "(cancel)"),
        };
        let _ = err.flush();
        chosen
    }

    fn styled(&self) -> bool {
        self.styled
    }

    fn width(&self) -> usize {
        terminal_width()
    }
}

/// Restores cooked mode when dropped, on every path out of a key read.
pub(crate) struct RawMode;

impl RawMode {
    pub(crate) fn enter() -> Option<RawMode> {
        terminal::enable_raw_mode().ok().map(|()| RawMode)
    }
}

impl Drop for RawMode {
    fn drop(&mut self) {
        let _ = terminal::disable_raw_mode();
    }
}

fn read_menu_key(keys: &[MenuKey]) -> Prompted<char> {
    let Some(_raw) = RawMode::enter() else {
        tracing::warn!("cannot switch the terminal to raw mode; answering cancel");
        return Err(Interrupted::Cancel);
    };
    loop {
        let Ok(ev) = event::read() else {
            return Err(Interrupted::Cancel);
        };
        let Event::Key(key) = ev else { continue };
        if key.kind != KeyEventKind::Press {
            continue;
        }
        match key.code {
            KeyCode::Esc => return Err(Interrupted::Escape),
            KeyCode::Char('c' | 'd') if key.modifiers.contains(KeyModifiers::CONTROL) => {
                return Err(Interrupted::Cancel);
            }
            KeyCode::Enter if keys.iter().any(|(k, _)| *k == '\n') => return Ok('\n'),
            KeyCode::Char(c) => {
                let c = c.to_ascii_lowercase();
                if keys.iter().any(|(k, _)| *k == c) {
                    return Ok(c);
                }
            }
            _ => {}
        }
    }
}
