//! Client and server capabilities, and `Implementation` (client/server info).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// What a client supports. 2025-11-25: sent once in `initialize`;
/// 2026-07-28: sent in every request's `_meta`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ClientCapabilities {
    /// `elicitation`: see [`ClientCapabilities::elicitation_modes`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation: Option<ElicitationCapability>,
    /// `roots` (deprecated in 2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roots: Option<ListChangedCapability>,
    /// `sampling` (`context?`, `tools?`; deprecated in 2026-07-28), kept raw.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling: Option<Map<String, Value>>,
    /// `tasks` (2025-11-25), kept raw.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tasks: Option<Map<String, Value>>,
    /// `experimental`, kept raw.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experimental: Option<Map<String, Value>>,
    /// `extensions` (2026-07-28), kept raw.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<Map<String, Value>>,
    /// Members this crate does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ClientCapabilities {
    /// Capabilities declaring the given elicitation modes explicitly
    /// (`{"elicitation":{"form":{},"url":{}}}` for both).
    pub fn with_elicitation(modes: ElicitationModes) -> Self {
        Self {
            elicitation: Some(ElicitationCapability::explicit(modes)),
            ..Self::default()
        }
    }

    /// Which elicitation modes the client accepts, by the spec's table:
    /// no `elicitation` ⇒ none; `{}` ⇒ form only (2025-06-18 compatibility);
    /// otherwise exactly the modes present.
    pub fn elicitation_modes(&self) -> ElicitationModes {
        self.elicitation
            .as_ref()
            .map(ElicitationCapability::modes)
            .unwrap_or_default()
    }
}

/// The `elicitation` client capability: `{ "form"?: {}, "url"?: {} }`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ElicitationCapability {
    /// Present when form mode is declared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub form: Option<Map<String, Value>>,
    /// Present when URL mode is declared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<Map<String, Value>>,
    /// Members this crate does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ElicitationCapability {
    /// A capability listing the given modes explicitly.
    pub fn explicit(modes: ElicitationModes) -> Self {
        Self {
            form: modes.form.then(Map::new),
            url: modes.url.then(Map::new),
            extra: Map::new(),
        }
    }

    /// The supported modes; an object with neither `form` nor `url` means form only.
    pub fn modes(&self) -> ElicitationModes {
        if self.form.is_none() && self.url.is_none() {
            ElicitationModes::FORM
        } else {
            ElicitationModes {
                form: self.form.is_some(),
                url: self.url.is_some(),
            }
        }
    }
}

/// The elicitation modes a client accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ElicitationModes {
    /// Form mode allowed.
    pub form: bool,
    /// URL mode allowed.
    pub url: bool,
}

impl ElicitationModes {
    /// No elicitation at all.
    pub const NONE: Self = Self {
        form: false,
        url: false,
    };
    /// Form mode only.
    pub const FORM: Self = Self {
        form: true,
        url: false,
    };
    /// URL mode only.
    pub const URL: Self = Self {
        form: false,
        url: true,
    };
    /// Both modes.
    pub const BOTH: Self = Self {
        form: true,
        url: true,
    };

    /// Whether the given mode is allowed.
    pub fn allows(self, mode: crate::elicitation::ElicitationMode) -> bool {
        match mode {
            crate::elicitation::ElicitationMode::Form => self.form,
            crate::elicitation::ElicitationMode::Url => self.url,
        }
    }

    /// Whether any mode is allowed.
    pub fn any(self) -> bool {
        self.form || self.url
    }
}

/// A capability object whose only defined member is `listChanged`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ListChangedCapability {
    /// Whether list-changed notifications are sent.
    #[serde(
        default,
        rename = "listChanged",
        skip_serializing_if = "Option::is_none"
    )]
    pub list_changed: Option<bool>,
    /// Members this crate does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The `resources` server capability.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ResourcesCapability {
    /// Whether per-resource subscriptions are supported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subscribe: Option<bool>,
    /// Whether list-changed notifications are sent.
    #[serde(
        default,
        rename = "listChanged",
        skip_serializing_if = "Option::is_none"
    )]
    pub list_changed: Option<bool>,
    /// Members this crate does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// What a server supports.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ServerCapabilities {
    /// `tools`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<ListChangedCapability>,
    /// `prompts`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts: Option<ListChangedCapability>,
    /// `resources`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<ResourcesCapability>,
    /// `logging`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logging: Option<Map<String, Value>>,
    /// `completions`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completions: Option<Map<String, Value>>,
    /// `tasks` (2025-11-25), kept raw.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tasks: Option<Map<String, Value>>,
    /// `experimental`, kept raw.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experimental: Option<Map<String, Value>>,
    /// `extensions` (2026-07-28), kept raw.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<Map<String, Value>>,
    /// Members this crate does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Name and version of a client or server (`clientInfo`, `serverInfo`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Implementation {
    /// Programmatic name.
    pub name: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Version string.
    pub version: String,
    /// Description (2025-11-25 schema).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Icons.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Website.
    #[serde(
        default,
        rename = "websiteUrl",
        skip_serializing_if = "Option::is_none"
    )]
    pub website_url: Option<String>,
    /// Members this crate does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Implementation {
    /// `{ "name": …, "version": … }`.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            title: None,
            version: version.into(),
            description: None,
            icons: None,
            website_url: None,
            extra: Map::new(),
        }
    }

    /// Sets the display title (builder style).
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }
}

/// An icon.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Icon {
    /// URI of the image.
    pub src: String,
    /// MIME type.
    #[serde(default, rename = "mimeType", skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Sizes such as `"48x48"` or `"any"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sizes: Option<Vec<String>>,
    /// `"light"` or `"dark"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<String>,
    /// Members this crate does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
