//! The host's side of the connection: connecting (and, in the lab, reconnecting
//! with the other revision), listing the tools, and running the calls the person
//! starts from the page, each in its own task so that their questions can queue.

use std::sync::{Arc, Mutex};

use frontdesk::client::{Client, ClientConfig, ElicitationHandler, ProtocolChoice};

use frontdesk::BoxFuture;

use frontdesk::wire::Revision;
use frontdesk_host::sanitize::server_label;
use serde_json::Value;

use crate::state::{CallOutcome, Connection, Link, Shared};

/// Connects the web host's client to its server: given the client configuration
/// (the host has set its protocol and wire tap) and the handler to use, a
/// connected [`Client`], or why not.
pub type Connector = Arc<
    dyn Fn(ClientConfig, Arc<dyn ElicitationHandler>) -> BoxFuture<'static, Result<Client, String>>
        + Send
        + Sync,
>;

pub(crate) struct Session {
    shared: Arc<Shared>,
    connector: Connector,
    base: ClientConfig,
    handler: Arc<dyn ElicitationHandler>,
    client: Mutex<Option<Client>>,
    switching: tokio::sync::Mutex<()>,
}

impl Session {
    pub(crate) fn new(
        shared: Arc<Shared>,
        connector: Connector,
        base: ClientConfig,
        handler: Arc<dyn ElicitationHandler>,
    ) -> Session {
        Session {
            shared,
            connector,
            base,
            handler,
            client: Mutex::new(None),
            switching: tokio::sync::Mutex::new(()),
        }
    }

    fn client(&self) -> Option<Client> {
        self.client
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// The base configuration with `protocol` and the host's wire tap in front of
    /// any tap it already had.
    fn config(&self, protocol: ProtocolChoice) -> ClientConfig {
        let mut config = self.base.clone().protocol(protocol);
        let before = config.on_wire.take();
        let shared = self.shared.clone();
        config = config.on_wire(move |direction, message| {
            shared.record_wire(direction, message);
            if let Some(tap) = &before {
                tap(direction, message);
            }
        });
        config
    }

    /// Connect with `protocol` and list the tools.
    pub(crate) async fn connect(&self, protocol: ProtocolChoice) {
        self.shared.change(|inner| {
            inner.connection = Connection {
                wire_from: inner.wire.end(),
                ..Connection::default()
            };
        });
        let connected = (self.connector)(self.config(protocol), self.handler.clone()).await;
        let client = match connected {
            Ok(client) => client,
            Err(reason) => {
                tracing::warn!(%reason, "the web host could not connect");
                self.shared.change(|inner| {
                    inner.connection.link = Link::Failed(reason);
                });
                return;
            }
        };
        let tools = match client.list_tools().await {
            Ok(tools) => tools,
            Err(e) => {
                tracing::warn!(error = %e, "tools/list failed");
                Vec::new()
            }
        };
        let server = server_label(&client.server_info());
        let revision = client.revision();
        *self
            .client
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(client);
        self.shared.change(|inner| {
            inner.connection.link = Link::Connected { server, revision };
            inner.connection.tools = tools;
        });
    }

    /// Start a call in its own task.
    pub(crate) fn call(&self, tool: String, arguments: Value) -> Result<(), String> {
        let client = self
            .client()
            .ok_or("not connected to a server, so nothing can be called")?;
        let id = self.shared.start_call(&tool, &arguments, client.revision());
        let shared = self.shared.clone();
        tokio::spawn(async move {
            let outcome = match client.call_tool(&tool, arguments).await {
                Ok(result) => CallOutcome::Result(Box::new(result)),
                Err(e) => CallOutcome::Failed(e.to_string()),
            };
            shared.finish_call(id, outcome);
        });
        Ok(())
    }

    /// Reconnect with the other revision (questions of the old connection are
    /// withdrawn as it closes).
    pub(crate) async fn switch(&self) {
        let _one_at_a_time = self.switching.lock().await;
        let current = self.client().map(|c| c.revision());
        let next = match current {
            Some(Revision::V2026_07_28) => Revision::V2025_11_25,
            _ => Revision::V2026_07_28,
        };
        self.close().await;
        self.connect(ProtocolChoice::Only(next)).await;
    }

    /// Close the connection.
    pub(crate) async fn close(&self) {
        let client = self
            .client
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        if let Some(client) = client {
            client.close().await;
        }
    }
}
