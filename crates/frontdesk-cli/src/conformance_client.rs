//! `frontdesk conformance-client <url>`: the client the official MCP
//! conformance suite drives. It reads `MCP_CONFORMANCE_SCENARIO` and
//! `MCP_CONFORMANCE_PROTOCOL_VERSION` like the suite's own clients, runs the
//! scenario with the frontdesk client runtime, and exits 0 on success.
//!
//! Its "person" is scripted: it takes every default the form offers and says
//! yes to every yes/no question without one; it never opens URLs (cancel).

use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context, bail};
use frontdesk::client::{
    BoxFuture, Client, ClientCapabilities, ClientConfig, Elicitation, ElicitationHandler,
    ElicitationKind, ElicitationResponse, HandlerModes, Implementation, ListChangedCapability,
    ProtocolChoice, Revision, Round, RoundState,
};
use frontdesk_form::FieldKind;
use serde_json::{Value, json};

/// The scripted person of the conformance runs.
struct Defaults;

impl ElicitationHandler for Defaults {
    fn modes(&self) -> HandlerModes {
        HandlerModes {
            form: true,
            url: false,
        }
    }

    fn elicit(&self, request: Elicitation) -> BoxFuture<'_, ElicitationResponse> {
        Box::pin(async move {
            let ElicitationKind::Form { form, prefill } = &request.kind else {
                return ElicitationResponse::Cancel;
            };
            let mut content = prefill.clone();
            for field in form.schema.fields() {
                if !content.contains_key(field.key()) && matches!(field.kind(), FieldKind::Boolean)
                {
                    content.insert(field.key().to_string(), Value::Bool(true));
                }
            }
            ElicitationResponse::Accept(content)
        })
    }
}

/// Run the scenario named in the environment against `url`.
pub fn run(url: &str) -> ExitCode {
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let version = std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION").unwrap_or_default();
    crate::run::block_on("conformance-client", async {
        scenario_run(url, &scenario, &version)
            .await
            .map_err(|e| e.context(scenario.clone()))
    })
}

async fn scenario_run(url: &str, scenario: &str, version: &str) -> anyhow::Result<()> {
    let mut config = ClientConfig::default().protocol(match version {
        "2025-11-25" => ProtocolChoice::Only(Revision::V2025_11_25),
        "2026-07-28" => ProtocolChoice::Only(Revision::V2026_07_28),
        _ => ProtocolChoice::Auto,
    });
    config.client_info = Implementation::new("frontdesk-conformance", env!("CARGO_PKG_VERSION"));
    if scenario == "request-metadata" {
        // The scenario checks that declared roots/sampling are objects.
        config.extra_capabilities = ClientCapabilities {
            roots: Some(ListChangedCapability::default()),
            sampling: Some(serde_json::Map::new()),
            ..ClientCapabilities::default()
        };
    }
    let client = Client::connect_http(url, config, Arc::new(Defaults))
        .await
        .context("connect")?;
    eprintln!(
        "frontdesk conformance-client: {scenario} on {}",
        client.revision()
    );
    let outcome = steps(&client, scenario).await;
    client.close().await;
    outcome
}

async fn steps(client: &Client, scenario: &str) -> anyhow::Result<()> {
    match scenario {
        "initialize" => Ok(()),
        "tools_call" => {
            client.list_tools().await?;
            client
                .call_tool("add_numbers", json!({"a": 5, "b": 3}))
                .await?;
            Ok(())
        }
        "elicitation-sep1034-client-defaults" => {
            client.list_tools().await?;
            client
                .call_tool("test_client_elicitation_defaults", json!({}))
                .await?;
            Ok(())
        }
        "request-metadata" => {
            client.list_tools().await?;
            Ok(())
        }
        "sep-2322-client-request-state" => request_state(client).await,
        _ => {
            eprintln!(
                "frontdesk conformance-client: unknown scenario {scenario:?}; listing tools only"
            );
            client.list_tools().await?;
            Ok(())
        }
    }
}

/// Round by round, so an unrelated call happens between a round and its retry.
async fn request_state(client: &Client) -> anyhow::Result<()> {
    client.list_tools().await?;
    let Round::InputRequired { requests, state } = client
        .call_tool_round("test_mrtr_echo_state", json!({}), None)
        .await?
    else {
        bail!("test_mrtr_echo_state completed without asking");
    };
    client.call_tool("test_mrtr_unrelated", json!({})).await?;
    let answers = client.fulfil(&requests).await?;
    let retry = RoundState {
        input_responses: Some(answers),
        request_state: state,
    };
    match client
        .call_tool_round("test_mrtr_echo_state", json!({}), Some(retry))
        .await?
    {
        Round::Complete(_) => {}
        Round::InputRequired { .. } => bail!("test_mrtr_echo_state asked again"),
    }
    client.call_tool("test_mrtr_no_state", json!({})).await?;
    client
        .call_tool("test_mrtr_no_result_type", json!({}))
        .await?;
    Ok(())
}
