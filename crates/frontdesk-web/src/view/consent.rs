//! The URL consent screen: the full URL as text (never a link) with its registrable
//! domain highlighted, the domain to check, every finding of the review with its
//! severity, and three equal choices with no default: **Open link**, **Decline**,
//! **Cancel**. A refused link is never offered: its page has no Open link button
//! and carries no URL to open. Only an allowed review's consented URL is put on the
//! Open link button, for the page's script to open in a new tab on that click.

use std::fmt::Write as _;

use frontdesk_url::{HostKind, Severity, UrlReview, Verdict};

use crate::html::esc;
use crate::state::{Flow, Question};
use crate::view::question::header;

/// The URL cut around what to highlight: the registrable domain, or else the host.
fn parts(review: &UrlReview) -> Option<(&str, &str, &str)> {
    review.highlight_parts().or_else(|| {
        let url = review.url()?;
        let host = review.host()?;
        let from = url.find("://").map_or(0, |i| i + 3);
        let start = from + url.get(from..)?.find(host)?;
        let end = start + host.len();
        Some((url.get(..start)?, url.get(start..end)?, url.get(end..)?))
    })
}

fn severity_label(severity: Severity) -> &'static str {
    match severity {
        Severity::Info => "Note",
        Severity::Warning => "Warning",
        Severity::Refusal => "Refused",
    }
}

/// The URL, the domain and the findings.
fn details(out: &mut String, review: &UrlReview) {
    out.push_str("<div class=\"link\" role=\"group\" aria-label=\"The link\">");
    match (review.url(), parts(review)) {
        (Some(_), Some((pre, mark, post))) => {
            let _ = write!(
                out,
                "<p class=\"url\"><span class=\"k\">URL</span> <code id=\"link-url\">{}<mark>{}</mark>{}</code></p>",
                esc(pre),
                esc(mark),
                esc(post)
            );
        }
        (Some(url), None) => {
            let _ = write!(
                out,
                "<p class=\"url\"><span class=\"k\">URL</span> <code id=\"link-url\">{}</code></p>",
                esc(url)
            );
        }
        (None, _) => {
            let _ = write!(
                out,
                "<p class=\"url\"><span class=\"k\">Input</span> <code id=\"link-url\">{}</code> (not a usable URL)</p>",
                esc(review.input_preview())
            );
        }
    }
    match (
        review.host_kind(),
        review.registrable_domain(),
        review.host(),
    ) {
        (Some(HostKind::Ipv4 | HostKind::Ipv6), _, Some(host)) => {
            let _ = write!(
                out,
                "<p><span class=\"k\">Address</span> <strong id=\"link-domain\">{}</strong> (an IP address: check it)</p>",
                esc(host)
            );
        }
        (_, Some(domain), _) => {
            let _ = write!(
                out,
                "<p><span class=\"k\">Domain</span> <strong id=\"link-domain\">{}</strong> (the registrable domain: check it)</p>",
                esc(domain)
            );
        }
        (_, None, Some(host)) => {
            let _ = write!(
                out,
                "<p><span class=\"k\">Host</span> <strong id=\"link-domain\">{}</strong> (check it)</p>",
                esc(host)
            );
        }
        _ => {}
    }
    if let (Some(host), Some(unicode)) = (review.host(), review.host_unicode())
        && host != unicode
    {
        let _ = write!(
            out,
            "<p><span class=\"k\">Reads as</span> {}</p>",
            esc(unicode)
        );
    }
    if let Some(port) = review.port() {
        let _ = write!(out, "<p><span class=\"k\">Port</span> {port}</p>");
    }
    let (class, verdict) = match review.verdict() {
        Verdict::Allowed => ("ok", "allowed: open it only if you expected it"),
        Verdict::AllowedWithWarnings => (
            "warn",
            "allowed with warnings: read them before you open it",
        ),
        Verdict::Refused => ("bad", "refused: this link will not be opened"),
    };
    let _ = write!(
        out,
        "<p class=\"verdict {class}\"><span class=\"k\">Verdict</span> {verdict}</p>"
    );
    out.push_str("</div>");
    if !review.findings().is_empty() {
        out.push_str(
            "<h3 id=\"findings-title\">What the review found</h3>\
             <ul class=\"findings\" aria-labelledby=\"findings-title\">",
        );
        for f in review.findings() {
            let _ = write!(
                out,
                "<li class=\"sev-{}\"><span class=\"sev\">{}</span> {}</li>",
                f.severity.as_str(),
                severity_label(f.severity),
                esc(&f.message)
            );
        }
        out.push_str("</ul>");
    }
}

/// The consent screen. **Open link** is the person's consent: it opens the link
/// in a new tab and sends `accept` at once (on both revisions); the page then
/// waits for the flow by itself (see [`flows`]). The choices stay in view while
/// the details scroll (the form holds them, its actions bar is sticky).
pub(crate) fn consent(out: &mut String, q: &Question, review: &UrlReview, waiting: usize) {
    let _ = write!(
        out,
        "<form class=\"answer consent\" method=\"post\" action=\"q/{}\">",
        q.id
    );
    header(out, q, "asks you to open a link", waiting);
    details(out, review);
    match review.consented() {
        None => {
            out.push_str(
                "<p class=\"refused\">This link is refused and will not be opened.</p>\
                 <div class=\"actions\">\
                 <button type=\"submit\" name=\"action\" value=\"decline\">Decline</button>\
                 <button type=\"submit\" name=\"action\" value=\"cancel\">Cancel</button></div>",
            );
        }
        Some(url) => {
            let _ = write!(
                out,
                "<p>Nothing has been opened. Open it only if you expected this request: \
                 Open link consents, opens it in a new tab, and tells the server.</p>\
                 <div class=\"actions\">\
                 <button type=\"submit\" name=\"action\" value=\"open\" data-open=\"{}\">Open link</button>\
                 <button type=\"submit\" name=\"action\" value=\"decline\">Decline</button>\
                 <button type=\"submit\" name=\"action\" value=\"cancel\">Cancel</button></div>",
                esc(url.as_str())
            );
        }
    }
    out.push_str("</form>");
    crate::view::question::leave_dialog(out, q);
}

/// The flows the person consented to and is finishing in another tab: the page
/// moves on by itself when each is complete.
pub(crate) fn flows(out: &mut String, flows: &[Flow]) {
    if flows.is_empty() {
        return;
    }
    out.push_str(
        "<div class=\"flows\" id=\"flows\" role=\"status\">\
         <h3>Finish in the other tab</h3>",
    );
    for f in flows {
        let _ = write!(
            out,
            "<p>{}{} — waiting for you to finish there; this page moves on by itself when \
             the server says it is done.</p>\
             <p class=\"hint\">If no tab opened, copy the link: <code class=\"copy\">{}</code></p>",
            esc(&f.server),
            f.request
                .as_deref()
                .map(|r| format!(" ({})", esc(r)))
                .unwrap_or_default(),
            esc(&f.url),
        );
    }
    out.push_str("</div>");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::QuestionKind;
    use frontdesk::client::ElicitationOrigin;
    use frontdesk_host::widgets::Header;
    use frontdesk_url::{UrlPolicy, review};
    use frontdesk_wire::Implementation;

    fn render(url: &str) -> String {
        let origin = ElicitationOrigin {
            server: Implementation::new("shop", "1.0"),
            request: Some("tools/call sign_in".into()),
            key: "k".into(),
        };
        let reviewed = review(url, &UrlPolicy::default());
        let (tx, _rx) = tokio::sync::oneshot::channel();
        let kind = QuestionKind::Url {
            review: reviewed.clone(),
            elicitation_id: None,
        };
        let q = Question::new(Header::new(&origin, "Sign in", 0), kind, None, tx);
        let mut out = String::new();
        consent(&mut out, &q, &reviewed, 0);
        out
    }

    #[test]
    fn the_registrable_domain_is_highlighted_and_the_choices_have_no_default() {
        let html = render("https://login.example.com/connect?flow=1");
        assert!(
            html.contains("https://login.<mark>example.com</mark>/connect?flow=1"),
            "{html}"
        );
        assert!(html.contains("<strong id=\"link-domain\">example.com</strong>"));
        assert!(html.contains("data-open=\"https://login.example.com/connect?flow=1\""));
        assert!(!html.contains("primary"), "no choice is the default");
        assert!(!html.contains("autofocus"));
        assert!(!html.contains("<a "), "the URL is never a link");
    }

    #[test]
    fn a_lookalike_is_refused_with_its_finding_and_never_offered() {
        let html = render("https://аррӏе.com/login");
        assert!(html.contains("This link is refused and will not be opened."));
        assert!(html.contains("class=\"sev-refusal\""), "{html}");
        assert!(
            html.contains("Reads as"),
            "the Unicode reading is shown: {html}"
        );
        assert!(!html.contains("data-open"));
        assert!(!html.contains("value=\"open\""));
    }
}
