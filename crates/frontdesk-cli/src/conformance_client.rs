//! `frontdesk conformance-client <url>`: the client the official MCP
//! conformance suite drives. It reads `MCP_CONFORMANCE_SCENARIO`,
//! `MCP_CONFORMANCE_PROTOCOL_VERSION` and (for some scenarios)
//! `MCP_CONFORMANCE_CONTEXT` like the suite's own clients, runs the scenario
//! with the frontdesk client runtime, and exits 0 on success.
//!
//! Its "person" is scripted: it takes every default the form offers and says
//! yes to every yes/no question without one; it never opens URLs (cancel).
//! Its "browser" for OAuth reads the authorization server's redirect itself:
//! the suite's authorization servers approve at once and redirect.

use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context, bail};
use frontdesk::BoxFuture;
use frontdesk::client::auth::{
    AuthError, AuthorizationPrompt, AuthorizationRequest, OAuthConfig, PendingRedirect,
    PreregisteredClient, UserAgent,
};
use frontdesk::client::{
    Client, ClientConfig, Elicitation, ElicitationHandler, ElicitationKind, ElicitationResponse,
    HandlerModes, ProtocolChoice, Round,
};
use frontdesk::wire::ClientCapabilities;
use frontdesk::wire::Implementation;
use frontdesk::wire::ListChangedCapability;
use frontdesk::wire::RetryFields;
use frontdesk::wire::Revision;
use frontdesk::wire::Tool;
use frontdesk_form::FieldKind;
use serde_json::{Map, Value, json};

/// The URL of this client's metadata document in the suite's CIMD scenarios.
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";

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

/// A user agent without a person: it requests the (reviewed) authorization
/// URL itself and returns where the authorization server redirects.
struct ReadRedirect {
    http: reqwest::Client,
}

struct Pending {
    http: reqwest::Client,
}

impl UserAgent for ReadRedirect {
    fn prepare(&self) -> BoxFuture<'_, Result<Box<dyn PendingRedirect>, AuthError>> {
        let http = self.http.clone();
        Box::pin(async move { Ok(Box::new(Pending { http }) as Box<dyn PendingRedirect>) })
    }
}

impl PendingRedirect for Pending {
    fn redirect_uri(&self) -> String {
        "http://localhost:3000/callback".to_owned()
    }

    fn consent<'a>(
        &'a mut self,
        _prompt: &'a AuthorizationPrompt,
    ) -> BoxFuture<'a, Result<(), AuthError>> {
        // The suite's user agent agrees to every sign-in.
        Box::pin(async { Ok(()) })
    }

    fn complete(
        self: Box<Self>,
        request: AuthorizationRequest,
    ) -> BoxFuture<'static, Result<String, AuthError>> {
        Box::pin(async move {
            let Some(url) = request.review.consented() else {
                return Err(AuthError::NotApproved);
            };
            let response = self
                .http
                .get(url.as_str())
                .send()
                .await
                .map_err(|e| AuthError::Network(frontdesk::Reason::new(e)))?;
            response
                .headers()
                .get(reqwest::header::LOCATION)
                .and_then(|l| l.to_str().ok())
                .map(str::to_owned)
                .ok_or_else(|| {
                    AuthError::Callback(frontdesk::Reason::from(format!(
                        "the authorization endpoint answered {} without a redirect",
                        response.status()
                    )))
                })
        })
    }
}

/// Run the scenario named in the environment against `url`.
pub fn run(url: &str) -> ExitCode {
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let version = std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION").unwrap_or_default();
    let context: Value = std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|c| serde_json::from_str(&c).ok())
        .unwrap_or(Value::Null);
    crate::run::block_on("conformance-client", async {
        scenario_run(url, &scenario, &version, &context)
            .await
            .map_err(|e| e.context(scenario.clone()))
    })
}

fn oauth(context: &Value) -> anyhow::Result<OAuthConfig> {
    frontdesk::client::install_default_tls_provider();
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .context("an HTTP client for the user agent")?;
    let mut config = OAuthConfig::new(ReadRedirect { http })
        .client_name("frontdesk-conformance")
        .client_metadata_url(CLIENT_METADATA_URL);
    // A pre-registered client is bound to its issuer (the suite's context
    // names it); without one it is not used.
    let id = context.get("client_id").and_then(Value::as_str);
    let issuer = context.get("issuer").and_then(Value::as_str);
    if let (Some(id), Some(issuer)) = (id, issuer) {
        config = config.preregistered(PreregisteredClient {
            issuer: issuer.to_owned(),
            client_id: id.to_owned(),
            client_secret: context
                .get("client_secret")
                .and_then(Value::as_str)
                .map(str::to_owned),
        });
    }
    Ok(config)
}

async fn scenario_run(
    url: &str,
    scenario: &str,
    version: &str,
    context: &Value,
) -> anyhow::Result<()> {
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
    if scenario.starts_with("auth/") {
        config.oauth = Some(oauth(context)?);
    }
    let client = Client::connect_http(url, config, Arc::new(Defaults))
        .await
        .context("connect")?;
    eprintln!(
        "frontdesk conformance-client: {scenario} on {}",
        client.revision()
    );
    let outcome = steps(&client, scenario, context).await;
    client.close().await;
    outcome
}

async fn steps(client: &Client, scenario: &str, context: &Value) -> anyhow::Result<()> {
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
        "request-metadata" | "json-schema-ref-no-deref" => {
            client.list_tools().await?;
            Ok(())
        }
        "sse-retry" => {
            client.list_tools().await?;
            client.call_tool("test_reconnection", json!({})).await?;
            Ok(())
        }
        "sep-2322-client-request-state" => request_state(client).await,
        "http-standard-headers" => standard_headers(client).await,
        "http-custom-headers" => custom_headers(client, context).await,
        "json-schema-2020-12-preservation" => schema_echo(client).await,
        _ => {
            // The auth scenarios, http-invalid-tool-headers, and any other:
            // list the tools and call each one the client keeps.
            for tool in client.list_tools().await? {
                client
                    .call_tool(&tool.name, Value::Object(sample_arguments(&tool)))
                    .await?;
            }
            Ok(())
        }
    }
}

/// Arguments for `tool`: a sample value for each required property.
fn sample_arguments(tool: &Tool) -> Map<String, Value> {
    let required: Vec<&str> = tool
        .input_schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let properties = tool
        .input_schema
        .get("properties")
        .and_then(Value::as_object);
    required
        .into_iter()
        .map(|key| {
            let kind = properties
                .and_then(|p| p.get(key))
                .and_then(|p| p.get("type"))
                .and_then(Value::as_str);
            let value = match kind {
                Some("integer" | "number") => json!(1),
                Some("boolean") => json!(true),
                Some("object") => json!({}),
                Some("array") => json!([]),
                _ => json!("test"),
            };
            (key.to_owned(), value)
        })
        .collect()
}

/// Every method whose headers the scenario checks.
async fn standard_headers(client: &Client) -> anyhow::Result<()> {
    for tool in client.list_tools().await? {
        client.call_tool(&tool.name, json!({})).await?;
    }
    let resources = client.request("resources/list", Map::new()).await?;
    if let Some(uri) = resources
        .get("resources")
        .and_then(Value::as_array)
        .and_then(|r| r.first())
        .and_then(|r| r.get("uri"))
        .and_then(Value::as_str)
    {
        client.read_resource(uri).await?;
    }
    let prompts = client.request("prompts/list", Map::new()).await?;
    if let Some(name) = prompts
        .get("prompts")
        .and_then(Value::as_array)
        .and_then(|p| p.first())
        .and_then(|p| p.get("name"))
        .and_then(Value::as_str)
    {
        client.get_prompt(name, None).await?;
    }
    Ok(())
}

/// The calls the scenario's context lists, after `tools/list` taught the
/// client which parameters to mirror.
async fn custom_headers(client: &Client, context: &Value) -> anyhow::Result<()> {
    client.list_tools().await?;
    let calls = context
        .get("toolCalls")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for call in calls {
        let Some(name) = call.get("name").and_then(Value::as_str) else {
            continue;
        };
        let arguments = call.get("arguments").cloned().unwrap_or(json!({}));
        client.call_tool(name, arguments).await?;
    }
    Ok(())
}

/// Send the focal tool's input schema back, as received.
async fn schema_echo(client: &Client) -> anyhow::Result<()> {
    let tools = client.list_tools().await?;
    let Some(focal) = tools.iter().find(|t| t.name == "json_schema_2020_12_tool") else {
        bail!("the focal tool is not listed");
    };
    client
        .call_tool(
            "json_schema_echo",
            json!({ "schema": Value::Object(focal.input_schema.clone()) }),
        )
        .await?;
    Ok(())
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
    let retry = RetryFields {
        input_responses: Some(answers),
        request_state: state,
    };
    match client
        .call_tool_round("test_mrtr_echo_state", json!({}), Some(retry))
        .await?
    {
        Round::Complete(_) => {}
        Round::InputRequired { .. } => bail!("test_mrtr_echo_state asked again"),
        _ => bail!("test_mrtr_echo_state ended in a round this client does not know"),
    }
    client.call_tool("test_mrtr_no_state", json!({})).await?;
    client
        .call_tool("test_mrtr_no_result_type", json!({}))
        .await?;
    Ok(())
}
