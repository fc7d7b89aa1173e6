//! The wire log behind the timeline: every JSON-RPC message the client sent or
//! received, stored with secrets masked, and a one-line summary of each.
//!
//! Which values are secret is the form model's call: every form the server asks
//! for (an `elicitation/create`, or a question inside an `input_required` result)
//! is read with `FormSchema::parse`, and the keys of the fields its sensitive-field
//! lint flags are masked wherever an answer carries them (an object named
//! `content`), in every message from then on. The masked value never reaches the
//! log, so it never reaches the page.

use std::collections::{BTreeSet, VecDeque};

use frontdesk::client::Direction;
use frontdesk_form::FormSchema;
use serde_json::Value;

/// What a masked value is replaced with.
pub(crate) const MASK: &str = "••••••••";

/// How many messages are kept (the oldest go first).
const MAX_ENTRIES: usize = 5_000;

/// One message as the timeline shows it.
#[derive(Debug, Clone)]
pub(crate) struct WireEntry {
    pub direction: Direction,
    /// The message, secrets masked.
    pub message: Value,
}

/// Every message so far, by position (positions stay valid when old ones go).
#[derive(Debug, Default)]
pub(crate) struct WireLog {
    entries: VecDeque<WireEntry>,
    first: usize,
    sensitive: BTreeSet<String>,
}

impl WireLog {
    /// The position the next message will get.
    pub(crate) fn end(&self) -> usize {
        self.first + self.entries.len()
    }

    /// Record a message: learn the sensitive keys of any form in it, then store it
    /// masked.
    pub(crate) fn record(&mut self, direction: Direction, message: &Value) {
        self.learn(message);
        let mut masked = message.clone();
        mask(&mut masked, &self.sensitive);
        self.entries.push_back(WireEntry {
            direction,
            message: masked,
        });
        if self.entries.len() > MAX_ENTRIES {
            self.entries.pop_front();
            self.first += 1;
        }
    }

    /// The messages at positions `from..to` that are still kept.
    pub(crate) fn range(&self, from: usize, to: usize) -> impl Iterator<Item = &WireEntry> {
        let start = from.saturating_sub(self.first);
        let stop = to.saturating_sub(self.first).min(self.entries.len());
        self.entries.range(start.min(stop)..stop)
    }

    /// The messages of `from..to` that can belong to a call of `tool`: calls of
    /// other tools made meanwhile, and the responses to them, are left out. (Two
    /// calls of the same tool at once still share their messages.)
    pub(crate) fn for_call(&self, from: usize, to: usize, tool: &str) -> Vec<&WireEntry> {
        let is_other_call = |e: &WireEntry| {
            e.direction == Direction::Outgoing
                && e.message.get("method").and_then(Value::as_str) == Some("tools/call")
                && e.message.pointer("/params/name").and_then(Value::as_str) != Some(tool)
        };
        let others: BTreeSet<String> = self
            .range(from, to)
            .filter(|e| is_other_call(e))
            .filter_map(|e| e.message.get("id").map(Value::to_string))
            .collect();
        self.range(from, to)
            .filter(|e| !is_other_call(e))
            .filter(|e| {
                let response =
                    e.direction == Direction::Incoming && e.message.get("method").is_none();
                let id = e.message.get("id").map(Value::to_string);
                !(response && id.is_some_and(|id| others.contains(&id)))
            })
            .collect()
    }

    fn learn(&mut self, message: &Value) {
        let mut schemas = Vec::new();
        if message.get("method").and_then(Value::as_str) == Some("elicitation/create") {
            schemas.extend(message.pointer("/params/requestedSchema"));
        }
        if let Some(requests) = message
            .pointer("/result/inputRequests")
            .and_then(Value::as_object)
        {
            schemas.extend(
                requests
                    .values()
                    .filter_map(|r| r.pointer("/params/requestedSchema")),
            );
        }
        for schema in schemas {
            if let Ok(parsed) = FormSchema::parse(schema) {
                self.sensitive
                    .extend(parsed.schema.sensitive_fields().map(|f| f.key().to_owned()));
            }
        }
    }
}

/// Replace the values of `keys` in every object named `content`, at any depth.
fn mask(value: &mut Value, keys: &BTreeSet<String>) {
    match value {
        Value::Object(map) => {
            for (name, inner) in map.iter_mut() {
                if name == "content"
                    && let Value::Object(content) = inner
                {
                    for (key, v) in content.iter_mut() {
                        if keys.contains(key) {
                            *v = Value::String(MASK.to_owned());
                        }
                    }
                }
                mask(inner, keys);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| mask(v, keys)),
        _ => {}
    }
}

/// A line for the collapsed message: which way, what it is, its id.
pub(crate) fn summary(direction: Direction, message: &Value) -> String {
    let arrow = match direction {
        Direction::Outgoing => "→ sent",
        Direction::Incoming => "← received",
    };
    let id = message
        .get("id")
        .map(|id| match id {
            Value::String(s) => format!(" · id {s}"),
            other => format!(" · id {other}"),
        })
        .unwrap_or_default();
    let what = if let Some(method) = message.get("method").and_then(Value::as_str) {
        let name = message
            .pointer("/params/name")
            .and_then(Value::as_str)
            .map(|n| format!(" {n}"))
            .unwrap_or_default();
        let mode = message
            .pointer("/params/mode")
            .and_then(Value::as_str)
            .map(|m| format!(" ({m})"))
            .unwrap_or_default();
        format!("{method}{name}{mode}")
    } else if let Some(error) = message.get("error") {
        let code = error.get("code").map(Value::to_string).unwrap_or_default();
        format!("error {code}")
    } else if let Some(result) = message.get("result") {
        match result.get("resultType").and_then(Value::as_str) {
            Some("input_required") => {
                let keys: Vec<&str> = result
                    .get("inputRequests")
                    .and_then(Value::as_object)
                    .map(|o| o.keys().map(String::as_str).collect())
                    .unwrap_or_default();
                format!("result: input_required ({})", keys.join(", "))
            }
            Some(other) => format!("result: {other}"),
            None => match result.get("action").and_then(Value::as_str) {
                Some(action) => format!("answer: {action}"),
                None => "result".to_owned(),
            },
        }
    } else {
        "message".to_owned()
    };
    frontdesk_host::sanitize::display_line(&format!("{arrow} {what}{id}"), 200)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({"type": "object", "properties": {
            "user": {"type": "string", "title": "User"},
            "apiKey": {"type": "string", "title": "API key"}}})
    }

    #[test]
    fn answers_to_sensitive_fields_are_masked_in_both_revisions() {
        let mut log = WireLog::default();
        log.record(
            Direction::Incoming,
            &json!({"jsonrpc": "2.0", "id": 4, "method": "elicitation/create",
                "params": {"mode": "form", "message": "key?", "requestedSchema": schema()}}),
        );
        log.record(
            Direction::Outgoing,
            &json!({"jsonrpc": "2.0", "id": 4, "result": {"action": "accept",
                "content": {"user": "ann", "apiKey": "sk-live-123"}}}),
        );
        log.record(
            Direction::Incoming,
            &json!({"jsonrpc": "2.0", "id": 5, "result": {"resultType": "input_required",
                "inputRequests": {"q": {"method": "elicitation/create",
                    "params": {"mode": "form", "message": "m",
                        "requestedSchema": {"type": "object", "properties": {
                            "password": {"type": "string"}}}}}}}}),
        );
        log.record(
            Direction::Outgoing,
            &json!({"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {
                "name": "t", "inputResponses": {"q": {"action": "accept",
                    "content": {"password": "hunter2", "user": "bob"}}}}}),
        );
        let text: String = log
            .range(0, log.end())
            .map(|e| e.message.to_string())
            .collect();
        assert!(!text.contains("sk-live-123"), "{text}");
        assert!(!text.contains("hunter2"), "{text}");
        assert!(
            text.contains("\"ann\"") && text.contains("\"bob\""),
            "{text}"
        );
        assert_eq!(text.matches(MASK).count(), 2, "{text}");
    }

    #[test]
    fn summaries_name_the_message() {
        let s = summary(
            Direction::Incoming,
            &json!({"id": 2, "result": {"resultType": "input_required",
                "inputRequests": {"return": {}}}}),
        );
        assert_eq!(s, "← received result: input_required (return) · id 2");
        let s = summary(
            Direction::Outgoing,
            &json!({"id": 3, "method": "tools/call", "params": {"name": "book_return"}}),
        );
        assert_eq!(s, "→ sent tools/call book_return · id 3");
    }

    #[test]
    fn a_call_leaves_out_the_other_tools_calls() {
        let mut log = WireLog::default();
        let call = |id: u64, name: &str| json!({"id": id, "method": "tools/call", "params": {"name": name}});
        log.record(Direction::Outgoing, &call(1, "a"));
        log.record(Direction::Outgoing, &call(2, "b"));
        log.record(Direction::Incoming, &json!({"id": 2, "result": {}}));
        log.record(Direction::Incoming, &json!({"id": 1, "result": {}}));
        let ids: Vec<Value> = log
            .for_call(0, log.end(), "a")
            .iter()
            .map(|e| e.message["id"].clone())
            .collect();
        assert_eq!(ids, [json!(1), json!(1)]);
    }

    #[test]
    fn ranges_survive_dropping_old_entries() {
        let mut log = WireLog::default();
        for i in 0..(MAX_ENTRIES + 10) {
            log.record(Direction::Outgoing, &json!({ "id": i }));
        }
        assert_eq!(log.range(0, 5).count(), 0);
        let last: Vec<_> = log.range(log.end() - 2, log.end()).collect();
        assert_eq!(last.len(), 2);
        assert_eq!(last[1].message["id"], json!(MAX_ENTRIES + 9));
    }
}
