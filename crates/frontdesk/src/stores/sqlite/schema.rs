//! The file's tables, and the step from each older schema to this one.
//!
//! `PRAGMA user_version` says which schema a file has: 0 a new file, 1 the
//! first (redeemed states without owners), 2 (each redeemed state charged
//! to an owner, owners with their floors), 3 (task records and their
//! inboxes, new tables only: a file of version 2 gets them added), 4 (the
//! owners' states in issue order kept in a table of their own, written in
//! bulk, instead of an index written with every redemption), 5 this one
//! (that table keeps each state's expiry too, and the sweep finds expired
//! states there: the index of the redeemed states by expiry, written with
//! every redemption, is gone).

use rusqlite::Connection;

use super::backend;
use crate::store::StoreError;

/// The schema this code writes.
pub(super) const VERSION: i64 = 5;

/// Flows and connect tokens (unchanged since version 1).
const FLOWS: &str = "
CREATE TABLE IF NOT EXISTS flows (
    id TEXT PRIMARY KEY,
    principal TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    status TEXT NOT NULL,
    reason TEXT,
    purpose TEXT NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS flows_by_expiry ON flows (expires_at);
CREATE TABLE IF NOT EXISTS connect_tokens (
    hash BLOB PRIMARY KEY,
    flow_id TEXT NOT NULL,
    principal TEXT NOT NULL,
    expires_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS connect_tokens_by_expiry ON connect_tokens (expires_at);
";

/// Redeemed states and their owners (version 2; version 4 for
/// `owner_order`, version 5 for its expiry).
///
/// `nonce_owners` numbers the owners (a redeemed state stores the number,
/// not the name) and keeps each one's floor: states of that owner issued at
/// or before `floor` are refused, until `floor_until`, when every state the
/// floor stood for has expired. The state ids sort by time, so new rows go
/// to the end of the primary key: a commit of redemptions writes that page
/// (two when it fills up) whatever the owners, and nothing else.
///
/// `owner_order` finds an owner's earliest-issued state when its share is
/// full, and (by `owner_order_by_expiry`) the states the sweep deletes. An
/// index on `redeemed_states (owner, issued_at)` (versions 2 and 3) had
/// every commit write one page per owner in it, and one on
/// `redeemed_states (expires_at)` (versions 1 to 4) one more page: together
/// most of a commit's pages. This table is written in bulk instead (see the
/// `shares` module): each of its rows is a row of `redeemed_states`, and
/// the rows redeemed since its last write are listed in memory; a file
/// whose table lacks rows (written before a crash) gets them when it is
/// opened, and a file of version 4 gets the table anew (its rows had no
/// expiry).
const REDEMPTIONS: &str = "
CREATE TABLE IF NOT EXISTS nonce_owners (
    key INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    floor INTEGER,
    floor_until INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS redeemed_states (
    id BLOB PRIMARY KEY,
    expires_at INTEGER NOT NULL,
    owner INTEGER NOT NULL,
    issued_at INTEGER NOT NULL
) WITHOUT ROWID;
DROP INDEX IF EXISTS redeemed_states_by_owner;
DROP INDEX IF EXISTS redeemed_states_by_expiry;
CREATE TABLE IF NOT EXISTS owner_order (
    owner INTEGER NOT NULL,
    issued_at INTEGER NOT NULL,
    id BLOB NOT NULL,
    expires_at INTEGER NOT NULL,
    PRIMARY KEY (owner, issued_at, id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS owner_order_by_expiry ON owner_order (expires_at);
";

/// Version 4 → 5: `owner_order` had no expiry; it is made anew, and filled
/// when the shares are loaded.
const FROM_4: &str = "
DROP TABLE IF EXISTS owner_order;
";

/// Task records and the answers waiting for their owners (version 3).
///
/// `finished` is 1 once the snapshot's status is terminal: such a row is
/// never overwritten. Times are unix milliseconds. `task_inbox` keeps the
/// answers `tasks/update` left on another instance, in arrival order, until
/// the task's owner takes them.
const TASKS: &str = "
CREATE TABLE IF NOT EXISTS tasks (
    id TEXT PRIMARY KEY,
    principal TEXT NOT NULL,
    owner TEXT NOT NULL,
    instance TEXT NOT NULL,
    finished INTEGER NOT NULL,
    snapshot TEXT NOT NULL,
    expires_at_ms INTEGER NOT NULL,
    lease_until_ms INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS tasks_by_expiry ON tasks (expires_at_ms);
CREATE TABLE IF NOT EXISTS task_inbox (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    task_id TEXT NOT NULL,
    key TEXT NOT NULL,
    answer TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS task_inbox_by_task ON task_inbox (task_id, seq);
";

/// Version 1 → 2: every state redeemed before is charged to the owner `""`
/// (nobody: version 1 did not record owners), as issued when it expires, so
/// that if its share ever pushes it out the floor covers it whenever it
/// was really issued.
const FROM_1: &str = "
DROP INDEX IF EXISTS redeemed_states_by_expiry;
ALTER TABLE redeemed_states RENAME TO redeemed_states_v1;
";
const FROM_1_COPY: &str = "
INSERT OR IGNORE INTO nonce_owners (key, name) VALUES (1, '');
INSERT INTO redeemed_states (id, expires_at, owner, issued_at)
    SELECT id, expires_at, 1, expires_at FROM redeemed_states_v1;
DROP TABLE redeemed_states_v1;
";

/// Bring the file to [`VERSION`] in one transaction; a file of a newer
/// version is refused (its tables may mean something this code does not
/// know).
pub(super) fn prepare(conn: &Connection, path: &std::path::Path) -> Result<(), StoreError> {
    let version: i64 = conn
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .map_err(backend)?;
    if version > VERSION {
        return Err(StoreError::Backend(crate::Reason::new(format!(
            "sqlite: {} has schema version {version}, newer than this frontdesk ({VERSION})",
            path.display()
        ))));
    }
    let mut sql = String::from("BEGIN IMMEDIATE;");
    sql.push_str(FLOWS);
    if version == 1 {
        sql.push_str(FROM_1);
        sql.push_str(REDEMPTIONS);
        sql.push_str(FROM_1_COPY);
    } else {
        if version == 4 {
            sql.push_str(FROM_4);
        }
        sql.push_str(REDEMPTIONS);
    }
    sql.push_str(TASKS);
    sql.push_str(&format!("PRAGMA user_version = {VERSION}; COMMIT;"));
    conn.execute_batch(&sql).map_err(|e| {
        let _ = conn.execute_batch("ROLLBACK");
        backend(e)
    })
}

/// A new in-memory file with this schema (for the store's unit tests).
#[cfg(test)]
pub(super) fn in_memory() -> Connection {
    let conn = Connection::open_in_memory().expect("an in-memory SQLite file");
    prepare(&conn, std::path::Path::new(":memory:")).expect("the schema on a new file");
    conn
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file of version 1 keeps every redemption, charged to nobody and
    /// as issued when it expires.
    #[test]
    fn version_1_redemptions_are_kept() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(
            "CREATE TABLE redeemed_states (id BLOB PRIMARY KEY, expires_at INTEGER NOT NULL) WITHOUT ROWID;
             CREATE INDEX redeemed_states_by_expiry ON redeemed_states (expires_at);
             INSERT INTO redeemed_states VALUES (x'01', 2000), (x'02', 2001);
             PRAGMA user_version = 1;",
        )
        .unwrap();
        prepare(&conn, std::path::Path::new(":memory:")).unwrap();
        let rows: Vec<(Vec<u8>, i64, String, i64)> = conn
            .prepare(
                "SELECT id, expires_at, name, issued_at FROM redeemed_states
                 JOIN nonce_owners ON owner = key ORDER BY id",
            )
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(
            rows,
            [
                (vec![1], 2000, String::new(), 2000),
                (vec![2], 2001, String::new(), 2001)
            ]
        );
        let version: i64 = conn
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .unwrap();
        assert_eq!(version, VERSION);
        // Preparing again changes nothing.
        prepare(&conn, std::path::Path::new(":memory:")).unwrap();
    }

    /// Whether the file's schema holds a table or an index named `name`.
    fn schema_has(conn: &Connection, name: &str) -> bool {
        conn.query_row(
            "SELECT count(*) FROM sqlite_schema WHERE name = ?1",
            [name],
            |r| r.get::<_, i64>(0),
        )
        .unwrap()
            > 0
    }

    /// A file of version 3 loses its per-owner index; its redemptions are
    /// put in `owner_order` when the shares are loaded.
    #[test]
    fn version_3_gets_the_owner_order() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(
            "CREATE TABLE nonce_owners (key INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE,
                 floor INTEGER, floor_until INTEGER NOT NULL DEFAULT 0);
             CREATE TABLE redeemed_states (id BLOB PRIMARY KEY, expires_at INTEGER NOT NULL,
                 owner INTEGER NOT NULL, issued_at INTEGER NOT NULL) WITHOUT ROWID;
             CREATE INDEX redeemed_states_by_owner ON redeemed_states (owner, issued_at);
             CREATE INDEX redeemed_states_by_expiry ON redeemed_states (expires_at);
             INSERT INTO nonce_owners (key, name) VALUES (1, 'a');
             INSERT INTO redeemed_states VALUES (x'01', 2000, 1, 1001), (x'02', 2001, 1, 1000);
             PRAGMA user_version = 3;",
        )
        .unwrap();
        prepare(&conn, std::path::Path::new(":memory:")).unwrap();
        assert!(!schema_has(&conn, "redeemed_states_by_owner"));
        super::super::shares::Shares::load(&conn).unwrap();
        let order: Vec<(i64, i64, Vec<u8>)> = conn
            .prepare("SELECT owner, issued_at, id FROM owner_order ORDER BY owner, issued_at")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(order, [(1, 1000, vec![2]), (1, 1001, vec![1])]);
    }

    /// A file of version 4 loses the index of its redeemed states by
    /// expiry, and its `owner_order` (rows without an expiry) is made anew
    /// with each state's expiry when the shares are loaded.
    #[test]
    fn version_4_gets_the_expiry_in_the_order() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(
            "CREATE TABLE nonce_owners (key INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE,
                 floor INTEGER, floor_until INTEGER NOT NULL DEFAULT 0);
             CREATE TABLE redeemed_states (id BLOB PRIMARY KEY, expires_at INTEGER NOT NULL,
                 owner INTEGER NOT NULL, issued_at INTEGER NOT NULL) WITHOUT ROWID;
             CREATE INDEX redeemed_states_by_expiry ON redeemed_states (expires_at);
             CREATE TABLE owner_order (owner INTEGER NOT NULL, issued_at INTEGER NOT NULL,
                 id BLOB NOT NULL, PRIMARY KEY (owner, issued_at, id)) WITHOUT ROWID;
             INSERT INTO nonce_owners (key, name) VALUES (1, 'a');
             INSERT INTO redeemed_states VALUES (x'01', 2000, 1, 1001), (x'02', 2001, 1, 1000);
             INSERT INTO owner_order VALUES (1, 1000, x'02'), (1, 1001, x'01');
             PRAGMA user_version = 4;",
        )
        .unwrap();
        prepare(&conn, std::path::Path::new(":memory:")).unwrap();
        assert!(!schema_has(&conn, "redeemed_states_by_expiry"));
        assert!(schema_has(&conn, "owner_order_by_expiry"));
        super::super::shares::Shares::load(&conn).unwrap();
        let order: Vec<(i64, i64, Vec<u8>, i64)> = conn
            .prepare("SELECT owner, issued_at, id, expires_at FROM owner_order ORDER BY expires_at")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(order, [(1, 1001, vec![1], 2000), (1, 1000, vec![2], 2001)]);
        // Opening it again changes nothing.
        prepare(&conn, std::path::Path::new(":memory:")).unwrap();
        let rows: i64 = conn
            .query_row("SELECT count(*) FROM owner_order", [], |r| r.get(0))
            .unwrap();
        assert_eq!(rows, 2);
    }
}
