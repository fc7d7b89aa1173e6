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
use std::time::SystemTime;

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
    /// When it was recorded.
    pub at: SystemTime,
    /// The call it belongs to (see [`Attribution`]), if any.
    pub call: Option<u64>,
}

/// Every message so far, by position (positions stay valid when old ones go).
#[derive(Debug, Default)]
pub(crate) struct WireLog {
    entries: VecDeque<WireEntry>,
    first: usize,
    sensitive: BTreeSet<String>,
    attribution: Attribution,
}

/// What ties a message to the call it belongs to, learnt as messages pass:
///
/// - the first `tools/call` of a call: the oldest started call of that tool with
///   those arguments that has sent nothing yet;
/// - a retry (2026-07-28): the call whose `input_required` result carried the
///   `requestState` it sends back;
/// - a response: the call whose request had its JSON-RPC id;
/// - a request from the server (2025-11-25 `elicitation/create`, …): the call
///   running then, when exactly one is (with several, it belongs to none: the
///   protocol does not say which), and the client's answer by its id;
/// - `notifications/elicitation/complete`: the call whose URL question had that
///   `elicitationId`; `notifications/cancelled`: by the id it names.
#[derive(Debug, Default)]
struct Attribution {
    calls: Vec<Tracked>,
}

#[derive(Debug)]
struct Tracked {
    id: u64,
    tool: String,
    arguments: Value,
    started: bool,
    running: bool,
    /// JSON-RPC ids (as text) of the client's requests and of the server's.
    ids: BTreeSet<String>,
    states: BTreeSet<String>,
    elicitations: BTreeSet<String>,
}

/// The most calls tracked (the oldest finished ones go first).
const MAX_TRACKED: usize = 256;

impl Attribution {
    fn start(&mut self, id: u64, tool: &str, arguments: &Value) {
        if self.calls.len() >= MAX_TRACKED
            && let Some(at) = self.calls.iter().position(|c| !c.running)
        {
            self.calls.remove(at);
        }
        self.calls.push(Tracked {
            id,
            tool: tool.to_owned(),
            arguments: normalized(arguments),
            started: false,
            running: true,
            ids: BTreeSet::new(),
            states: BTreeSet::new(),
            elicitations: BTreeSet::new(),
        });
    }

    fn finish(&mut self, id: u64) {
        if let Some(c) = self.calls.iter_mut().find(|c| c.id == id) {
            c.running = false;
        }
    }

    fn by_id(&mut self, id: &str) -> Option<&mut Tracked> {
        self.calls.iter_mut().rev().find(|c| c.ids.contains(id))
    }

    /// The call `message` belongs to, learning what later messages need.
    fn attribute(&mut self, direction: Direction, message: &Value) -> Option<u64> {
        let id = message.get("id").map(Value::to_string);
        let method = message.get("method").and_then(Value::as_str);
        match (direction, method, &id) {
            (Direction::Outgoing, Some("tools/call"), Some(rpc)) => {
                let state = message
                    .pointer("/params/requestState")
                    .and_then(Value::as_str);
                let name = message.pointer("/params/name").and_then(Value::as_str);
                let arguments =
                    normalized(message.pointer("/params/arguments").unwrap_or(&Value::Null));
                let found = match state {
                    Some(state) => self
                        .calls
                        .iter_mut()
                        .rev()
                        .find(|c| c.states.contains(state)),
                    None => self.calls.iter_mut().find(|c| {
                        c.running
                            && !c.started
                            && Some(c.tool.as_str()) == name
                            && c.arguments == arguments
                    }),
                };
                let c = found?;
                c.started = true;
                c.ids.insert(rpc.clone());
                Some(c.id)
            }
            // A request or notification of the client's own, not a call's.
            (Direction::Outgoing, Some("notifications/cancelled"), _) => {
                let named = message.pointer("/params/requestId")?.to_string();
                self.by_id(&named).map(|c| c.id)
            }
            (Direction::Outgoing, Some(_), _) => None,
            // The client's answer to a request of the server's.
            (Direction::Outgoing, None, Some(rpc)) => self.by_id(rpc).map(|c| c.id),
            (Direction::Outgoing, None, None) => None,
            // A response to the client.
            (Direction::Incoming, None, Some(rpc)) => {
                let c = self.by_id(rpc)?;
                if let Some(state) = message
                    .pointer("/result/requestState")
                    .and_then(Value::as_str)
                {
                    c.states.insert(state.to_owned());
                }
                Some(c.id)
            }
            (Direction::Incoming, Some("notifications/elicitation/complete"), _) => {
                let eid = message
                    .pointer("/params/elicitationId")
                    .and_then(Value::as_str)?;
                self.calls
                    .iter()
                    .rev()
                    .find(|c| c.elicitations.contains(eid))
                    .map(|c| c.id)
            }
            (Direction::Incoming, Some("notifications/cancelled"), _) => {
                let named = message.pointer("/params/requestId")?.to_string();
                self.by_id(&named).map(|c| c.id)
            }
            (Direction::Incoming, Some(m), Some(rpc)) if m != "ping" => {
                let running = |c: &Tracked| c.running && c.started;
                if self.calls.iter().filter(|c| running(c)).count() != 1 {
                    return None;
                }
                let c = self.calls.iter_mut().find(|c| running(c))?;
                c.ids.insert(rpc.clone());
                if let Some(eid) = message
                    .pointer("/params/elicitationId")
                    .and_then(Value::as_str)
                {
                    c.elicitations.insert(eid.to_owned());
                }
                Some(c.id)
            }
            _ => None,
        }
    }
}

/// Arguments as the client sends them: an empty object is the same as none.
fn normalized(arguments: &Value) -> Value {
    match arguments {
        Value::Object(m) if m.is_empty() => Value::Null,
        other => other.clone(),
    }
}

impl WireLog {
    /// The position the next message will get.
    pub(crate) fn end(&self) -> usize {
        self.first + self.entries.len()
    }

    /// A call started from the page: its messages are attributed to `id` from now on.
    pub(crate) fn start_call(&mut self, id: u64, tool: &str, arguments: &Value) {
        self.attribution.start(id, tool, arguments);
    }

    /// The call `id` ended.
    pub(crate) fn finish_call(&mut self, id: u64) {
        self.attribution.finish(id);
    }

    /// Record a message: learn the sensitive keys of any form in it, tie it to its
    /// call, then store it masked.
    pub(crate) fn record(&mut self, direction: Direction, message: &Value) {
        self.learn(message);
        let call = self.attribution.attribute(direction, message);
        let mut masked = message.clone();
        mask(&mut masked, &self.sensitive);
        self.entries.push_back(WireEntry {
            direction,
            message: masked,
            at: SystemTime::now(),
            call,
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

    /// The messages of the call `call` that are still kept, in order.
    pub(crate) fn for_call(&self, call: u64) -> Vec<&WireEntry> {
        self.entries
            .iter()
            .filter(|e| e.call == Some(call))
            .collect()
    }

    /// The messages of `from..to` that belong to no call.
    pub(crate) fn unattributed(&self, from: usize, to: usize) -> impl Iterator<Item = &WireEntry> {
        self.range(from, to).filter(|e| e.call.is_none())
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
    fn each_message_goes_to_its_call_by_id_and_state() {
        let mut log = WireLog::default();
        let call = |id: u64, order: &str, state: Option<&str>| {
            let mut params = json!({"name": "book_return", "arguments": {"order_id": order}});
            if let Some(s) = state {
                params["requestState"] = json!(s);
            }
            json!({"id": id, "method": "tools/call", "params": params})
        };
        let asked = |id: u64, state: &str| {
            json!({"id": id, "result": {"resultType": "input_required", "requestState": state,
                "inputRequests": {"return": {}}}})
        };
        log.start_call(1, "book_return", &json!({"order_id": "A-1"}));
        log.start_call(2, "book_return", &json!({"order_id": "A-2"}));
        log.record(Direction::Outgoing, &call(9, "A-1", None));
        log.record(Direction::Outgoing, &call(10, "A-2", None));
        log.record(Direction::Incoming, &asked(10, "s2"));
        log.record(Direction::Incoming, &asked(9, "s1"));
        log.record(Direction::Outgoing, &call(11, "A-2", Some("s2")));
        log.record(Direction::Outgoing, &call(12, "A-1", Some("s1")));
        log.record(
            Direction::Incoming,
            &json!({"id": 12, "result": {"content": []}}),
        );
        log.record(
            Direction::Incoming,
            &json!({"id": 11, "result": {"content": []}}),
        );
        let ids = |c: u64| -> Vec<Value> {
            log.for_call(c)
                .iter()
                .map(|e| e.message["id"].clone())
                .collect()
        };
        assert_eq!(ids(1), [json!(9), json!(9), json!(12), json!(12)]);
        assert_eq!(ids(2), [json!(10), json!(10), json!(11), json!(11)]);
    }

    #[test]
    fn a_server_request_goes_to_the_one_running_call_and_no_other() {
        let mut log = WireLog::default();
        log.start_call(1, "a", &json!({}));
        log.record(
            Direction::Outgoing,
            &json!({"id": 1, "method": "tools/call", "params": {"name": "a"}}),
        );
        log.record(
            Direction::Incoming,
            &json!({"id": 0, "method": "elicitation/create",
            "params": {"mode": "url", "elicitationId": "e1"}}),
        );
        log.record(
            Direction::Outgoing,
            &json!({"id": 0, "result": {"action": "accept"}}),
        );
        log.record(
            Direction::Incoming,
            &json!({"method": "notifications/elicitation/complete",
            "params": {"elicitationId": "e1"}}),
        );
        log.start_call(2, "a", &json!({"x": 1}));
        log.record(Direction::Outgoing, &json!({"id": 2, "method": "tools/call", "params": {"name": "a", "arguments": {"x": 1}}}));
        log.record(
            Direction::Incoming,
            &json!({"id": 1, "method": "elicitation/create", "params": {}}),
        );
        assert_eq!(log.for_call(1).len(), 4);
        assert_eq!(log.for_call(2).len(), 1);
        assert_eq!(
            log.unattributed(0, log.end()).count(),
            1,
            "two calls ran: nobody's"
        );
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
