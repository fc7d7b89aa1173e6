//! The client target: a [`Client`] on a scripted stdio connection to a
//! server that sends it whatever the input holds, line by line.
//!
//! The input's first byte picks the revision the server speaks (even:
//! 2025-11-25, odd: 2026-07-28); the rest is split at `\n` into the lines
//! the server writes once the handshake is done (ASCII whitespace around a
//! line is trimmed, as the client's transport trims it). After them the server sends
//! `ping` with the id `"fuzz-last"` and waits for its reply.
//!
//! Invariants, besides "no panic, no hang":
//! - everything the client writes is one JSON-RPC message per line;
//! - every request of the script (a line that classifies as a request, its
//!   id used once in the script) gets exactly one reply with its id: the
//!   client answers, refuses with an error, or says the method is unknown,
//!   but never drops a request and never answers twice;
//! - every malformed line whose classifier error names an id other than
//!   `null` gets an error reply with that id (issue 24, row 6), unless it
//!   is a reply (it has `result` or `error`): a reply is never answered;
//! - the client still answers after the script: `"fuzz-last"` gets a reply.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use frontdesk_wire::{JsonRpcMessage, RequestId};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use crate::BoxFuture;
use crate::client::{
    Client, ClientConfig, Elicitation, ElicitationHandler, ElicitationResponse, HandlerModes,
    ProtocolChoice,
};
use frontdesk_wire::Revision;

use super::{VIRTUAL_BUDGET, current_thread};

/// The person behind the fuzzed client: declines everything at once.
struct Declines;

impl ElicitationHandler for Declines {
    fn modes(&self) -> HandlerModes {
        HandlerModes {
            form: true,
            url: true,
        }
    }

    fn elicit(&self, _request: Elicitation) -> BoxFuture<'_, ElicitationResponse> {
        Box::pin(async { ElicitationResponse::Decline })
    }
}

fn result(id: &Value, result: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string()
}

/// The reply the script's server gives to the client's own requests (the
/// handshake; anything else gets an empty result).
fn answer(message: &Value) -> Option<String> {
    let id = message.get("id")?;
    let method = message.get("method")?.as_str()?;
    let info = json!({"name": "fuzz-server", "version": "1"});
    Some(match method {
        "initialize" => result(
            id,
            json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": info}),
        ),
        "server/discover" => result(
            id,
            json!({"supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}}, "serverInfo": info}),
        ),
        _ => result(id, json!({})),
    })
}

/// What the script expects back for one id: how many replies, and whether
/// one must be an error.
#[derive(Default)]
struct Expected {
    requests: usize,
    malformed: usize,
}

/// The client target on `data` (see the module docs).
pub fn client_messages(data: &[u8]) {
    let Some((&first, script)) = data.split_first() else {
        return;
    };
    let revision = if first % 2 == 0 {
        Revision::V2025_11_25
    } else {
        Revision::V2026_07_28
    };
    // The lines as the client's stdio transport reads them: split at `\n`,
    // ASCII whitespace trimmed, blank ones skipped.
    let lines: Vec<&[u8]> = script
        .split(|&b| b == b'\n')
        .map(<[u8]>::trim_ascii)
        .filter(|l| !l.is_empty())
        .collect();
    let mut expected: HashMap<Value, Expected> = HashMap::new();
    for line in &lines {
        match JsonRpcMessage::from_slice(line) {
            Ok(JsonRpcMessage::Request(r)) => {
                expected.entry(id_value(&r.id)).or_default().requests += 1;
            }
            Ok(_) => {}
            Err(e) => {
                // A reply is never answered, even a malformed one (it
                // would have two peers answer each other forever).
                if let Some(id) = e.id()
                    && !looks_like_reply(line)
                {
                    expected.entry(id_value(id)).or_default().malformed += 1;
                }
            }
        }
    }
    let last = json!("fuzz-last");
    // The script's own use of "fuzz-last" would make its reply ambiguous.
    if expected.contains_key(&last) {
        return;
    }
    let runtime = current_thread(true);
    let replies = runtime.block_on(async {
        tokio::time::timeout(VIRTUAL_BUDGET, run(revision, &lines, &last))
            .await
            .unwrap_or_else(|_| panic!("the client script did not finish in a virtual day"))
    });
    let mut seen: HashMap<Value, (usize, usize)> = HashMap::new();
    for reply in &replies {
        let id = reply.get("id").cloned().unwrap_or(Value::Null);
        let slot = seen.entry(id).or_default();
        slot.0 += 1;
        if reply.get("error").is_some() {
            slot.1 += 1;
        }
    }
    assert_eq!(
        seen.get(&last).map(|s| s.0),
        Some(1),
        "the client stopped answering: {replies:?}"
    );
    for (id, want) in &expected {
        if id.is_null() || want.requests + want.malformed != 1 {
            // An id the script uses more than once: which reply answers
            // which is not this target's question.
            continue;
        }
        let (count, errors) = seen.get(id).copied().unwrap_or_default();
        assert_eq!(count, 1, "request {id}: {count} replies in {replies:?}");
        if want.malformed == 1 {
            assert_eq!(errors, 1, "malformed request {id} got {replies:?}");
        }
    }
}

/// Whether `line` is a JSON object with `result` or `error` and no
/// `method`: a reply, which gets no reply of its own.
fn looks_like_reply(line: &[u8]) -> bool {
    serde_json::from_slice::<Value>(line)
        .ok()
        .and_then(|v| {
            v.as_object().map(|o| {
                !o.contains_key("method") && (o.contains_key("result") || o.contains_key("error"))
            })
        })
        .unwrap_or(false)
}

fn id_value(id: &RequestId) -> Value {
    serde_json::to_value(id).unwrap_or(Value::Null)
}

/// Connect, send the script and `"fuzz-last"`, and collect every reply the
/// client wrote (messages without a `method`) until a virtual minute after
/// the last one's reply.
async fn run(revision: Revision, lines: &[&[u8]], last: &Value) -> Vec<Value> {
    let (client_io, server_io) = tokio::io::duplex(1 << 16);
    let (read, mut write) = tokio::io::split(server_io);
    let mut from_client = BufReader::new(read).lines();
    let (r, w) = tokio::io::split(client_io);
    let config = ClientConfig::default().protocol(ProtocolChoice::Only(revision));
    let connecting = Client::connect_io(r, w, config, Arc::new(Declines));
    tokio::pin!(connecting);
    // The handshake: answer the client's requests until it is connected.
    let client = loop {
        tokio::select! {
            connected = &mut connecting => match connected {
                Ok(client) => break client,
                Err(e) => panic!("the handshake failed: {e}"),
            },
            line = from_client.next_line() => {
                let line = line.ok().flatten().expect("the client writes its handshake");
                let message: Value = serde_json::from_str(&line).expect("the client writes JSON");
                if let Some(reply) = answer(&message) {
                    write.write_all(format!("{reply}\n").as_bytes()).await.expect("writes");
                }
            }
        }
    };
    let mut out = Vec::new();
    for line in lines {
        out.extend_from_slice(line);
        out.push(b'\n');
    }
    let ping = json!({"jsonrpc": "2.0", "id": last, "method": "ping"});
    out.extend_from_slice(format!("{ping}\n").as_bytes());
    let writer = tokio::spawn(async move {
        let _ = write.write_all(&out).await;
        write
    });
    let mut replies = Vec::new();
    let mut quiet_after_last = false;
    loop {
        let wait = if quiet_after_last {
            Duration::from_secs(60)
        } else {
            VIRTUAL_BUDGET
        };
        let Ok(line) = tokio::time::timeout(wait, from_client.next_line()).await else {
            break;
        };
        let Some(line) = line.ok().flatten() else {
            break;
        };
        let message = match JsonRpcMessage::from_slice(line.as_bytes()) {
            Ok(m) => m,
            Err(e) => {
                panic!("the client wrote a line that is not a JSON-RPC message ({e}): {line}")
            }
        };
        let value = message.to_value();
        if value.get("method").is_some() {
            // The client's own request or notification: answered, not counted.
            continue;
        }
        if value.get("id") == Some(last) {
            quiet_after_last = true;
        }
        replies.push(value);
    }
    client.close().await;
    drop(writer.await);
    replies
}
