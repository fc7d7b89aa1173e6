//! [`NonceStore`] on Redis: `SET NX`, so exactly one instance redeems a state.

use super::{RedisStore, backend};
use crate::state::{NonceStore, StateId};
use crate::store::{BoxFuture, StoreError};
use crate::stores::secs;

impl NonceStore for RedisStore {
    fn redeem(
        &self,
        state_id: StateId,
        expires_at: u64,
    ) -> BoxFuture<'_, Result<bool, StoreError>> {
        Box::pin(async move {
            if expires_at <= self.now() {
                return Ok(false);
            }
            let mut conn = self.conn.clone();
            let set: Option<String> = redis::cmd("SET")
                .arg(self.key("state", &state_id.to_string()))
                .arg(1)
                .arg("NX")
                .arg("EXAT")
                .arg(secs(expires_at))
                .query_async(&mut conn)
                .await
                .map_err(backend)?;
            Ok(set.is_some())
        })
    }
}
