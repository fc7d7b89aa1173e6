//! [`NonceStore`] on SQLite: a redeemed state stays redeemed across restarts.

use rusqlite::params;

use super::{SqliteStore, backend};
use crate::state::{NonceStore, StateId};
use crate::store::{BoxFuture, StoreError};
use crate::stores::secs;

impl NonceStore for SqliteStore {
    fn redeem(
        &self,
        state_id: StateId,
        expires_at: u64,
    ) -> BoxFuture<'_, Result<bool, StoreError>> {
        let expires_at = secs(expires_at);
        Box::pin(self.run(move |conn, now| {
            if expires_at <= now {
                return Ok(false);
            }
            conn.execute(
                "DELETE FROM redeemed_states WHERE expires_at <= ?1",
                params![now],
            )
            .map_err(backend)?;
            // The primary key makes the first insert win, across restarts.
            let inserted = conn
                .execute(
                    "INSERT OR IGNORE INTO redeemed_states (id, expires_at) VALUES (?1, ?2)",
                    params![&state_id.as_bytes()[..], expires_at],
                )
                .map_err(backend)?;
            Ok(inserted == 1)
        }))
    }
}
