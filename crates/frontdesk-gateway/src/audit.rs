//! The audit file: one JSON object per line for each question an upstream
//! server asked through the gateway — when, which server and tool, the mode,
//! the message, what came of it and how long the person took — appended to
//! a file or written to stderr ([`AuditLog`]). An answer's content is
//! written only when asked for ([`AuditLog::with_answers`]); a URL question's
//! URL only as its host (its path and query often carry a one-time code).
//!
//! ```json
//! {"at":"2026-12-04T09:30:12.118Z","server":"store","tool":"book_return","mode":"form","message":"Return details","outcome":"accept","took_ms":5120}
//! ```

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

use serde_json::{Map, Value};

/// Where the audit lines go.
enum Sink {
    File(File),
    Stderr,
}

/// The audit file of a gateway: hand it to
/// [`GatewayOptions::audit`](crate::GatewayOptions::audit).
///
/// ```no_run
/// # fn main() -> std::io::Result<()> {
/// use std::sync::Arc;
/// use frontdesk_gateway::{AuditLog, GatewayOptions};
///
/// let mut options = GatewayOptions::default();
/// options.audit = Some(Arc::new(AuditLog::append_to("/var/log/frontdesk/audit.jsonl".as_ref())?));
/// # Ok(()) }
/// ```
pub struct AuditLog {
    sink: Mutex<Sink>,
    answers: bool,
}

impl std::fmt::Debug for AuditLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuditLog")
            .field("answers", &self.answers)
            .finish_non_exhaustive()
    }
}

impl AuditLog {
    /// Append to the file at `path` (created when missing, readable by its
    /// owner only on Unix).
    pub fn append_to(path: &Path) -> std::io::Result<Self> {
        let mut options = OpenOptions::new();
        options.create(true).append(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        Ok(Self {
            sink: Mutex::new(Sink::File(options.open(path)?)),
            answers: false,
        })
    }

    /// Write to stderr, one line per question, beside the log.
    pub fn stderr() -> Self {
        Self {
            sink: Mutex::new(Sink::Stderr),
            answers: false,
        }
    }

    /// Also write an accepted answer's content (`"content"`): only where the
    /// file is kept as carefully as the answers themselves.
    #[must_use]
    pub fn with_answers(mut self, answers: bool) -> Self {
        self.answers = answers;
        self
    }

    /// Write one record; a failed write goes to the log, never to the caller.
    pub(crate) fn write(&self, record: &Record<'_>) {
        let mut line = record.to_json(self.answers).to_string();
        line.push('\n');
        let Ok(mut sink) = self.sink.lock() else {
            return;
        };
        let written = match &mut *sink {
            Sink::File(file) => file.write_all(line.as_bytes()),
            Sink::Stderr => std::io::stderr().lock().write_all(line.as_bytes()),
        };
        if let Err(e) = written {
            tracing::error!(error = %e, "cannot write the audit file");
        }
    }
}

/// One question and what came of it.
pub(crate) struct Record<'a> {
    pub(crate) server: &'a str,
    pub(crate) tool: &'a str,
    pub(crate) mode: &'a str,
    pub(crate) message: &'a str,
    /// A URL question's URL (only its host is written).
    pub(crate) url: Option<&'a str>,
    pub(crate) outcome: &'a str,
    /// Why the gateway refused it.
    pub(crate) reason: Option<&'a str>,
    pub(crate) took: Option<Duration>,
    /// An accepted form's content.
    pub(crate) content: Option<&'a Map<String, Value>>,
}

impl Record<'_> {
    fn to_json(&self, answers: bool) -> Value {
        let mut out = Map::new();
        let at = time::OffsetDateTime::now_utc()
            .format(&time::format_description::well_known::Rfc3339)
            .unwrap_or_default();
        out.insert("at".into(), at.into());
        out.insert("server".into(), self.server.into());
        out.insert("tool".into(), self.tool.into());
        out.insert("mode".into(), self.mode.into());
        out.insert("message".into(), self.message.into());
        if let Some(host) = self
            .url
            .and_then(|u| url::Url::parse(u).ok())
            .and_then(|u| u.host_str().map(str::to_owned))
        {
            out.insert("url_host".into(), host.into());
        }
        out.insert("outcome".into(), self.outcome.into());
        if let Some(reason) = self.reason {
            out.insert("reason".into(), reason.into());
        }
        if let Some(took) = self.took {
            let ms = u64::try_from(took.as_millis()).unwrap_or(u64::MAX);
            out.insert("took_ms".into(), ms.into());
        }
        if answers && let Some(content) = self.content {
            out.insert("content".into(), Value::Object(content.clone()));
        }
        Value::Object(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record<'a>(content: Option<&'a Map<String, Value>>) -> Record<'a> {
        Record {
            server: "store",
            tool: "book_return",
            mode: "url",
            message: "Sign in",
            url: Some("https://auth.example.com/authorize?code=SECRET"),
            outcome: "accept",
            reason: None,
            took: Some(Duration::from_millis(1234)),
            content,
        }
    }

    #[test]
    fn a_record_names_the_host_only_and_no_content_unless_asked() {
        let mut content = Map::new();
        content.insert("email".into(), "a@example.com".into());
        let json = record(Some(&content)).to_json(false);
        assert_eq!(json["url_host"], "auth.example.com");
        assert_eq!(json["took_ms"], 1234);
        assert!(!json.to_string().contains("SECRET"), "{json}");
        assert!(json.get("content").is_none(), "{json}");
        let with = record(Some(&content)).to_json(true);
        assert_eq!(with["content"]["email"], "a@example.com");
        let at = json["at"].as_str().unwrap_or_default();
        assert!(at.len() >= 20 && at.ends_with('Z'), "{at}");
    }

    #[test]
    fn the_file_gets_one_line_per_record() {
        let dir = std::env::temp_dir().join(format!("fd-audit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).ok();
        let path = dir.join("audit.jsonl");
        std::fs::remove_file(&path).ok();
        let log = AuditLog::append_to(&path).map_err(|e| e.to_string());
        let Ok(log) = log else {
            panic!("open: {log:?}");
        };
        log.write(&record(None));
        log.write(&record(None));
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2, "{text}");
        for line in lines {
            let v: Value = serde_json::from_str(line).unwrap_or(Value::Null);
            assert_eq!(v["outcome"], "accept");
        }
        std::fs::remove_dir_all(&dir).ok();
    }
}
