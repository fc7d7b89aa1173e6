//! The page, rendered on the server: a header (what this is, the server, the
//! protocol), the question on screen, the queue, the tools, the calls with their
//! wire timelines, and the handshake. The markup is static apart from [`esc`]aped
//! values; the page's one script (`app.js`) only adds live checks, refreshes and
//! the opening of a consented link.
//!
//! [`esc`]: crate::html::esc

mod calls;
mod consent;
mod question;

use std::fmt::Write as _;

use serde_json::{Value, json};

use crate::html::esc;
use crate::state::{FormStage, Inner, Link, QuestionKind, Versions};

pub(crate) use question::waiting_note;

/// What the page says about itself.
#[derive(Debug, Clone, Default)]
pub(crate) struct PageText {
    /// `frontdesk lab` or `frontdesk connect`.
    pub title: String,
    /// Sentences under the title.
    pub intro: Vec<String>,
    /// Where the server is (`the brightgrid demo over an in-process stdio pipe`).
    pub target: String,
    /// Offer the protocol switch.
    pub switchable: bool,
    /// Arguments to pre-fill, by tool.
    pub presets: Vec<(String, Value)>,
}

/// The queue as the page's script receives it (and as the page first shows it).
pub(crate) fn queue_items(inner: &Inner) -> Vec<Value> {
    inner
        .questions
        .iter()
        .enumerate()
        .map(|(i, q)| {
            let first_line = q.header.message.lines().next().unwrap_or("");
            let mut text: String = first_line.chars().take(120).collect();
            if text.len() < q.header.message.len() {
                text.push('…');
            }
            json!({ "title": q.header.title(), "message": text, "current": i == 0 })
        })
        .collect()
}

fn queue(out: &mut String, inner: &Inner) {
    out.push_str(
        "<section class=\"queue\" aria-labelledby=\"queue-title\"><h2 id=\"queue-title\">Questions</h2>\
         <ol id=\"queue-list\">",
    );
    let items = queue_items(inner);
    if items.is_empty() {
        out.push_str("<li class=\"empty\">None waiting.</li>");
    }
    for item in &items {
        let text = |k: &str| item.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
        let current = item.get("current") == Some(&Value::Bool(true));
        let _ = write!(
            out,
            "<li{}><span class=\"title\">{}</span> <span class=\"text\">{}</span>{}</li>",
            if current { " class=\"current\"" } else { "" },
            esc(&text("title")),
            esc(&text("message")),
            if current {
                " <span class=\"now\">on screen</span>"
            } else {
                ""
            }
        );
    }
    out.push_str("</ol></section>");
}

fn current(out: &mut String, inner: &Inner) {
    let waiting = inner.questions.len().saturating_sub(1);
    out.push_str("<section class=\"question\" id=\"question\" aria-labelledby=\"q-title\">");
    match inner.current() {
        None => {
            out.push_str(
                "<h2 id=\"q-title\" tabindex=\"-1\">No question is waiting</h2>\
                 <p>Call a tool: when its server asks you something, the question appears here.</p>",
            );
            consent::flows(out, &inner.flows);
        }
        Some(q) => match &q.kind {
            QuestionKind::Form {
                form,
                draft,
                stage: FormStage::Editing,
            } => question::form(out, q, form, draft, waiting),
            QuestionKind::Form {
                form,
                stage: FormStage::Review(values),
                ..
            } => question::review(out, q, form, values, waiting),
            QuestionKind::Url { review, .. } => consent::consent(out, q, review, waiting),
        },
    }
    out.push_str("</section>");
}

fn banner(out: &mut String, inner: &Inner, text: &PageText) {
    let _ = write!(out, "<header><h1>{}</h1>", esc(&text.title));
    // The first sentence; the rest on demand, so the question is near the top
    // even on a narrow screen.
    if let Some((first, rest)) = text.intro.split_first() {
        let _ = write!(out, "<p class=\"intro\">{}</p>", esc(first));
        if !rest.is_empty() {
            out.push_str("<details class=\"intro-more\"><summary>More about this page</summary>");
            for line in rest {
                let _ = write!(out, "<p class=\"intro\">{}</p>", esc(line));
            }
            out.push_str("</details>");
        }
    }
    let status = match &inner.connection.link {
        Link::Connecting => format!("Connecting to {} …", text.target),
        Link::Connected { server, revision } => {
            format!(
                "Connected to {server} ({}) · protocol {revision}",
                text.target
            )
        }
        Link::Failed(reason) => format!("Not connected to {}: {reason}", text.target),
    };
    let _ = write!(
        out,
        "<p class=\"status\" id=\"link-status\">{}</p>",
        esc(&status)
    );
    if text.switchable
        && let Link::Connected { revision, .. } = &inner.connection.link
    {
        let other = match revision {
            frontdesk::wire::Revision::V2025_11_25 => "2026-07-28",
            frontdesk::wire::Revision::V2026_07_28 => "2025-11-25",
        };
        let _ = write!(
            out,
            "<form method=\"post\" action=\"protocol\" class=\"switch\">\
             <button type=\"submit\">Switch protocol to {other}</button></form>"
        );
    }
    out.push_str("</header>");
}

/// The whole page. Takes the one-time notice.
pub(crate) fn page(inner: &mut Inner, versions: Versions, text: &PageText) -> String {
    let notice = inner.notice.take();
    let mut out = String::with_capacity(16 * 1024);
    let _ = write!(
        out,
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <meta name=\"referrer\" content=\"same-origin\">\
         <title>{}</title><link rel=\"icon\" href=\"favicon.svg\" type=\"image/svg+xml\">\
         <link rel=\"stylesheet\" href=\"app.css\">\
         <script src=\"app.js\" defer></script></head>\
         <body data-screen=\"{}\" data-queue=\"{}\">",
        esc(&text.title),
        versions.screen,
        versions.queue
    );
    banner(&mut out, inner, text);
    out.push_str("<main><div class=\"primary-col\">");
    let _ = write!(
        out,
        "<p class=\"notice\" id=\"notice\" role=\"status\">{}</p>",
        esc(notice.as_deref().unwrap_or(""))
    );
    current(&mut out, inner);
    queue(&mut out, inner);
    calls::tools(&mut out, inner, &text.presets);
    out.push_str("</div><div class=\"side-col\">");
    calls::calls(&mut out, inner);
    calls::handshake(&mut out, inner);
    out.push_str("</div></main></body></html>");
    out
}
