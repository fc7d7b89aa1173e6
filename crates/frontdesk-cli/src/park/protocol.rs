//! What `call --park`, `respond` and the keeper say to each other over the socket:
//! one JSON request line, one JSON reply line.
//!
//! Requests: `{"op":"next"}` (the first thing to say: a question, a flow in
//! progress, or the result), `{"op":"wait","seconds":N}` (the next question or the
//! result, at most N seconds), and
//! `{"op":"respond","question":ID,"answer":"accept"|"decline"|"cancel","content":{…}}`.
//!
//! Replies are the agent contract's objects (`schema/park.v1.json`, built by
//! [`super::report`]), plus `wireLines` (`--show-wire`), which the command prints on
//! stderr and takes out.

use serde_json::{Map, Value, json};

/// The contract every reply names (`contract`): the schema's name and version.
pub const CONTRACT: &str = "frontdesk-park/1";

/// The agent contract's JSON Schema.
pub const SCHEMA: &str = include_str!("../../schema/park.v1.json");

/// The longest line read from the socket.
pub const MAX_LINE: u64 = 4 * 1024 * 1024;

/// The request for the first thing to say.
pub fn next() -> Value {
    json!({"op": "next"})
}

/// The request for the next question or the result, waiting at most `seconds`.
pub fn wait(seconds: u64) -> Value {
    json!({"op": "wait", "seconds": seconds})
}

/// The request answering `question`.
pub fn respond(question: &str, answer: &str, content: Option<&Map<String, Value>>) -> Value {
    let mut request = json!({"op": "respond", "question": question, "answer": answer});
    if let (Some(obj), Some(content)) = (request.as_object_mut(), content) {
        obj.insert("content".into(), Value::Object(content.clone()));
    }
    request
}

/// A reply saying the request was wrong.
pub fn error(text: impl Into<String>) -> Value {
    json!({"contract": CONTRACT, "status": "error", "error": text.into()})
}
