//! A Streamable HTTP server behind OAuth 2.1 bearer access tokens, as MCP's
//! authorization spec has a resource server check them: each request carries a JWT
//! signed by a key of the authorization server's JWKS, with its issuer, this
//! server's URL as audience, and a valid expiry. The principal (`sub`) reaches every
//! handler (`cx.principal()`), and sealed request state and URL flows are bound to
//! it. Refusals are `401` with a `WWW-Authenticate` challenge that names the
//! protected-resource metadata (RFC 9728), served next to the endpoint, which tells
//! clients where to sign in.
//!
//! Point it at your authorization server (its JWKS as an `https://` URL or a file,
//! and its issuer):
//!
//! ```sh
//! JWKS=https://auth.example.com/.well-known/jwks.json ISSUER=https://auth.example.com \
//!     cargo run -p frontdesk-examples --example jwt_server
//! ```
//!
//! Then try:
//!
//! ```sh
//! curl -i http://127.0.0.1:3000/mcp -H 'content-type: application/json' -d '{}'
//! #   401, and `WWW-Authenticate: Bearer … resource_metadata="…"`
//! curl http://127.0.0.1:3000/.well-known/oauth-protected-resource/mcp
//! #   the metadata: this resource and its authorization server
//! cargo run -- connect --url http://127.0.0.1:3000/mcp
//! #   signs in through your authorization server, then `whoami` names you
//! ```
//!
//! Tokens must name `http://127.0.0.1:3000/mcp` as their audience (`AUDIENCE` to
//! change it; behind a proxy, the public URL of the endpoint).

use std::net::SocketAddr;

use frontdesk::http::auth::jwt::{JwksSource, JwtAuthenticator, JwtConfig};
use frontdesk::http::auth::metadata::ProtectedResource;
use frontdesk::http::{self, HttpOptions};
use frontdesk::server::{NoArgs, Server, ToolContext, ToolDef, ToolError, ToolOutput};

const ADDR: ([u8; 4], u16) = ([127, 0, 0, 1], 3000);
const ENDPOINT: &str = "/mcp";

async fn whoami(cx: ToolContext, _: NoArgs) -> Result<ToolOutput, ToolError> {
    Ok(ToolOutput::text(format!("You are {}.", cx.principal())))
}

/// The variable `name`, or why the server cannot start without it.
fn setting(name: &str) -> Result<String, String> {
    std::env::var(name).map_err(|_| format!("set {name} (see the example's docs)"))
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let base = format!("http://{}", SocketAddr::from(ADDR));
    let jwks = setting("JWKS")?;
    let issuer = setting("ISSUER")?;
    let audience = std::env::var("AUDIENCE").unwrap_or_else(|_| format!("{base}{ENDPOINT}"));

    let metadata_url = ProtectedResource::metadata_url(&base, ENDPOINT);
    let config = JwtConfig::new(JwksSource::parse(&jwks), &issuer, &audience)
        .resource_metadata(metadata_url);
    let options = HttpOptions::new()
        .endpoint(ENDPOINT)
        .authenticator(JwtAuthenticator::new(config).await?);
    let metadata = ProtectedResource::new(&audience)
        .authorization_server(&issuer)
        .name("JWT example");

    let server = Server::builder("jwt-example", "1.0.0")
        .tool(ToolDef::new(
            "whoami",
            "Say who the token belongs to",
            whoami,
        ))
        .build();
    let listener = http::bind(SocketAddr::from(ADDR), options).await?;
    println!("MCP endpoint: {}", listener.endpoint_url());
    listener
        .routes(metadata.router(ENDPOINT))
        .serve(server)
        .await?;
    Ok(())
}
