//! Two tool calls in parallel, both asking: the terminal host shows one question at a
//! time, the first says one more is waiting, each answer reaches the call that asked,
//! and each form is titled with its own tool call (2026-07-28; on 2025-11-25 stdio the
//! title names a call only when it is certain) — client runtime ⇄ in-process server.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use frontdesk::client::{Client, ClientConfig, ProtocolChoice};

use frontdesk::form::FormSchema;
use frontdesk::server::{Answer, NoArgs, Question, Server, ToolContext, ToolDef, ToolOutput};
use frontdesk::wire::Revision;
use frontdesk_host::TerminalHandler;
use frontdesk_host::consent::NoBrowser;
use frontdesk_host::screen::{Interrupted, LineQuestion, ListQuestion, MenuKey, Prompted, Screen};
use serde_json::json;
use tokio_util::sync::CancellationToken;

/// A screen that answers the name question with the tool its message named,
/// accepts the review, and files its transcript in `log` when it is closed.
struct Recording {
    shown: Vec<String>,
    log: Arc<Mutex<Vec<String>>>,
}

impl Recording {
    /// The tool named in the server's message (`ask_a asks: …`), as shown.
    fn asker(&self) -> String {
        self.shown
            .iter()
            .find_map(|l| l.strip_prefix("  │ "))
            .and_then(|m| m.split_whitespace().next())
            .unwrap_or("")
            .to_owned()
    }
}

impl Screen for Recording {
    fn show(&mut self, text: &str) {
        self.shown.push(text.to_owned());
    }

    fn line(&mut self, question: &LineQuestion) -> Prompted<String> {
        self.shown.push(format!("? {}", question.label));
        // Slow enough that the other request really waits behind this one.
        std::thread::sleep(Duration::from_millis(100));
        Ok(format!("answer for {}", self.asker()))
    }

    fn choose_one(&mut self, _: &ListQuestion) -> Prompted<usize> {
        Err(Interrupted::Cancel)
    }

    fn choose_many(&mut self, _: &ListQuestion) -> Prompted<Vec<usize>> {
        Err(Interrupted::Cancel)
    }

    fn key(&mut self, prompt: &str, keys: &[MenuKey]) -> Prompted<char> {
        self.shown.push(prompt.to_owned());
        if keys.iter().any(|(k, _)| *k == 'a') {
            Ok('a')
        } else {
            Err(Interrupted::Cancel)
        }
    }
}

impl Drop for Recording {
    fn drop(&mut self) {
        if let Ok(mut log) = self.log.lock() {
            log.push(self.shown.join("\n"));
        }
    }
}

fn asking_tool(name: &'static str) -> ToolDef {
    let schema = FormSchema::builder()
        .string("name", |f| f.title("Name").required())
        .build()
        .expect("a valid form");
    ToolDef::new(
        name,
        "Asks for a name",
        move |cx: ToolContext, _: NoArgs| {
            let schema = schema.clone();
            async move {
                Ok(
                    match cx
                        .ask(Question::schema(
                            format!("{name} asks: who is there?"),
                            schema,
                        ))
                        .await?
                    {
                        Answer::Accepted(content) => {
                            ToolOutput::text(format!("{name} got {}", content["name"]))
                        }
                        _ => ToolOutput::text(format!("{name} got no answer")),
                    },
                )
            }
        },
    )
}

async fn two_parallel_calls(protocol: ProtocolChoice) {
    let server = Server::builder("queue-test", "1.0")
        .tool(asking_tool("ask_a"))
        .tool(asking_tool("ask_b"))
        .build();
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    let (server_read, server_write) = tokio::io::split(server_end);
    tokio::spawn(frontdesk::server::stdio::serve(
        server,
        server_read,
        server_write,
    ));

    let log = Arc::new(Mutex::new(Vec::new()));
    let screens = log.clone();
    let handler = TerminalHandler::new()
        .with_opener(Arc::new(NoBrowser))
        .with_screen(Arc::new(move || {
            Box::new(Recording {
                shown: Vec::new(),
                log: screens.clone(),
            })
        }));
    let queue = handler.queue().clone();
    // Hold the screen so that both questions are queued before either is shown.
    let hold = queue
        .enter(&CancellationToken::new())
        .await
        .expect("a turn");

    let (read, write) = tokio::io::split(client_end);
    let config = ClientConfig::default().protocol(protocol);
    let client = Client::connect_io(read, write, config, Arc::new(handler))
        .await
        .unwrap();
    let a = tokio::spawn({
        let client = client.clone();
        async move { client.call_tool("ask_a", json!({})).await }
    });
    let b = tokio::spawn({
        let client = client.clone();
        async move { client.call_tool("ask_b", json!({})).await }
    });
    let started = Instant::now();
    while queue.pending() < 3 {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{protocol:?}: the questions never queued ({} pending)",
            queue.pending()
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    drop(hold);

    let text = |r: frontdesk::wire::CallToolResult| {
        r.content
            .iter()
            .filter_map(|c| c.as_text())
            .collect::<Vec<_>>()
            .join("")
    };
    let a = text(a.await.unwrap().unwrap());
    let b = text(b.await.unwrap().unwrap());
    assert_eq!(a, "ask_a got \"answer for ask_a\"", "{protocol:?}");
    assert_eq!(b, "ask_b got \"answer for ask_b\"", "{protocol:?}");

    let screens = log.lock().unwrap().clone();
    assert_eq!(screens.len(), 2, "{protocol:?}: {screens:?}");
    let (first, second) = (&screens[0], &screens[1]);
    assert!(first.contains("(1 more waiting)"), "{protocol:?}:\n{first}");
    assert!(!second.contains("more waiting"), "{protocol:?}:\n{second}");
    for screen in &screens {
        let asker = if screen.contains("ask_a asks") {
            "ask_a"
        } else {
            "ask_b"
        };
        let titles: Vec<&str> = screen.lines().filter(|l| l.starts_with("── ")).collect();
        assert_eq!(titles.len(), 1, "one title per screen:\n{screen}");
        let own = format!("── queue-test 1.0 — tools/call {asker} ──");
        if protocol == ProtocolChoice::Only(Revision::V2026_07_28) {
            // Every 2026-07-28 question comes inside the result of its own call.
            assert_eq!(titles[0], own, "{protocol:?}:\n{screen}");
        } else {
            // A 2025-11-25 `elicitation/create` on stdio does not say which call it
            // belongs to: with two in flight the title names the call only when it
            // is certain (never the other one).
            assert!(
                titles[0] == own || titles[0] == "── queue-test 1.0 ──",
                "{protocol:?}:\n{screen}"
            );
        }
    }
    assert_eq!(queue.pending(), 0);
    client.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn parallel_questions_queue_and_each_shows_its_own_call_legacy() {
    two_parallel_calls(ProtocolChoice::Only(Revision::V2025_11_25)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn parallel_questions_queue_and_each_shows_its_own_call_modern() {
    two_parallel_calls(ProtocolChoice::Only(Revision::V2026_07_28)).await;
}
