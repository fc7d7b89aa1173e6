//! Every table a client can fill has a share per client (issue 24): tasks
//! ([`tasks`]), the in-flight places a dropped retry holds ([`retries`]),
//! resource subscriptions ([`subscriptions`]), and what one anonymous client
//! is when it comes from IPv6 ([`peers`]).

mod peers;
mod retries;
mod subscriptions;
mod tasks;
