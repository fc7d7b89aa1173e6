//! A few sentences on what travelled on the wire during one tool call: the lab's
//! explanations, shared by the terminal and browser hosts.

use frontdesk::client::Direction;

use frontdesk::wire::Revision;
use serde_json::Value;

fn method(m: &Value) -> Option<&str> {
    m.get("method").and_then(Value::as_str)
}

fn plural(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

/// Explain the messages of one tool call (as recorded by the wire tap).
pub fn explain(revision: Revision, tool: &str, messages: &[(Direction, Value)]) -> Vec<String> {
    match revision {
        Revision::V2025_11_25 => explain_legacy(tool, messages),
        Revision::V2026_07_28 => explain_modern(tool, messages),
    }
}

fn explain_legacy(tool: &str, messages: &[(Direction, Value)]) -> Vec<String> {
    let incoming = messages
        .iter()
        .filter(|(d, _)| *d == Direction::Incoming)
        .map(|(_, m)| m);
    let mut forms = 0;
    let mut urls = 0;
    let mut completes = 0;
    for m in incoming {
        match method(m) {
            Some("elicitation/create") => {
                let mode = m.pointer("/params/mode").and_then(Value::as_str);
                if mode == Some("url") {
                    urls += 1;
                } else {
                    forms += 1;
                }
            }
            Some("notifications/elicitation/complete") => completes += 1,
            _ => {}
        }
    }
    let mut lines = vec![format!(
        "2025-11-25: you sent one tools/call {tool}; it stayed open while the server asked."
    )];
    if forms > 0 {
        lines.push(format!(
            "The server sent {} (mode form) on the same connection; each answer went back as the JSON-RPC response to that request.",
            plural(forms, "elicitation/create request", "elicitation/create requests")
        ));
    }
    if urls > 0 {
        lines.push(format!(
            "The server sent {} (mode url, with an elicitationId); your answer went back as its response (accept means consent, not that the sign-in is done), and frontdesk never fetched the link.",
            plural(urls, "elicitation/create request", "elicitation/create requests")
        ));
    }
    if completes > 0 {
        lines.push(
            "When the sign-in page finished the flow, the server sent notifications/elicitation/complete."
                .to_owned(),
        );
    }
    lines.push("Then the tools/call response carried the result.".to_owned());
    lines
}

fn explain_modern(tool: &str, messages: &[(Direction, Value)]) -> Vec<String> {
    let calls = messages
        .iter()
        .filter(|(d, m)| *d == Direction::Outgoing && method(m) == Some("tools/call"))
        .count();
    let mut lines = vec![format!(
        "2026-07-28: tools/call {tool} was sent {}; no request ever came from the server.",
        plural(calls, "time", "times")
    )];
    let mut round = 0;
    for (d, m) in messages {
        if *d != Direction::Incoming {
            continue;
        }
        let Some(result) = m.get("result") else {
            continue;
        };
        if result.get("resultType").and_then(Value::as_str) != Some("input_required") {
            continue;
        }
        round += 1;
        let keys: Vec<String> = result
            .get("inputRequests")
            .and_then(Value::as_object)
            // The keys are the server's: escaped like any of its text.
            .map(|o| {
                o.keys()
                    .map(|k| crate::sanitize::display_line(k, 80))
                    .collect()
            })
            .unwrap_or_default();
        let modes: Vec<&str> = result
            .get("inputRequests")
            .and_then(Value::as_object)
            .map(|o| {
                o.values()
                    .map(|r| {
                        if r.pointer("/params/mode").and_then(Value::as_str) == Some("url") {
                            "url"
                        } else {
                            "form"
                        }
                    })
                    .collect()
            })
            .unwrap_or_default();
        let state = result
            .get("requestState")
            .and_then(Value::as_str)
            .map_or(0, str::len);
        let questions = if keys.is_empty() {
            "no question (a state-only round)".to_owned()
        } else {
            format!(
                "{} ({}, {})",
                plural(keys.len(), "question", "questions"),
                keys.join(", "),
                modes.join("/")
            )
        };
        lines.push(format!(
            "Call {round} returned input_required with {questions}; the client retried with inputResponses and the sealed requestState ({state} bytes), echoed unchanged."
        ));
    }
    lines.push("The last call returned the result (resultType complete).".to_owned());
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn modern_rounds_are_counted() {
        let msgs = vec![
            (
                Direction::Outgoing,
                json!({"method": "tools/call", "id": 1}),
            ),
            (
                Direction::Incoming,
                json!({"id": 1, "result": {"resultType": "input_required",
                    "inputRequests": {"return": {"method": "elicitation/create", "params": {"mode": "form"}}},
                    "requestState": "abcd"}}),
            ),
            (
                Direction::Outgoing,
                json!({"method": "tools/call", "id": 2}),
            ),
            (
                Direction::Incoming,
                json!({"id": 2, "result": {"resultType": "complete"}}),
            ),
        ];
        let text = explain(Revision::V2026_07_28, "book_return", &msgs).join("\n");
        assert!(text.contains("was sent 2 times"), "{text}");
        assert!(text.contains("1 question (return, form)"), "{text}");
        assert!(text.contains("requestState (4 bytes)"), "{text}");
    }

    #[test]
    fn legacy_requests_are_counted() {
        let msgs = vec![
            (
                Direction::Incoming,
                json!({"method": "elicitation/create", "params": {"mode": "form"}}),
            ),
            (
                Direction::Incoming,
                json!({"method": "elicitation/create", "params": {}}),
            ),
        ];
        let text = explain(Revision::V2025_11_25, "book_return", &msgs).join("\n");
        assert!(
            text.contains("2 elicitation/create requests (mode form)"),
            "{text}"
        );
    }
}
