//! A web host in front of a small in-process server, driven over HTTP like a
//! browser without script would drive it.

use std::sync::Arc;
use std::time::Duration;

use frontdesk::client::Client;
use frontdesk::form::FormSchema;
use frontdesk::server::{
    Answer, NoArgs, Question, Server, ToolContext, ToolDef, ToolError, ToolOutput,
};
use frontdesk_web::{Connector, WebHost, WebOptions};
use reqwest::header::{HOST, ORIGIN};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

/// Markup that must never reach the page as markup.
pub const SCRIPT: &str = "<script>window.__pwned=1</script>";

async fn ask_email(cx: ToolContext, _: NoArgs) -> Result<ToolOutput, ToolError> {
    let form = FormSchema::builder()
        .string("email", |f| f.title("Email").email().required())
        .string("token", |f| f.title("Access token"))
        .build()
        .map_err(|e| ToolError::execution(e.to_string()))?;
    Ok(
        match cx
            .ask(Question::schema(
                format!("Where should we write? {SCRIPT}"),
                form,
            ))
            .await?
        {
            Answer::Accepted(content) => {
                ToolOutput::text(format!("received {}", Value::Object(content)))
            }
            Answer::Declined => ToolOutput::text("received decline"),
            Answer::Cancelled => ToolOutput::text("received cancel"),
        },
    )
}

async fn ask_link(cx: ToolContext, _: NoArgs) -> Result<ToolOutput, ToolError> {
    let answer = cx
        .ask(Question::url("Open this", |_| {
            "javascript:alert(1)".to_owned()
        }))
        .await?;
    Ok(ToolOutput::text(match answer {
        Answer::Accepted(()) => "received accept",
        Answer::Declined => "received decline",
        Answer::Cancelled => "received cancel",
    }))
}

fn server() -> Server {
    Server::builder(format!("shop{SCRIPT}"), "1.0")
        .tool(ToolDef::new("ask_email", "Asks for an email", ask_email))
        .tool(ToolDef::new("ask_link", "Asks to open a link", ask_link))
        .build()
}

/// A running web host and an HTTP client for it.
pub struct Page {
    pub url: String,
    pub origin: String,
    pub port: u16,
    pub http: reqwest::Client,
    stop: CancellationToken,
}

impl Drop for Page {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

impl Page {
    /// A host on a free port, connected to the test server.
    pub async fn start() -> Page {
        let connector: Connector = Arc::new(|config, handler| {
            Box::pin(async move {
                let (client_end, server_end) = tokio::io::duplex(1 << 16);
                let (read, write) = tokio::io::split(server_end);
                tokio::spawn(frontdesk::server::stdio::serve(server(), read, write));
                let (read, write) = tokio::io::split(client_end);
                Client::connect_io(read, write, config, handler)
                    .await
                    .map_err(|e| e.to_string())
            })
        });
        let host = WebHost::bind(WebOptions::new("frontdesk test").target("the test server"))
            .await
            .expect("a loopback port");
        let url = host.url().to_owned();
        let parsed = reqwest::Url::parse(&url).expect("a URL");
        let port = parsed.port().expect("a port");
        let stop = CancellationToken::new();
        let until = stop.clone();
        tokio::spawn(host.run(connector, async move { until.cancelled().await }));
        frontdesk::client::install_default_tls_provider();
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("a client");
        let page = Page {
            origin: format!("http://127.0.0.1:{port}"),
            url,
            port,
            http,
            stop,
        };
        page.wait_for("Connected to", "the connection").await;
        page
    }

    /// The page's HTML.
    pub async fn html(&self) -> String {
        self.http
            .get(&self.url)
            .send()
            .await
            .expect("the page answers")
            .text()
            .await
            .expect("text")
    }

    /// Wait until the page contains `text`.
    pub async fn wait_for(&self, text: &str, what: &str) -> String {
        for _ in 0..200 {
            let html = self.html().await;
            if html.contains(text) {
                return html;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        panic!(
            "{what}: the page never showed {text:?}:\n{}",
            self.html().await
        );
    }

    /// POST a form to `path` (relative to the page) from the page's own origin.
    pub async fn post(&self, path: &str, fields: &[(&str, &str)]) -> reqwest::Response {
        self.http
            .post(format!("{}{path}", self.url))
            .header(ORIGIN, &self.origin)
            .form(fields)
            .send()
            .await
            .expect("an answer")
    }

    /// A raw request with the given `Host` and `Origin` (either may be absent).
    pub async fn raw(
        &self,
        post: bool,
        path: &str,
        host: Option<&str>,
        origin: Option<&str>,
    ) -> reqwest::Response {
        let url = format!("{}{path}", self.url);
        let mut request = if post {
            self.http.post(url).body("tool=ask_email&arguments=%7B%7D")
        } else {
            self.http.get(url)
        };
        if let Some(host) = host {
            request = request.header(HOST, host);
        }
        if let Some(origin) = origin {
            request = request.header(ORIGIN, origin);
        }
        request.send().await.expect("an answer")
    }

    /// The id of the question on screen (from its form's action).
    pub async fn question_id(&self) -> String {
        let html = self.wait_for("action=\"q/", "a question").await;
        let at = html.find("action=\"q/").expect("a question form") + "action=\"q/".len();
        html[at..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect()
    }
}
