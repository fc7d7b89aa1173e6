//! [`FlowStore`] on Redis.

use std::sync::LazyLock;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio::sync::broadcast;

use super::{RECHECK, RedisStore, backend};
use crate::BoxFuture;
use crate::flows::{
    Flow, FlowError, FlowEvent, FlowId, FlowStatus, FlowStore, NewFlow, random_token, token_hash,
    ttl_secs, wait_until_done,
};
use crate::store::StoreError;
use crate::stores::secs;

/// Leave `Pending` and announce it, atomically. KEYS[1] the flow hash;
/// ARGV: the pending status JSON, the new status JSON, the channel, the event.
/// Returns `{0, ""}` for no flow, `{1, new}` when changed, `{2, current}`
/// when the flow had already finished.
static FINISH: LazyLock<redis::Script> = LazyLock::new(|| {
    redis::Script::new(
        r"
local current = redis.call('HGET', KEYS[1], 'status')
if not current then return {0, ''} end
if current == ARGV[1] then
  redis.call('HSET', KEYS[1], 'status', ARGV[2])
  redis.call('PUBLISH', ARGV[3], ARGV[4])
  return {1, ARGV[2]}
end
return {2, current}
",
    )
});

/// A connect token's record.
#[derive(Debug, Serialize, Deserialize)]
struct TokenRecord {
    flow_id: FlowId,
    principal: String,
    expires_at: u64,
}

fn json<T: Serialize>(value: &T) -> Result<String, FlowError> {
    serde_json::to_string(value).map_err(|e| StoreError::Backend(crate::Reason::new(e)).into())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl RedisStore {
    async fn load(&self, id: &FlowId) -> Result<Option<Flow>, FlowError> {
        let mut conn = self.conn.clone();
        let (flow, status): (Option<String>, Option<String>) = redis::cmd("HMGET")
            .arg(self.key("flow", id.as_str()))
            .arg("flow")
            .arg("status")
            .query_async(&mut conn)
            .await
            .map_err(backend)?;
        let (Some(flow), Some(status)) = (flow, status) else {
            return Ok(None);
        };
        let mut flow: Flow = serde_json::from_str(&flow).map_err(backend)?;
        flow.status = serde_json::from_str(&status).map_err(backend)?;
        Ok((flow.expires_at > self.now()).then_some(flow))
    }

    async fn finish(&self, id: &FlowId, to: FlowStatus) -> Result<Flow, FlowError> {
        let mut flow = self.load(id).await?.ok_or(FlowError::NotFound)?;
        let event = FlowEvent {
            id: flow.id.clone(),
            principal: flow.principal.clone(),
            status: to.clone(),
        };
        let mut conn = self.conn.clone();
        let (outcome, status): (i64, String) = FINISH
            .key(self.key("flow", id.as_str()))
            .arg(json(&FlowStatus::Pending)?)
            .arg(json(&to)?)
            .arg(self.channel())
            .arg(json(&event)?)
            .invoke_async(&mut conn)
            .await
            .map_err(backend)?;
        match outcome {
            1 => {
                flow.status = to;
                Ok(flow)
            }
            2 => {
                let current: FlowStatus = serde_json::from_str(&status).map_err(backend)?;
                let same_kind = matches!(
                    (&current, &to),
                    (FlowStatus::Complete, FlowStatus::Complete)
                        | (FlowStatus::Failed { .. }, FlowStatus::Failed { .. })
                );
                if same_kind {
                    flow.status = current;
                    Ok(flow)
                } else {
                    Err(FlowError::NotPending)
                }
            }
            _ => Err(FlowError::NotFound),
        }
    }

    async fn issue(
        &self,
        flow_id: &FlowId,
        principal: &str,
        ttl: Duration,
    ) -> Result<String, FlowError> {
        let flow = self
            .load(flow_id)
            .await?
            .filter(|f| f.is_owned_by(principal) && f.status.is_pending())
            .ok_or(FlowError::NotFound)?;
        let expires_at = self
            .now()
            .saturating_add(ttl_secs(ttl))
            .min(flow.expires_at);
        let token = random_token::<32>();
        let record = TokenRecord {
            flow_id: flow_id.clone(),
            principal: principal.to_owned(),
            expires_at,
        };
        let mut conn = self.conn.clone();
        let () = redis::cmd("SET")
            .arg(self.key("ctok", &hex(&token_hash(&token))))
            .arg(json(&record)?)
            .arg("EXAT")
            .arg(secs(expires_at))
            .query_async(&mut conn)
            .await
            .map_err(backend)?;
        Ok(token)
    }

    async fn redeem(&self, token: &str, principal: Option<&str>) -> Result<FlowId, FlowError> {
        let reject = |reason: &'static str| {
            tracing::debug!(reason, "connect token rejected");
            FlowError::ConnectRejected
        };
        let key = self.key("ctok", &hex(&token_hash(token)));
        let mut conn = self.conn.clone();
        let record: Option<String> = redis::cmd("GET")
            .arg(&key)
            .query_async(&mut conn)
            .await
            .map_err(backend)?;
        let record: TokenRecord = match record {
            Some(r) => serde_json::from_str(&r).map_err(backend)?,
            None => return Err(reject("unknown, used or expired")),
        };
        if record.expires_at <= self.now() {
            return Err(reject("expired"));
        }
        if principal.is_some_and(|p| p != record.principal) {
            // Not burned: the rightful owner can still use the link.
            tracing::warn!(flow = %record.flow_id, "connect link opened by another principal");
            return Err(FlowError::OtherPrincipal);
        }
        // DEL answers 1 to exactly one of several concurrent redeemers.
        let deleted: i64 = redis::cmd("DEL")
            .arg(&key)
            .query_async(&mut conn)
            .await
            .map_err(backend)?;
        if deleted != 1 {
            return Err(reject("used concurrently"));
        }
        match self.load(&record.flow_id).await? {
            Some(f) if f.status.is_pending() => Ok(f.id),
            _ => Err(reject("flow no longer pending")),
        }
    }
}

impl FlowStore for RedisStore {
    fn create(&self, new: NewFlow) -> BoxFuture<'_, Result<Flow, FlowError>> {
        Box::pin(async move {
            let now = self.now();
            let flow = Flow {
                id: FlowId::random(),
                principal: new.principal,
                created_at: now,
                expires_at: now.saturating_add(ttl_secs(new.ttl)),
                status: FlowStatus::Pending,
                purpose: new.purpose,
                data: new.data,
            };
            let key = self.key("flow", flow.id.as_str());
            let mut conn = self.conn.clone();
            let () = redis::pipe()
                .atomic()
                .cmd("HSET")
                .arg(&key)
                .arg("flow")
                .arg(json(&flow)?)
                .arg("status")
                .arg(json(&flow.status)?)
                .ignore()
                .cmd("EXPIREAT")
                .arg(&key)
                .arg(secs(flow.expires_at))
                .ignore()
                .query_async(&mut conn)
                .await
                .map_err(backend)?;
            Ok(flow)
        })
    }

    fn get<'a>(&'a self, id: &'a FlowId) -> BoxFuture<'a, Result<Option<Flow>, FlowError>> {
        Box::pin(self.load(id))
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

    /// Redis expires keys by itself: nothing to do, nothing announced.
    fn purge_expired(&self) -> BoxFuture<'_, Result<usize, FlowError>> {
        Box::pin(async { Ok(0) })
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
        Box::pin(self.issue(flow_id, principal, ttl))
    }

    fn redeem_connect_token<'a>(
        &'a self,
        token: &'a str,
        principal: Option<&'a str>,
    ) -> BoxFuture<'a, Result<FlowId, FlowError>> {
        Box::pin(self.redeem(token, principal))
    }

    /// Also looks again every [`RECHECK`], in case an event was lost.
    fn wait_for_completion<'a>(
        &'a self,
        id: &'a FlowId,
        timeout: Duration,
    ) -> BoxFuture<'a, Result<Flow, FlowError>> {
        Box::pin(wait_until_done(self, id, timeout, Some(RECHECK)))
    }
}
