//! The server's tools (each a small form: its arguments as JSON and a Call button),
//! the calls made from the page (the result as text, its JSON on demand, and the
//! wire timeline of the call with the lab's explanation), and the handshake.

use std::fmt::Write as _;

use frontdesk_host::sanitize::{display_line, display_text};
use frontdesk_host::widgets::{argument_skeleton, tool_about};
use serde_json::Value;

use crate::html::{esc, pretty};
use crate::state::{Call, CallOutcome, Inner};
use crate::wire::{WireEntry, summary};

/// The tools, each with its argument editor and Call button.
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
        let arguments = presets
            .iter()
            .find(|(t, _)| *t == tool.name)
            .map_or_else(|| argument_skeleton(tool), |(_, v)| v.to_string());
        let _ = write!(
            out,
            "<form class=\"tool\" method=\"post\" action=\"call\">\
             <h3>{name}</h3><p class=\"about\">{about}</p>\
             <label for=\"t{i}\">Arguments of {name} (JSON)</label>\
             <textarea id=\"t{i}\" name=\"arguments\" rows=\"2\" spellcheck=\"false\">{args}</textarea>\
             <input type=\"hidden\" name=\"tool\" value=\"{raw}\">\
             <button type=\"submit\">Call {name}</button></form>",
            name = esc(&name),
            about = esc(&about),
            args = esc(&arguments),
            raw = esc(&tool.name),
        );
    }
    out.push_str("</section>");
}

/// A timeline of messages: each one collapsible, pretty-printed (already masked).
pub(crate) fn timeline<'a>(out: &mut String, entries: impl Iterator<Item = &'a WireEntry>) {
    out.push_str("<ol class=\"timeline\">");
    let mut any = false;
    for entry in entries {
        any = true;
        let class = match entry.direction {
            frontdesk::client::Direction::Outgoing => "out",
            frontdesk::client::Direction::Incoming => "in",
        };
        let _ = write!(
            out,
            "<li class=\"{class}\"><details><summary>{}</summary><pre>{}</pre></details></li>",
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
                "<details class=\"json\"><summary>Result as JSON</summary><pre>{}</pre></details>",
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
    let to = call.wire_to.unwrap_or_else(|| inner.wire.end());
    let messages = inner.wire.for_call(call.wire_from, to, &call.tool);
    let count = messages.len();
    let _ = write!(
        out,
        "<section class=\"wire\" aria-label=\"Wire timeline of this call\">\
         <details{}><summary>Wire timeline: {count} JSON-RPC message{}</summary>",
        if newest { " open" } else { "" },
        if count == 1 { "" } else { "s" }
    );
    if !call.explanation.is_empty() {
        out.push_str("<h4>What travelled on the wire</h4><ul class=\"explain\">");
        for line in &call.explanation {
            let _ = write!(out, "<li>{}</li>", esc(line));
        }
        out.push_str("</ul>");
    }
    timeline(out, messages.into_iter());
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

/// The handshake's messages (initialize or server/discover, tools/list).
pub(crate) fn handshake(out: &mut String, inner: &Inner) {
    let c = &inner.connection;
    let to = c.wire_to.unwrap_or_else(|| inner.wire.end());
    let count = inner.wire.range(c.wire_from, to).count();
    let _ = write!(
        out,
        "<section class=\"handshake\" aria-labelledby=\"hs-title\"><h2 id=\"hs-title\">Connection</h2>\
         <details><summary>Handshake: {count} JSON-RPC message{}</summary>",
        if count == 1 { "" } else { "s" }
    );
    timeline(out, inner.wire.range(c.wire_from, to));
    out.push_str("</details></section>");
}
