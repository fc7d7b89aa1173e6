//! What a caller hears of one call besides its result: the server's
//! `notifications/progress` for the call's `progressToken`, and its
//! `notifications/message` (logs) while the call runs.
//!
//! Progress is routed exactly: each call that wants it sends a token of its
//! own, and a notification goes to the call whose token it names. A log
//! message names no request: on Streamable HTTP it goes to the call whose
//! request's response stream carried it (each request a call sends while
//! it runs is bound to it, see [`Watchers::bind_request`]); otherwise to a
//! call's hook only when that call is the only tool call of the connection
//! in flight (as the connection core names the call a live
//! `elicitation/create` belongs to), and else it is only logged at debug.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use frontdesk_wire::{LoggingLevel, LoggingMessageNotificationParams, ProgressNotificationParams};

/// Called with each `notifications/progress` the server sends for a call.
pub type ProgressHook = Arc<dyn Fn(&ProgressNotificationParams) + Send + Sync>;

/// Called with each `notifications/message` the server sends during a call.
pub type LogHook = Arc<dyn Fn(&LoggingMessageNotificationParams) + Send + Sync>;

/// What [`Client::call_tool_with`](super::Client::call_tool_with) does
/// besides calling: hooks for the call's progress and logs, the log level
/// asked for, and whether the call may become a task.
///
/// ```no_run
/// # async fn run(client: frontdesk::client::Client) -> Result<(), frontdesk::client::ClientError> {
/// use frontdesk::client::CallOptions;
/// use frontdesk::wire::LoggingLevel;
/// let options = CallOptions::default()
///     .on_progress(|p| eprintln!("{} of {:?}", p.progress, p.total))
///     .on_log(|m| eprintln!("[{:?}] {}", m.level, m.data))
///     .log_level(LoggingLevel::Info);
/// let result = client
///     .call_tool_with("import", serde_json::json!({}), options)
///     .await?;
/// # let _ = result; Ok(()) }
/// ```
#[derive(Clone, Default)]
pub struct CallOptions {
    pub(crate) progress: Option<ProgressHook>,
    pub(crate) log: Option<LogHook>,
    pub(crate) log_level: Option<LoggingLevel>,
    pub(crate) tasks: super::call_tasks::TaskChoice,
}

impl std::fmt::Debug for CallOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallOptions")
            .field("progress", &self.progress.is_some())
            .field("log", &self.log.is_some())
            .field("log_level", &self.log_level)
            .field("tasks", &self.tasks.declare)
            .field("on_task", &self.tasks.on_task.is_some())
            .finish()
    }
}

impl CallOptions {
    /// Send a `progressToken` of the client's own (a string unique on the
    /// connection) with every request of the call (each 2026-07-28 round,
    /// a 2025-11-25 retry after `-32042`), and call `hook` with each
    /// `notifications/progress` the server sends for it, in the order
    /// sent, all of them before the call returns. The values are the
    /// server's as they are (the spec wants them increasing; not checked
    /// here).
    pub fn on_progress(
        mut self,
        hook: impl Fn(&ProgressNotificationParams) + Send + Sync + 'static,
    ) -> Self {
        self.progress = Some(Arc::new(hook));
        self
    }

    /// Call `hook` with each `notifications/message` the server sends for
    /// this call, all of them before the call returns: over Streamable
    /// HTTP, those on the response streams of the call's requests; on
    /// stdio (a log message does not say which request it belongs to),
    /// those sent while this call is the only tool call in flight. A server sends logs only at a level it was
    /// asked for: see [`log_level`](Self::log_level).
    pub fn on_log(
        mut self,
        hook: impl Fn(&LoggingMessageNotificationParams) + Send + Sync + 'static,
    ) -> Self {
        self.log = Some(Arc::new(hook));
        self
    }

    /// Ask for logs at `level` and above with this call: on 2026-07-28 the
    /// `io.modelcontextprotocol/logLevel` key of each request's `_meta`. A
    /// 2025-11-25 session has one level for the session, set with
    /// [`Client::set_log_level`](super::Client::set_log_level); there this
    /// is ignored.
    pub fn log_level(mut self, level: LoggingLevel) -> Self {
        self.log_level = Some(level);
        self
    }

    /// Whether this call may become a task (the Tasks extension,
    /// 2026-07-28): with `false` its requests do not declare the extension,
    /// so the server answers within the call (or refuses a tool that needs
    /// a task, `-32021`); with `true` they declare it even when
    /// [`ClientConfig::tasks`](super::ClientConfig::tasks) is off, and a
    /// task the server makes is followed to its end. Default: as the
    /// client's configuration says.
    pub fn tasks(mut self, allow: bool) -> Self {
        self.tasks.declare = Some(allow);
        self
    }

    /// Call `hook` once if the server answers this call with a task, before
    /// the client follows it (`tasks/get` until it ends, its questions
    /// asked through the handler); the call's result is still the task's.
    pub fn on_task(
        mut self,
        hook: impl Fn(&frontdesk_wire::tasks::CreateTaskResult) + Send + Sync + 'static,
    ) -> Self {
        self.tasks.on_task = Some(Arc::new(hook));
        self
    }

    pub(crate) fn task_choice(&self) -> super::call_tasks::TaskChoice {
        self.tasks.clone()
    }
}

/// The calls in flight that hear their notifications.
#[derive(Default)]
pub(crate) struct Watchers {
    next: AtomicU64,
    progress: Mutex<HashMap<String, ProgressHook>>,
    /// Every tool call in flight, with its log hook if it has one.
    calls: Mutex<Vec<(u64, Option<LogHook>)>>,
    /// The requests in flight of calls, by id key: the call each is for.
    requests: Mutex<HashMap<String, u64>>,
}

tokio::task_local! {
    /// The call whose future runs on this task (its requests are its own).
    static CALL: u64;
}

/// A request bound to its call until dropped (see
/// [`Watchers::bind_request`]).
pub(crate) struct BoundRequest<'a> {
    watchers: &'a Watchers,
    key: Option<String>,
}

impl Drop for BoundRequest<'_> {
    fn drop(&mut self) {
        if let Some(key) = &self.key
            && let Ok(mut r) = self.watchers.requests.lock()
        {
            r.remove(key);
        }
    }
}

impl Watchers {
    /// Note a call in flight; with a progress hook, its token (a string).
    pub(crate) fn watch(&self, options: &CallOptions) -> Watch<'_> {
        let id = self.next.fetch_add(1, Ordering::SeqCst);
        let token = options.progress.as_ref().map(|hook| {
            let token = format!("frontdesk-{id}");
            if let Ok(mut p) = self.progress.lock() {
                p.insert(token.clone(), Arc::clone(hook));
            }
            token
        });
        if let Ok(mut c) = self.calls.lock() {
            c.push((id, options.log.clone()));
        }
        Watch {
            watchers: self,
            id,
            token,
        }
    }

    /// A `notifications/progress`: to the call whose token it names.
    pub(crate) fn progress(&self, params: &ProgressNotificationParams) {
        let key = match serde_json::to_value(&params.progress_token) {
            Ok(serde_json::Value::String(s)) => s,
            _ => return,
        };
        let hook = self.progress.lock().ok().and_then(|p| p.get(&key).cloned());
        match hook {
            Some(hook) => hook(params),
            None => tracing::debug!(token = %key, "progress for no call in flight; ignored"),
        }
    }

    /// The request with id key `key`, sent now on this task: bound to the
    /// call running on it (if a call runs here) until dropped.
    pub(crate) fn bind_request(&self, key: &str) -> BoundRequest<'_> {
        let key = CALL.try_with(|call| *call).ok().and_then(|call| {
            let mut r = self.requests.lock().ok()?;
            r.insert(key.to_owned(), call);
            Some(key.to_owned())
        });
        BoundRequest {
            watchers: self,
            key,
        }
    }

    /// A `notifications/message`: to the call whose request's response
    /// stream carried it (`stream`, its id key), else to the one call in
    /// flight, if it listens.
    pub(crate) fn log(&self, params: &LoggingMessageNotificationParams, stream: Option<&str>) {
        let owner = stream.and_then(|key| self.requests.lock().ok()?.get(key).copied());
        let hook = self
            .calls
            .lock()
            .ok()
            .and_then(|c| match (owner, c.as_slice()) {
                (Some(owner), calls) => calls
                    .iter()
                    .find(|(id, _)| *id == owner)
                    .and_then(|(_, hook)| hook.clone()),
                (None, [(_, hook)]) => hook.clone(),
                (None, _) => None,
            });
        match hook {
            Some(hook) => hook(params),
            None => tracing::debug!(level = ?params.level, "a log message from the server"),
        }
    }
}

/// A call's registration, ended when dropped.
pub(crate) struct Watch<'a> {
    watchers: &'a Watchers,
    id: u64,
    token: Option<String>,
}

impl Watch<'_> {
    /// The progress token the call sends, if it asked for progress.
    pub(crate) fn token(&self) -> Option<&str> {
        self.token.as_deref()
    }

    /// Run `call` as this call's: the requests it sends on this task are
    /// bound to it ([`Watchers::bind_request`]). (Not an `async fn`, which
    /// would keep `call` twice: see `call_tasks::scope`.)
    pub(crate) fn scope<F: std::future::Future>(
        &self,
        call: F,
    ) -> impl std::future::Future<Output = F::Output> + use<F> {
        CALL.scope(self.id, call)
    }
}

impl Drop for Watch<'_> {
    fn drop(&mut self) {
        if let Some(token) = &self.token
            && let Ok(mut p) = self.watchers.progress.lock()
        {
            p.remove(token);
        }
        if let Ok(mut c) = self.watchers.calls.lock() {
            c.retain(|(id, _)| *id != self.id);
        }
    }
}
