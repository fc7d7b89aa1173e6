//! frontdesk's examples, each a small program to run and copy.
//!
//! A server author's:
//!
//! | Example | What it shows |
//! | --- | --- |
//! | `readme_server` | the README's server: a tool that asks a typed form, on stdio |
//! | `server_features` | every row of the README's "What a server offers" table, one section each (below) |
//! | `url_sign_in` | URL mode: a tool sends the person to a sign-in page the server serves next to its Streamable HTTP endpoint; the page completes the flow |
//! | `long_task` | a long-running tool that continues as a task (2026-07-28 Tasks extension), reports progress and asks a question from inside the task |
//! | `jwt_server` | a Streamable HTTP server behind OAuth 2.1 bearer JWTs, with its protected-resource metadata |
//!
//! A host builder's, one per host:
//!
//! | Example | What it shows |
//! | --- | --- |
//! | `terminal_host` | the terminal form and URL consent of `frontdesk-host` (`TerminalHandler`) answering a stdio server's questions during one call |
//! | `web_host` | the browser host of `frontdesk-web` (`WebHost`): the protected local page for a stdio server |
//! | `scripted_host` | no person: answers from a script (`ScriptedHandler`, validated like typed ones) and `HeadlessHandler` (cancel, with a reason), against a server in the same process |
//!
//! `server_features`, row by row of the README's table:
//!
//! | Row | Where |
//! | --- | --- |
//! | tools | `greet` (`ToolDef::new`, typed arguments), `sum_tool` (`ToolDef::raw`) |
//! | prompts | `describe_prompt` (`PromptDef::new(…).argument(…)`) |
//! | resources | `catalog` (`ResourceDef`), `product_template` (`ResourceTemplateDef`, `{id}`) |
//! | completion | `describe_prompt` (`PromptDef::completion`), `product_template` (`ResourceTemplateDef::completion`), both with `completions_matching` |
//! | content | `gallery` (text, image, audio, resource link, embedded resource), `describe_prompt` (`PromptOutput::message`) |
//! | logging | `import` (`cx.log`, `cx.log_as`) |
//! | progress | `import` (`cx.progress`, `cx.report_progress`) |
//! | the client's model and roots | `describe_workspace` (`cx.roots`, `cx.sample`) |
//! | changes | `import` (`cx.notify_resource_updated`, `cx.notify_tools_changed`), `shop` (`list_changed_notifications`) |
//! | header parameters | `deploy` (`ToolDef::header_param("region", "Region")`) |
//! | caching | `catalog` (`ResourceOutput::cache`), `shop` (`ServerConfig::list_ttl_ms`) |
//! | tasks | `rebuild_index` (`ToolDef::task_support`, `cx.continue_as_task()`); `long_task` asks from inside a task |
//!
//! Run one with `cargo run -p frontdesk-examples --example NAME`; each file's first
//! lines say what to try with it. They use only frontdesk's public API, and
//! `cargo test --workspace` compiles them.
