//! `completion/complete`: suggestions for a prompt argument or a resource
//! template variable while the person types it.

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::meta::Meta;
use crate::result::ResultType;
use crate::util::{from_map, wire_tag};

wire_tag!(
    /// `"type": "ref/prompt"`.
    PromptRefTag = "ref/prompt"
);
wire_tag!(
    /// `"type": "ref/resource"`.
    ResourceRefTag = "ref/resource"
);

/// What is being completed: a prompt's argument or a resource template's
/// variable (`ref`, dispatched on `type`).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum CompletionReference {
    /// `ref/prompt`.
    Prompt(PromptReference),
    /// `ref/resource`.
    Resource(ResourceTemplateReference),
}

impl Serialize for CompletionReference {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Prompt(r) => r.serialize(s),
            Self::Resource(r) => r.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for CompletionReference {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let map = Map::<String, Value>::deserialize(d)?;
        match map.get("type").and_then(Value::as_str) {
            Some(PromptRefTag::VALUE) => from_map(map).map(Self::Prompt),
            Some(ResourceRefTag::VALUE) => from_map(map).map(Self::Resource),
            _ => Err(D::Error::custom(
                "\"ref\" must have \"type\" \"ref/prompt\" or \"ref/resource\"",
            )),
        }
    }
}

/// A prompt, by name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PromptReference {
    /// Always `"ref/prompt"`.
    #[serde(rename = "type")]
    pub kind: PromptRefTag,
    /// The prompt's name.
    pub name: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Members this crate does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A resource template (or resource), by URI (template).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResourceTemplateReference {
    /// Always `"ref/resource"`.
    #[serde(rename = "type")]
    pub kind: ResourceRefTag,
    /// The URI template, e.g. `test://template/{id}/data`.
    pub uri: String,
    /// Members this crate does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The argument being completed and what the person typed so far.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompletionArgument {
    /// The argument's (or template variable's) name.
    pub name: String,
    /// The partial value.
    pub value: String,
    /// Members this crate does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// What the client already knows (`context`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct CompletionContext {
    /// Values of the other arguments or variables, already resolved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Map<String, Value>>,
    /// Members this crate does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Parameters of `completion/complete`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompleteRequestParams {
    /// What is being completed.
    #[serde(rename = "ref")]
    pub reference: CompletionReference,
    /// The argument and its partial value.
    pub argument: CompletionArgument,
    /// Other arguments already resolved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<CompletionContext>,
    /// `_meta` (required in 2026-07-28).
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The suggestions (`completion` of a [`CompleteResult`]).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Completion {
    /// Suggested values, best first (at most 100 on the wire).
    pub values: Vec<String>,
    /// How many values exist in all (may exceed `values`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
    /// Whether more values exist than were sent.
    #[serde(default, rename = "hasMore", skip_serializing_if = "Option::is_none")]
    pub has_more: Option<bool>,
    /// Members this crate does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Completion {
    /// The most values one result may carry.
    pub const MAX_VALUES: usize = 100;

    /// `values`, cut to [`MAX_VALUES`](Self::MAX_VALUES); `total` and
    /// `hasMore` say how many there were.
    ///
    /// ```
    /// use frontdesk_wire::Completion;
    ///
    /// let c = Completion::new((0..150).map(|n| n.to_string()).collect());
    /// assert_eq!((c.values.len(), c.total, c.has_more), (100, Some(150), Some(true)));
    /// ```
    pub fn new(mut values: Vec<String>) -> Self {
        let total = values.len();
        values.truncate(Self::MAX_VALUES);
        Self {
            has_more: Some(total > values.len()),
            total: Some(total as u64),
            values,
            extra: Map::new(),
        }
    }
}

/// Result of `completion/complete`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompleteResult {
    /// `"complete"` (2026-07-28).
    #[serde(
        default,
        rename = "resultType",
        skip_serializing_if = "Option::is_none"
    )]
    pub result_type: Option<ResultType>,
    /// The suggestions.
    pub completion: Completion,
    /// `_meta`.
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl CompleteResult {
    /// A result carrying `completion` (add `resultType` for 2026-07-28).
    pub fn new(completion: Completion) -> Self {
        Self {
            result_type: None,
            completion,
            meta: None,
            extra: Map::new(),
        }
    }
}
