//! The URL consent screen: which server asks, its message, the full URL with its
//! registrable domain highlighted, every finding of the review, and a choice that
//! defaults to nothing. A link is handed to the browser only after the person pressed
//! `o`, and never when the review refused it.

use std::sync::Arc;

use frontdesk_url::{ConsentedUrl, UrlReview, Verdict};

use crate::screen::{MenuKey, Screen};
use crate::terminal::leave::{Leave, how_to_leave, stopped_asking};
use crate::widgets::Header;

/// Opens a consented URL outside this program.
pub trait Opener: Send + Sync {
    /// Open `url`; `Err(reason)` when no browser could be started.
    fn open(&self, url: &ConsentedUrl) -> Result<(), String>;
}

/// The system browser (through the `webbrowser` crate, hardened: http(s) only).
///
/// On Linux without `DISPLAY`, `WAYLAND_DISPLAY` or `BROWSER`, it does not try: a text
/// browser would take over this terminal. The person gets the URL to copy instead.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemBrowser;

impl Opener for SystemBrowser {
    fn open(&self, url: &ConsentedUrl) -> Result<(), String> {
        if cfg!(target_os = "linux")
            && ["DISPLAY", "WAYLAND_DISPLAY", "BROWSER"]
                .iter()
                .all(|v| std::env::var_os(v).is_none_or(|s| s.is_empty()))
        {
            return Err("no graphical session, so no browser to open".to_owned());
        }
        webbrowser::open(url.as_str()).map_err(|e| e.to_string())
    }
}

/// An opener that never opens anything (headless hosts, tests): the URL is printed.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoBrowser;

impl Opener for NoBrowser {
    fn open(&self, _url: &ConsentedUrl) -> Result<(), String> {
        Err("no browser is available here".to_owned())
    }
}

/// What a [`UrlAction`] runs after consent: `Ok(note)` or `Err(reason)`, both shown.
pub type UrlActionFn = Arc<dyn Fn(&ConsentedUrl) -> Result<String, String> + Send + Sync>;

/// An extra choice on the consent screen that does something with the consented URL
/// instead of opening it (the lab's "simulate signing in").
#[derive(Clone)]
pub struct UrlAction {
    /// Its key (not `o`, `d` or `c`).
    pub key: char,
    /// What the menu says, e.g. `simulate signing in`.
    pub label: &'static str,
    /// Runs after consent; `Ok(note)` is shown, `Err(reason)` too.
    pub run: UrlActionFn,
}

/// How the consent screen ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConsentOutcome {
    /// The person consented and the browser was started.
    Opened,
    /// The person consented, no browser could be started, and the URL was printed
    /// for copying.
    Printed,
    /// The person consented and the extra [`UrlAction`] ran (its note).
    Acted(String),
    /// The person said no.
    Declined,
    /// The person dismissed it (or the screen failed).
    Cancelled,
    /// The review refused the link; the person closed the screen.
    Refused,
    /// The person dismissed it and asked not to be asked again by this server.
    StoppedAsking,
}

impl ConsentOutcome {
    /// Whether the person gave consent (the answer is `accept`).
    pub fn consented(&self) -> bool {
        matches!(
            self,
            ConsentOutcome::Opened | ConsentOutcome::Printed | ConsentOutcome::Acted(_)
        )
    }
}

/// The URL split around its registrable domain (or host): `(before, mark, after)`,
/// and what the mark is (`registrable domain` or `host`).
pub fn highlighted_url(review: &UrlReview) -> Option<((&str, &str, &str), &'static str)> {
    let url = review.url()?;
    let parts = review.highlight_parts().or_else(|| {
        let host = review.host()?;
        let from = url.find("://").map_or(0, |i| i + 3);
        let start = from + url.get(from..)?.find(host)?;
        let end = start + host.len();
        Some((url.get(..start)?, url.get(start..end)?, url.get(end..)?))
    })?;
    let what = if review.registrable_domain().is_some() {
        "registrable domain"
    } else {
        "host"
    };
    Some((parts, what))
}

/// `^^^^ registrable domain: check it` under a mark starting `at` columns in.
fn carets(at: usize, mark: &str, what: &str) -> String {
    format!(
        "{}{} {what}: check it",
        " ".repeat(at),
        "^".repeat(mark.chars().count().max(1))
    )
}

/// Print the full URL with its domain marked: after `URL:` when it fits the width,
/// else alone from the first column (broken at the width when even that is too
/// long), so it can be read and copied whole.
fn show_url(screen: &mut dyn Screen, review: &UrlReview) {
    let width = screen.width();
    let (Some(url), Some(((pre, mark, post), what))) = (review.url(), highlighted_url(review))
    else {
        match review.url() {
            Some(url) => screen.show(&format!("  URL:      {url}")),
            None => screen.show(&format!(
                "  Input:    {} (not a usable URL)",
                review.input_preview()
            )),
        }
        return;
    };
    let label = "  URL:      ";
    if label.len() + url.chars().count() <= width {
        screen.show_marked(&format!("{label}{pre}"), mark, post);
        screen.show(&carets(label.len() + pre.chars().count(), mark, what));
        return;
    }
    screen.show("  URL (in full on the next line; check the marked part):");
    let chars: Vec<char> = url.chars().collect();
    let first: String = chars.iter().take(width).collect();
    let mark_end = pre.chars().count() + mark.chars().count();
    if mark_end <= first.chars().count() {
        let rest: String = first.chars().skip(mark_end).collect();
        screen.show_marked(pre, mark, &rest);
    } else {
        screen.show(&first);
    }
    for chunk in chars[first.chars().count()..].chunks(width.max(1)) {
        screen.show(&chunk.iter().collect::<String>());
    }
    if mark_end <= width {
        screen.show(&carets(pre.chars().count(), mark, what));
    }
}

/// The top of a consent screen: the header (`what` the server asks), the full
/// URL with its domain marked, and every finding of the review.
pub(crate) fn show_review(
    screen: &mut dyn Screen,
    header: &Header,
    what: &str,
    review: &UrlReview,
) {
    header.show(screen, what);
    show_url(screen, review);
    // plain_text's first line is the URL again; show the rest (domain, verdict, findings).
    for line in review.plain_text().lines().skip(1) {
        screen.show(&format!("  {line}"));
    }
    screen.show("");
}

/// Show the consent screen for `review` and act on the person's choice.
pub fn run_consent(
    screen: &mut dyn Screen,
    header: &Header,
    review: &UrlReview,
    opener: &dyn Opener,
    action: Option<&UrlAction>,
) -> ConsentOutcome {
    show_review(screen, header, "asks you to open a link", review);
    if review.verdict() == Verdict::Refused {
        screen.show("This link is refused and will not be opened.");
        let _ = screen.key("", &[('c', "close")]);
        screen.show("Closed: the server was told the request was dismissed.");
        return ConsentOutcome::Refused;
    }
    screen.show("Nothing has been opened. Open it only if you expected this request.");
    let mut keys: Vec<MenuKey> = vec![('o', "open in browser")];
    if let Some(a) = action {
        keys.push((a.key, a.label));
    }
    keys.extend([('d', "decline"), ('c', "cancel")]);
    let key = loop {
        match screen.key("Your choice:", &keys) {
            Ok(key) => break key,
            Err(crate::screen::Interrupted::Cancel) => break 'c',
            Err(crate::screen::Interrupted::Escape) => match how_to_leave(screen, &header.server) {
                Leave::Back => continue,
                Leave::Decline => break 'd',
                Leave::Cancel => break 'c',
                Leave::StopAsking => {
                    screen.show(&stopped_asking(&header.server));
                    return ConsentOutcome::StoppedAsking;
                }
            },
        }
    };
    let Some(consented) = review.consented() else {
        return ConsentOutcome::Refused;
    };
    let outcome = choose(screen, key, &consented, opener, action);
    if matches!(outcome, ConsentOutcome::Opened | ConsentOutcome::Printed) {
        // The person finishes outside; the answer waits until they come back, so the
        // server's next look (a 2026-07-28 retry) finds the flow done.
        let done = screen.key(
            "When you have finished in the browser:",
            &[('r', "done, continue"), ('c', "cancel")],
        );
        if done != Ok('r') {
            screen.show("Cancelled: the server was told you dismissed it.");
            return ConsentOutcome::Cancelled;
        }
    }
    outcome
}

fn choose(
    screen: &mut dyn Screen,
    key: char,
    consented: &ConsentedUrl,
    opener: &dyn Opener,
    action: Option<&UrlAction>,
) -> ConsentOutcome {
    match key {
        'o' => match opener.open(consented) {
            Ok(()) => {
                screen.show("Opened in your browser. Finish there, then come back.");
                ConsentOutcome::Opened
            }
            Err(reason) => {
                screen.show(&format!("Could not open a browser ({reason})."));
                screen.show("Copy this URL into a browser, finish there, then come back:");
                screen.show("");
                screen.show(&format!("    {}", consented.as_str()));
                screen.show("");
                ConsentOutcome::Printed
            }
        },
        'd' => {
            screen.show("Declined: the server was told no; nothing was opened.");
            ConsentOutcome::Declined
        }
        'c' => {
            screen.show("Cancelled: the server was told you dismissed it; nothing was opened.");
            ConsentOutcome::Cancelled
        }
        other => match action.filter(|a| a.key == other) {
            Some(a) => match (a.run)(consented) {
                Ok(note) => {
                    screen.show(&note);
                    ConsentOutcome::Acted(note)
                }
                Err(reason) => {
                    screen.show(&format!("That did not work: {reason}"));
                    ConsentOutcome::Acted(reason)
                }
            },
            None => ConsentOutcome::Cancelled,
        },
    }
}
