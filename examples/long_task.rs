//! A long-running tool as a task (the Tasks extension of 2026-07-28): the call
//! returns a task at once, the client polls `tasks/get`, and the work goes on in
//! the background, reporting progress. A question asked from inside the task
//! reaches the client as the task's `inputRequests` and its answer comes back with
//! `tasks/update`. With a client that did not declare the extension, and on
//! 2025-11-25, the same handler runs within the call.
//!
//! ```sh
//! cargo build -p frontdesk-examples --example long_task
//! cargo run -- call target/debug/examples/long_task export_orders \
//!     --args '{"year": 2025}' --protocol 2026-07-28 --show-wire
//! ```
//!
//! The wire shows the `CreateTaskResult`, the `tasks/get` polls while the export
//! runs, then the question ("Publish the export?") and the `tasks/update` that
//! answers it, then the result. `cargo run -- connect -- target/debug/examples/long_task`
//! does the same in the terminal form.

use std::time::Duration;

use frontdesk::Form;
use frontdesk::server::tool::TaskSupport;
use frontdesk::server::{Answer, Question, Server, ToolContext, ToolDef, ToolError, ToolOutput};

#[derive(Form)]
struct Publish {
    /// Make the file visible to the whole team.
    #[form(title = "Publish it now", default = true)]
    publish: bool,
}

/// The tool's arguments.
#[derive(frontdesk::serde::Deserialize, frontdesk::schemars::JsonSchema)]
#[serde(crate = "frontdesk::serde")]
#[schemars(crate = "frontdesk::schemars")]
struct ExportArgs {
    /// Which year's orders to export.
    year: u16,
}

async fn export_orders(cx: ToolContext, args: ExportArgs) -> Result<ToolOutput, ToolError> {
    // From here on the handler runs as a task (when the client takes tasks).
    cx.continue_as_task().await;
    for month in 1..=4 {
        // Minutes of work in a real server.
        tokio::time::sleep(Duration::from_millis(500)).await;
        cx.report_progress(f64::from(month), Some(4.0), Some("exporting"));
    }
    let file = format!("orders-{}.csv", args.year);
    let question = Question::form::<Publish>(format!("{file} is ready. Publish the export?"));
    Ok(match cx.ask(question.key("publish")).await? {
        Answer::Accepted(Publish { publish: true }) => {
            ToolOutput::text(format!("Exported and published {file}."))
        }
        Answer::Accepted(_) | Answer::Declined => {
            ToolOutput::text(format!("Exported {file}; not published."))
        }
        Answer::Cancelled => ToolOutput::text(format!("Exported {file}; nothing more done.")),
    })
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let server = Server::builder("exports", "1.0.0")
        .tool(
            ToolDef::new("export_orders", "Export a year of orders", export_orders)
                .task_support(TaskSupport::Optional),
        )
        .build();
    frontdesk::server::stdio::serve_stdio(server).await
}
