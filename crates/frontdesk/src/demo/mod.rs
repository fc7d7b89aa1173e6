//! The "brightgrid" demo server: what `frontdesk serve` runs.
//!
//! - `book_return`: a typed form ([`ReturnForm`]), then a confirmation.
//! - `connect_store_account`: URL mode to a sign-in page the demo serves
//!   itself on loopback; submitting that page completes the flow.
//!
//! With [`DemoOptions::conformance_fixtures`] the server also offers the
//! tools and prompt the MCP conformance suite calls (see [`fixtures`]); they
//! are off by default so the lab stays clean.

pub mod fixtures;
mod signin;

use serde_json::{Map, Value, json};

use crate::server::{
    Answer, Form, FormError, FormSchema, Server, ServerBuilder, ToolContext, ToolDef, ToolError,
    ToolOutput,
};

/// What to build.
#[derive(Debug, Clone, Default)]
pub struct DemoOptions {
    /// Also serve the conformance fixtures.
    pub conformance_fixtures: bool,
}

/// Why a return is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReturnReason {
    /// It arrived damaged.
    Damaged,
    /// It is not what was ordered.
    WrongItem,
    /// No longer needed.
    NotNeeded,
}

impl ReturnReason {
    fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "damaged" => Self::Damaged,
            "wrong_item" => Self::WrongItem,
            "not_needed" => Self::NotNeeded,
            _ => return None,
        })
    }

    /// The wire value.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Damaged => "damaged",
            Self::WrongItem => "wrong_item",
            Self::NotNeeded => "not_needed",
        }
    }
}

/// The return form of `book_return` (a hand-written [`Form`] until
/// `#[derive(Form)]` lands).
#[derive(Debug, Clone, PartialEq)]
pub struct ReturnForm {
    /// Why.
    pub reason: ReturnReason,
    /// How many boxes (1–3).
    pub boxes: i64,
    /// Pickup date (`YYYY-MM-DD`).
    pub pickup_date: String,
}

impl Form for ReturnForm {
    fn schema() -> FormSchema {
        FormSchema::builder()
            .select("reason", |f| {
                f.title("Reason")
                    .option("damaged", "It arrived damaged")
                    .option("wrong_item", "Wrong item")
                    .option("not_needed", "No longer needed")
                    .required()
            })
            .integer("boxes", |f| {
                f.title("Number of boxes").range(1, 3).default(1)
            })
            .string("pickup_date", |f| f.title("Pickup date").date().required())
            .build()
            .expect("the return form is a fixed, valid schema")
    }

    fn from_content(content: Map<String, Value>) -> Result<Self, FormError> {
        let reason = content
            .get("reason")
            .and_then(Value::as_str)
            .and_then(ReturnReason::parse)
            .ok_or_else(|| FormError::message("Reason is required"))?;
        let boxes = content.get("boxes").and_then(Value::as_i64).unwrap_or(1);
        let pickup_date = content
            .get("pickup_date")
            .and_then(Value::as_str)
            .ok_or_else(|| FormError::message("Pickup date is required"))?
            .to_string();
        Ok(Self {
            reason,
            boxes,
            pickup_date,
        })
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
    let form = match cx
        .ask_form_with_key::<ReturnForm>(
            "return",
            &format!("Tell us about the return of order {}", args.order_id),
        )
        .await?
    {
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
    match cx.ask_with_key("confirm", &message, &confirm).await? {
        Answer::Accepted(c) if c.get("confirm") == Some(&Value::Bool(true)) => {
            Ok(ToolOutput::structured(json!({
                "orderId": args.order_id,
                "reason": form.reason.as_str(),
                "boxes": form.boxes,
                "pickupDate": form.pickup_date,
                "status": "booked",
            })))
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
            move |cx: ToolContext, _: crate::server::NoArgs| {
                let base = base.clone();
                async move {
                    let answer = cx
                        .ask_url_with_key(
                            "signin",
                            "Sign in to your Brightgrid store account to connect it.",
                            |t| format!("{base}/signin?token={}", t.connect_token),
                        )
                        .await?;
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

/// Build brightgrid and start its loopback sign-in page (on an ephemeral
/// port of 127.0.0.1). The page lives as long as the tokio runtime.
pub async fn brightgrid(options: &DemoOptions) -> std::io::Result<Server> {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0)).await?;
    let base = format!("http://{}", listener.local_addr()?);
    let server = register(
        Server::builder("brightgrid", env!("CARGO_PKG_VERSION")),
        &base,
        options,
    )
    .build();
    tokio::spawn(signin::serve(listener, server.clone()));
    tracing::info!(%base, "brightgrid sign-in page listening");
    Ok(server)
}
