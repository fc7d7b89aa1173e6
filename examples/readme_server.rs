//! The README's server: one tool, `book_return`, that asks the person a typed form
//! and reads the answer typed. The same handler serves both protocol revisions: a
//! 2025-11-25 client gets `elicitation/create` while the call is open, a 2026-07-28
//! client an `input_required` result and a retry.
//!
//! It speaks MCP on stdin and stdout. Build it, then host it with the `frontdesk`
//! command of this repository:
//!
//! ```sh
//! cargo build -p frontdesk-examples --example readme_server
//! cargo run -- connect -- target/debug/examples/readme_server
//! ```
//!
//! Pick `book_return`, give an order id, and fill in the form (try 4 boxes, or an
//! address without `@`: the form says why before anything is sent). To see the
//! messages of each revision:
//!
//! ```sh
//! cargo run -- call target/debug/examples/readme_server book_return \
//!     --args '{"order_id":"A-1001"}' --protocol 2025-11-25 --show-wire
//! ```

use frontdesk::form::Email;
use frontdesk::server::{Answer, Question, Server, ToolContext, ToolDef, ToolError, ToolOutput};
use frontdesk::{Form, FormEnum};

#[derive(FormEnum)]
#[form(rename_all = "snake_case")]
enum Reason {
    #[form(title = "It arrived damaged")]
    Damaged,
    #[form(title = "Wrong item")]
    WrongItem,
}

#[derive(Form)]
struct ReturnForm {
    #[form(title = "Reason")]
    reason: Reason,
    #[form(title = "Number of boxes", min = 1, max = 3, default = 1)]
    boxes: i64,
    #[form(title = "Contact email")]
    contact_email: Email,
}

/// The tool's arguments: serde and schemars come re-exported from frontdesk.
#[derive(frontdesk::serde::Deserialize, frontdesk::schemars::JsonSchema)]
#[serde(crate = "frontdesk::serde")]
#[schemars(crate = "frontdesk::schemars")]
struct Args {
    /// The order to return items from.
    order_id: String,
}

async fn book_return(cx: ToolContext, args: Args) -> Result<ToolOutput, ToolError> {
    let question =
        Question::form::<ReturnForm>(format!("Tell us about the return of {}", args.order_id));
    Ok(match cx.ask(question).await? {
        // Typed, and re-validated against the schema on the server.
        Answer::Accepted(form) => {
            let reason = match form.reason {
                Reason::Damaged => "damaged",
                Reason::WrongItem => "wrong item",
            };
            ToolOutput::text(format!(
                "{} box(es) booked ({reason}); the label goes to {}",
                form.boxes, form.contact_email
            ))
        }
        Answer::Declined => ToolOutput::text("No return was booked."),
        Answer::Cancelled => ToolOutput::text("Cancelled."),
    })
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let server = Server::builder("brightgrid", "1.0.0")
        .tool(ToolDef::new("book_return", "Book a return", book_return))
        .build();
    frontdesk::server::stdio::serve_stdio(server).await
}
