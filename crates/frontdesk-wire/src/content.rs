//! Content blocks (tool results, prompt messages, sampling) and resource contents.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Number, Value};

use crate::capabilities::Icon;
use crate::meta::Meta;
use crate::util::{from_map, wire_tag};

wire_tag!(
    /// `"type": "text"`.
    TextTag = "text"
);
wire_tag!(
    /// `"type": "image"`.
    ImageTag = "image"
);
wire_tag!(
    /// `"type": "audio"`.
    AudioTag = "audio"
);
wire_tag!(
    /// `"type": "resource_link"`.
    ResourceLinkTag = "resource_link"
);
wire_tag!(
    /// `"type": "resource"`.
    EmbeddedResourceTag = "resource"
);
wire_tag!(
    /// `"type": "tool_use"`.
    ToolUseTag = "tool_use"
);
wire_tag!(
    /// `"type": "tool_result"`.
    ToolResultTag = "tool_result"
);

/// Who a message or annotation is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Role {
    /// The user.
    User,
    /// The assistant (model).
    Assistant,
}

/// Display hints on content.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Annotations {
    /// Intended audience.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audience: Option<Vec<Role>>,
    /// Importance from 0 to 1 (kept as the exact JSON number).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<Number>,
    /// ISO 8601 timestamp.
    #[serde(
        default,
        rename = "lastModified",
        skip_serializing_if = "Option::is_none"
    )]
    pub last_modified: Option<String>,
    /// Members this crate does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One content block, dispatched on `type`; unknown types are kept raw.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ContentBlock {
    /// `text`.
    Text(TextContent),
    /// `image`.
    Image(ImageContent),
    /// `audio`.
    Audio(AudioContent),
    /// `resource_link`.
    ResourceLink(ResourceLink),
    /// `resource` (embedded).
    Resource(EmbeddedResource),
    /// `tool_use` (sampling).
    ToolUse(ToolUseContent),
    /// `tool_result` (sampling).
    ToolResult(ToolResultContent),
    /// A `type` this crate does not know.
    Unknown(Map<String, Value>),
}

impl ContentBlock {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self::Text(TextContent::new(text))
    }

    /// An image block from base64 `data` (see [`ImageContent::from_bytes`]).
    pub fn image(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Self::Image(ImageContent::new(data, mime_type))
    }

    /// An audio block from base64 `data` (see [`AudioContent::from_bytes`]).
    pub fn audio(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Self::Audio(AudioContent::new(data, mime_type))
    }

    /// A link to a resource the client may read (`resource_link`).
    pub fn resource_link(resource: Resource) -> Self {
        Self::ResourceLink(ResourceLink {
            kind: ResourceLinkTag,
            resource,
        })
    }

    /// A resource embedded with its contents (`resource`).
    pub fn embedded(contents: ResourceContents) -> Self {
        Self::Resource(EmbeddedResource {
            kind: EmbeddedResourceTag,
            resource: contents,
            annotations: None,
            meta: None,
            extra: Map::new(),
        })
    }

    /// The text, for text blocks.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Self::Text(t) => Some(&t.text),
            _ => None,
        }
    }
}

impl Serialize for ContentBlock {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Text(c) => c.serialize(s),
            Self::Image(c) => c.serialize(s),
            Self::Audio(c) => c.serialize(s),
            Self::ResourceLink(c) => c.serialize(s),
            Self::Resource(c) => c.serialize(s),
            Self::ToolUse(c) => c.serialize(s),
            Self::ToolResult(c) => c.serialize(s),
            Self::Unknown(c) => c.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for ContentBlock {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let map = Map::<String, Value>::deserialize(d)?;
        let kind = match map.get("type") {
            Some(Value::String(kind)) => kind.clone(),
            Some(_) => return Err(D::Error::custom("content block \"type\" must be a string")),
            None => return Err(D::Error::missing_field("type")),
        };
        match kind.as_str() {
            "text" => from_map(map).map(Self::Text),
            "image" => from_map(map).map(Self::Image),
            "audio" => from_map(map).map(Self::Audio),
            "resource_link" => from_map(map).map(Self::ResourceLink),
            "resource" => from_map(map).map(Self::Resource),
            "tool_use" => from_map(map).map(Self::ToolUse),
            "tool_result" => from_map(map).map(Self::ToolResult),
            _ => Ok(Self::Unknown(map)),
        }
    }
}

/// Text content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TextContent {
    /// Always `"text"`.
    #[serde(rename = "type")]
    pub kind: TextTag,
    /// The text.
    pub text: String,
    /// Display hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// `_meta`.
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl TextContent {
    /// A plain text block.
    pub fn new(text: impl Into<String>) -> Self {
        Self {
            kind: TextTag,
            text: text.into(),
            annotations: None,
            meta: None,
            extra: Map::new(),
        }
    }
}

/// Base64 image content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImageContent {
    /// Always `"image"`.
    #[serde(rename = "type")]
    pub kind: ImageTag,
    /// Base64 data.
    pub data: String,
    /// MIME type.
    #[serde(rename = "mimeType")]
    pub mime_type: String,
    /// Display hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// `_meta`.
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ImageContent {
    /// An image from base64 `data`.
    pub fn new(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Self {
            kind: ImageTag,
            data: data.into(),
            mime_type: mime_type.into(),
            annotations: None,
            meta: None,
            extra: Map::new(),
        }
    }

    /// An image from raw bytes (base64-encoded here).
    pub fn from_bytes(bytes: &[u8], mime_type: impl Into<String>) -> Self {
        Self::new(STANDARD.encode(bytes), mime_type)
    }
}

/// Base64 audio content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AudioContent {
    /// Always `"audio"`.
    #[serde(rename = "type")]
    pub kind: AudioTag,
    /// Base64 data.
    pub data: String,
    /// MIME type.
    #[serde(rename = "mimeType")]
    pub mime_type: String,
    /// Display hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// `_meta`.
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl AudioContent {
    /// Audio from base64 `data`.
    pub fn new(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Self {
            kind: AudioTag,
            data: data.into(),
            mime_type: mime_type.into(),
            annotations: None,
            meta: None,
            extra: Map::new(),
        }
    }

    /// Audio from raw bytes (base64-encoded here).
    pub fn from_bytes(bytes: &[u8], mime_type: impl Into<String>) -> Self {
        Self::new(STANDARD.encode(bytes), mime_type)
    }
}

/// A resource description (`Resource`), also the body of a `resource_link`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Resource {
    /// The URI.
    pub uri: String,
    /// Programmatic name.
    pub name: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// MIME type.
    #[serde(default, rename = "mimeType", skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Size in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Icons.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Display hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// `_meta`.
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Resource {
    /// A resource with a URI and a name.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            size: None,
            icons: None,
            annotations: None,
            meta: None,
            extra: Map::new(),
        }
    }

    /// Sets the display title (builder style).
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Sets the description (builder style).
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Sets the MIME type (builder style).
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }
}

/// A link to a resource (`resource_link`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResourceLink {
    /// Always `"resource_link"`.
    #[serde(rename = "type")]
    pub kind: ResourceLinkTag,
    /// The linked resource.
    #[serde(flatten)]
    pub resource: Resource,
}

/// A resource embedded in content (`resource`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EmbeddedResource {
    /// Always `"resource"`.
    #[serde(rename = "type")]
    pub kind: EmbeddedResourceTag,
    /// The contents.
    pub resource: ResourceContents,
    /// Display hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// `_meta`.
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A tool invocation requested by a model (sampling).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolUseContent {
    /// Always `"tool_use"`.
    #[serde(rename = "type")]
    pub kind: ToolUseTag,
    /// Id of this tool use.
    pub id: String,
    /// Tool name.
    pub name: String,
    /// Arguments.
    pub input: Map<String, Value>,
    /// `_meta`.
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The result of a tool use (sampling).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolResultContent {
    /// Always `"tool_result"`.
    #[serde(rename = "type")]
    pub kind: ToolResultTag,
    /// Id of the tool use this answers.
    #[serde(rename = "toolUseId")]
    pub tool_use_id: String,
    /// Result content.
    pub content: Vec<ContentBlock>,
    /// Structured result.
    #[serde(
        default,
        rename = "structuredContent",
        skip_serializing_if = "Option::is_none"
    )]
    pub structured_content: Option<Value>,
    /// Whether the tool failed.
    #[serde(default, rename = "isError", skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// `_meta`.
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Contents of a resource: text or base64 blob (decided by which key is present).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ResourceContents {
    /// `text` present.
    Text(TextResourceContents),
    /// `blob` present.
    Blob(BlobResourceContents),
}

impl Serialize for ResourceContents {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Text(c) => c.serialize(s),
            Self::Blob(c) => c.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for ResourceContents {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let map = Map::<String, Value>::deserialize(d)?;
        if map.contains_key("text") {
            from_map(map).map(Self::Text)
        } else if map.contains_key("blob") {
            from_map(map).map(Self::Blob)
        } else {
            Err(D::Error::custom(
                "resource contents need \"text\" or \"blob\"",
            ))
        }
    }
}

impl ResourceContents {
    /// Text contents of `uri`.
    pub fn text(uri: impl Into<String>, text: impl Into<String>) -> Self {
        Self::Text(TextResourceContents {
            uri: uri.into(),
            mime_type: None,
            text: text.into(),
            meta: None,
            extra: Map::new(),
        })
    }

    /// Binary contents of `uri` from raw bytes (base64-encoded here).
    pub fn blob(uri: impl Into<String>, bytes: &[u8]) -> Self {
        Self::Blob(BlobResourceContents {
            uri: uri.into(),
            mime_type: None,
            blob: STANDARD.encode(bytes),
            meta: None,
            extra: Map::new(),
        })
    }

    /// Sets the MIME type (builder style).
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Self {
        let mime_type = Some(mime_type.into());
        match &mut self {
            Self::Text(c) => c.mime_type = mime_type,
            Self::Blob(c) => c.mime_type = mime_type,
        }
        self
    }

    /// The URI these contents belong to.
    pub fn uri(&self) -> &str {
        match self {
            Self::Text(c) => &c.uri,
            Self::Blob(c) => &c.uri,
        }
    }
}

/// Text resource contents.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TextResourceContents {
    /// The URI.
    pub uri: String,
    /// MIME type.
    #[serde(default, rename = "mimeType", skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// The text.
    pub text: String,
    /// `_meta`.
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Binary resource contents.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BlobResourceContents {
    /// The URI.
    pub uri: String,
    /// MIME type.
    #[serde(default, rename = "mimeType", skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Base64 data.
    pub blob: String,
    /// `_meta`.
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members this crate does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
