//! [`NonceStore`] on SQLite: a redeemed state stays redeemed across restarts
//! and crashes (answered only after its group commit, see the module docs),
//! with a share per owner (see the `shares` module).

use tokio::sync::oneshot;

use super::shares::Redeem;
use super::writer::Job;
use super::{SqliteStore, not_committed};
use crate::BoxFuture;
use crate::state::{NonceStore, Redemption, StateId};
use crate::store::StoreError;
use crate::stores::secs;

impl SqliteStore {
    async fn redeem_now(&self, r: Redemption<'_>) -> Result<bool, StoreError> {
        let now = self.now();
        let expires_at = secs(r.expires_at);
        if expires_at <= now {
            return Ok(false);
        }
        let (reply, answer) = oneshot::channel();
        let mut job = Job::Redeem {
            redeem: Redeem {
                id: r.state_id,
                issued_at: secs(r.issued_at),
                expires_at,
                owner: r.owner.into(),
                limits: self.limits,
            },
            now,
            reply,
        };
        if let Some(batches) = &self.batches {
            match batches.submit(job) {
                Ok(()) => return answer.await.map_err(|_| not_committed())?,
                // No runtime here: the writer thread commits it.
                Err(back) => job = back,
            }
        }
        self.submit(job).await?;
        answer.await.map_err(|_| not_committed())?
    }
}

impl NonceStore for SqliteStore {
    fn redeem(
        &self,
        state_id: StateId,
        expires_at: u64,
    ) -> BoxFuture<'_, Result<bool, StoreError>> {
        // Without an issue time the state counts as issued now (as in the
        // memory store): it can only be forgotten with everything its owner
        // was issued before it.
        let issued_at = self.clock.now_unix();
        Box::pin(self.redeem_now(Redemption::of_parts(state_id, issued_at, expires_at)))
    }

    fn redeem_for<'a>(
        &'a self,
        redemption: Redemption<'a>,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(self.redeem_now(redemption))
    }

    /// A reading connection opens the file and runs a query.
    fn ready(&self) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(self.read(|conn, _now| {
            conn.query_row("SELECT 1", [], |_| Ok(()))
                .map_err(super::backend)
        }))
    }
}
