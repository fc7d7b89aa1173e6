//! The table of URLs in `tests/data/urls.tsv`: each line is
//! `url<TAB>verdict<TAB>codes[<TAB>policy]`, and every mismatch is reported at once.
//!
//! In the url column: `\u{202E}`, `\t`, `\n`, `\\` are escapes and `{repeat:N:s}`
//! repeats `s` N times. Codes are comma-separated stable names, or `-` for none.
//! The policy column is `;`-separated: `trust=DOMAIN`, `scheme=NAME`,
//! `loopback=false`, `max=N`.

use std::collections::BTreeSet;

use frontdesk_url::{FindingCode, UrlPolicy, Verdict, review};

const TABLE: &str = include_str!("../data/urls.tsv");

/// Expand the escapes of the url column.
pub fn unescape(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(c) = rest.chars().next() {
        if let Some(r) = rest.strip_prefix("\\u{") {
            let end = r.find('}').expect("closing brace of \\u{");
            let code = u32::from_str_radix(&r[..end], 16).expect("hex escape");
            out.push(char::from_u32(code).expect("scalar value"));
            rest = &r[end + 1..];
        } else if let Some(r) = rest.strip_prefix("\\t") {
            out.push('\t');
            rest = r;
        } else if let Some(r) = rest.strip_prefix("\\n") {
            out.push('\n');
            rest = r;
        } else if let Some(r) = rest.strip_prefix("\\\\") {
            out.push('\\');
            rest = r;
        } else if let Some(r) = rest.strip_prefix("{repeat:") {
            let end = r.find('}').expect("closing brace of {repeat:");
            let (n, piece) = r[..end].split_once(':').expect("{repeat:N:s}");
            out.push_str(&piece.repeat(n.parse().expect("repeat count")));
            rest = &r[end + 1..];
        } else {
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

fn policy(spec: Option<&str>) -> UrlPolicy {
    let mut p = UrlPolicy::default();
    for item in spec.unwrap_or("").split(';').filter(|s| !s.is_empty()) {
        let (k, v) = item.split_once('=').expect("key=value");
        p = match k {
            "trust" => p.trust_domain(v),
            "scheme" => p.allow_scheme(v),
            "loopback" => p.allow_loopback_http(v.parse().expect("bool")),
            "max" => p.max_url_length(v.parse().expect("number")),
            other => panic!("unknown policy key {other}"),
        };
    }
    p
}

#[test]
fn url_table() {
    let mut mismatches = Vec::new();
    let mut count = 0;
    for (n, line) in TABLE.lines().enumerate() {
        let lineno = n + 1;
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let cols: Vec<&str> = line.split('\t').collect();
        assert!(
            (3..=4).contains(&cols.len()),
            "line {lineno}: expected 3 or 4 tab-separated columns, got {}",
            cols.len()
        );
        count += 1;
        let input = unescape(cols[0]);
        let want_verdict: Verdict = cols[1]
            .parse()
            .unwrap_or_else(|e| panic!("line {lineno}: {e}"));
        let want_codes: BTreeSet<FindingCode> = if cols[2] == "-" {
            BTreeSet::new()
        } else {
            cols[2]
                .split(',')
                .map(|c| {
                    c.trim()
                        .parse()
                        .unwrap_or_else(|e| panic!("line {lineno}: {e}"))
                })
                .collect()
        };
        let r = review(&input, &policy(cols.get(3).copied()));
        let got_codes: BTreeSet<FindingCode> = r.findings().iter().map(|f| f.code).collect();
        if r.verdict() != want_verdict || got_codes != want_codes {
            let show = |s: &BTreeSet<FindingCode>| {
                s.iter().map(|c| c.as_str()).collect::<Vec<_>>().join(",")
            };
            mismatches.push(format!(
                "line {lineno}: {}\n    want {} [{}]\n    got  {} [{}]",
                cols[0],
                want_verdict,
                show(&want_codes),
                r.verdict(),
                show(&got_codes)
            ));
        }
    }
    assert!(
        count >= 80,
        "the table should have at least 80 URLs, has {count}"
    );
    assert!(
        mismatches.is_empty(),
        "{} of {count} URLs differ:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
}

#[test]
fn unescape_works() {
    assert_eq!(
        unescape("a\\u{202E}b\\t{repeat:3:xy}\\\\"),
        "a\u{202E}b\txyxyxy\\"
    );
}
