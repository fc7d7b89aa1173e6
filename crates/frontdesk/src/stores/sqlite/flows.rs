//! [`FlowStore`] on SQLite.

use std::time::Duration;

use rusqlite::{Connection, OptionalExtension, params};
use serde_json::Value;
use tokio::sync::broadcast;

use super::writer::Job;
use super::{SqliteStore, backend, not_committed};
use crate::BoxFuture;
use crate::flows::{
    Flow, FlowError, FlowEvent, FlowId, FlowStatus, FlowStore, NewFlow, random_token, token_hash,
    ttl_secs,
};
use crate::stores::secs;

fn to_u64(v: i64) -> u64 {
    u64::try_from(v).unwrap_or(0)
}

fn status_of(kind: &str, reason: Option<String>) -> FlowStatus {
    match kind {
        "pending" => FlowStatus::Pending,
        "complete" => FlowStatus::Complete,
        _ => FlowStatus::Failed {
            reason: reason.unwrap_or_default(),
        },
    }
}

fn columns(status: &FlowStatus) -> (&'static str, Option<&str>) {
    match status {
        FlowStatus::Pending => ("pending", None),
        FlowStatus::Complete => ("complete", None),
        FlowStatus::Failed { reason } => ("failed", Some(reason)),
    }
}

/// The live flow `id`, if any.
fn load(conn: &Connection, id: &str, now: i64) -> Result<Option<Flow>, FlowError> {
    conn.prepare_cached(
        "SELECT id, principal, created_at, expires_at, status, reason, purpose, data
         FROM flows WHERE id = ?1 AND expires_at > ?2",
    )
    .and_then(|mut s| {
        s.query_row(params![id, now], |r| {
            let data: String = r.get(7)?;
            Ok(Flow {
                id: FlowId::from_string(r.get::<_, String>(0)?),
                principal: r.get(1)?,
                created_at: to_u64(r.get(2)?),
                expires_at: to_u64(r.get(3)?),
                status: status_of(&r.get::<_, String>(4)?, r.get(5)?),
                purpose: r.get(6)?,
                data: serde_json::from_str(&data).unwrap_or(Value::Null),
            })
        })
    })
    .optional()
    .map_err(|e| backend(e).into())
}

impl SqliteStore {
    fn publish(&self, events: Vec<FlowEvent>) {
        for e in events {
            // No subscriber is not an error: nobody is waiting.
            let _ = self.events.send(e);
        }
    }

    async fn finish(&self, id: &FlowId, to: FlowStatus) -> Result<Flow, FlowError> {
        let id = id.as_str().to_owned();
        let (flow, event) = self
            .write(move |conn, now| {
                let mut flow = load(conn, &id, now)?.ok_or(FlowError::NotFound)?;
                match (&flow.status, &to) {
                    (FlowStatus::Pending, _) => {
                        let (kind, reason) = columns(&to);
                        // Guarded by status, so concurrent finishers agree.
                        let changed = conn
                            .prepare_cached(
                                "UPDATE flows SET status = ?2, reason = ?3
                                 WHERE id = ?1 AND status = 'pending'",
                            )
                            .and_then(|mut s| s.execute(params![id, kind, reason]))
                            .map_err(backend)?;
                        if changed == 0 {
                            return Err(FlowError::NotPending);
                        }
                        flow.status = to.clone();
                        let event = FlowEvent {
                            id: flow.id.clone(),
                            principal: flow.principal.clone(),
                            status: to,
                        };
                        Ok((flow, Some(event)))
                    }
                    (FlowStatus::Complete, FlowStatus::Complete)
                    | (FlowStatus::Failed { .. }, FlowStatus::Failed { .. }) => Ok((flow, None)),
                    _ => Err(FlowError::NotPending),
                }
            })
            .await?;
        self.publish(event.into_iter().collect());
        Ok(flow)
    }
}

impl FlowStore for SqliteStore {
    fn create(&self, new: NewFlow) -> BoxFuture<'_, Result<Flow, FlowError>> {
        Box::pin(async move {
            self.write(move |conn, now| {
                    let now = to_u64(now);
                    let flow = Flow {
                        id: FlowId::random(),
                        principal: new.principal,
                        created_at: now,
                        expires_at: now.saturating_add(ttl_secs(new.ttl)),
                        status: FlowStatus::Pending,
                        purpose: new.purpose,
                        data: new.data,
                    };
                    conn.prepare_cached(
                        "INSERT INTO flows (id, principal, created_at, expires_at, status, reason, purpose, data)
                         VALUES (?1, ?2, ?3, ?4, 'pending', NULL, ?5, ?6)",
                    )
                    .and_then(|mut s| s.execute(params![
                            flow.id.as_str(),
                            flow.principal,
                            secs(flow.created_at),
                            secs(flow.expires_at),
                            flow.purpose,
                            flow.data.to_string()
                        ]))
                    .map_err(backend)?;
                    Ok::<_, FlowError>(flow)
                })
                .await
        })
    }

    fn get<'a>(&'a self, id: &'a FlowId) -> BoxFuture<'a, Result<Option<Flow>, FlowError>> {
        let id = id.as_str().to_owned();
        Box::pin(self.read(move |conn, now| load(conn, &id, now)))
    }

    fn complete<'a>(&'a self, id: &'a FlowId) -> BoxFuture<'a, Result<Flow, FlowError>> {
        Box::pin(self.finish(id, FlowStatus::Complete))
    }

    fn fail<'a>(
        &'a self,
        id: &'a FlowId,
        reason: String,
    ) -> BoxFuture<'a, Result<Flow, FlowError>> {
        Box::pin(self.finish(id, FlowStatus::Failed { reason }))
    }

    fn purge_expired(&self) -> BoxFuture<'_, Result<usize, FlowError>> {
        Box::pin(async move {
            let (reply, answer) = tokio::sync::oneshot::channel();
            self.submit(Job::Purge {
                now: self.now(),
                reply,
            })
            .await?;
            Ok(answer.await.map_err(|_| not_committed())??)
        })
    }

    fn subscribe(&self) -> broadcast::Receiver<FlowEvent> {
        self.events.subscribe()
    }

    fn issue_connect_token<'a>(
        &'a self,
        flow_id: &'a FlowId,
        principal: &'a str,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<String, FlowError>> {
        let id = flow_id.as_str().to_owned();
        let principal = principal.to_owned();
        Box::pin(self.write(move |conn, now| {
            let flow = load(conn, &id, now)?
                .filter(|f| f.is_owned_by(&principal) && f.status.is_pending())
                .ok_or(FlowError::NotFound)?;
            let expires_at = to_u64(now)
                .saturating_add(ttl_secs(ttl))
                .min(flow.expires_at);
            let token = random_token::<32>();
            conn.prepare_cached(
                "INSERT INTO connect_tokens (hash, flow_id, principal, expires_at)
                 VALUES (?1, ?2, ?3, ?4)",
            )
            .and_then(|mut s| {
                s.execute(params![
                    &token_hash(&token)[..],
                    id,
                    principal,
                    secs(expires_at)
                ])
            })
            .map_err(backend)?;
            Ok(token)
        }))
    }

    fn redeem_connect_token<'a>(
        &'a self,
        token: &'a str,
        principal: Option<&'a str>,
    ) -> BoxFuture<'a, Result<FlowId, FlowError>> {
        let hash = token_hash(token);
        let principal = principal.map(str::to_owned);
        Box::pin(self.write(move |conn, now| {
            let reject = |reason: &'static str| {
                tracing::debug!(reason, "connect token rejected");
                FlowError::ConnectRejected
            };
            let entry: Option<(String, String)> = conn
                .prepare_cached(
                    "SELECT flow_id, principal FROM connect_tokens
                     WHERE hash = ?1 AND expires_at > ?2",
                )
                .and_then(|mut s| {
                    s.query_row(params![&hash[..], now], |r| Ok((r.get(0)?, r.get(1)?)))
                })
                .optional()
                .map_err(backend)?;
            let (flow_id, owner) = entry.ok_or_else(|| reject("unknown, used or expired"))?;
            if principal.as_deref().is_some_and(|p| p != owner) {
                // Not burned: the rightful owner can still use the link.
                tracing::warn!(flow = %flow_id, "connect link opened by another principal");
                return Err(FlowError::OtherPrincipal);
            }
            let deleted = conn
                .prepare_cached("DELETE FROM connect_tokens WHERE hash = ?1")
                .and_then(|mut s| s.execute(params![&hash[..]]))
                .map_err(backend)?;
            if deleted == 0 {
                return Err(reject("used concurrently"));
            }
            match load(conn, &flow_id, now)? {
                Some(f) if f.status.is_pending() => Ok(f.id),
                _ => Err(reject("flow no longer pending")),
            }
        }))
    }
}
