//! The server's tools (each a small form: its arguments as a form built from its
//! input schema, or as JSON, and a Call button),
//! the calls made from the page (the result as text, its JSON on demand, and the
//! wire timeline of the call with the lab's explanation), and the handshake.

use std::fmt::Write as _;

use std::time::{SystemTime, UNIX_EPOCH};

use frontdesk_host::sanitize::{display_line, display_text};
use frontdesk_host::widgets::tool_about;
use frontdesk_host::widgets::{ArgumentsForm, arguments_form};
use serde_json::Value;

use crate::draft::{Draft, Raw};
use crate::html::{esc, pretty};
use crate::state::{Call, CallOutcome, Inner};
use crate::view::question::field_html;
use crate::wire::{WireEntry, summary};

/// The tools, each with its arguments as a form built from its input schema (as in
/// the terminal, [`arguments_form`] decides: a flat schema of primitive fields), or as JSON
/// when the schema does not fit a form, and its Call button. What is typed is kept
/// across refreshes by the page's script (per tool, in the tab's session storage).
pub(crate) fn tools(out: &mut String, inner: &Inner, presets: &[(String, Value)]) {
    out.push_str("<section class=\"tools\" aria-labelledby=\"tools-title\"><h2 id=\"tools-title\">Tools</h2>");
    if inner.connection.tools.is_empty() {
        out.push_str("<p class=\"empty\">No tools (yet).</p>");
    }
    for (i, tool) in inner.connection.tools.iter().enumerate() {
        let name = display_line(&tool.name, 80);
        let about = tool_about(tool)
            .map(|d| display_line(d, 300))
            .unwrap_or_default();
        let preset = presets
            .iter()
            .find(|(t, _)| *t == tool.name)
            .map(|(_, v)| v);
        let _ = write!(
            out,
            "<form class=\"tool\" method=\"post\" action=\"call\" data-keep=\"tool-{key}\">\
             <h3>{name}</h3><p class=\"about\">{about}</p>\
             <input type=\"hidden\" name=\"tool\" value=\"{raw}\">",
            key = esc(&tool.name),
            name = esc(&name),
            about = esc(&about),
            raw = esc(&tool.name),
        );
        match arguments_form(tool) {
            ArgumentsForm::None => {}
            ArgumentsForm::Form(parsed) => {
                let values = preset
                    .and_then(Value::as_object)
                    .cloned()
                    .unwrap_or_else(|| parsed.schema.prefill());
                let draft = Draft::from_values(&parsed.schema, &values);
                let empty = Raw::default();
                let _ = write!(
                    out,
                    "<fieldset class=\"arguments\"><legend>Arguments of {}</legend>",
                    esc(&name)
                );
                for (j, field) in parsed.schema.fields().iter().enumerate() {
                    field_html(
                        out,
                        &format!("t{i}-"),
                        j,
                        field,
                        draft.raw.get(j).unwrap_or(&empty),
                        None,
                        None,
                    );
                }
                out.push_str("</fieldset>");
            }
            ArgumentsForm::Json(skeleton) => {
                let arguments = preset.map_or(skeleton, Value::to_string);
                let _ = write!(
                    out,
                    "<label for=\"t{i}\">Arguments of {name} (JSON)</label>\
                     <textarea id=\"t{i}\" name=\"arguments\" rows=\"2\" spellcheck=\"false\">{args}</textarea>",
                    name = esc(&name),
                    args = esc(&arguments),
                );
            }
        }
        let _ = write!(
            out,
            "<button type=\"submit\">Call {}</button></form>",
            esc(&name)
        );
    }
    out.push_str("</section>");
}

/// `16:13:02.123` (UTC) and the whole RFC 3339 time, for a `<time>` element.
fn clock(at: SystemTime) -> (String, String) {
    let since = at.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = since.as_secs();
    let (day, of_day) = (secs / 86_400, secs % 86_400);
    let (h, m, s, ms) = (
        of_day / 3600,
        of_day / 60 % 60,
        of_day % 60,
        since.subsec_millis(),
    );
    // Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm).
    let z = i64::try_from(day).unwrap_or(0) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let mo = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(mo <= 2);
    (
        format!("{h:02}:{m:02}:{s:02}.{ms:03}"),
        format!("{y:04}-{mo:02}-{d:02}T{h:02}:{m:02}:{s:02}.{ms:03}Z"),
    )
}

/// A timeline of messages: each one collapsible with its time (and, within a call,
/// the time since it started), pretty-printed (already masked), with a button that
/// copies it as JSON. `label` names the list (each timeline on the page its own).
pub(crate) fn timeline<'a>(
    out: &mut String,
    label: &str,
    start: Option<SystemTime>,
    entries: impl Iterator<Item = &'a WireEntry>,
) {
    let _ = write!(out, "<ol class=\"timeline\" aria-label=\"{}\">", esc(label));
    let mut any = false;
    for entry in entries {
        any = true;
        let class = match entry.direction {
            frontdesk::client::Direction::Outgoing => "out",
            frontdesk::client::Direction::Incoming => "in",
        };
        let (shown, full) = clock(entry.at);
        let offset = start
            .and_then(|s| entry.at.duration_since(s).ok())
            .map(|d| format!(" +{:.3} s", d.as_secs_f64()))
            .unwrap_or_default();
        let _ = write!(
            out,
            "<li class=\"{class}\"><details><summary><time datetime=\"{full}\">{shown}</time>{offset} {}</summary>\
             <pre tabindex=\"0\">{}</pre>\
             <button type=\"button\" class=\"copy-json\" hidden>Copy as JSON</button></details></li>",
            esc(&summary(entry.direction, &entry.message)),
            esc(&pretty(&entry.message))
        );
    }
    if !any {
        out.push_str("<li class=\"empty\">No messages.</li>");
    }
    out.push_str("</ol>");
}

fn result_html(out: &mut String, outcome: &CallOutcome) {
    match outcome {
        CallOutcome::Failed(reason) => {
            let _ = write!(
                out,
                "<p class=\"failed\">The call failed: {}</p>",
                esc(&display_line(reason, 600))
            );
        }
        CallOutcome::Result(result) => {
            let error = result.is_error == Some(true);
            let _ = write!(
                out,
                "<h4>Result{}</h4>",
                if error {
                    " (the tool reported an error)"
                } else {
                    ""
                }
            );
            out.push_str("<div class=\"result-text\">");
            for block in &result.content {
                match block.as_text() {
                    Some(text) => {
                        let _ = write!(out, "<p>{}</p>", esc(&display_text(text, 4000)));
                    }
                    None => out.push_str(
                        "<p class=\"other\">(content that is not text: see the JSON)</p>",
                    ),
                }
            }
            if result.content.is_empty() {
                out.push_str("<p class=\"other\">(no text content)</p>");
            }
            out.push_str("</div>");
            let json = serde_json::to_value(result.as_ref()).unwrap_or(Value::Null);
            let _ = write!(
                out,
                "<details class=\"json\"><summary>Result as JSON</summary><pre tabindex=\"0\">{}</pre></details>",
                esc(&pretty(&json))
            );
        }
    }
}

fn call_html(out: &mut String, inner: &Inner, call: &Call, newest: bool) {
    let status = match &call.outcome {
        None => "running",
        Some(CallOutcome::Failed(_)) => "failed",
        Some(CallOutcome::Result(r)) if r.is_error == Some(true) => "tool error",
        Some(CallOutcome::Result(_)) => "done",
    };
    let _ = write!(
        out,
        "<article class=\"call\" id=\"call-{id}\" aria-labelledby=\"call-{id}-title\">\
         <h3 id=\"call-{id}-title\">tools/call {} <span class=\"status\">{status}</span></h3>\
         <p class=\"args\">Arguments <code>{}</code> · protocol {}</p>",
        esc(&display_line(&call.tool, 80)),
        esc(&display_line(&call.arguments.to_string(), 300)),
        call.revision,
        id = call.id,
    );
    if let Some(outcome) = &call.outcome {
        result_html(out, outcome);
    } else {
        out.push_str("<p class=\"running\">Waiting for the server…</p>");
    }
    let messages = inner.wire.for_call(call.id);
    let count = messages.len();
    let _ = write!(
        out,
        "<section class=\"wire\" aria-label=\"Wire timeline of call {n}\">\
         <details{}><summary>Wire timeline: {count} JSON-RPC message{}</summary>\
         <button type=\"button\" class=\"copy-all\" hidden>Copy all {count} as JSON</button>",
        if newest { " open" } else { "" },
        if count == 1 { "" } else { "s" },
        n = call.id,
    );
    if !call.explanation.is_empty() {
        out.push_str("<h4>What travelled on the wire</h4><ul class=\"explain\">");
        for line in &call.explanation {
            let _ = write!(out, "<li>{}</li>", esc(line));
        }
        out.push_str("</ul>");
    }
    timeline(
        out,
        &format!("Messages of call {}", call.id),
        Some(call.started),
        messages.into_iter(),
    );
    out.push_str("</details></section></article>");
}

/// Every call, newest first.
pub(crate) fn calls(out: &mut String, inner: &Inner) {
    out.push_str("<section class=\"calls\" aria-labelledby=\"calls-title\"><h2 id=\"calls-title\">Calls</h2>");
    if inner.calls.is_empty() {
        out.push_str("<p class=\"empty\">No call yet. Call a tool: its result and what travelled on the wire appear here.</p>");
    }
    for (n, call) in inner.calls.iter().rev().enumerate() {
        call_html(out, inner, call, n == 0);
    }
    out.push_str("</section>");
}

/// The handshake's messages (initialize or server/discover, tools/list), and every
/// later message that belongs to no call.
pub(crate) fn handshake(out: &mut String, inner: &Inner) {
    let c = &inner.connection;
    let count = inner
        .wire
        .unattributed(c.wire_from, inner.wire.end())
        .count();
    let _ = write!(
        out,
        "<section class=\"handshake\" aria-labelledby=\"hs-title\"><h2 id=\"hs-title\">Connection</h2>\
         <details><summary>Handshake and messages of no call: {count} JSON-RPC message{}</summary>",
        if count == 1 { "" } else { "s" }
    );
    timeline(
        out,
        "Messages of the connection",
        None,
        inner.wire.unattributed(c.wire_from, inner.wire.end()),
    );
    out.push_str("</details></section>");
}
