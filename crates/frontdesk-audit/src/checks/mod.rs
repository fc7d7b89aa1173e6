//! The checks, grouped by what they probe. Each group reads what discovery
//! found in the [`Ctx`] and adds one finding per revision and tool.

mod content;
mod forms;
mod limits;
mod modes;
mod outcome;
mod state;
mod tampering;
mod url;

use frontdesk::wire::Revision;

use crate::call::{End, Step, step};
use crate::evidence::{self, Disclosure};
use crate::runner::Ctx;

/// Run every group on one revision.
pub(crate) async fn run(ctx: &mut Ctx<'_>) {
    forms::run(ctx);
    modes::run(ctx).await;
    content::run(ctx).await;
    outcome::run(ctx).await;
    if ctx.revision == Revision::V2026_07_28 {
        state::run(ctx).await;
    }
    url::run(ctx).await;
    if ctx.options.stress {
        limits::run(ctx).await;
    }
}

/// What the server did with a request it should not have acted on.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Taken {
    /// A JSON-RPC error, or a tool error.
    Refused(String),
    /// Another `input_required` round.
    AskedAgain(String),
    /// A successful final result.
    Acted(String),
    /// Nothing that settles it (a transport failure, a time limit).
    Unclear(String),
}

/// Judge one 2026-07-28 reply to a hostile retry.
pub(crate) fn judge(end: End, disclosure: Disclosure) -> Taken {
    match step(end) {
        Step::Asks {
            questions, state, ..
        } => {
            let keys: Vec<String> = questions.iter().map(|(k, _)| evidence::quote(k)).collect();
            let mut text = if keys.is_empty() {
                "input_required again (state only)".to_owned()
            } else {
                format!("input_required again, asking {}", keys.join(", "))
            };
            if let Some(s) = state {
                text.push_str(&format!(" with a new {}", evidence::state(&s)));
            }
            Taken::AskedAgain(text)
        }
        Step::Ended(end @ End::Complete(_)) if end.succeeded() => {
            Taken::Acted(evidence::end(&end, disclosure))
        }
        Step::Ended(end @ (End::Complete(_) | End::Rpc(_))) => {
            Taken::Refused(evidence::end(&end, disclosure))
        }
        Step::Ended(end) => Taken::Unclear(evidence::end_brief(&end)),
    }
}
