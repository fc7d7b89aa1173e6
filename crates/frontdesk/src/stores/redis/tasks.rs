//! [`TaskStore`] on Redis. Keys, under the prefix:
//!
//! - `task:<id>`: a hash: `record` (the [`TaskRecord`] as JSON), `finished`
//!   (`1` once its status is terminal: never overwritten then), `instance`
//!   (who runs it) and `lease` (unix milliseconds, the one field a renewal
//!   changes); it expires with the task (`PEXPIREAT`);
//! - `tinbox:<id>`: a list of the answers `tasks/update` left for the
//!   task's owner (`[key, answer]` as JSON), the newest [`MAX_INBOX`],
//!   expiring with the task.
//!
//! Each operation is one script (one round trip, atomic), so a cancel
//! written on one instance and a change written by the owner on another
//! cannot interleave.

use std::sync::LazyLock;

use super::{RedisStore, backend};
use crate::BoxFuture;
use crate::store::StoreError;
use crate::stores::secs;
use crate::tasks::{Inbox, MAX_INBOX, TaskAnswer, TaskRecord, TaskStore, now_ms};

/// KEYS: the task. ARGV: the record, finished (0/1), instance, lease,
/// expiry. 1 when written, 0 when the stored record is finished.
static PUT: LazyLock<redis::Script> = LazyLock::new(|| {
    redis::Script::new(
        r"
if redis.call('HGET', KEYS[1], 'finished') == '1' then return 0 end
redis.call('HSET', KEYS[1], 'record', ARGV[1], 'finished', ARGV[2], 'instance', ARGV[3], 'lease', ARGV[4])
redis.call('PEXPIREAT', KEYS[1], ARGV[5])
return 1
",
    )
});

/// KEYS: the task. ARGV: instance, lease. 1 when renewed.
static RENEW: LazyLock<redis::Script> = LazyLock::new(|| {
    redis::Script::new(
        r"
local h = redis.call('HMGET', KEYS[1], 'finished', 'instance')
if h[1] ~= '0' or h[2] ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'lease', ARGV[2])
return 1
",
    )
});

/// KEYS: the task, its inbox. ARGV: the most kept, then the answers.
static PUSH: LazyLock<redis::Script> = LazyLock::new(|| {
    redis::Script::new(
        r"
local ttl = redis.call('PTTL', KEYS[1])
if ttl <= 0 then return 0 end
for i = 2, #ARGV do redis.call('RPUSH', KEYS[2], ARGV[i]) end
redis.call('LTRIM', KEYS[2], -tonumber(ARGV[1]), -1)
redis.call('PEXPIRE', KEYS[2], ttl)
return 1
",
    )
});

/// KEYS: the task, its inbox. Returns `finished` (empty when gone) and the
/// answers, taken out.
static TAKE: LazyLock<redis::Script> = LazyLock::new(|| {
    redis::Script::new(
        r"
local items = redis.call('LRANGE', KEYS[2], 0, -1)
if #items > 0 then redis.call('DEL', KEYS[2]) end
local f = redis.call('HGET', KEYS[1], 'finished')
return {f or '', items}
",
    )
});

impl RedisStore {
    async fn load_task(&self, id: &str) -> Result<Option<TaskRecord>, StoreError> {
        let mut conn = self.conn.clone();
        let (record, lease): (Option<String>, Option<u64>) = redis::cmd("HMGET")
            .arg(self.key("task", id))
            .arg("record")
            .arg("lease")
            .query_async(&mut conn)
            .await
            .map_err(backend)?;
        let Some(record) = record else {
            return Ok(None);
        };
        let mut record: TaskRecord = serde_json::from_str(&record).map_err(backend)?;
        if let Some(lease) = lease {
            record.lease_until_ms = lease;
        }
        Ok((!record.is_expired(now_ms())).then_some(record))
    }
}

impl TaskStore for RedisStore {
    fn put<'a>(&'a self, record: &'a TaskRecord) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move {
            let json = serde_json::to_string(record).map_err(backend)?;
            let mut conn = self.conn.clone();
            let written: i64 = PUT
                .key(self.key("task", &record.id))
                .arg(json)
                .arg(u8::from(record.is_finished()))
                .arg(&record.instance)
                .arg(secs(record.lease_until_ms))
                .arg(secs(record.expires_at_ms))
                .invoke_async(&mut conn)
                .await
                .map_err(backend)?;
            Ok(written == 1)
        })
    }

    fn get_task<'a>(
        &'a self,
        id: &'a str,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, StoreError>> {
        Box::pin(self.load_task(id))
    }

    fn renew<'a>(
        &'a self,
        id: &'a str,
        instance: &'a str,
        lease_until_ms: u64,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move {
            let mut conn = self.conn.clone();
            let renewed: i64 = RENEW
                .key(self.key("task", id))
                .arg(instance)
                .arg(secs(lease_until_ms))
                .invoke_async(&mut conn)
                .await
                .map_err(backend)?;
            Ok(renewed == 1)
        })
    }

    fn push_answers<'a>(
        &'a self,
        id: &'a str,
        answers: Vec<TaskAnswer>,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            if answers.is_empty() {
                return Ok(());
            }
            let items = answers
                .iter()
                .map(serde_json::to_string)
                .collect::<Result<Vec<_>, _>>()
                .map_err(backend)?;
            let mut conn = self.conn.clone();
            let _: i64 = PUSH
                .key(self.key("task", id))
                .key(self.key("tinbox", id))
                .arg(MAX_INBOX)
                .arg(items)
                .invoke_async(&mut conn)
                .await
                .map_err(backend)?;
            Ok(())
        })
    }

    fn take_inbox<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Inbox, StoreError>> {
        Box::pin(async move {
            let mut conn = self.conn.clone();
            let (finished, items): (String, Vec<String>) = TAKE
                .key(self.key("task", id))
                .key(self.key("tinbox", id))
                .invoke_async(&mut conn)
                .await
                .map_err(backend)?;
            let answers = items
                .iter()
                .filter_map(|item| serde_json::from_str::<TaskAnswer>(item).ok())
                .collect();
            Ok(Inbox::new(answers, finished != "0"))
        })
    }

    fn remove<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let mut conn = self.conn.clone();
            let _: i64 = redis::cmd("DEL")
                .arg(self.key("task", id))
                .arg(self.key("tinbox", id))
                .query_async(&mut conn)
                .await
                .map_err(backend)?;
            Ok(())
        })
    }

    /// Redis expires the keys by itself: nothing to do.
    fn purge_expired_tasks(&self) -> BoxFuture<'_, Result<usize, StoreError>> {
        Box::pin(async { Ok(0) })
    }
}
