//! The "brightgrid" demo server: what `frontdesk serve` and `frontdesk lab`
//! run, built on the `frontdesk` library like any application would be. Not
//! published: it is the project's example and test fixture.
//!
//! - `book_return`: a typed form ([`ReturnForm`], `#[derive(Form)]`), then a
//!   confirmation; the result echoes what was booked (text and
//!   `structuredContent`, see [`ReturnForm::booked`]).
//! - `connect_store_account`: URL mode to a sign-in page the demo serves
//!   itself on loopback; submitting that page completes the flow.
//!
//! With [`DemoOptions::conformance_fixtures`] the server also offers the
//! tools and prompt the MCP conformance suite calls (see [`fixtures`]); they
//! are off by default so the lab stays clean.

pub mod fixtures;
pub mod signin;

use serde_json::{Value, json};

use frontdesk::Form;
use frontdesk::FormEnum;
use frontdesk::form::FormSchema;
use frontdesk::form::{Date, Email};
use frontdesk::http::HttpListener;
use frontdesk::server::{
    Answer, Question, Server, ServerBuilder, ToolContext, ToolDef, ToolError, ToolOutput,
};

/// What to build.
#[derive(Debug, Clone, Default)]
pub struct DemoOptions {
    /// Also serve the conformance fixtures.
    pub conformance_fixtures: bool,
}

/// Why a return is made: the options of the form's `reason` field
/// (wire values `damaged`, `wrong_item`, `not_needed`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, FormEnum)]
#[form(rename_all = "snake_case")]
pub enum ReturnReason {
    /// It arrived damaged.
    #[form(title = "It arrived damaged")]
    Damaged,
    /// It is not what was ordered.
    #[form(title = "Wrong item")]
    WrongItem,
    /// No longer needed.
    #[form(title = "No longer needed")]
    NotNeeded,
}

/// The return form of `book_return`.
///
/// Field doc comments are the descriptions the person sees under each field.
#[derive(Debug, Clone, PartialEq, Form)]
pub struct ReturnForm {
    /// Why you are sending it back.
    #[form(title = "Reason")]
    pub reason: ReturnReason,
    /// How many boxes the courier collects.
    #[form(title = "Number of boxes", min = 1, max = 3, default = 1)]
    pub boxes: i64,
    /// The day the courier comes.
    #[form(title = "Pickup date")]
    pub pickup_date: Date,
    /// Where we send the return label.
    #[form(title = "Contact email")]
    pub contact_email: Email,
    /// Anything the courier should know.
    #[form(title = "Notes", max_length = 500)]
    pub notes: Option<String>,
}

impl ReturnForm {
    /// What was booked, as the tool's `structuredContent`.
    pub fn booked(&self, order_id: &str) -> Value {
        json!({
            "orderId": order_id,
            "reason": self.reason.value(),
            "boxes": self.boxes,
            "pickupDate": self.pickup_date.as_str(),
            "contactEmail": self.contact_email.as_str(),
            "notes": self.notes,
            "status": "booked",
        })
    }

    /// What was booked, in a sentence.
    pub fn summary(&self, order_id: &str) -> String {
        let reason = self.reason.title().unwrap_or(self.reason.value());
        let mut text = format!(
            "Return booked for order {order_id}: {} box(es) collected on {} ({reason}); \
             the label goes to {}.",
            self.boxes, self.pickup_date, self.contact_email
        );
        if let Some(notes) = &self.notes {
            text.push_str(&format!(" Notes: {notes}"));
        }
        text
    }
}

/// Arguments of `book_return`.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
pub struct BookReturnArgs {
    /// The order to return items from.
    pub order_id: String,
}

/// `book_return`: ask for the return details, then confirm.
pub async fn book_return(cx: ToolContext, args: BookReturnArgs) -> Result<ToolOutput, ToolError> {
    let question = Question::form::<ReturnForm>(format!(
        "Tell us about the return of order {}",
        args.order_id
    ));
    let form = match cx.ask(question.key("return")).await? {
        Answer::Accepted(form) => form,
        Answer::Declined => {
            return Ok(ToolOutput::text(
                "No return was booked: the person declined.",
            ));
        }
        Answer::Cancelled => {
            return Ok(ToolOutput::text(
                "No return was booked: the question was dismissed.",
            ));
        }
    };
    let confirm = FormSchema::builder()
        .boolean("confirm", |f| {
            f.title("Book this pickup").default(true).required()
        })
        .build()
        .map_err(|e| ToolError::execution(e.to_string()))?;
    let message = format!(
        "Book a pickup of {} box(es) on {} for order {}?",
        form.boxes, form.pickup_date, args.order_id
    );
    match cx
        .ask(Question::schema(message, confirm).key("confirm"))
        .await?
    {
        Answer::Accepted(c) if c.get("confirm") == Some(&Value::Bool(true)) => {
            Ok(ToolOutput::text(form.summary(&args.order_id))
                .with_structured(form.booked(&args.order_id)))
        }
        _ => Ok(ToolOutput::text("No return was booked: not confirmed.")),
    }
}

/// The brightgrid tools on `builder`; sign-in links point at `signin_base`
/// (e.g. `http://127.0.0.1:4321`).
pub fn register(builder: ServerBuilder, signin_base: &str, options: &DemoOptions) -> ServerBuilder {
    let base = signin_base.trim_end_matches('/').to_string();
    let mut builder = builder
        .instructions("Brightgrid store assistant: book returns and connect your store account.")
        .tool(ToolDef::new(
            "book_return",
            "Book the return of an order; asks the person for details",
            book_return,
        ))
        .tool(ToolDef::new(
            "connect_store_account",
            "Connect the person's Brightgrid store account (sign-in happens in the browser)",
            move |cx: ToolContext, _: frontdesk::server::NoArgs| {
                let base = base.clone();
                async move {
                    let question = Question::url(
                        "Sign in to your Brightgrid store account to connect it.",
                        move |t| format!("{base}/signin?token={}", t.connect_token),
                    );
                    let answer = cx.ask(question.key("signin")).await?;
                    Ok(match answer {
                        Answer::Accepted(()) => {
                            ToolOutput::text("Your store account is connected.")
                        }
                        Answer::Declined => {
                            ToolOutput::text("The account was not connected: the person declined.")
                        }
                        Answer::Cancelled => ToolOutput::text("The account was not connected."),
                    })
                }
            },
        ));
    if options.conformance_fixtures {
        builder = fixtures::register(builder);
    }
    builder
}

/// Build brightgrid and start its sign-in page ([`signin::router`]) on its
/// own loopback listener (an ephemeral port of 127.0.0.1). The page lives as
/// long as the tokio runtime. For Streamable HTTP, mount the page next to the
/// endpoint instead (see [`serve_http`]).
pub async fn brightgrid(options: &DemoOptions) -> std::io::Result<Server> {
    // The library's listener: the HTTP server's bounds (connections, header
    // and body times and sizes, `Host`) on the page too.
    let listener = frontdesk::http::bind(
        ([127, 0, 0, 1], 0).into(),
        frontdesk::http::HttpOptions::new(),
    )
    .await?;
    let base = listener.base_url();
    let server = register(
        Server::builder("brightgrid", env!("CARGO_PKG_VERSION")),
        &base,
        options,
    )
    .build();
    let page = signin::SignIn::new(server.clone())
        .served_at(&base)
        .router();
    tokio::spawn(async move {
        let serving = listener
            .routes(page)
            .serve_routes_with_shutdown(std::future::pending());
        if let Err(e) = serving.await {
            tracing::error!(error = %e, "brightgrid sign-in page stopped");
        }
    });
    tracing::info!(%base, "brightgrid sign-in page listening");
    Ok(server)
}

/// Serve brightgrid over Streamable HTTP on `listener`, its sign-in page on
/// the same listener (links point at [`HttpListener::base_url`]), until the
/// process is told to stop (Ctrl-C or SIGTERM).
pub async fn serve_http(listener: HttpListener, options: &DemoOptions) -> std::io::Result<()> {
    let base = listener.base_url();
    let server = register(
        Server::builder("brightgrid", env!("CARGO_PKG_VERSION")),
        &base,
        options,
    )
    .build();
    let page = signin::SignIn::new(server.clone())
        .served_at(&base)
        .router();
    listener.routes(page).serve(server).await
}
