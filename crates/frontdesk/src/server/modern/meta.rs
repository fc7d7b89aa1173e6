//! The per-request `_meta` every 2026-07-28 request carries, checked in the
//! order the conformance suite probes it: missing `_meta` or version
//! (`-32602`), unsupported version (`-32022`), missing capabilities
//! (`-32602`).

use std::cell::RefCell;

use frontdesk_wire::{
    ClientCapabilities, ErrorObject, LoggingLevel, ProgressToken, Revision, meta_key, version,
};
use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::server::api::error::RpcError;
use crate::server::contract::caps::ClientCaps;
use crate::server::contract::incoming::MetaFields;

/// What a valid request `_meta` says.
pub(crate) struct RequestMeta {
    /// The client capabilities of this request.
    pub(crate) capabilities: ClientCaps,
    pub(crate) progress_token: Option<ProgressToken>,
    /// The lowest level the client wants log messages at, if any.
    pub(crate) log_level: Option<LoggingLevel>,
}

/// Check the `_meta` of a 2026-07-28 request (`None`: absent, or not an
/// object) and take its client capabilities (the round keeps them).
pub(crate) fn validate(meta: Option<MetaFields>) -> Result<RequestMeta, RpcError> {
    let meta = meta.ok_or_else(|| RpcError::missing_meta("_meta"))?;
    let requested = meta.version().ok_or_else(|| {
        RpcError::missing_meta(&format!("_meta[\"{}\"]", meta_key::PROTOCOL_VERSION))
    })?;
    if requested != Revision::V2026_07_28.as_str() {
        return Err(ErrorObject::unsupported_protocol_version(
            requested,
            version::SUPPORTED.iter().copied(),
        )
        .into());
    }
    let readable = meta.client_capabilities.as_deref().is_some_and(readable);
    let progress_token = meta.progress_token();
    let log_level = meta
        .log_level
        .as_ref()
        .and_then(|l| LoggingLevel::deserialize(l).ok());
    let capabilities = readable
        .then_some(meta.client_capabilities)
        .flatten()
        .map(ClientCaps::from_text)
        .ok_or_else(|| {
            RpcError::missing_meta(&format!("_meta[\"{}\"]", meta_key::CLIENT_CAPABILITIES))
        })?;
    Ok(RequestMeta {
        capabilities,
        progress_token,
        log_level,
    })
}

/// Whether `caps` reads as the wire's `ClientCapabilities`, as its value
/// would: read from the text, and only when that fails from the value (a
/// member given twice is refused by the typed reading of text and taken
/// once, the last, by a value).
///
/// A client sends the same text with every request, and the typed reading
/// (whose unknown members are `#[serde(flatten)]`ed, so buffered first) is
/// 2–3 % of a call's instructions; texts found readable are remembered
/// per thread ([`RecentlyReadable`]), so the same text is read once.
fn readable(caps: &RawValue) -> bool {
    let text = caps.get();
    if RECENTLY_READABLE.with_borrow(|recent| recent.contains(text)) {
        return true;
    }
    let readable = read_typed(text);
    if readable {
        RECENTLY_READABLE.with_borrow_mut(|recent| recent.remember(text));
    }
    readable
}

/// [`readable`] without the memory.
fn read_typed(text: &str) -> bool {
    serde_json::from_str::<ClientCapabilities>(text).is_ok()
        || serde_json::from_str::<Value>(text)
            .is_ok_and(|v| ClientCapabilities::deserialize(&v).is_ok())
}

thread_local! {
    static RECENTLY_READABLE: RefCell<RecentlyReadable> = const {
        RefCell::new(RecentlyReadable::new())
    };
}

/// The last few capabilities texts a thread found readable: at most
/// [`SLOTS`](Self::SLOTS) texts of at most [`MAX_TEXT`](Self::MAX_TEXT)
/// bytes each, the oldest replaced first. Readability is a function of the
/// text alone, so a text found here is judged as reading it would; only
/// texts that read are kept, so what a client sends can evict an entry but
/// never make another's text pass.
struct RecentlyReadable {
    texts: [Option<Box<str>>; Self::SLOTS],
    next: usize,
}

impl RecentlyReadable {
    /// How many texts a thread keeps (a server's clients are usually a few
    /// kinds of client, each sending one text).
    const SLOTS: usize = 4;
    /// Longer texts are read every time (`{"elicitation":{"form":{},"url":{}}}`
    /// is 35 bytes).
    const MAX_TEXT: usize = 512;

    const fn new() -> Self {
        Self {
            texts: [const { None }; Self::SLOTS],
            next: 0,
        }
    }

    fn contains(&self, text: &str) -> bool {
        self.texts.iter().flatten().any(|kept| **kept == *text)
    }

    fn remember(&mut self, text: &str) {
        if text.len() <= Self::MAX_TEXT
            && let Some(slot) = self.texts.get_mut(self.next)
        {
            *slot = Some(text.into());
            self.next = (self.next + 1) % Self::SLOTS;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::contract::caps::Elicitation;
    use serde_json::json;

    fn with_caps(text: &str) -> Result<RequestMeta, RpcError> {
        validate(Some(MetaFields {
            protocol_version: Some(json!("2026-07-28")),
            client_capabilities: Some(RawValue::from_string(text.into()).unwrap()),
            ..MetaFields::default()
        }))
    }

    #[test]
    fn capabilities_are_read_as_their_value_would_be() {
        // Twice the same member: the typed reading of the text refuses it,
        // a value keeps the last; the value decides, as before.
        let twice = with_caps(r#"{"elicitation":{"url":{}},"elicitation":{"form":{}}}"#)
            .map(|m| m.capabilities.declared().elicitation);
        assert_eq!(
            twice.ok().flatten(),
            Some(Elicitation::Object {
                form: true,
                url: false
            })
        );
        // Nested past serde_json's recursion limit: the text is kept (its
        // syntax is all that is checked when the request is read), and
        // neither reading takes it.
        let deep = format!(r#"{{"x":{}1{}}}"#, "[".repeat(200), "]".repeat(200));
        for unreadable in [
            r#"{"elicitation":5}"#,
            "[]",
            "null",
            r#"{"roots":[]}"#,
            &deep,
        ] {
            let e = with_caps(unreadable).err().map(|e| e.code().0);
            assert_eq!(e, Some(-32602), "{unreadable}");
        }
        let usual =
            with_caps(r#"{"elicitation":{"form":{}},"x":1}"#).map(|m| m.capabilities.to_value());
        assert_eq!(
            usual.ok(),
            Some(json!({"elicitation": {"form": {}}, "x": 1}))
        );
    }

    #[test]
    fn remembered_texts_are_judged_as_reading_them_would() {
        let texts = [
            r#"{"elicitation":{"form":{}}}"#,
            r#"{"elicitation":5}"#,
            r#"{"elicitation":{"url":{}},"elicitation":{"form":{}}}"#,
            r#"{"roots":[]}"#,
            r#"{"roots":{"listChanged":true}}"#,
            "{}",
            "[]",
        ];
        // Twice over, in both orders: the second judgement of each text is
        // the one that can come from the memory.
        for round in 0..2 {
            let mut order = texts.to_vec();
            if round == 1 {
                order.reverse();
            }
            for text in order {
                let caps = RawValue::from_string(text.into()).unwrap();
                assert_eq!(readable(&caps), read_typed(text), "{text}");
            }
        }
        // Only what reads is kept.
        RECENTLY_READABLE.with_borrow(|recent| {
            assert!(recent.contains(r#"{"elicitation":{"form":{}}}"#));
            assert!(!recent.contains(r#"{"elicitation":5}"#));
            assert!(!recent.contains(r#"{"roots":[]}"#));
        });
    }

    #[test]
    fn the_memory_is_bounded() {
        let mut recent = RecentlyReadable::new();
        let texts: Vec<String> = (0..=RecentlyReadable::SLOTS)
            .map(|n| format!(r#"{{"x{n}":{{}}}}"#))
            .collect();
        for text in &texts {
            recent.remember(text);
        }
        // The oldest went when the slots were full; the rest are there.
        assert!(!recent.contains(&texts[0]));
        assert!(texts[1..].iter().all(|t| recent.contains(t)));
        // A text over the bound is not kept.
        let long = format!(r#"{{"x":"{}"}}"#, "a".repeat(RecentlyReadable::MAX_TEXT));
        recent.remember(&long);
        assert!(!recent.contains(&long));
        assert!(texts[1..].iter().all(|t| recent.contains(t)));
    }
}
