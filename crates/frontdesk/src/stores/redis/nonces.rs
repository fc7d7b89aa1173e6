//! [`NonceStore`] on Redis: `SET NX`, so exactly one instance redeems a
//! state, with a share per owner, in one script (one round trip).
//!
//! The rules are [`InMemoryNonceStore`](crate::state::InMemoryNonceStore)'s:
//! each redeemed state is charged to its owner; when an owner holds more
//! than its share, its earliest-issued state is forgotten and, unless that
//! one had expired anyway, the owner's floor rises to its issue time, so
//! every state of that owner issued at or before the floor is refused from
//! then on. Keys, under the prefix:
//!
//! - `state:<id>`: the redeemed state, until it expires; its value is when
//!   it was redeemed (unix seconds; `1` from earlier versions);
//! - `reply:<id>`: the reply to a redeemed state whose request went away
//!   (empty while its round still runs), for `retry_reply_ttl`, so the same
//!   retry sent to another instance gets it (see [`SharedReply`]);
//! - `owned:<owner>`: the owner's redeemed ids, scored by issue time,
//!   expiring with the last of them;
//! - `owner:<owner>`: a hash: `floor` and `floor_until` (when every state
//!   the floor stands for has expired), `last` (the latest expiry among its
//!   ids) and `life` (the longest lifetime among them: ids issued more than
//!   that long ago have expired and leave the set before it is counted; an
//!   evicted id whose key Redis had already expired raises no floor).
//!
//! The script touches the evicted state's key, which it learns from the
//! set, so the store is for one Redis (or a cluster with every key of the
//! prefix in one slot: use a `{hash tag}` in the prefix).

use std::sync::LazyLock;

use super::{RedisStore, backend};
use crate::BoxFuture;
use crate::state::{NonceStore, Redemption, SharedReply, StateId};
use crate::store::StoreError;
use crate::stores::secs;

/// KEYS: the state, the owner's set, the owner's hash. ARGV: the id, issued
/// at, expires at, now, the share, the prefix of state keys. 1 when
/// redeemed now, 0 otherwise.
const REDEEM: &str = r"
local issued, expires = tonumber(ARGV[2]), tonumber(ARGV[3])
local now, share = tonumber(ARGV[4]), tonumber(ARGV[5])
local h = redis.call('HMGET', KEYS[3], 'floor', 'floor_until', 'last', 'life')
local floor, until_ = tonumber(h[1]), tonumber(h[2]) or 0
local last, life = tonumber(h[3]) or 0, tonumber(h[4]) or 0
if floor and issued <= floor then return 0 end
if not redis.call('SET', KEYS[1], ARGV[4], 'NX', 'EXAT', expires) then return 0 end
local changed, grew = false, false
if expires - issued > life then
  life, changed = expires - issued, true
end
if expires > last then
  last, changed, grew = expires, true, true
end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - life)
local count = redis.call('ZCARD', KEYS[2])
if count >= share then
  local first = redis.call('ZPOPMIN', KEYS[2])
  count = count - 1
  local at = tonumber(first[2])
  if redis.call('DEL', ARGV[6] .. first[1]) == 1 then
    floor = math.max(floor or at, at)
    until_, changed = math.max(until_, at + life), true
  end
end
if changed then
  redis.call('HSET', KEYS[3], 'floor', floor or '', 'floor_until', until_, 'last', last, 'life', life)
  redis.call('EXPIREAT', KEYS[3], math.max(last, until_))
end
if floor and issued <= floor then
  redis.call('DEL', KEYS[1])
  return 0
end
redis.call('ZADD', KEYS[2], issued, ARGV[1])
if count == 0 or grew then
  redis.call('EXPIREAT', KEYS[2], last)
end
return 1
";

static SCRIPT: LazyLock<redis::Script> = LazyLock::new(|| redis::Script::new(REDEEM));

impl RedisStore {
    async fn redeem_now(&self, r: Redemption<'_>) -> Result<bool, StoreError> {
        let now = self.now();
        if r.expires_at <= now {
            return Ok(false);
        }
        let id = r.state_id.to_string();
        let mut conn = self.conn.clone();
        let redeemed: i64 = SCRIPT
            .key(self.key("state", &id))
            .key(self.key("owned", r.owner))
            .key(self.key("owner", r.owner))
            .arg(&id)
            .arg(secs(r.issued_at))
            .arg(secs(r.expires_at))
            .arg(secs(now))
            .arg(self.max_per_owner)
            .arg(self.key("state", ""))
            .invoke_async(&mut conn)
            .await
            .map_err(backend)?;
        Ok(redeemed == 1)
    }
}

impl NonceStore for RedisStore {
    fn redeem(
        &self,
        state_id: StateId,
        expires_at: u64,
    ) -> BoxFuture<'_, Result<bool, StoreError>> {
        // Without an issue time the state counts as issued now (as in the
        // memory store).
        let issued_at = self.now();
        Box::pin(self.redeem_now(Redemption::of_parts(state_id, issued_at, expires_at)))
    }

    fn redeem_for<'a>(
        &'a self,
        redemption: Redemption<'a>,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(self.redeem_now(redemption))
    }

    /// `true`: every instance on the same Redis and prefix sees them.
    fn shares_replies(&self) -> bool {
        true
    }

    /// `SET reply:<id>` with the reply (empty while the round runs), kept
    /// for `ttl`.
    fn keep_reply<'a>(
        &'a self,
        state_id: StateId,
        reply: Option<&'a str>,
        ttl: std::time::Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let millis = u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX).max(1);
            let mut conn = self.conn.clone();
            redis::cmd("SET")
                .arg(self.key("reply", &state_id.to_string()))
                .arg(reply.unwrap_or_default())
                .arg("PX")
                .arg(millis)
                .query_async::<()>(&mut conn)
                .await
                .map_err(backend)
        })
    }

    /// `MGET reply:<id> state:<id>`: the kept reply, else when the state
    /// was redeemed.
    fn kept_reply(&self, state_id: StateId) -> BoxFuture<'_, Result<SharedReply, StoreError>> {
        Box::pin(async move {
            let id = state_id.to_string();
            let mut conn = self.conn.clone();
            let (reply, redeemed): (Option<String>, Option<String>) = redis::cmd("MGET")
                .arg(self.key("reply", &id))
                .arg(self.key("state", &id))
                .query_async(&mut conn)
                .await
                .map_err(backend)?;
            Ok(match (reply, redeemed) {
                (Some(reply), _) if reply.is_empty() => SharedReply::Running,
                (Some(reply), _) => SharedReply::Kept(reply),
                (None, Some(at)) => at
                    .parse()
                    .map_or(SharedReply::Unknown, SharedReply::Redeemed),
                (None, None) => SharedReply::Unknown,
            })
        })
    }

    /// A `PING` on the shared connection.
    fn ready(&self) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(async move {
            let mut conn = self.conn.clone();
            redis::cmd("PING")
                .query_async::<()>(&mut conn)
                .await
                .map_err(backend)
        })
    }
}
