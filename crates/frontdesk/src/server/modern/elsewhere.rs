//! A retry's reply kept in a shared store, for the same retry sent again to
//! another instance (see [`crate::state::SharedReply`]).
//!
//! Only a round whose request went away keeps its reply there (a request
//! that got its reply needs no second one), so the request path makes no
//! extra round trip to the store. The instance the retry reaches next finds
//! the state redeemed and asks the store for the reply, waiting while the
//! round runs elsewhere.

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::server::api::error::RpcError;
use crate::server::engine::inner::ServerInner;
use crate::server::engine::requests::Reply;
use crate::state::{SharedReply, StateId};
use frontdesk_wire::ErrorObject;

/// How long after a state's redemption a retry waits for the instance that
/// redeemed it to say it lost its request (seconds): the client may send
/// the retry again before that instance notices its connection broke.
const NOTICE_SECS: u64 = 2;

/// How long a retry waits at most for a round another instance runs.
const AT_MOST: Duration = Duration::from_secs(10);

/// How often the store is asked while waiting, at most.
const LONGEST_PAUSE: Duration = Duration::from_millis(250);

/// What a retry's round and its request share, so the reply of a state
/// this round redeemed is kept for others when the request went away first:
/// the round says when it redeemed ([`Handoff::redeemed`]), the request
/// when it went away ([`Handoff::went_away`]); whichever comes second marks
/// the round as running in the store.
#[derive(Clone)]
pub(super) struct Handoff(Arc<Shared>);

struct Shared {
    server: Arc<ServerInner>,
    id: StateId,
    /// [`REDEEMED`] and [`GONE`].
    flags: AtomicU8,
}

/// The round redeemed the state.
const REDEEMED: u8 = 1;
/// The request went away.
const GONE: u8 = 2;

impl Handoff {
    /// For the round of the state `id` on `server`, when its store shares
    /// replies among instances.
    pub(super) fn new(server: &Arc<ServerInner>, id: StateId) -> Option<Self> {
        let shares = server.nonces.as_ref().is_some_and(|s| s.shares_replies());
        shares.then(|| {
            Self(Arc::new(Shared {
                server: Arc::clone(server),
                id,
                flags: AtomicU8::new(0),
            }))
        })
    }

    /// The round redeemed the state (and runs on).
    pub(super) async fn redeemed(&self) {
        if self.0.flags.fetch_or(REDEEMED, Ordering::AcqRel) & GONE != 0 {
            self.keep(None).await;
        }
    }

    /// The request went away (called before the round is polled again):
    /// the round is marked running when it had redeemed the state.
    pub(super) async fn went_away(&self) {
        if self.0.flags.fetch_or(GONE, Ordering::AcqRel) & REDEEMED != 0 {
            self.keep(None).await;
        }
    }

    /// The round ended: its reply kept, when it redeemed the state.
    pub(super) async fn finished(&self, reply: &Reply) {
        if self.0.flags.load(Ordering::Acquire) & REDEEMED != 0 {
            self.keep(Some(&to_text(reply))).await;
        }
    }

    async fn keep(&self, reply: Option<&str>) {
        let Shared { server, id, .. } = &*self.0;
        let Some(store) = &server.nonces else {
            return;
        };
        let kept = crate::metrics::timed_store(
            "keep_reply",
            store.keep_reply(*id, reply, server.config.retry_reply_ttl),
        )
        .await;
        if let Err(e) = kept {
            tracing::warn!(error = %e, "could not keep a retry's reply for other instances");
        }
    }
}

/// The reply to the state `id`, which another instance redeemed, when that
/// instance kept it or keeps it within [`AT_MOST`]; `None` when there is
/// none to wait for (the state is refused as replayed).
pub(super) async fn reply(server: &ServerInner, id: StateId) -> Option<Reply> {
    let store = server.nonces.as_ref().filter(|s| s.shares_replies())?;
    let deadline = Instant::now() + AT_MOST;
    let mut pause = Duration::from_millis(20);
    loop {
        let known = crate::metrics::timed_store("kept_reply", store.kept_reply(id)).await;
        match known {
            Ok(SharedReply::Kept(text)) => return Some(from_text(&text)),
            Ok(SharedReply::Running) => {}
            Ok(SharedReply::Redeemed(at)) if recently(at) => {}
            Ok(_) => return None,
            Err(e) => {
                tracing::warn!(error = %e, "could not read a retry's reply kept by another instance");
                return None;
            }
        }
        if Instant::now() + pause > deadline {
            tracing::debug!("the round of a retry another instance runs did not end in time");
            return None;
        }
        tokio::time::sleep(pause).await;
        pause = (pause * 2).min(LONGEST_PAUSE);
    }
}

/// Whether `at` (unix seconds) is within [`NOTICE_SECS`] of now.
fn recently(at: u64) -> bool {
    crate::clock::unix_secs(std::time::SystemTime::now()).saturating_sub(at) <= NOTICE_SECS
}

/// How a reply is kept: `{"result": …}` or `{"error": …}`.
#[derive(Serialize, Deserialize)]
struct Kept<'a> {
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    result: Option<&'a RawValue>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    error: Option<ErrorObject>,
}

/// The text [`from_text`] reads back.
fn to_text(reply: &Reply) -> String {
    let kept = match reply {
        Ok(result) => Kept {
            result: Some(result),
            error: None,
        },
        Err(e) => Kept {
            result: None,
            error: Some(e.error_object().clone()),
        },
    };
    serde_json::to_string(&kept)
        .unwrap_or_else(|_| r#"{"error":{"code":-32603,"message":"Internal error"}}"#.into())
}

/// The reply `text` holds; what cannot be read is an internal error (the
/// text comes from the store, which another program could have written).
fn from_text(text: &str) -> Reply {
    match serde_json::from_str::<Kept<'_>>(text) {
        // A result is an object (the text is not read as a sequence).
        Ok(Kept {
            result: Some(result),
            error: None,
        }) if text.starts_with('{') && result.get().starts_with('{') => Ok(result.to_owned()),
        Ok(Kept {
            result: None,
            error: Some(error),
        }) => Err(error.into()),
        _ => {
            tracing::warn!("a retry's reply kept by another instance could not be read");
            Err(RpcError::internal("Internal error"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use frontdesk_wire::ErrorCode;

    #[test]
    fn a_kept_reply_reads_back_as_it_was() {
        let result: Reply =
            Ok(RawValue::from_string(r#"{"content":[],"isError":false}"#.into()).unwrap());
        let text = to_text(&result);
        assert_eq!(text, r#"{"result":{"content":[],"isError":false}}"#);
        assert_eq!(
            from_text(&text).unwrap().get(),
            r#"{"content":[],"isError":false}"#
        );

        let error: Reply = Err(RpcError::new(ErrorCode::INVALID_PARAMS, "bad"));
        let text = to_text(&error);
        assert_eq!(text, r#"{"error":{"code":-32602,"message":"bad"}}"#);
        assert_eq!(from_text(&text).err(), error.err());
    }

    #[test]
    fn what_cannot_be_read_is_an_internal_error() {
        for text in [
            "",
            "{}",
            "[1]",
            r#"[{}, null]"#,
            r#"{"result":7}"#,
            r#"{"result":{},"error":{"code":1,"message":"x"}}"#,
            r#"{"error":7}"#,
        ] {
            let e = from_text(text).unwrap_err();
            assert_eq!(e.error_object().code, ErrorCode::INTERNAL_ERROR, "{text}");
        }
    }
}
