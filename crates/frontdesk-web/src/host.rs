//! Starting the web host: [`WebOptions`] say what the page is about, [`WebHost::bind`]
//! takes a loopback port and makes the launch secret, [`WebHost::run`] connects the
//! client and serves the page until shut down.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;

use frontdesk::client::{ClientConfig, ElicitationHandler, ProtocolChoice};
use serde_json::Value;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::guard::Guard;
use crate::handler::WebHandler;
use crate::routes::{App, router};
use crate::session::{Connector, Session};
use crate::state::Shared;
use crate::view::PageText;

/// What the page is about and how the client connects.
#[derive(Debug, Clone)]
pub struct WebOptions {
    port: u16,
    text: PageText,
    protocol: ProtocolChoice,
    client: ClientConfig,
}

impl WebOptions {
    /// A page titled `title` (e.g. `frontdesk lab`), on a free port, probing the
    /// revision, with the default client configuration.
    pub fn new(title: impl Into<String>) -> WebOptions {
        WebOptions {
            port: 0,
            text: PageText {
                title: title.into(),
                target: "the server".to_owned(),
                ..PageText::default()
            },
            protocol: ProtocolChoice::Auto,
            client: ClientConfig::default(),
        }
    }

    /// Listen on this port of `127.0.0.1` (0, the default: a free one).
    pub fn port(mut self, port: u16) -> WebOptions {
        self.port = port;
        self
    }

    /// Add a sentence under the title.
    pub fn intro(mut self, line: impl Into<String>) -> WebOptions {
        self.text.intro.push(line.into());
        self
    }

    /// How the status line names the server (`the brightgrid demo, in this process`).
    pub fn target(mut self, target: impl Into<String>) -> WebOptions {
        self.text.target = target.into();
        self
    }

    /// The revision to start with.
    pub fn protocol(mut self, protocol: impl Into<ProtocolChoice>) -> WebOptions {
        self.protocol = protocol.into();
        self
    }

    /// Offer a button that reconnects with the other revision (the lab does).
    pub fn switchable(mut self, switchable: bool) -> WebOptions {
        self.text.switchable = switchable;
        self
    }

    /// Pre-fill the arguments of `tool` with `arguments` instead of a skeleton made
    /// from its input schema.
    pub fn preset(mut self, tool: impl Into<String>, arguments: Value) -> WebOptions {
        self.text.presets.push((tool.into(), arguments));
        self
    }

    /// The client's configuration. Its protocol is replaced by
    /// [`WebOptions::protocol`]; the host's wire tap runs before any tap it has.
    pub fn client_config(mut self, config: ClientConfig) -> WebOptions {
        self.client = config;
        self
    }
}

/// A bound, not yet running, web host.
#[derive(Debug)]
pub struct WebHost {
    listener: TcpListener,
    guard: Arc<Guard>,
    url: String,
    options: WebOptions,
}

impl WebHost {
    /// Listen on `127.0.0.1` (the port of the options, or a free one) with a fresh
    /// launch secret.
    pub async fn bind(options: WebOptions) -> std::io::Result<WebHost> {
        let listener = TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], options.port))).await?;
        let port = listener.local_addr()?.port();
        let guard = Arc::new(Guard::new(port));
        let url = format!("http://127.0.0.1:{port}/{}/", guard.secret);
        Ok(WebHost {
            listener,
            guard,
            url,
            options,
        })
    }

    /// The page's address, secret included: give it only to the person (on
    /// their terminal), never on a command line.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// A one-time address that sends a browser on to the page: it works once,
    /// within 30 s, and holds no secret worth reading afterwards. Start the
    /// browser with this one ([`open_in_browser`]): another local user can read
    /// the browser's command line.
    pub fn open_url(&self) -> String {
        let port = self.listener.local_addr().map_or(0, |a| a.port());
        format!(
            "http://127.0.0.1:{port}/open/{}",
            self.guard.new_open_code()
        )
    }

    /// Connect with `connector` and serve the page until `shutdown` resolves; then
    /// close the connection (open questions are answered `cancel`).
    pub async fn run(
        self,
        connector: Connector,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> std::io::Result<()> {
        let shared = Arc::new(Shared::default());
        let handler: Arc<dyn ElicitationHandler> = Arc::new(WebHandler::new(shared.clone()));
        let session = Arc::new(Session::new(
            shared.clone(),
            connector,
            self.options.client,
            handler,
        ));
        let app = Arc::new(App {
            shared,
            session: session.clone(),
            text: self.options.text,
            stopping: CancellationToken::new(),
            home: format!("/{}/", self.guard.secret),
        });
        let protocol = self.options.protocol;
        let connecting = session.clone();
        tokio::spawn(async move { connecting.connect(protocol).await });
        let stopping = app.stopping.clone();
        let served = axum::serve(self.listener, router(app, self.guard))
            .with_graceful_shutdown(async move {
                shutdown.await;
                stopping.cancel();
            })
            .await;
        session.close().await;
        served
    }
}

/// Open `url` in the person's browser, when there is one to open. The URL ends
/// up on the browser's command line, which every local user can read: pass
/// [`WebHost::open_url`], not the page's address.
///
/// On Linux without `DISPLAY`, `WAYLAND_DISPLAY` or `BROWSER` it does not try (a
/// text browser would take over the terminal); `Err` says why nothing opened.
pub fn open_in_browser(url: &str) -> Result<(), String> {
    if cfg!(target_os = "linux")
        && ["DISPLAY", "WAYLAND_DISPLAY", "BROWSER"]
            .iter()
            .all(|v| std::env::var_os(v).is_none_or(|s| s.is_empty()))
    {
        return Err("no graphical session here".to_owned());
    }
    webbrowser::open(url).map_err(|e| e.to_string())
}
