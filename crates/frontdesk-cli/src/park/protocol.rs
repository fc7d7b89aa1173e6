//! What `call --park`, `respond` and the keeper say to each other over the socket:
//! one JSON request line, one JSON reply line.
//!
//! Requests: `{"op":"wait"}` (the next event) and
//! `{"op":"respond","question":ID,"answer":"accept"|"decline"|"cancel","content":{…}}`.
//!
//! Replies (`status`): `parked` (`questions`: every pending question, as
//! [`frontdesk_host::parked::describe_question`] describes it), `complete` (`result`:
//! the tool's result), `failed` (`error`, and `exit`: the exit status to use),
//! `invalid` (`problems`: why the answer was refused; the question stays parked, and
//! `questions` lists what is pending), `error` (`error`: the request itself was wrong).

use serde_json::{Map, Value, json};

/// The longest line read from the socket.
pub const MAX_LINE: u64 = 4 * 1024 * 1024;

/// The request for the next event.
pub fn wait() -> Value {
    json!({"op": "wait"})
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
    json!({"status": "error", "error": text.into()})
}
