//! Every row of the README's "What a server offers" table in one small server, a
//! section per row: tools, prompts, resources, completion, content, logging,
//! progress, the client's model and roots, changes, header parameters, caching and
//! tasks. It serves over stdio (or Streamable HTTP with `--http ADDR`).
//!
//! ```sh
//! cargo build -p frontdesk-examples --example server_features
//! cargo run -- connect -- target/debug/examples/server_features
//! cargo run -- call target/debug/examples/server_features gallery
//! cargo run -- call target/debug/examples/server_features import --show-wire
//! cargo run -- call target/debug/examples/server_features deploy \
//!     --args '{"region": "eu-west", "version": "1.4.2"}'
//! ```
//!
//! `connect` lists the tools and calls any of them (the arguments asked as a form);
//! `--show-wire` prints the log and progress notifications as they travel. The
//! prompts, resources, templates and completions are for a host that offers them
//! (MCP Inspector: `frontdesk serve`'s README section names the flags it needs).

use std::time::Duration;

use frontdesk::http::{self, HttpOptions};
use frontdesk::serde_json::{Map, Value, json};
use frontdesk::server::completion::completions_matching;
use frontdesk::server::prompt::{PromptDef, PromptOutput};
use frontdesk::server::resource::{ResourceDef, ResourceOutput, ResourceTemplateDef};
use frontdesk::server::tool::TaskSupport;
use frontdesk::server::{
    NoArgs, Server, ServerConfig, ToolContext, ToolDef, ToolError, ToolOutput,
};
use frontdesk::wire::CacheScope;
use frontdesk::wire::ContentBlock;
use frontdesk::wire::CreateMessageRequestParams;
use frontdesk::wire::LoggingLevel;
use frontdesk::wire::Resource;
use frontdesk::wire::ResourceContents;
use frontdesk::wire::Role;
use frontdesk::wire::SamplingMessage;

/// A tool with typed arguments: serde reads them, schemars describes them.
#[derive(frontdesk::serde::Deserialize, frontdesk::schemars::JsonSchema)]
#[serde(crate = "frontdesk::serde")]
#[schemars(crate = "frontdesk::schemars")]
struct GreetArgs {
    /// Who to greet.
    name: String,
}

/// Tools: typed arguments (`ToolDef::new`).
async fn greet(_cx: ToolContext, args: GreetArgs) -> Result<ToolOutput, ToolError> {
    Ok(ToolOutput::text(format!("Hello, {}!", args.name)))
}

/// Tools: a hand-written JSON Schema 2020-12 and the raw arguments (`ToolDef::raw`).
fn sum_tool() -> ToolDef {
    let schema = json!({
        "type": "object",
        "properties": {"numbers": {"type": "array", "items": {"type": "number"}, "maxItems": 100}},
        "required": ["numbers"]
    });
    ToolDef::raw(
        "sum",
        "Add up numbers",
        schema,
        |_cx, args: Map<String, Value>| async move {
            let total: f64 = args
                .get("numbers")
                .and_then(Value::as_array)
                .map(|n| n.iter().filter_map(Value::as_f64).sum())
                .unwrap_or(0.0);
            Ok(ToolOutput::text(total.to_string()).with_structured(json!({ "total": total })))
        },
    )
}

/// Content: every kind of block in one result (`ToolOutput::new`).
async fn gallery(_cx: ToolContext, _: NoArgs) -> Result<ToolOutput, ToolError> {
    // A 1×1 transparent PNG and a few bytes of WAV, base64-encoded.
    let png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";
    let wav = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA=";
    Ok(ToolOutput::new(vec![
        ContentBlock::text("A picture, a sound, a link and an embedded note:"),
        ContentBlock::image(png, "image/png"),
        ContentBlock::audio(wav, "audio/wav"),
        ContentBlock::resource_link(
            Resource::new("shop://catalog", "catalog").with_mime_type("text/plain"),
        ),
        ContentBlock::embedded(
            ResourceContents::text("shop://notes/today", "Restock the lanterns.")
                .with_mime_type("text/plain"),
        ),
    ]))
}

/// Logging, progress and changes: notifications sent while the tool runs.
async fn import(cx: ToolContext, _: NoArgs) -> Result<ToolOutput, ToolError> {
    // Logging: at the level the client set (`logging/setLevel` or `_meta`).
    cx.log(LoggingLevel::Info, json!("import started"));
    cx.log_as(
        LoggingLevel::Debug,
        "importer",
        json!({ "source": "catalog.csv" }),
    );
    // Progress: for the call's `progressToken`, always increasing.
    cx.progress("reading the file");
    for step in 1..=3 {
        cx.report_progress(f64::from(step), Some(3.0), Some("importing"));
    }
    // Changes: subscribers of the resource hear `notifications/resources/updated`,
    // and the tool list changed (announced because of `list_changed_notifications`).
    cx.notify_resource_updated("shop://catalog");
    cx.notify_tools_changed();
    Ok(ToolOutput::text("Imported 3 products."))
}

/// The client's model and roots: a live request on 2025-11-25, an input request
/// on 2026-07-28. The client must declare `sampling` and `roots`.
async fn describe_workspace(cx: ToolContext, _: NoArgs) -> Result<ToolOutput, ToolError> {
    let roots = cx.roots().await?;
    let names: Vec<&str> = roots.iter().map(|r| r.uri.as_str()).collect();
    let ask = CreateMessageRequestParams::new(
        vec![SamplingMessage::user(format!(
            "In one sentence, what might a project with these folders be? {names:?}"
        ))],
        100,
    );
    let reply = cx.sample(ask).await?;
    Ok(ToolOutput::text(
        reply.content.text().unwrap_or("(the model sent no text)"),
    ))
}

/// Header parameters: `region` travels in `Mcp-Param-Region` too (2026-07-28
/// HTTP), so a gateway can route on it; the transport refuses a request whose
/// header and body disagree.
#[derive(frontdesk::serde::Deserialize, frontdesk::schemars::JsonSchema)]
#[serde(crate = "frontdesk::serde")]
#[schemars(crate = "frontdesk::schemars")]
struct DeployArgs {
    /// The region to deploy to.
    region: String,
    /// The version to deploy.
    version: String,
}

async fn deploy(_cx: ToolContext, args: DeployArgs) -> Result<ToolOutput, ToolError> {
    Ok(ToolOutput::text(format!(
        "Deployed {} to {}.",
        args.version, args.region
    )))
}

/// Tasks: with a client that declared the Tasks extension, the call returns a
/// task at once and the work continues in the background (`tasks/get` polls it).
async fn rebuild_index(cx: ToolContext, _: NoArgs) -> Result<ToolOutput, ToolError> {
    cx.continue_as_task().await;
    for part in 1..=2 {
        tokio::time::sleep(Duration::from_millis(300)).await;
        cx.report_progress(f64::from(part), Some(2.0), Some("indexing"));
    }
    Ok(ToolOutput::text("Index rebuilt."))
}

/// Prompts and completion: a prompt with an argument whose values the client
/// can complete (`completion/complete` with `ref/prompt`).
fn describe_prompt() -> PromptDef {
    PromptDef::new(
        "describe",
        "Describe a product",
        |_cx, args: Map<String, Value>| async move {
            let name = args.get("product").and_then(Value::as_str).unwrap_or("it");
            Ok(PromptOutput::new()
                .description("A product description")
                .text(Role::User, format!("Describe {name} in two sentences."))
                // Content: a prompt message can carry any block, here a resource link.
                .message(
                    Role::User,
                    ContentBlock::resource_link(Resource::new("shop://catalog", "catalog")),
                ))
        },
    )
    .argument("product", "Which product", true)
    .completion(|req| async move {
        Ok(completions_matching(
            req.value(),
            ["lamp", "ladder", "lantern"],
        ))
    })
}

/// Resources and caching: a fixed resource a 2026-07-28 client may cache for a
/// minute, for everyone.
fn catalog() -> ResourceDef {
    ResourceDef::new("shop://catalog", "catalog", |_cx, _req| async {
        Ok(ResourceOutput::text("lamp\nladder\nlantern")
            .mime_type("text/plain")
            .cache(Duration::from_secs(60), CacheScope::Public))
    })
    .title("The catalog")
}

/// Resources and completion: a template (`{id}`) whose variable the client can
/// complete (`completion/complete` with `ref/resource`).
fn product_template() -> Result<ResourceTemplateDef, Box<dyn std::error::Error>> {
    Ok(
        ResourceTemplateDef::new("shop://products/{id}", "product", |_cx, req| async move {
            let id = req.variable("id").unwrap_or_default().to_owned();
            Ok(ResourceOutput::text(format!("Product {id}: in stock")).mime_type("text/plain"))
        })?
        .completion(|req| async move {
            Ok(completions_matching(
                req.value(),
                ["lamp", "ladder", "lantern"],
            ))
        }),
    )
}

/// The whole server.
fn shop() -> Result<Server, Box<dyn std::error::Error>> {
    Ok(Server::builder("shop", "1.0.0")
        // Caching: how long a 2026-07-28 client may keep the lists (`ttlMs`).
        .config(ServerConfig::new().list_ttl_ms(30_000))
        // Changes: announce `listChanged` and send the list-changed notifications.
        .list_changed_notifications(true)
        .tool(ToolDef::new("greet", "Say hello", greet))
        .tool(sum_tool())
        .tool(ToolDef::new("gallery", "Every kind of content", gallery))
        .tool(ToolDef::new("import", "Import the catalog", import))
        .tool(ToolDef::new(
            "describe_workspace",
            "Ask the client's model about its roots",
            describe_workspace,
        ))
        .tool(
            ToolDef::new("deploy", "Deploy a version to a region", deploy)
                .header_param("region", "Region")?,
        )
        .tool(
            ToolDef::new("rebuild_index", "Rebuild the search index", rebuild_index)
                .task_support(TaskSupport::Optional),
        )
        .prompt(describe_prompt())
        .resource(catalog())
        .resource(ResourceDef::text(
            "shop://notes/today",
            "today",
            "text/plain",
            "Restock the lanterns.",
        ))
        .resource_template(product_template()?)
        .build())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = shop()?;
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [] => frontdesk::server::stdio::serve_stdio(server).await?,
        [flag, addr] if flag == "--http" => {
            let listener = http::bind(addr.parse()?, HttpOptions::new()).await?;
            eprintln!("MCP endpoint: {}", listener.endpoint_url());
            listener.serve(server).await?;
        }
        _ => return Err("usage: server_features [--http ADDR]".into()),
    }
    Ok(())
}
