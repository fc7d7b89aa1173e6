//! `subscriptions/listen`: a long-lived request whose response stream
//! carries `notifications/subscriptions/acknowledged` (what the server
//! agreed to send), then every change the client asked for, each tagged
//! with the listen request's id. The request lasts until the client goes
//! away (HTTP: closes the stream; stdio: `notifications/cancelled`).

use std::sync::Arc;

use frontdesk_wire::{
    Meta, ResultType, SubscriptionFilter, SubscriptionsAcknowledgedParams,
    SubscriptionsListenRequestParams, SubscriptionsListenResult, method,
};
use serde_json::Map;

use crate::server::contract::OutboundSink;
use crate::server::engine::inner::{ServerInner, typed_notification};
use crate::server::engine::invoke::result_json;
use crate::server::engine::requests;
use crate::server::engine::requests::{ObjectRequest, Reply};

/// The part of `asked` this server can honour: list changes it announces
/// for lists it has, and updates of resources when it has resources.
fn honoured(server: &ServerInner, asked: &SubscriptionFilter) -> SubscriptionFilter {
    let announces = server.list_changed;
    let yes =
        |asked: Option<bool>, has: bool| (asked == Some(true) && announces && has).then_some(true);
    SubscriptionFilter {
        tools_list_changed: yes(asked.tools_list_changed, !server.tools.is_empty()),
        prompts_list_changed: yes(asked.prompts_list_changed, !server.prompts.is_empty()),
        resources_list_changed: yes(asked.resources_list_changed, !server.resources.is_empty()),
        resource_subscriptions: asked
            .resource_subscriptions
            .clone()
            .filter(|_| !server.resources.is_empty()),
        extra: Map::new(),
    }
}

/// Serve one listen request of `client` (its quota key) on `sink`.
pub(crate) async fn listen(
    server: &Arc<ServerInner>,
    request: &ObjectRequest<'_>,
    sink: &OutboundSink,
    client: &str,
) -> Reply {
    let p: SubscriptionsListenRequestParams = requests::typed(request)?;
    let filter = honoured(server, &p.notifications);
    let tag = Meta::new().with_subscription_id(request.id);
    let (guard, mut changes) =
        server
            .subscribers
            .listen(filter.clone(), client)
            .map_err(|refused| {
                tracing::warn!(client, ?refused, "listen stream refused");
                refused.into_listen_error()
            })?;
    for uri in filter.resource_subscriptions.iter().flatten() {
        server.resources.subscribed(uri);
    }
    let ack = SubscriptionsAcknowledgedParams {
        notifications: filter,
        meta: Some(tag.clone()),
        extra: Map::new(),
    };
    let delivered = typed_notification(method::NOTIFICATION_SUBSCRIPTIONS_ACKNOWLEDGED, &ack)
        .is_some_and(|m| sink.send(m));
    if delivered {
        tracing::info!(id = %request.id, "listen stream opened");
        while let Some(change) = changes.recv().await {
            let Some(m) = change.notification(Some(request.id)) else {
                continue;
            };
            if !sink.send(m) {
                break;
            }
        }
    }
    drop(guard);
    tracing::info!(id = %request.id, "listen stream ended");
    result_json(&SubscriptionsListenResult {
        result_type: ResultType::Complete,
        meta: tag,
        extra: Map::new(),
    })
}
