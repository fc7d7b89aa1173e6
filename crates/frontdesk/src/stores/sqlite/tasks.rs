//! [`TaskStore`] on SQLite: the `tasks` and `task_inbox` tables. Writes go
//! through the one writer (group commit) like every other; looking at an
//! inbox that is empty (the common case, several times a second per
//! waiting task) is a read and never reaches the writer.

use rusqlite::{Connection, OptionalExtension, params};

use super::{SqliteStore, backend};
use crate::BoxFuture;
use crate::store::StoreError;
use crate::stores::secs;
use crate::tasks::{Inbox, MAX_INBOX, TaskAnswer, TaskRecord, TaskStore, now_ms};

/// Keep a task's last `?2` answers in its inbox. (Limits are given
/// through `CAST`, see the `shares` module's `NEXT_ORDERED`.)
const TRIM_INBOX: &str = "DELETE FROM task_inbox WHERE task_id = ?1 AND seq NOT IN
     (SELECT seq FROM task_inbox WHERE task_id = ?1 ORDER BY seq DESC
      LIMIT CAST(?2 AS INTEGER))";

/// The inboxes of up to `?2` tasks expired by `?1` (milliseconds).
pub(super) const INBOXES_EXPIRED: &str = "DELETE FROM task_inbox WHERE task_id IN
     (SELECT id FROM tasks WHERE expires_at_ms <= ?1 LIMIT CAST(?2 AS INTEGER))";

/// Up to `?2` tasks expired by `?1` (milliseconds).
pub(super) const TASKS_EXPIRED: &str = "DELETE FROM tasks WHERE id IN
     (SELECT id FROM tasks WHERE expires_at_ms <= ?1 LIMIT CAST(?2 AS INTEGER))";

fn ms(v: u64) -> i64 {
    secs(v)
}

/// The live record `id` at `now_ms`.
fn load(conn: &Connection, id: &str, now_ms: i64) -> Result<Option<TaskRecord>, StoreError> {
    let row = conn
        .prepare_cached(
            "SELECT principal, owner, instance, snapshot, expires_at_ms, lease_until_ms
             FROM tasks WHERE id = ?1 AND expires_at_ms > ?2",
        )
        .and_then(|mut s| {
            s.query_row(params![id, now_ms], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, String>(3)?,
                    r.get::<_, i64>(4)?,
                    r.get::<_, i64>(5)?,
                ))
            })
        })
        .optional()
        .map_err(backend)?;
    let Some((principal, owner, instance, snapshot, expires, lease)) = row else {
        return Ok(None);
    };
    let snapshot = serde_json::from_str(&snapshot).map_err(backend)?;
    Ok(Some(TaskRecord::new(
        id,
        principal,
        owner,
        instance,
        snapshot,
        u64::try_from(expires).unwrap_or(0),
        u64::try_from(lease).unwrap_or(0),
    )))
}

/// Delete up to `limit` records that expired by `now` (unix seconds) and
/// their inboxes; how many records went.
pub(super) fn sweep(conn: &Connection, now: i64, limit: i64) -> Result<i64, StoreError> {
    let now_ms = now.saturating_mul(1000);
    conn.prepare_cached(INBOXES_EXPIRED)
        .and_then(|mut s| s.execute(params![now_ms, limit]))
        .map_err(backend)?;
    let gone = conn
        .prepare_cached(TASKS_EXPIRED)
        .and_then(|mut s| s.execute(params![now_ms, limit]))
        .map_err(backend)?;
    Ok(i64::try_from(gone).unwrap_or(i64::MAX))
}

impl TaskStore for SqliteStore {
    fn put<'a>(&'a self, record: &'a TaskRecord) -> BoxFuture<'a, Result<bool, StoreError>> {
        let record = record.clone();
        Box::pin(async move {
            let snapshot = serde_json::to_string(&record.snapshot).map_err(backend)?;
            self.write(move |conn, _| {
                // A finished row stays as it is.
                let changed = conn
                    .prepare_cached(
                        "INSERT INTO tasks (id, principal, owner, instance, finished, snapshot,
                             expires_at_ms, lease_until_ms)
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
                         ON CONFLICT (id) DO UPDATE SET principal = excluded.principal,
                             owner = excluded.owner, instance = excluded.instance,
                             finished = excluded.finished, snapshot = excluded.snapshot,
                             expires_at_ms = excluded.expires_at_ms,
                             lease_until_ms = excluded.lease_until_ms
                         WHERE tasks.finished = 0",
                    )
                    .and_then(|mut s| {
                        s.execute(params![
                            record.id,
                            record.principal,
                            record.owner,
                            record.instance,
                            record.is_finished(),
                            snapshot,
                            ms(record.expires_at_ms),
                            ms(record.lease_until_ms),
                        ])
                    })
                    .map_err(backend)?;
                Ok::<_, StoreError>(changed == 1)
            })
            .await
        })
    }

    fn get_task<'a>(
        &'a self,
        id: &'a str,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, StoreError>> {
        let id = id.to_owned();
        Box::pin(self.read(move |conn, _| load(conn, &id, ms(now_ms()))))
    }

    fn renew<'a>(
        &'a self,
        id: &'a str,
        instance: &'a str,
        lease_until_ms: u64,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        let (id, instance) = (id.to_owned(), instance.to_owned());
        Box::pin(self.write(move |conn, _| {
            let changed = conn
                .prepare_cached(
                    "UPDATE tasks SET lease_until_ms = ?3
                     WHERE id = ?1 AND instance = ?2 AND finished = 0 AND expires_at_ms > ?4",
                )
                .and_then(|mut s| {
                    s.execute(params![id, instance, ms(lease_until_ms), ms(now_ms())])
                })
                .map_err(backend)?;
            Ok::<_, StoreError>(changed == 1)
        }))
    }

    fn push_answers<'a>(
        &'a self,
        id: &'a str,
        answers: Vec<TaskAnswer>,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        let id = id.to_owned();
        Box::pin(self.write(move |conn, _| {
            if load(conn, &id, ms(now_ms()))?.is_none() {
                return Ok(());
            }
            for (key, answer) in &answers {
                conn.prepare_cached(
                    "INSERT INTO task_inbox (task_id, key, answer) VALUES (?1, ?2, ?3)",
                )
                .and_then(|mut s| s.execute(params![id, key, answer.to_string()]))
                .map_err(backend)?;
            }
            conn.prepare_cached(TRIM_INBOX)
                .and_then(|mut s| s.execute(params![id, MAX_INBOX as i64]))
                .map_err(backend)?;
            Ok::<_, StoreError>(())
        }))
    }

    fn take_inbox<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Inbox, StoreError>> {
        let id = id.to_owned();
        Box::pin(async move {
            let look = id.clone();
            let (waiting, finished) = self
                .read(move |conn, _| {
                    conn.prepare_cached(
                        "SELECT EXISTS (SELECT 1 FROM task_inbox WHERE task_id = ?1),
                                (SELECT finished FROM tasks WHERE id = ?1 AND expires_at_ms > ?2)",
                    )
                    .and_then(|mut s| {
                        s.query_row(params![look, ms(now_ms())], |r| {
                            Ok((r.get::<_, bool>(0)?, r.get::<_, Option<bool>>(1)?))
                        })
                    })
                    .map_err(backend)
                })
                .await?;
            let finished = finished.unwrap_or(true);
            if !waiting {
                return Ok(Inbox::new(Vec::new(), finished));
            }
            let answers = self
                .write(move |conn, _| {
                    let mut rows = conn
                        .prepare_cached(
                            "DELETE FROM task_inbox WHERE task_id = ?1 RETURNING seq, key, answer",
                        )
                        .and_then(|mut s| {
                            s.query_map(params![id], |r| {
                                Ok((
                                    r.get::<_, i64>(0)?,
                                    r.get::<_, String>(1)?,
                                    r.get::<_, String>(2)?,
                                ))
                            })?
                            .collect::<Result<Vec<_>, _>>()
                        })
                        .map_err(backend)?;
                    rows.sort_by_key(|(seq, _, _)| *seq);
                    Ok::<_, StoreError>(rows)
                })
                .await?;
            let answers = answers
                .into_iter()
                .filter_map(|(_, key, raw)| Some((key, serde_json::from_str(&raw).ok()?)))
                .collect();
            Ok(Inbox::new(answers, finished))
        })
    }

    fn remove<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        let id = id.to_owned();
        Box::pin(self.write(move |conn, _| {
            for sql in [
                "DELETE FROM task_inbox WHERE task_id = ?1",
                "DELETE FROM tasks WHERE id = ?1",
            ] {
                conn.prepare_cached(sql)
                    .and_then(|mut s| s.execute(params![id]))
                    .map_err(backend)?;
            }
            Ok::<_, StoreError>(())
        }))
    }

    fn purge_expired_tasks(&self) -> BoxFuture<'_, Result<usize, StoreError>> {
        Box::pin(self.write(move |conn, now| {
            let gone = sweep(conn, now, i64::MAX)?;
            Ok::<_, StoreError>(usize::try_from(gone).unwrap_or(usize::MAX))
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The inbox's trim keeps each task's last answers, and runs as
    /// prepared whatever task it is bound to (SQLite prepares a statement
    /// again when a value its plan was fitted to changes: with a bare
    /// `LIMIT ?2`, once at its first run).
    #[test]
    fn the_inbox_trim_keeps_the_last_answers_and_is_prepared_once() {
        let conn = super::super::schema::in_memory();
        for k in 0..5 {
            for t in 0..4 {
                conn.execute(
                    "INSERT INTO task_inbox (task_id, key, answer) VALUES (?1, ?2, '1')",
                    params![format!("t{t}"), format!("k{k}")],
                )
                .unwrap();
            }
        }
        let mut trim = conn.prepare_cached(TRIM_INBOX).unwrap();
        for t in 0..8 {
            trim.execute(params![format!("t{}", t % 4), 2]).unwrap();
        }
        assert_eq!(trim.get_status(rusqlite::StatementStatus::RePrepare), 0);
        let left: Vec<(String, String)> = conn
            .prepare("SELECT task_id, key FROM task_inbox ORDER BY task_id, seq")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        let expected: Vec<(String, String)> = (0..4)
            .flat_map(|t| ["k3", "k4"].map(|k| (format!("t{t}"), k.to_owned())))
            .collect();
        assert_eq!(left, expected);
    }
}
