//! The few things a form needs from a terminal, as a trait: print text, ask for a
//! line (with a pre-filled value and a live validator), pick one or several items
//! from a list, and read one key of a menu.
//!
//! [`crate::terminal::TtyScreen`] implements it on a real terminal; [`FakeScreen`]
//! implements it from a script of inputs and records everything it would have shown,
//! so the form and consent flows are tested without a terminal.

use std::collections::VecDeque;
use std::sync::Arc;

/// The person pressed Esc or Ctrl-C: dismiss the request (answer `cancel`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Interrupted;

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
    /// Checked on Enter; an error keeps the person on this input.
    pub validator: LineValidator,
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

/// One key of a key menu, e.g. `('a', "accept and send")`.
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
    /// Show a key menu and wait for one of its keys.
    fn key(&mut self, prompt: &str, keys: &[MenuKey]) -> Prompted<char>;
    /// Whether text may carry ANSI styling (bold, underline).
    fn styled(&self) -> bool {
        false
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
    /// Press Esc / Ctrl-C.
    Interrupt,
}

/// A [`Screen`] that plays scripted inputs and records what it shows, for tests.
///
/// When the script runs out every prompt is [`Interrupted`], so a test can never hang.
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
}

impl Screen for FakeScreen {
    fn show(&mut self, text: &str) {
        self.shown.push(text.to_owned());
    }

    fn line(&mut self, q: &LineQuestion) -> Prompted<String> {
        let help = q.help.as_deref().unwrap_or("");
        self.shown
            .push(format!("? {} [{}] {help}", q.label, q.initial));
        loop {
            let typed = match self.next() {
                Some(FakeInput::Line(s)) => s,
                Some(FakeInput::Enter) => q.initial.clone(),
                _ => return Err(Interrupted),
            };
            match (q.validator)(&typed) {
                Ok(()) => {
                    let echo = if q.masked {
                        "********".to_owned()
                    } else {
                        typed.clone()
                    };
                    self.shown.push(format!("> {echo}"));
                    return Ok(typed);
                }
                Err(message) => self.shown.push(format!("! {message}")),
            }
        }
    }

    fn choose_one(&mut self, q: &ListQuestion) -> Prompted<usize> {
        self.shown
            .push(format!("? {} {{{}}}", q.label, q.items.join(" | ")));
        match self.next() {
            Some(FakeInput::Pick(p)) => match p.first() {
                Some(&i) if i < q.items.len() => Ok(i),
                _ => Err(Interrupted),
            },
            Some(FakeInput::Enter) => Ok(q.chosen.first().copied().unwrap_or(0)),
            _ => Err(Interrupted),
        }
    }

    fn choose_many(&mut self, q: &ListQuestion) -> Prompted<Vec<usize>> {
        self.shown.push(format!(
            "? {} {{{}}} {}",
            q.label,
            q.items.join(" | "),
            q.help.as_deref().unwrap_or("")
        ));
        loop {
            let picked = match self.next() {
                Some(FakeInput::Pick(p)) => p,
                Some(FakeInput::Enter) => q.chosen.clone(),
                _ => return Err(Interrupted),
            };
            if picked.iter().any(|&i| i >= q.items.len()) {
                return Err(Interrupted);
            }
            match q.validator.as_ref().map_or(Ok(()), |v| v(&picked)) {
                Ok(()) => return Ok(picked),
                Err(message) => self.shown.push(format!("! {message}")),
            }
        }
    }

    fn key(&mut self, prompt: &str, keys: &[MenuKey]) -> Prompted<char> {
        let menu: Vec<String> = keys.iter().map(|(k, l)| format!("[{k}] {l}")).collect();
        self.shown.push(format!("{prompt} {}", menu.join("  ")));
        loop {
            match self.next() {
                Some(FakeInput::Key(k)) if keys.iter().any(|(c, _)| *c == k) => return Ok(k),
                Some(FakeInput::Key(k)) => self.shown.push(format!("(key {k} does nothing here)")),
                _ => return Err(Interrupted),
            }
        }
    }
}
