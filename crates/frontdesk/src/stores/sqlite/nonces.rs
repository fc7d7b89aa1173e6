//! [`NonceStore`] on SQLite: a redeemed state stays redeemed across restarts
//! and crashes (answered only after its group commit, see the module docs).

use tokio::sync::oneshot;

use super::writer::Job;
use super::{SqliteStore, not_committed};
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
        Box::pin(async move {
            let now = self.now();
            if expires_at <= now {
                return Ok(false);
            }
            let (reply, answer) = oneshot::channel();
            self.submit(Job::Redeem {
                id: state_id,
                expires_at,
                now,
                reply,
            })
            .await?;
            answer.await.map_err(|_| not_committed())?
        })
    }
}
