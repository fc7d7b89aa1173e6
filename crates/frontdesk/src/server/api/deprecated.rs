//! The 0.1 names of `ToolContext`'s questions, kept for one release (0.2) so code
//! written against 0.1 builds with a warning that names the new call. They are
//! removed in the release after; `CHANGELOG.md` has the migration of every change.

use serde_json::{Map, Value};

use crate::server::api::context::ToolContext;
use crate::server::api::error::AskError;
use crate::server::api::flow_ticket::FlowTicket;
use crate::server::api::question::{Answer, InputRequest, Question};
use frontdesk_form::{Form, FormSchema};

impl ToolContext {
    /// 0.1's form question under an explicit key.
    #[deprecated(
        since = "0.2.0",
        note = "use `cx.ask(Question::schema(message, schema.clone()).key(key))`"
    )]
    pub async fn ask_with_key(
        &self,
        key: &str,
        message: &str,
        schema: &FormSchema,
    ) -> Result<Answer<Map<String, Value>>, AskError> {
        self.ask(Question::schema(message, schema.clone()).key(key))
            .await
    }

    /// 0.1's typed form question.
    #[deprecated(since = "0.2.0", note = "use `cx.ask(Question::form::<T>(message))`")]
    pub async fn ask_form<T: Form + Send + 'static>(
        &self,
        message: &str,
    ) -> Result<Answer<T>, AskError> {
        self.ask(Question::form::<T>(message)).await
    }

    /// 0.1's typed form question under an explicit key.
    #[deprecated(
        since = "0.2.0",
        note = "use `cx.ask(Question::form::<T>(message).key(key))`"
    )]
    pub async fn ask_form_with_key<T: Form + Send + 'static>(
        &self,
        key: &str,
        message: &str,
    ) -> Result<Answer<T>, AskError> {
        self.ask(Question::form::<T>(message).key(key)).await
    }

    /// 0.1's URL-mode question.
    #[deprecated(
        since = "0.2.0",
        note = "use `cx.ask(Question::url(message, make_url))`"
    )]
    pub async fn ask_url<F>(&self, message: &str, make_url: F) -> Result<Answer<()>, AskError>
    where
        F: FnOnce(&FlowTicket) -> String + Send,
    {
        self.ask(Question::url(message, make_url)).await
    }

    /// 0.1's URL-mode question under an explicit key.
    #[deprecated(
        since = "0.2.0",
        note = "use `cx.ask(Question::url(message, make_url).key(key))`"
    )]
    pub async fn ask_url_with_key<F>(
        &self,
        key: &str,
        message: &str,
        make_url: F,
    ) -> Result<Answer<()>, AskError>
    where
        F: FnOnce(&FlowTicket) -> String + Send,
    {
        self.ask(Question::url(message, make_url).key(key)).await
    }

    /// 0.1's one question of any kind, answered with the client's raw result.
    #[deprecated(
        since = "0.2.0",
        note = "use `cx.ask_all(vec![(key.into(), request)])` (or `cx.sample`, `cx.roots`)"
    )]
    pub async fn request_input(&self, key: &str, request: InputRequest) -> Result<Value, AskError> {
        let mut answers = self.ask_all(vec![(key.to_string(), request)]).await?;
        answers
            .pop()
            .ok_or_else(|| AskError::Internal("a question got no answer".into()))
    }
}
