//! Whether one tool call may become a task (the Tasks extension, SEP-2663),
//! and who hears that it did: the per-call side of
//! [`ClientConfig::tasks`](super::ClientConfig::tasks), set with
//! [`CallOptions::tasks`](super::CallOptions::tasks) and
//! [`CallOptions::on_task`](super::CallOptions::on_task).
//!
//! The choice travels with the call's future (a task-local), so every
//! request the call sends, its rounds and the `tasks/get` polls of a task it
//! became, declares the extension as the call chose.

use std::sync::Arc;

use frontdesk_wire::tasks::CreateTaskResult;

/// Called once when the server answers a call with a task, before the
/// client starts following it.
pub type TaskHook = Arc<dyn Fn(&CreateTaskResult) + Send + Sync>;

/// One call's choice.
#[derive(Clone, Default)]
pub(crate) struct TaskChoice {
    /// Declare the extension with this call's requests (`None`: as the
    /// client's configuration says).
    pub(crate) declare: Option<bool>,
    /// Told when the call became a task.
    pub(crate) on_task: Option<TaskHook>,
}

tokio::task_local! {
    static CHOICE: TaskChoice;
}

/// Run `call` with `choice` as its task choice.
///
/// Not an `async fn`: one would keep `call` twice in its state (as its
/// argument and as the future it awaits), and every call of a tool is
/// such a future, held for as long as a person takes to answer (a 2025-11-25
/// call through `frontdesk gateway` held 22 KiB, 5 KiB of it the call).
pub(crate) fn scope<F: Future>(choice: TaskChoice, call: F) -> impl Future<Output = F::Output> {
    CHOICE.scope(choice, call)
}

/// Whether the request being sent now declares the tasks extension: the
/// running call's choice, else `configured`.
pub(crate) fn declared(configured: bool) -> bool {
    CHOICE
        .try_with(|c| c.declare)
        .ok()
        .flatten()
        .unwrap_or(configured)
}

/// The running call became the task `created`: tell its hook.
pub(crate) fn became(created: &CreateTaskResult) {
    let hook = CHOICE.try_with(|c| c.on_task.clone()).ok().flatten();
    if let Some(hook) = hook {
        hook(created);
    }
}
