//! [`Client::listen`]: a 2026-07-28 `subscriptions/listen` stream, whose
//! notifications reach [`ClientConfig::on_notification`](super::ClientConfig::on_notification).

use frontdesk_wire::{Revision, SubscriptionFilter, SubscriptionsListenRequestParams, method};
use serde_json::Map;

use super::{Client, ClientError, modern, to_object};

impl Client {
    /// Open a `subscriptions/listen` stream (2026-07-28) asking for what
    /// `filter` names: the server's list changes and the updates of the
    /// resources in `resourceSubscriptions`. Each notification the server
    /// sends on it goes to [`ClientConfig::on_notification`](super::ClientConfig::on_notification)
    /// (tagged with the stream's `subscriptionId` in its `_meta`). Returns
    /// when the server closes the stream; dropping the future closes it
    /// (the server is told, or its HTTP stream is closed). On 2025-11-25
    /// there is no such stream: `resources/subscribe` and the session's
    /// notifications serve instead ([`ClientError::Protocol`]).
    pub async fn listen(&self, filter: SubscriptionFilter) -> Result<(), ClientError> {
        if self.revision() != Revision::V2026_07_28 {
            return Err(ClientError::Protocol(crate::Reason::from(
                "subscriptions/listen is a 2026-07-28 request; this connection speaks 2025-11-25",
            )));
        }
        let params = to_object(&SubscriptionsListenRequestParams {
            notifications: filter,
            meta: None,
            extra: Map::new(),
        })?;
        let params = modern::with_meta(&self.core, params, frontdesk_wire::version::V2026_07_28);
        self.core
            .request_until_answered(method::SUBSCRIPTIONS_LISTEN, Some(params))
            .await
            .map(|_| ())
    }
}
