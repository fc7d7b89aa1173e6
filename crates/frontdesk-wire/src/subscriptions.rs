//! `subscriptions/listen` (2026-07-28): one long-lived request whose response
//! stream carries the notifications the client opted in to, each tagged with
//! the listen request's id; it replaces the 2025-11-25 GET stream and
//! `resources/subscribe`.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::meta::Meta;
use crate::result::ResultType;

/// The notifications a client opts in to on one listen stream (each is
/// opt-in; a server sends nothing else there).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SubscriptionFilter {
    /// `notifications/tools/list_changed`.
    #[serde(
        default,
        rename = "toolsListChanged",
        skip_serializing_if = "Option::is_none"
    )]
    pub tools_list_changed: Option<bool>,
    /// `notifications/prompts/list_changed`.
    #[serde(
        default,
        rename = "promptsListChanged",
        skip_serializing_if = "Option::is_none"
    )]
    pub prompts_list_changed: Option<bool>,
    /// `notifications/resources/list_changed`.
    #[serde(
        default,
        rename = "resourcesListChanged",
        skip_serializing_if = "Option::is_none"
    )]
    pub resources_list_changed: Option<bool>,
    /// `notifications/resources/updated` for these URIs.
    #[serde(
        default,
        rename = "resourceSubscriptions",
        skip_serializing_if = "Option::is_none"
    )]
    pub resource_subscriptions: Option<Vec<String>>,
    /// Members this crate does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Parameters of `subscriptions/listen`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SubscriptionsListenRequestParams {
    /// What to receive.
    pub notifications: SubscriptionFilter,
    /// `_meta` (required).
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Parameters of `notifications/subscriptions/acknowledged`, the first
/// message of a listen stream: what the server agreed to send.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SubscriptionsAcknowledgedParams {
    /// The honoured subset of the request's filter.
    pub notifications: SubscriptionFilter,
    /// `_meta` (`subscriptionId`).
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The response that ends a listen stream gracefully (e.g. at shutdown).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SubscriptionsListenResult {
    /// `"complete"`.
    #[serde(rename = "resultType")]
    pub result_type: ResultType,
    /// `_meta` (`subscriptionId`, required).
    #[serde(rename = "_meta")]
    pub meta: Meta,
    /// Members this crate does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
