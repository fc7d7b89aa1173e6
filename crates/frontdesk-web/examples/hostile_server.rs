//! A hostile MCP server over stdio, for the browser host's tests: every text it
//! controls (its name and version, tool descriptions, the message, field titles,
//! descriptions, option titles, a default, the URL, the result) carries HTML and
//! script. A host that shows any of it as markup, or runs any of it, fails.
//!
//! Its third tool, `every_field`, is plain: one form with every kind of field of
//! the subset, whose answer it echoes, so a test sees each control and what the
//! server received.
//!
//! ```sh
//! cargo run -p frontdesk-web --example hostile_server   # speaks MCP on stdin/stdout
//! frontdesk connect --web -- target/debug/examples/hostile_server
//! ```

use frontdesk::server::{
    Answer, NoArgs, Question, Server, ToolContext, ToolDef, ToolError, ToolOutput,
};

use frontdesk::form::FormSchema;

/// Markup that would run (or show) if inserted as HTML.
const SCRIPT: &str =
    "<img src=x onerror=\"window.__pwned='img'\"><script>window.__pwned='script'</script>";

fn hostile_form() -> Result<FormSchema, ToolError> {
    FormSchema::builder()
        .string("name", |f| {
            f.title("Name <b>bold</b><script>window.__pwned='title'</script>")
                .description("<i>Described</i> <img src=x onerror=\"window.__pwned='desc'\">")
                .default("\"><script>window.__pwned='default'</script>")
                .required()
        })
        .string("api_key", |f| f.title("API key"))
        .select("colour", |f| {
            f.title("Colour")
                .option("red", "<b onmouseover=\"window.__pwned='option'\">Red</b>")
                .option(
                    "blue",
                    "Blue</option><script>window.__pwned='opt2'</script>",
                )
        })
        .build()
        .map_err(|e| ToolError::execution(e.to_string()))
}

async fn ask_form(cx: ToolContext, _: NoArgs) -> Result<ToolOutput, ToolError> {
    let form = hostile_form()?;
    let message = format!("Please fill this in {SCRIPT}\nSecond line </p><h1>not a heading</h1>");
    Ok(match cx.ask(Question::schema(message, form)).await? {
        // Echoes the name only: whatever was typed as the API key must appear nowhere
        // on the host's page (its wire timeline masks it).
        Answer::Accepted(content) => ToolOutput::text(format!(
            "Got {} {SCRIPT}",
            content.get("name").cloned().unwrap_or_default()
        )),
        Answer::Declined => ToolOutput::text(format!("Declined {SCRIPT}")),
        Answer::Cancelled => ToolOutput::text(format!("Cancelled {SCRIPT}")),
    })
}

async fn ask_link(cx: ToolContext, _: NoArgs) -> Result<ToolOutput, ToolError> {
    let answer = cx
        .ask(Question::url(format!("Open this {SCRIPT}"), |_| {
            "javascript:window.__pwned='link'//https://login.example.com/".to_owned()
        }))
        .await?;
    Ok(ToolOutput::text(match answer {
        Answer::Accepted(()) => "accepted",
        Answer::Declined => "declined",
        Answer::Cancelled => "cancelled",
    }))
}

fn every_kind() -> Result<FormSchema, ToolError> {
    FormSchema::builder()
        .string("name", |f| {
            f.title("Name").min_length(2).max_length(40).required()
        })
        .string("email", |f| f.title("Email").email().required())
        .string("site", |f| f.title("Website").uri())
        .string("birthday", |f| f.title("Birthday").date())
        .string("meeting", |f| f.title("Meeting").date_time())
        .integer("seats", |f| f.title("Seats").range(1, 4).default(2))
        .number("budget", |f| f.title("Budget").minimum(0.5).maximum(99.5))
        .boolean("newsletter", |f| f.title("Newsletter").default(false))
        .boolean("call_me", |f| f.title("Call me"))
        .select("plan", |f| {
            f.title("Plan")
                .option("basic", "Basic plan")
                .option("pro", "Pro plan")
                .required()
        })
        .multi_select("toppings", |f| {
            f.title("Toppings")
                .option("ham", "Ham")
                .option("olives", "Olives")
                .option("basil", "Basil")
                .min_items(1)
                .max_items(2)
        })
        .build()
        .map_err(|e| ToolError::execution(e.to_string()))
}

async fn every_field(cx: ToolContext, _: NoArgs) -> Result<ToolOutput, ToolError> {
    let form = every_kind()?;
    Ok(
        match cx
            .ask(Question::schema("Every kind of field", form))
            .await?
        {
            Answer::Accepted(content) => {
                ToolOutput::text(format!("received {}", serde_json::Value::Object(content)))
            }
            Answer::Declined => ToolOutput::text("received decline"),
            Answer::Cancelled => ToolOutput::text("received cancel"),
        },
    )
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::io::Result<()> {
    let server = Server::builder(
        "evil<script>window.__pwned='server'</script>",
        "<img src=x onerror=\"window.__pwned='version'\">",
    )
    .tool(ToolDef::new(
        "ask_form",
        format!("Asks a form {SCRIPT}"),
        ask_form,
    ))
    .tool(ToolDef::new(
        "ask_link",
        format!("Asks to open a link {SCRIPT}"),
        ask_link,
    ))
    .tool(ToolDef::new(
        "every_field",
        "Asks a form with every kind of field",
        every_field,
    ))
    .build();
    frontdesk::server::stdio::serve_stdio(server).await
}
