//! A server's sampling request at the terminal: the whole prompt (system
//! prompt, every message, the limits) for the person to read, then their
//! choice. With a [`Model`] the approved prompt goes to it and its
//! completion is shown for approval before it is sent; without one (as in
//! `frontdesk connect`) the person can only send the refusal, which says why.
//! Never a made-up completion.
//!
//! And the roots a host exposes ([`roots_of`]): directories as `file://` URIs.

use std::path::Path;
use std::sync::Arc;

use frontdesk::client::{SamplingHandler, SamplingRequest, SamplingResponse};

use frontdesk::BoxFuture;

use frontdesk::wire::CreateMessageRequestParams;

use frontdesk::wire::CreateMessageResult;

use frontdesk::wire::Root;

use frontdesk::wire::SamplingContent;

use frontdesk::wire::SamplingMessage;
use frontdesk_wire::ContentBlock;

use crate::queue::Queue;
use crate::sanitize::{MAX_MESSAGE_CHARS, display_line, display_text, server_label};
use crate::screen::Screen;
use crate::terminal::ScreenFactory;
use crate::widgets::Header;

/// What tells a host without a model's server why it gets no completion.
pub const NO_MODEL: &str = "this client has no language model to sample with";

/// A language model a host can send approved prompts to.
pub trait Model: Send + Sync {
    /// Its name, shown to the person and sent as `model`.
    fn name(&self) -> String;
    /// Complete the approved prompt.
    fn complete<'a>(
        &'a self,
        params: &'a CreateMessageRequestParams,
    ) -> BoxFuture<'a, Result<CreateMessageResult, String>>;
}

/// The person's choice about a prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Review {
    /// Send it to the model.
    Approve,
    /// Refuse it.
    Reject,
}

/// One block of content as a person reads it.
fn block_text(block: &ContentBlock) -> String {
    match serde_json::to_value(block) {
        Ok(v) => match v.get("type").and_then(|t| t.as_str()) {
            Some("text") => v
                .get("text")
                .and_then(|t| t.as_str())
                .map(|t| display_text(t, MAX_MESSAGE_CHARS))
                .unwrap_or_default(),
            Some(kind) => {
                let mime = v.get("mimeType").and_then(|m| m.as_str()).unwrap_or("");
                let size = v
                    .get("data")
                    .and_then(|d| d.as_str())
                    .map_or(0, |d| d.len() * 3 / 4);
                display_line(&format!("[{kind} {mime}, about {size} bytes]"), 200)
            }
            None => "[content]".to_owned(),
        },
        Err(_) => "[content]".to_owned(),
    }
}

fn blocks(content: &SamplingContent) -> Vec<String> {
    match content {
        SamplingContent::Single(b) => vec![block_text(b)],
        SamplingContent::Multiple(bs) => bs.iter().map(block_text).collect(),
        _ => vec!["[content]".to_owned()],
    }
}

fn show_message(screen: &mut dyn Screen, message: &SamplingMessage) {
    let role = serde_json::to_value(message.role)
        .ok()
        .and_then(|r| r.as_str().map(str::to_owned))
        .unwrap_or_else(|| "?".into());
    screen.show(&format!("  {role}:"));
    for text in blocks(&message.content) {
        for line in text.lines() {
            screen.show(&format!("  │ {line}"));
        }
    }
}

/// Show the whole prompt and ask: approve (only with a model) or reject.
pub fn review_prompt(
    screen: &mut dyn Screen,
    header: &Header,
    params: &CreateMessageRequestParams,
    model: Option<&str>,
) -> Review {
    header.show(
        screen,
        "asks this client to run a prompt through a language model",
    );
    if let Some(system) = &params.system_prompt {
        screen.show("  system prompt:");
        for line in display_text(system, MAX_MESSAGE_CHARS).lines() {
            screen.show(&format!("  │ {line}"));
        }
    }
    for message in &params.messages {
        show_message(screen, message);
    }
    let mut limits = format!("  at most {} tokens", params.max_tokens);
    if let Some(t) = &params.temperature {
        limits.push_str(&format!(", temperature {t}"));
    }
    if let Some(c) = &params.include_context {
        limits.push_str(&format!(", context: {}", display_line(c, 40)));
    }
    if let Some(tools) = &params.tools {
        limits.push_str(&format!(", {} tool(s) offered", tools.len()));
    }
    screen.show(&limits);
    screen.show("");
    let Some(model) = model else {
        screen.show("frontdesk has no language model, so it cannot answer this prompt.");
        let _ = screen.key("", &[('r', "tell the server so")]);
        screen.show("Refused: the server was told this client has no model.");
        return Review::Reject;
    };
    screen.show(&format!(
        "Approving sends this prompt to {}; you see its answer before it is sent.",
        display_line(model, 60)
    ));
    match screen.key(
        "Your choice:",
        &[('a', "send it to the model"), ('r', "reject")],
    ) {
        Ok('a') => Review::Approve,
        _ => {
            screen.show("Rejected: the server was told no.");
            Review::Reject
        }
    }
}

/// Show the model's completion and ask whether to send it.
pub fn review_completion(screen: &mut dyn Screen, result: &CreateMessageResult) -> Review {
    screen.show(&format!("  {} answered:", display_line(&result.model, 80)));
    for text in blocks(&result.content) {
        for line in text.lines() {
            screen.show(&format!("  │ {line}"));
        }
    }
    match screen.key("Send this answer?", &[('s', "send it"), ('r', "reject")]) {
        Ok('s') => Review::Approve,
        _ => {
            screen.show("Rejected: the answer was not sent.");
            Review::Reject
        }
    }
}

/// A [`SamplingHandler`] that asks the person at this terminal, in turn with
/// the terminal's forms (see [`crate::TerminalHandler::sampling`]).
#[derive(Clone)]
pub struct TerminalSampling {
    pub(crate) queue: Arc<Queue>,
    pub(crate) screen: ScreenFactory,
    pub(crate) model: Option<Arc<dyn Model>>,
}

impl TerminalSampling {
    fn on_screen<T: Send + 'static>(
        &self,
        turn: crate::queue::Turn,
        f: impl FnOnce(&mut dyn Screen) -> T + Send + 'static,
    ) -> tokio::task::JoinHandle<T> {
        let factory = self.screen.clone();
        tokio::task::spawn_blocking(move || {
            let _turn = turn;
            let _quiet = crate::logs::hold();
            let mut screen = factory();
            f(&mut *screen)
        })
    }
}

impl SamplingHandler for TerminalSampling {
    fn sample(&self, request: SamplingRequest) -> BoxFuture<'_, SamplingResponse> {
        Box::pin(async move {
            let Some(turn) = self.queue.enter(&request.cancelled).await else {
                return SamplingResponse::Rejected("withdrawn".into());
            };
            let header = Header {
                server: server_label(&request.origin.server),
                request: request
                    .origin
                    .request
                    .as_deref()
                    .map(|r| display_line(r, 200)),
                message: String::new(),
                waiting: turn.waiting(),
            };
            let model_name = self.model.as_ref().map(|m| m.name());
            let params = request.params.clone();
            let review = self
                .on_screen(turn, move |s| {
                    review_prompt(s, &header, &params, model_name.as_deref())
                })
                .await
                .unwrap_or(Review::Reject);
            let Some(model) = self.model.as_ref() else {
                return SamplingResponse::Unavailable(NO_MODEL.to_owned());
            };
            if review == Review::Reject {
                return SamplingResponse::Rejected("the person rejected the prompt".into());
            }
            let result = match model.complete(&request.params).await {
                Ok(r) => r,
                Err(e) => return SamplingResponse::Unavailable(format!("the model failed: {e}")),
            };
            let Some(turn) = self.queue.enter(&request.cancelled).await else {
                return SamplingResponse::Rejected("withdrawn".into());
            };
            let shown = result.clone();
            let send = self
                .on_screen(turn, move |s| review_completion(s, &shown))
                .await
                .unwrap_or(Review::Reject);
            match send {
                Review::Approve => SamplingResponse::Completed(result),
                Review::Reject => {
                    SamplingResponse::Rejected("the person did not send the answer".into())
                }
            }
        })
    }
}

/// The roots for these directories: each canonicalized, as a `file://` URI
/// named after its last component.
pub fn roots_of(dirs: &[impl AsRef<Path>]) -> std::io::Result<Vec<Root>> {
    dirs.iter()
        .map(|d| {
            let path = std::fs::canonicalize(d.as_ref())?;
            if !path.is_dir() {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    format!("{} is not a directory", path.display()),
                ));
            }
            Ok(Root {
                uri: file_uri(&path),
                name: path.file_name().map(|n| n.to_string_lossy().into_owned()),
                meta: None,
                extra: Default::default(),
            })
        })
        .collect()
}

/// `file://` + the path, percent-encoded where a URI needs it.
fn file_uri(path: &Path) -> String {
    let mut out = String::from("file://");
    for byte in path.to_string_lossy().bytes() {
        if byte.is_ascii_alphanumeric() || b"/-._~".contains(&byte) {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::screen::{FakeInput, FakeScreen};

    fn params() -> CreateMessageRequestParams {
        serde_json::from_value(serde_json::json!({
            "messages": [
                {"role": "user", "content": {"type": "text", "text": "Summarize:\nline two"}},
                {"role": "assistant", "content": [{"type": "image", "data": "aGVsbG8=", "mimeType": "image/png"}]}
            ],
            "systemPrompt": "You are terse.\u{1b}[2J",
            "maxTokens": 50
        }))
        .expect("params")
    }

    fn header() -> Header {
        Header {
            server: "shop 1.0".into(),
            request: Some("tools/call summarize".into()),
            message: String::new(),
            waiting: 0,
        }
    }

    #[test]
    fn the_whole_prompt_is_shown_and_without_a_model_only_a_refusal() {
        let mut screen = FakeScreen::new([FakeInput::Key('r')]);
        assert_eq!(
            review_prompt(&mut screen, &header(), &params(), None),
            Review::Reject
        );
        let shown = screen.transcript();
        for part in [
            "system prompt:",
            "You are terse.",
            "user:",
            "│ Summarize:",
            "│ line two",
            "assistant:",
            "[image image/png, about 6 bytes]",
            "at most 50 tokens",
            "has no language model",
        ] {
            assert!(shown.contains(part), "{part}: {shown}");
        }
        assert!(!shown.contains('\u{1b}'), "escaped: {shown}");
        assert!(!shown.contains("send it to the model"), "{shown}");
    }

    #[test]
    fn with_a_model_the_person_approves_or_rejects() {
        let mut screen = FakeScreen::new([FakeInput::Key('a')]);
        let r = review_prompt(&mut screen, &header(), &params(), Some("local-llm"));
        assert_eq!(r, Review::Approve);
        assert!(
            screen
                .transcript()
                .contains("sends this prompt to local-llm")
        );
        let mut screen = FakeScreen::new([FakeInput::Key('r')]);
        let r = review_prompt(&mut screen, &header(), &params(), Some("local-llm"));
        assert_eq!(r, Review::Reject);
    }

    #[test]
    fn roots_are_file_uris_of_directories() {
        let dir = std::env::temp_dir().join(format!("fd roots {}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("made");
        let roots = roots_of(&[&dir]).expect("a directory");
        assert!(roots[0].uri.starts_with("file:///"), "{:?}", roots[0]);
        assert!(
            roots[0]
                .uri
                .ends_with(&format!("fd%20roots%20{}", std::process::id()))
        );
        assert!(roots_of(&[dir.join("missing")]).is_err());
        let _ = std::fs::remove_dir_all(dir);
    }
}
