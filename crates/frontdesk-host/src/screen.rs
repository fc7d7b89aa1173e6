//! The few things a form needs from a terminal, as a trait: print text, ask for a
//! line (with a pre-filled value and a live validator), pick one or several items
//! from a list, and read one key of a menu.
//!
//! [`crate::terminal::TtyScreen`] implements it on a real terminal; [`FakeScreen`]
//! implements it from a script of inputs and records everything it would have shown,
//! so the form and consent flows are tested without a terminal.

use std::collections::VecDeque;
use std::sync::Arc;

/// The person left a prompt without answering it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interrupted {
    /// Ctrl-C (or the terminal failed): dismiss the request now (answer `cancel`).
    Cancel,
    /// Esc: the person wants out; ask how (decline, cancel, stop asking, or back).
    Escape,
}

/// What a prompt returns: the answer, or [`Interrupted`].
pub type Prompted<T> = Result<T, Interrupted>;

/// Checks a line as the person types it: `Err(message)` is shown under the input and
/// the person is asked again.
pub type LineValidator = Arc<dyn Fn(&str) -> Result<(), String> + Send + Sync>;

/// Checks a set of chosen list items (by index).
pub type ChoiceValidator = Arc<dyn Fn(&[usize]) -> Result<(), String> + Send + Sync>;

/// A request for one line of text.
#[derive(Clone)]
pub struct LineQuestion {
    /// The label, e.g. `Contact email *`.
    pub label: String,
    /// A help line shown under the input (constraints, how to keep a default).
    pub help: Option<String>,
    /// Text already in the input, editable (the default or the current answer).
    pub initial: String,
    /// Hide what is typed (sensitive fields).
    pub masked: bool,
    /// Long text: Alt-Enter (or Ctrl-J) starts a new line; Enter still ends the input.
    pub multiline: bool,
    /// Checked as the person types (the problem is shown under the input) and on
    /// Enter (an error keeps the person on this input).
    pub validator: LineValidator,
}

impl LineQuestion {
    /// A one-line question with no validation beyond `validator`.
    pub fn new(label: impl Into<String>, validator: LineValidator) -> LineQuestion {
        LineQuestion {
            label: label.into(),
            help: None,
            initial: String::new(),
            masked: false,
            multiline: false,
            validator,
        }
    }
}

/// A request to pick one or several items of a list.
#[derive(Clone)]
pub struct ListQuestion {
    /// The label.
    pub label: String,
    /// A help line (how many to choose, which keys).
    pub help: Option<String>,
    /// The items as the person reads them (titles, not raw values).
    pub items: Vec<String>,
    /// Items chosen at the start (for a single choice, the first is where the cursor starts).
    pub chosen: Vec<usize>,
    /// For multi-select: checked when the person confirms.
    pub validator: Option<ChoiceValidator>,
}

/// One key of a key menu, e.g. `('a', "accept and send")`. The key `'\n'` is Enter.
pub type MenuKey = (char, &'static str);

/// A terminal, as the form and consent flows see it.
pub trait Screen: Send {
    /// Print text (already made safe with [`crate::sanitize`]), followed by a newline.
    fn show(&mut self, text: &str);
    /// Ask for one line; returns what was typed once the validator accepts it.
    fn line(&mut self, question: &LineQuestion) -> Prompted<String>;
    /// Pick exactly one item; returns its index.
    fn choose_one(&mut self, question: &ListQuestion) -> Prompted<usize>;
    /// Pick any number of items; returns their indices.
    fn choose_many(&mut self, question: &ListQuestion) -> Prompted<Vec<usize>>;
    /// Show a key menu and wait for one of its keys (Esc is
    /// [`Interrupted::Escape`], Ctrl-C [`Interrupted::Cancel`]).
    fn key(&mut self, prompt: &str, keys: &[MenuKey]) -> Prompted<char>;
    /// Print text whose lines must stay whole (JSON a person may copy): never
    /// wrapped by the program, so a line longer than the terminal is only folded
    /// on screen by the terminal itself and copies back as one line.
    fn show_verbatim(&mut self, text: &str) {
        self.show(text);
    }
    /// Print one line with its middle part emphasized (bold and underlined where
    /// styled): the registrable domain inside a URL.
    fn show_marked(&mut self, before: &str, marked: &str, after: &str) {
        self.show(&format!("{before}{marked}{after}"));
    }
    /// Whether text may carry ANSI styling (bold, underline).
    fn styled(&self) -> bool {
        false
    }
    /// The columns a line may use (text wider than this is wrapped).
    fn width(&self) -> usize {
        crate::layout::DEFAULT_WIDTH - 1
    }
}

/// One scripted input of a [`FakeScreen`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FakeInput {
    /// Type this line (replacing any pre-filled text) and press Enter.
    Line(String),
    /// Press Enter on the pre-filled text.
    Enter,
    /// Pick these list items (one for a single choice).
    Pick(Vec<usize>),
    /// Press this menu key.
    Key(char),
    /// Press Esc.
    Escape,
    /// Press Ctrl-C.
    Interrupt,
}

/// A [`Screen`] that plays scripted inputs and records what it shows, for tests.
///
/// When the script runs out every prompt is [`Interrupted::Cancel`], so a test can
/// never hang. It records exactly what it is given (a real terminal also applies
/// [`crate::sanitize::terminal_safe`] last), so tests see whether the flows escaped
/// server text themselves.
#[derive(Debug, Default)]
pub struct FakeScreen {
    inputs: VecDeque<FakeInput>,
    shown: Vec<String>,
}

impl FakeScreen {
    /// A screen that will play `inputs` in order.
    pub fn new(inputs: impl IntoIterator<Item = FakeInput>) -> FakeScreen {
        FakeScreen {
            inputs: inputs.into_iter().collect(),
            shown: Vec::new(),
        }
    }

    /// Everything shown so far, one entry per printed text or prompt event.
    pub fn shown(&self) -> &[String] {
        &self.shown
    }

    /// Everything shown so far, joined by newlines.
    pub fn transcript(&self) -> String {
        self.shown.join("\n")
    }

    /// Inputs not consumed yet.
    pub fn remaining(&self) -> usize {
        self.inputs.len()
    }

    fn next(&mut self) -> Option<FakeInput> {
        self.inputs.pop_front()
    }

    fn record(&mut self, text: String) {
        self.shown.push(text);
    }
}

/// What a scripted input means at a prompt that did not expect it.
fn leave(input: Option<FakeInput>) -> Interrupted {
    match input {
        Some(FakeInput::Escape) => Interrupted::Escape,
        _ => Interrupted::Cancel,
    }
}

impl Screen for FakeScreen {
    fn show(&mut self, text: &str) {
        self.record(text.to_owned());
    }

    fn line(&mut self, q: &LineQuestion) -> Prompted<String> {
        let help = q.help.as_deref().unwrap_or("");
        self.record(format!("? {} [{}] {help}", q.label, q.initial));
        loop {
            let typed = match self.next() {
                Some(FakeInput::Line(s)) => s,
                Some(FakeInput::Enter) => q.initial.clone(),
                other => return Err(leave(other)),
            };
            match (q.validator)(&typed) {
                Ok(()) => {
                    let echo = if q.masked {
                        "********".to_owned()
                    } else {
                        typed.clone()
                    };
                    self.record(format!("> {echo}"));
                    return Ok(typed);
                }
                Err(message) => self.record(format!("! {message}")),
            }
        }
    }

    fn choose_one(&mut self, q: &ListQuestion) -> Prompted<usize> {
        self.record(format!(
            "? {} {{{}}} {}",
            q.label,
            q.items.join(" | "),
            q.help.as_deref().unwrap_or("")
        ));
        match self.next() {
            Some(FakeInput::Pick(p)) => match p.first() {
                Some(&i) if i < q.items.len() => Ok(i),
                _ => Err(Interrupted::Cancel),
            },
            Some(FakeInput::Enter) => Ok(q.chosen.first().copied().unwrap_or(0)),
            other => Err(leave(other)),
        }
    }

    fn choose_many(&mut self, q: &ListQuestion) -> Prompted<Vec<usize>> {
        self.record(format!(
            "? {} {{{}}} {}",
            q.label,
            q.items.join(" | "),
            q.help.as_deref().unwrap_or("")
        ));
        loop {
            let picked = match self.next() {
                Some(FakeInput::Pick(p)) => p,
                Some(FakeInput::Enter) => q.chosen.clone(),
                other => return Err(leave(other)),
            };
            if picked.iter().any(|&i| i >= q.items.len()) {
                return Err(Interrupted::Cancel);
            }
            match q.validator.as_ref().map_or(Ok(()), |v| v(&picked)) {
                Ok(()) => return Ok(picked),
                Err(message) => self.record(format!("! {message}")),
            }
        }
    }

    fn key(&mut self, prompt: &str, keys: &[MenuKey]) -> Prompted<char> {
        let menu: Vec<String> = keys.iter().map(menu_item).collect();
        self.record(format!("{prompt} {}", menu.join("  ")));
        loop {
            match self.next() {
                Some(FakeInput::Key(k)) if keys.iter().any(|(c, _)| *c == k) => return Ok(k),
                Some(FakeInput::Enter) if keys.iter().any(|(c, _)| *c == '\n') => {
                    return Ok('\n');
                }
                Some(FakeInput::Key(k)) => self.record(format!("(key {k} does nothing here)")),
                other => return Err(leave(other)),
            }
        }
    }
}

/// `[a] accept` (or `[Enter] keep Yes`) for one menu key.
pub fn menu_item((key, label): &MenuKey) -> String {
    if *key == '\n' {
        format!("[Enter] {label}")
    } else {
        format!("[{key}] {label}")
    }
}
