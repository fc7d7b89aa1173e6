//! [`Screen`] on a real terminal: prompts drawn on stderr and keys read from the
//! terminal itself (`/dev/tty` when stdin is not one), so stdout stays free for results
//! and stdin may be a transport.

use std::io::{IsTerminal, Write};

use crossterm::event::{self, Event, KeyCode, KeyEventKind, KeyModifiers};
use crossterm::terminal;
use inquire::error::InquireError;
use inquire::validator::Validation;
use inquire::{MultiSelect, Password, PasswordDisplayMode, Select, Text};

use crate::screen::{Interrupted, LineQuestion, ListQuestion, MenuKey, Prompted, Screen};

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
}

fn interrupted(e: InquireError) -> Interrupted {
    match e {
        InquireError::OperationCanceled | InquireError::OperationInterrupted => {}
        other => tracing::warn!(error = %other, "the terminal prompt failed; answering cancel"),
    }
    Interrupted
}

impl Screen for TtyScreen {
    fn show(&mut self, text: &str) {
        let mut err = std::io::stderr().lock();
        let _ = writeln!(err, "{text}");
        let _ = err.flush();
    }

    fn line(&mut self, q: &LineQuestion) -> Prompted<String> {
        let v = q.validator.clone();
        let check = move |s: &str| {
            Ok(match v(s) {
                Ok(()) => Validation::Valid,
                Err(m) => Validation::Invalid(m.into()),
            })
        };
        let help = q.help.as_deref().unwrap_or("");
        if q.masked {
            Password::new(&q.label)
                .with_display_mode(PasswordDisplayMode::Masked)
                .without_confirmation()
                .with_help_message(help)
                .with_validator(check)
                .prompt()
                .map_err(interrupted)
        } else {
            Text::new(&q.label)
                .with_initial_value(&q.initial)
                .with_help_message(help)
                .with_validator(check)
                .prompt()
                .map_err(interrupted)
        }
    }

    fn choose_one(&mut self, q: &ListQuestion) -> Prompted<usize> {
        Select::new(&q.label, q.items.clone())
            .with_starting_cursor(q.chosen.first().copied().unwrap_or(0))
            .with_help_message(q.help.as_deref().unwrap_or(""))
            .with_page_size(10)
            .raw_prompt()
            .map(|o| o.index)
            .map_err(interrupted)
    }

    fn choose_many(&mut self, q: &ListQuestion) -> Prompted<Vec<usize>> {
        let mut prompt = MultiSelect::new(&q.label, q.items.clone())
            .with_default(&q.chosen)
            .with_help_message(q.help.as_deref().unwrap_or(""))
            .with_page_size(10);
        if let Some(v) = q.validator.clone() {
            prompt = prompt.with_validator(
                move |picked: &[inquire::list_option::ListOption<&String>]| {
                    let indices: Vec<usize> = picked.iter().map(|o| o.index).collect();
                    Ok(match v(&indices) {
                        Ok(()) => Validation::Valid,
                        Err(m) => Validation::Invalid(m.into()),
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
        let menu: Vec<String> = keys
            .iter()
            .map(|(k, label)| {
                if self.styled {
                    format!("\x1b[1m[{k}]\x1b[0m {label}")
                } else {
                    format!("[{k}] {label}")
                }
            })
            .collect();
        {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "{prompt} {}  ", menu.join("  "));
            let _ = err.flush();
        }
        let chosen = read_menu_key(keys);
        let mut err = std::io::stderr().lock();
        match chosen {
            Ok(k) => {
                let _ = writeln!(err, "{k}");
            }
            Err(_) => {
                let _ = writeln!(err, "(cancel)");
            }
        }
        let _ = err.flush();
        chosen
    }

    fn styled(&self) -> bool {
        self.styled
    }
}

/// Restores cooked mode when dropped, on every path out of a key read.
struct RawMode;

impl RawMode {
    fn enter() -> Option<RawMode> {
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
        return Err(Interrupted);
    };
    loop {
        let Ok(ev) = event::read() else {
            return Err(Interrupted);
        };
        let Event::Key(key) = ev else { continue };
        if key.kind != KeyEventKind::Press {
            continue;
        }
        match key.code {
            KeyCode::Esc => return Err(Interrupted),
            KeyCode::Char('c' | 'd') if key.modifiers.contains(KeyModifiers::CONTROL) => {
                return Err(Interrupted);
            }
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
