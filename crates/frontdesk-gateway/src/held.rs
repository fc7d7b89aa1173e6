//! Upstream calls held by the gateway, and the downstream tool handler that
//! drives one.
//!
//! A call of a forwarded tool starts the upstream call in a task of its own
//! and records its id with `once` (on 2026-07-28 that id travels sealed in
//! `requestState`). The handler then waits for what the upstream does next:
//! a question, asked of the downstream client with the server's own
//! [`Question::schema`](frontdesk::server::Question::schema) under the key `upstream-N`; or the result, answered
//! as it is. A 2026-07-28 client's round ends where the question is asked
//! (the handler is dropped); its retry runs the handler again from the top,
//! finds the held call by the recorded id, asks the same open question,
//! now answered by the retry, and passes the answer upstream.
//!
//! Held calls are bounded in number and time: past
//! [`GatewayOptions::max_held_calls`](crate::GatewayOptions::max_held_calls)
//! a new call is refused as busy; one older than
//! [`GatewayOptions::hold_for`](crate::GatewayOptions::hold_for) is stopped
//! (its upstream task aborted) and a retry for it refused.
//!
//! How an open question is put to the client in front is [`ask`]'s.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use frontdesk::client::{ClientError, ElicitationResponse};
use frontdesk::form::FormSchema;
use frontdesk::server::question::FlowTicket;
use frontdesk::server::question::InputRequest;
use frontdesk::server::{RpcError, ToolContext, ToolError, ToolOutput};
use frontdesk::wire::{CreateMessageRequestParams, CreateMessageResult, Root};
use frontdesk::wire::{ErrorCode, Meta, Revision};
use serde_json::{Map, Value, json};
use tokio::sync::mpsc;
use tokio::task::AbortHandle;

use crate::{Shared, upstream_error};

mod ask;
mod request;
mod table;

use ask::{ask_open, complete};
pub(crate) use request::{Finished, Upstream};
pub(crate) use table::Held;

/// The `once` key the held call's id is recorded under.
const CALL_STEP: &str = "frontdesk-gateway/upstream-call";

/// What the upstream did next. Its large variants are boxed: every held
/// call's channel allocates a block of 32 events up front, so the size of
/// an event is paid 32 times per call (8 KiB unboxed, 1 KiB now).
pub(crate) enum Event {
    /// It asks this.
    Question(Box<Open>),
    /// The call ended.
    Done(Box<Result<Finished, ClientError>>),
    /// The upstream said its URL interaction (this `elicitationId`) is done
    /// (2025-11-25 `notifications/elicitation/complete`).
    UrlDone(String),
    /// A progress notification or log message about the call.
    Note(Box<crate::notes::Note>),
    /// The upstream answered the call with a task (2026-07-28, the Tasks
    /// extension), which the client runtime now follows: the call in front
    /// continues as a task of the gateway's own.
    Task,
}

/// What an open question asks for.
#[derive(Clone)]
pub(crate) enum Asks {
    /// A form with this (subset-checked) schema.
    Form(Arc<FormSchema>),
    /// To open the upstream's page: the URL as reviewed (ASCII), the
    /// upstream's `elicitationId` (2025-11-25 upstream) it completes under,
    /// and the review's findings as the question's `_meta` (if any).
    Url {
        url: String,
        upstream_id: Option<String>,
        review: Option<Meta>,
    },
    /// A completion of the client's model (`sampling/createMessage`).
    Sampling(Box<CreateMessageRequestParams>),
    /// The client's roots (`roots/list`).
    Roots,
    /// A 2026-07-28 upstream's whole round (forms, sampling, roots), asked
    /// together under the upstream's own keys.
    Round(Vec<(String, InputRequest)>),
}

/// What the client in front answered.
#[derive(Debug)]
pub(crate) enum Reply {
    /// To an elicitation, form or URL.
    Elicit(ElicitationResponse),
    /// To a sampling request; the error says why there is no completion.
    Sampled(Result<Box<CreateMessageResult>, String>),
    /// To a roots request.
    Roots(Result<Vec<Root>, String>),
    /// To a round: the raw answers in the round's order; the error says
    /// why there are none.
    Round(Result<Vec<Value>, String>),
}

/// A question the upstream waits on; it stays open across the downstream
/// client's rounds until answered or withdrawn.
pub(crate) struct Open {
    /// Its number within the call (the downstream key is `upstream-N`).
    pub(crate) seq: u32,
    pub(crate) message: String,
    pub(crate) asks: Asks,
    /// Where the answer goes (taken when answered).
    pub(crate) reply: Option<tokio::sync::oneshot::Sender<Reply>>,
}

/// One upstream call the gateway holds.
pub(crate) struct HeldCall {
    id: String,
    principal: String,
    /// The upstream tool called (for the audit file).
    pub(crate) tool: String,
    started: Instant,
    /// What the downstream client declared: elicitation modes, sampling,
    /// roots.
    pub(crate) modes: Modes,
    /// The flows of relayed URL questions, not yet completed.
    relayed: Mutex<Vec<Relayed>>,
    /// A capability the 2025-11-25 upstream needed for this call that the
    /// client in front did not declare (its request was refused).
    lacking: Mutex<Option<&'static str>>,
    seq: AtomicU32,
    tx: mpsc::Sender<Event>,
    events: tokio::sync::Mutex<mpsc::Receiver<Event>>,
    open: Mutex<Option<Open>>,
    task: Mutex<Option<AbortHandle>>,
    /// Since when a 2026-07-28 client's round has ended with a question
    /// open and its retry not come (`None` while its handler runs).
    waiting: Mutex<Option<Instant>>,
    /// The upstream's task the call became, while it runs: told
    /// `tasks/cancel` when the call is stopped.
    upstream_task: Mutex<Option<(frontdesk::client::Client, String)>>,
}

impl HeldCall {
    /// The upstream needed `capability`, which the client in front lacks.
    pub(crate) fn lacks(&self, capability: &'static str) {
        if let Ok(mut lacking) = self.lacking.lock() {
            *lacking = Some(capability);
        }
    }

    fn new(principal: String, tool: String, modes: Modes) -> Arc<Self> {
        let mut bytes = [0u8; 16];
        rand::fill(&mut bytes[..]);
        let id = bytes.iter().map(|b| format!("{b:02x}")).collect();
        // Room for the upstream's notifications while nobody reads them (a
        // question is open, or a 2026-07-28 client has yet to retry).
        let (tx, rx) = mpsc::channel(64);
        Arc::new(Self {
            id,
            principal,
            tool,
            lacking: Mutex::new(None),
            started: Instant::now(),
            modes,
            relayed: Mutex::new(Vec::new()),
            seq: AtomicU32::new(0),
            tx,
            events: tokio::sync::Mutex::new(rx),
            open: Mutex::new(None),
            task: Mutex::new(None),
            waiting: Mutex::new(None),
            upstream_task: Mutex::new(None),
        })
    }

    /// Note whether the client's round has ended with a question open
    /// (its retry awaited) or its handler runs again.
    fn set_waiting(&self, waiting: bool) {
        if let Ok(mut w) = self.waiting.lock() {
            *w = waiting.then(Instant::now);
        }
    }

    /// The number of the next question (from 1).
    pub(crate) fn next_seq(&self) -> u32 {
        self.seq.fetch_add(1, Ordering::SeqCst) + 1
    }

    /// Tell the handler what the upstream did.
    pub(crate) async fn send(&self, event: Event) -> Result<(), ()> {
        self.tx.send(event).await.map_err(|_| ())
    }

    /// Queue `event` without waiting.
    pub(crate) fn try_send(&self, event: Event) -> Result<(), ()> {
        self.tx.try_send(event).map_err(|_| ())
    }

    /// The upstream's URL interaction `upstream_id` is done (told from a
    /// notification handler, which cannot wait).
    pub(crate) fn url_done(&self, upstream_id: &str) {
        if self
            .tx
            .try_send(Event::UrlDone(upstream_id.to_string()))
            .is_err()
        {
            tracing::warn!(
                elicitation_id = upstream_id,
                "a URL completion could not be passed to its call"
            );
        }
    }

    /// Keep the flow made for a relayed URL question.
    fn keep_flow(&self, relayed: Relayed) {
        if let Ok(mut r) = self.relayed.lock() {
            r.push(relayed);
        }
    }

    /// Take the tickets of the relayed flows `which` selects.
    fn take_tickets(&self, which: impl Fn(&Relayed) -> bool) -> Vec<FlowTicket> {
        let Ok(mut r) = self.relayed.lock() else {
            return Vec::new();
        };
        let (taken, kept): (Vec<Relayed>, Vec<Relayed>) =
            std::mem::take(&mut *r).into_iter().partition(|f| which(f));
        *r = kept;
        taken.into_iter().map(|f| f.ticket).collect()
    }

    /// The upstream withdrew question `seq`: forget it.
    pub(crate) fn withdraw(&self, seq: u32) {
        if let Ok(mut open) = self.open.lock()
            && open.as_ref().is_some_and(|o| o.seq == seq)
        {
            *open = None;
        }
    }

    /// The question open now, if any (without its reply channel).
    fn open_question(&self) -> Option<(u32, String, Asks)> {
        let open = self.open.lock().ok()?;
        open.as_ref()
            .map(|o| (o.seq, o.message.clone(), o.asks.clone()))
    }

    fn set_open(&self, question: Open) {
        if let Ok(mut open) = self.open.lock() {
            *open = Some(question);
        }
    }

    /// Send `response` to question `seq`, which is then closed.
    fn answer(&self, seq: u32, response: Reply) {
        let reply = self
            .open
            .lock()
            .ok()
            .and_then(|mut open| match open.take() {
                Some(mut o) if o.seq == seq => o.reply.take(),
                other => {
                    *open = other;
                    None
                }
            });
        match reply {
            Some(reply) => {
                if reply.send(response).is_err() {
                    tracing::debug!(seq, "the upstream stopped waiting for this answer");
                }
            }
            None => tracing::debug!(seq, "an answer for a question no longer open; dropped"),
        }
    }

    async fn next_event(&self) -> Option<Event> {
        self.events.lock().await.recv().await
    }

    /// The upstream answered the call with its task `id` on `client`.
    fn became_task(&self, client: frontdesk::client::Client, id: String) {
        if let Ok(mut t) = self.upstream_task.lock() {
            *t = Some((client, id));
        }
        if self.try_send(Event::Task).is_err() {
            tracing::warn!("the call's handler could not be told that it became a task");
        }
    }

    /// Stop the upstream call: its task ends (freeing the lane), a question
    /// it has open is answered `cancel` (its reply channel closes), and an
    /// upstream task it became is told `tasks/cancel`.
    fn stop(&self) {
        if let Some(task) = self.task.lock().ok().and_then(|mut t| t.take()) {
            task.abort();
        }
        let open = self.open.lock().ok().and_then(|mut o| o.take());
        drop(open);
        let upstream_task = self.upstream_task.lock().ok().and_then(|mut t| t.take());
        if let Some((client, id)) = upstream_task
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            runtime.spawn(async move {
                let params = frontdesk::wire::TaskRequestParams::new(id);
                let Ok(Value::Object(params)) = serde_json::to_value(params) else {
                    return;
                };
                if let Err(e) = client
                    .request(frontdesk::wire::method::TASKS_CANCEL, params)
                    .await
                {
                    tracing::info!(error = %e, "the upstream's task could not be cancelled");
                }
            });
        }
    }
}

/// Start `request` upstream in its own task; the id it is held by.
fn start(
    shared: &Arc<Shared>,
    request: Upstream,
    principal: String,
    modes: Modes,
    notes: (bool, Option<frontdesk::wire::LoggingLevel>),
    tasks: TaskChoice,
) -> Result<String, ToolError> {
    let Some(upstream) = shared.upstream() else {
        return Err(ToolError::internal("no upstream server is attached"));
    };
    let call = HeldCall::new(principal, request.label(), modes);
    shared.held.insert(&call)?;
    let mut options = crate::notes::options(&call, notes.0, notes.1).tasks(tasks.declare);
    if tasks.continue_as_task {
        let call = Arc::downgrade(&call);
        let client = upstream.clone();
        options = options.on_task(move |created| {
            if let Some(call) = call.upgrade() {
                call.became_task(client.clone(), created.task.task_id.clone());
            }
        });
    }
    let task = {
        let shared = Arc::clone(shared);
        let call = Arc::clone(&call);
        tokio::spawn(async move {
            let result = if upstream.revision() == Revision::V2026_07_28 {
                // Each round's questions are answered on this task: they
                // find their call in the task-local, calls run side by side.
                let calling = request.run(&upstream, options);
                crate::relay::ASKING.scope(Arc::clone(&call), calling).await
            } else {
                // One 2025-11-25 call at a time on a connection: its
                // questions are this call's (see `lanes`).
                let lane = crate::lanes::take(&shared, call.modes).await;
                let (client, relay) = lane.parts(&shared, &upstream);
                let result = {
                    let _entered = relay.enter(Arc::clone(&call));
                    request.run(&client, options).await
                };
                if matches!(result, Err(ClientError::Closed | ClientError::Transport(_))) {
                    lane.forget(&shared);
                }
                result
            };
            let _ = call.send(Event::Done(Box::new(result))).await;
        })
    };
    if let Ok(mut slot) = call.task.lock() {
        *slot = Some(task.abort_handle());
    }
    Ok(call.id.clone())
}

/// Dropped armed where a 2026-07-28 round ends with a question open (the
/// handler is dropped inside `ask_open`): the call now waits for the
/// client's retry. Disarmed when the question is answered in the round.
struct RoundOut<'a> {
    call: &'a HeldCall,
    armed: bool,
}

impl Drop for RoundOut<'_> {
    fn drop(&mut self) {
        if self.armed {
            self.call.set_waiting(true);
        }
    }
}

/// How a held call's upstream request treats tasks (2026-07-28).
#[derive(Debug, Clone, Copy)]
struct TaskChoice {
    /// Declare the Tasks extension upstream: when the client in front
    /// declared it, or holds its call open anyway (2025-11-25, which then
    /// gets the task's result within its call).
    declare: bool,
    /// The client in front declared it: an upstream task makes the call in
    /// front a task too.
    continue_as_task: bool,
}

impl TaskChoice {
    fn of(cx: &ToolContext) -> Self {
        let declared = cx
            .client_capabilities()
            .get("extensions")
            .and_then(|e| e.get(frontdesk::wire::extension::TASKS))
            .is_some_and(Value::is_object);
        match cx.revision() {
            Revision::V2025_11_25 => Self {
                declare: true,
                continue_as_task: false,
            },
            _ => Self {
                declare: declared,
                continue_as_task: declared,
            },
        }
    }
}

/// Stops a call that became a task when its handler is dropped (the task
/// was cancelled or forgotten); disarmed once the call ended.
struct StopTask(Option<Arc<HeldCall>>);

impl Drop for StopTask {
    fn drop(&mut self) {
        if let Some(call) = self.0.take() {
            call.stop();
        }
    }
}

/// Lets a held call go when dropped, if armed.
struct Release {
    shared: Arc<Shared>,
    id: String,
    armed: bool,
}

impl Drop for Release {
    fn drop(&mut self) {
        if self.armed {
            self.shared.held.remove(&self.id);
        }
    }
}

/// The handler of every forwarded tool: run `tool` upstream, asking its
/// questions of this call's client, and answer its result as it is.
pub(crate) async fn forward(
    shared: Arc<Shared>,
    tool: String,
    cx: ToolContext,
    args: Map<String, Value>,
) -> Result<ToolOutput, ToolError> {
    let request = Upstream::Tool {
        name: tool,
        arguments: args,
    };
    match drive(shared, &cx, request).await? {
        Finished::Tool(result) => Ok(ToolOutput::from_result(result)),
        _ => Err(ToolError::internal("the upstream answered something else")),
    }
}

/// Run `request` upstream as a held call of `cx`'s client, asking its
/// questions of that client (on 2026-07-28 across its rounds); what it
/// ended with.
pub(crate) async fn drive(
    shared: Arc<Shared>,
    cx: &ToolContext,
    request: Upstream,
) -> Result<Finished, ToolError> {
    let principal = cx.principal().to_string();
    let modes = Modes::of(&cx.client_capabilities());
    let notes = (cx.wants_progress(), cx.log_level());
    let tasks = TaskChoice::of(cx);
    let id: String = {
        let principal = principal.clone();
        let shared = Arc::clone(&shared);
        cx.once(CALL_STEP, move || {
            let started = start(&shared, request, principal, modes, notes, tasks);
            async move { started }
        })
        .await?
    };
    // A 2025-11-25 call is one round: when its handler is dropped unfinished
    // (the client cancelled, or went away), the upstream call stops too.
    // (A 2026-07-28 round's handler is dropped on purpose where it asks.)
    let _release = Release {
        shared: Arc::clone(&shared),
        id: id.clone(),
        armed: cx.revision() == Revision::V2025_11_25,
    };
    let Some(call) = shared.held.get(&id, &principal) else {
        tracing::info!("a retry for an upstream call the gateway no longer holds");
        return Err(ToolError::Rpc(RpcError::invalid_params(
            "requestState is invalid or expired",
        )));
    };
    let modern_upstream = shared.upstream().map(|u| u.revision()) == Some(Revision::V2026_07_28);
    call.set_waiting(false);
    let mut as_task = StopTask(None);
    loop {
        if let Some((seq, message, asks)) = call.open_question() {
            // On 2026-07-28 without the answer yet, `ask` does not return:
            // the round ends and the question stays open for the retry
            // (noted when this handler is dropped there).
            // A malformed answer is the client's error, as `frontdesk serve`
            // answers it; the question stays open for a proper retry.
            let mut round_out = RoundOut {
                call: &call,
                armed: true,
            };
            let response = ask_open(cx, &call, seq, message, asks).await;
            round_out.armed = false;
            call.answer(seq, response?);
            continue;
        }
        match call.next_event().await {
            Some(Event::Question(open)) => {
                // A 2026-07-28 upstream says nothing when its page is done:
                // its call moving on is how the gateway learns it. The same
                // URL asked again means it is not done.
                if modern_upstream {
                    let again = match &open.asks {
                        Asks::Url { url, .. } => Some(url.clone()),
                        _ => None,
                    };
                    let done = call.take_tickets(|f| again.as_ref() != Some(&f.url));
                    complete(cx, done).await;
                }
                call.set_open(*open);
            }
            Some(Event::Note(note)) => {
                crate::notes::pass_on(cx, *note, shared.relay.checks.scrub);
            }
            Some(Event::Task) => {
                // The client in front gets its own task now; the handler
                // runs on in the server core's task, which bounds it (its
                // time to live, the most tasks): the call leaves the table
                // of held calls, and is stopped if the task is cancelled.
                if cx.continue_as_task().await {
                    shared.held.detach(&id);
                    as_task.0 = Some(Arc::clone(&call));
                }
            }
            Some(Event::UrlDone(upstream_id)) => {
                let done =
                    call.take_tickets(|f| f.upstream_id.as_deref() == Some(upstream_id.as_str()));
                if done.is_empty() {
                    tracing::debug!(elicitation_id = %upstream_id, "a completion for no URL question of this call");
                }
                complete(cx, done).await;
            }
            Some(Event::Done(result)) => {
                as_task.0 = None;
                if let Ok(mut t) = call.upstream_task.lock() {
                    *t = None;
                }
                if modern_upstream {
                    complete(cx, call.take_tickets(|_| true)).await;
                }
                shared.held.remove(&id);
                // A 2026-07-28 client learns what its call needed, as a
                // 2026-07-28 server would have told it (a 2025-11-25 one
                // has no such error: the server's own result goes back).
                let lacking = call.lacking.lock().ok().and_then(|l| *l);
                if let (Some(capability), Revision::V2026_07_28) = (lacking, cx.revision()) {
                    return Err(ToolError::Rpc(
                        RpcError::new(
                            ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
                            format!(
                                "This request requires the client capability `{capability}`, \
                                 which it did not declare"
                            ),
                        )
                        .with_data(json!({"requiredCapabilities": {capability: {}}})),
                    ));
                }
                return (*result).map_err(upstream_error);
            }
            None => {
                shared.held.remove(&id);
                return Err(ToolError::internal(
                    "the upstream call ended without a result",
                ));
            }
        }
    }
}

/// The gateway's flow of a relayed URL question, until it is completed.
pub(crate) struct Relayed {
    /// The upstream's `elicitationId` (a 2025-11-25 upstream's).
    upstream_id: Option<String>,
    /// The URL as passed on.
    url: String,
    /// The flow's ticket (its connect token completes it).
    ticket: FlowTicket,
}

/// What the downstream client declared of what an upstream may ask.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Modes {
    /// Form elicitation.
    pub(crate) form: bool,
    /// URL-mode elicitation.
    pub(crate) url: bool,
    /// `sampling` declared.
    pub(crate) sampling: bool,
    /// `roots` declared.
    pub(crate) roots: bool,
}

impl Modes {
    /// Everything the gateway can pass on: what the attached 2025-11-25
    /// upstream is told at `initialize`, before any client is in front.
    pub(crate) const ALL: Self = Self {
        form: true,
        url: true,
        sampling: true,
        roots: true,
    };

    /// From the client's capabilities: `elicitation: {}` is form only.
    pub(crate) fn of(capabilities: &Value) -> Self {
        let elicitation = capabilities.get("elicitation").and_then(Value::as_object);
        Self {
            form: elicitation.is_some_and(|e| e.contains_key("form") || !e.contains_key("url")),
            url: elicitation.is_some_and(|e| e.contains_key("url")),
            sampling: capabilities.get("sampling").is_some_and(Value::is_object),
            roots: capabilities.get("roots").is_some_and(Value::is_object),
        }
    }
}
