//! The switchable checks and the audit file: a server asking a thousand
//! questions as fast as it can gets its first minute's burst through and the
//! rest refused (each refusal a line of the audit file, no answer content in
//! it); with the limit switched off every question reaches the person.
#![allow(unreachable_pub, missing_docs)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::Arc;
use std::time::Instant;

use frontdesk::BoxFuture;
use frontdesk::client::{
    ClientConfig, Elicitation, ElicitationHandler, ElicitationResponse, HandlerModes,
};
use frontdesk::form::FormSchema;
use frontdesk::server::question::InputRequest;
use frontdesk::server::{Server, ToolDef, ToolOutput};
use frontdesk::wire::Revision;
use frontdesk_gateway::{AuditLog, Gateway, GatewayOptions};
use serde_json::{Map, Value, json};
use support::client_of;

/// A server whose one tool asks `n` yes/no questions in a row and says how
/// many were answered and how many were refused.
fn flooding(n: usize) -> Server {
    Server::builder("flood", "1.0.0")
        .tool(ToolDef::raw(
            "flood",
            "Asks and asks",
            json!({}),
            move |cx, _| async move {
                let schema = FormSchema::parse(&json!({"type": "object", "properties": {
                    "ok": {"type": "boolean"}}}))
                .unwrap()
                .schema;
                let (mut answered, mut refused) = (0, 0);
                for i in 0..n {
                    let asked = cx
                        .ask_all(vec![(
                            format!("q{i}"),
                            InputRequest::form("Still there?", schema.clone()),
                        )])
                        .await;
                    match asked {
                        Ok(_) => answered += 1,
                        Err(_) => refused += 1,
                    }
                }
                Ok(ToolOutput::text(format!("{answered} {refused}")))
            },
        ))
        .build()
}

/// A person who says yes at once, counting the questions they saw.
#[derive(Default)]
struct Yes(std::sync::atomic::AtomicUsize);

impl ElicitationHandler for Yes {
    fn modes(&self) -> HandlerModes {
        HandlerModes {
            form: true,
            url: false,
        }
    }

    fn elicit(&self, _request: Elicitation) -> BoxFuture<'_, ElicitationResponse> {
        self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let mut content = Map::new();
        content.insert("ok".into(), Value::Bool(true));
        Box::pin(async move { ElicitationResponse::Accept(content) })
    }
}

/// Run `flood` of `n` questions through a gateway with `options`: the
/// tool's "answered refused" text, what the person saw, the seconds taken.
async fn flood(options: GatewayOptions, n: usize) -> (usize, usize, usize, u64) {
    let gateway = Gateway::new(options);
    let up = client_of(
        flooding(n),
        gateway.upstream_config(ClientConfig::default().protocol(Revision::V2025_11_25)),
        gateway.upstream_handler(),
    )
    .await;
    let server = gateway.attach(up).await.unwrap().build();
    let person = Arc::new(Yes::default());
    // The person's own client would answer `cancel` past 20 a minute.
    let mut config = ClientConfig::default().protocol(Revision::V2025_11_25);
    config.rate_limit_per_minute = u32::MAX;
    let down = client_of(
        server,
        config,
        Arc::clone(&person) as Arc<dyn ElicitationHandler>,
    )
    .await;
    let started = Instant::now();
    let result = down.call_tool("flood", json!({})).await.unwrap();
    let secs = started.elapsed().as_secs();
    let text = result.content[0].as_text().unwrap().to_string();
    let (answered, refused) = text.split_once(' ').unwrap();
    (
        answered.parse().unwrap(),
        refused.parse().unwrap(),
        person.0.load(std::sync::atomic::Ordering::SeqCst),
        secs,
    )
}

#[tokio::test]
async fn a_thousand_questions_a_second_get_a_minutes_burst_and_the_rest_refused() {
    let dir = std::env::temp_dir().join(format!("fd-gw-audit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("audit.jsonl");
    let _ = std::fs::remove_file(&path);
    let mut options = GatewayOptions::default();
    options.audit = Some(Arc::new(AuditLog::append_to(&path).unwrap()));
    let (answered, refused, seen, secs) = flood(options, 1000).await;
    // 60 at once, then one a second while the flood lasts.
    let most = 60 + usize::try_from(secs).unwrap() + 1;
    assert!(
        (60..=most).contains(&answered),
        "{answered} answered in {secs} s"
    );
    assert_eq!(answered + refused, 1000);
    assert_eq!(seen, answered, "the person saw only what was let through");

    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 1000, "one line per question");
    let accepted: Vec<&Value> = lines.iter().filter(|l| l["outcome"] == "accept").collect();
    assert_eq!(accepted.len(), answered);
    let first = accepted[0];
    assert_eq!(first["server"], "flood");
    assert_eq!(first["tool"], "flood");
    assert_eq!(first["mode"], "form");
    assert_eq!(first["message"], "Still there?");
    assert!(
        first["took_ms"].is_u64() && first["at"].is_string(),
        "{first}"
    );
    assert!(first.get("content").is_none(), "no answer content: {first}");
    let refusal = lines.iter().find(|l| l["outcome"] == "refused").unwrap();
    assert_eq!(refusal["tool"], "flood");
    let reason = refusal["reason"].as_str().unwrap();
    assert!(
        reason.starts_with("the server asked too many questions: at most 60 a minute"),
        "{reason}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[tokio::test]
async fn with_the_limit_off_every_question_reaches_the_person() {
    let mut options = GatewayOptions::default();
    options.checks.questions_per_minute = 0;
    let (answered, refused, seen, _) = flood(options, 200).await;
    assert_eq!((answered, refused, seen), (200, 0, 200));
}

#[tokio::test]
async fn the_audit_file_has_the_content_only_when_asked() {
    let dir = std::env::temp_dir().join(format!("fd-gw-answers-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("audit.jsonl");
    let _ = std::fs::remove_file(&path);
    let mut options = GatewayOptions::default();
    options.audit = Some(Arc::new(
        AuditLog::append_to(&path).unwrap().with_answers(true),
    ));
    let (answered, ..) = flood(options, 2).await;
    assert_eq!(answered, 2);
    let text = std::fs::read_to_string(&path).unwrap();
    let first: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(first["content"], json!({"ok": true}), "{first}");
    std::fs::remove_dir_all(&dir).ok();
}
