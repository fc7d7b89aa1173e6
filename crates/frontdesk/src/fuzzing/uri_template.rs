//! The `uri_template` target: the resource template matcher on a template
//! and a URI (issue 24: the old one was quadratic or worse in the URI).
//!
//! Input: the template up to the first newline, then the URI (both read as
//! UTF-8, invalid bytes replaced, as a JSON string always is).

use crate::server::api::uri_template::{UriTemplate, reference};

/// URIs up to this long, with at most [`REFERENCE_VARIABLES`] variables, are
/// also matched by the old matcher (its cost grows as the length to the power
/// of the number of variables).
const REFERENCE_BYTES: usize = 48;
const REFERENCE_VARIABLES: usize = 3;

/// Parse the template (an unsupported one is refused, never a panic), then
/// match the URI: on short inputs exactly what the old matcher answered; the
/// captured raw values lie end to end between the template's literals
/// (expanding them gives the URI back), none empty, a simple one without
/// `/`, `?` or `#`; without escapes in the URI the decoded values expand to
/// it too.
pub fn uri_template(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let (source, uri) = text.split_once('\n').unwrap_or((&text, ""));
    let Ok(template) = UriTemplate::parse(source) else {
        return;
    };
    let found = template.matches(uri);
    if uri.len() <= REFERENCE_BYTES && template.variables().count() <= REFERENCE_VARIABLES {
        assert_eq!(
            found,
            reference::matches(&template, uri),
            "{source:?} on {uri:?}: the linear matcher differs from the old one"
        );
    }
    let captures = template.captures(uri);
    assert_eq!(captures.is_some(), found.is_some());
    let Some(captures) = captures else {
        return;
    };
    let raw: Vec<(String, String)> = captures
        .iter()
        .map(|c| {
            let value = &uri[c.range.clone()];
            assert!(!value.is_empty(), "{source:?} on {uri:?}: an empty value");
            assert!(
                c.reserved || !value.contains(['/', '?', '#']),
                "{source:?} on {uri:?}: a simple value {value:?} with a separator"
            );
            (c.name.to_string(), value.to_string())
        })
        .collect();
    assert_eq!(reference::expand(&template, &raw), uri, "{source:?}");
    if !uri.contains('%') {
        let values = found.unwrap_or_default();
        assert_eq!(values, raw, "{source:?} on {uri:?}");
        assert_eq!(reference::expand(&template, &values), uri, "{source:?}");
    }
}

/// The variables `template` reads out of `uri` (`Err` for a template
/// outside the supported subset), with the matcher the server uses, or
/// with the old one (`old`): for benchmarks.
pub fn uri_template_matches(
    template: &str,
    uri: &str,
    old: bool,
) -> Result<Option<Vec<(String, String)>>, String> {
    let template = UriTemplate::parse(template).map_err(|e| e.to_string())?;
    Ok(if old {
        reference::matches(&template, uri)
    } else {
        template.matches(uri)
    })
}
