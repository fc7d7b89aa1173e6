//! The matcher [`UriTemplate::matches`] had before issue 24, kept as the
//! reference the linear matcher is checked against (the proptests next to
//! it, the `uri_template` fuzz target). It tries every end of each variable
//! and decodes a copy of each candidate: quadratic in the URI's length with
//! one variable, worse with more. Never used to serve.

use crate::server::api::uri_template::{Part, UriTemplate, decode};

/// The variables of `uri`, when it matches: what the old matcher answered.
pub(crate) fn matches(template: &UriTemplate, uri: &str) -> Option<Vec<(String, String)>> {
    let mut out = Vec::new();
    match_parts(&template.parts, uri, &mut out).then_some(out)
}

fn match_parts(parts: &[Part], uri: &str, out: &mut Vec<(String, String)>) -> bool {
    let Some((first, rest)) = parts.split_first() else {
        return uri.is_empty();
    };
    match first {
        Part::Literal(lit) => uri
            .strip_prefix(lit.as_str())
            .is_some_and(|after| match_parts(rest, after, out)),
        Part::Var { name, reserved } => {
            let limit = if *reserved {
                uri.len()
            } else {
                uri.find(['/', '?', '#']).unwrap_or(uri.len())
            };
            for end in (1..=limit).filter(|e| uri.is_char_boundary(*e)) {
                let Some(value) = decode(&uri[..end], *reserved) else {
                    continue;
                };
                let mark = out.len();
                out.push((name.clone(), value));
                if match_parts(rest, &uri[end..], out) {
                    return true;
                }
                out.truncate(mark);
            }
            false
        }
    }
}

/// The template with each variable replaced by its value as it is (no
/// encoding), for checking a match the other way round.
pub(crate) fn expand(template: &UriTemplate, values: &[(String, String)]) -> String {
    template
        .parts
        .iter()
        .map(|part| match part {
            Part::Literal(lit) => lit.as_str(),
            Part::Var { name, .. } => values
                .iter()
                .find(|(n, _)| n == name)
                .map_or("", |(_, v)| v.as_str()),
        })
        .collect()
}
