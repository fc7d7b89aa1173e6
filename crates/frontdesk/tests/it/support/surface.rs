//! The fixture server plus what the surface tests need beyond the suite's
//! fixtures: a resource whose read asks a question, a roots tool, and a
//! task that panics.

use frontdesk::server::resource::{ResourceDef, ResourceOutput};
use frontdesk::server::tool::TaskSupport;
use frontdesk::server::{
    Answer, NoArgs, Question, Server, ServerBuilder, ToolContext, ToolDef, ToolError, ToolOutput,
};

use frontdesk::form::FormSchema;

/// A read of `memo://region-report` asks which region, under key `region`.
pub const ASKING_RESOURCE: &str = "memo://region-report";

fn region_form() -> FormSchema {
    FormSchema::builder()
        .string("region", |f| f.title("Region").required())
        .build()
        .unwrap()
}

/// The extra pieces on `builder`.
pub fn extend(builder: ServerBuilder) -> ServerBuilder {
    builder
        .resource(
            ResourceDef::new(ASKING_RESOURCE, "region-report", |cx, _req| async move {
                let question = Question::schema("Which region?", region_form()).key("region");
                Ok(match cx.ask(question).await? {
                    Answer::Accepted(c) => ResourceOutput::text(format!(
                        "Sales report for {}",
                        c["region"].as_str().unwrap_or_default()
                    )),
                    _ => ResourceOutput::text("No region chosen."),
                }
                .mime_type("text/plain"))
            })
            .description("Asks for a region, then reports on it"),
        )
        .tool(ToolDef::new(
            "test_roots",
            "Lists the client's roots",
            |cx: ToolContext, _: NoArgs| async move {
                let roots = cx.roots().await?;
                let uris: Vec<&str> = roots.iter().map(|r| r.uri.as_str()).collect();
                Ok::<_, ToolError>(ToolOutput::text(format!("Roots: {}", uris.join(", "))))
            },
        ))
        .tool(
            ToolDef::new(
                "panicking_job",
                "A task whose handler panics",
                |cx: ToolContext, _: NoArgs| async move {
                    cx.continue_as_task().await;
                    panic!("the worker fell over");
                    #[allow(unreachable_code)]
                    Ok::<_, ToolError>(ToolOutput::text("never"))
                },
            )
            .task_support(TaskSupport::Optional),
        )
}

/// The fixtures and the extra pieces, sign-in links pointing nowhere.
pub fn server() -> Server {
    extend(super::stdio::builder()).build()
}

/// The same server, its sign-in links pointing at `base` (for HTTP tests).
pub fn server_at(base: &str) -> Server {
    extend(frontdesk_demo::register(
        Server::builder("brightgrid-test", "0.0.1"),
        base,
        &frontdesk_demo::DemoOptions {
            conformance_fixtures: true,
        },
    ))
    .build()
}
