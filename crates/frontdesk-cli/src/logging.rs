//! The log: `tracing` lines on stderr (or in `--log-file`), every field and message
//! escaped like any other server text, and held while an interactive screen is up
//! ([`frontdesk_host::logs`]) so no log line lands inside a form.

use std::fs::OpenOptions;
use std::io::IsTerminal;
use std::path::Path;

use anyhow::Context;
use frontdesk_host::logs::GatedStderr;
use frontdesk_host::sanitize::display_line;
use tracing_subscriber::Layer as _;
use tracing_subscriber::field::MakeExt;
use tracing_subscriber::filter::filter_fn;
use tracing_subscriber::fmt::format::{Writer, debug_fn};
use tracing_subscriber::fmt::writer::BoxMakeWriter;
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::util::SubscriberInitExt as _;

/// The most characters of one logged field.
const MAX_FIELD_CHARS: usize = 2000;

/// Write one field (`name=value`, or the message alone) escaped: a value a server
/// controls (`%error`, a line of its stderr, a tool name) cannot reach the terminal
/// raw, and a log line stays one line.
fn write_field(
    writer: &mut Writer<'_>,
    field: &tracing::field::Field,
    value: &dyn std::fmt::Debug,
) -> std::fmt::Result {
    let text = display_line(&format!("{value:?}"), MAX_FIELD_CHARS);
    if field.name() == "message" {
        writer.write_str(&text)
    } else {
        write!(writer, "{}={text}", field.name())
    }
}

/// The field formatter every subscriber of this binary uses.
pub fn escaped_fields() -> impl for<'w> tracing_subscriber::fmt::FormatFields<'w> + 'static {
    debug_fn(write_field).delimited(" ")
}

/// Start logging: `RUST_LOG` or `default` as the filter; to `log_file` (appended)
/// when given, else to stderr, held while a screen is interactive. With a
/// `tracer`, the library's spans (debug level and up, whatever the log's
/// filter) and its warnings and errors also go to OpenTelemetry.
pub fn init(
    default: &str,
    log_file: Option<&Path>,
    tracer: Option<opentelemetry_sdk::trace::SdkTracer>,
) -> anyhow::Result<()> {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    let (writer, ansi) = match log_file {
        Some(path) => {
            let file = OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .with_context(|| format!("cannot open the log file {}", path.display()))?;
            (BoxMakeWriter::new(std::sync::Mutex::new(file)), false)
        }
        None => (
            BoxMakeWriter::new(|| GatedStderr),
            std::io::stderr().is_terminal(),
        ),
    };
    let log = tracing_subscriber::fmt::layer()
        .fmt_fields(escaped_fields())
        .with_writer(writer)
        .with_ansi(ansi)
        .with_filter(filter);
    let traces = tracer.map(|tracer| {
        tracing_opentelemetry::layer()
            .with_tracer(tracer)
            .with_filter(filter_fn(|meta| {
                meta.target().starts_with("frontdesk")
                    && (meta.is_span() || *meta.level() <= tracing::Level::WARN)
            }))
    });
    tracing_subscriber::registry()
        .with(log)
        .with(traces)
        .try_init()
        .map_err(|e| anyhow::anyhow!("cannot start logging: {e}"))
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::sync::{Arc, Mutex};

    use frontdesk_host::sanitize::is_unsafe;
    use proptest::prelude::*;

    use super::*;

    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl Write for Captured {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            if let Ok(mut v) = self.0.lock() {
                v.extend_from_slice(buf);
            }
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn logged(emit: impl FnOnce()) -> String {
        let captured = Captured::default();
        let sink = captured.clone();
        let subscriber = tracing_subscriber::fmt()
            .fmt_fields(escaped_fields())
            .with_writer(move || sink.clone())
            .with_ansi(false)
            .finish();
        tracing::subscriber::with_default(subscriber, emit);
        let bytes = captured.0.lock().map(|v| v.clone()).unwrap_or_default();
        String::from_utf8_lossy(&bytes).into_owned()
    }

    fn hostile() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            Just("\u{1b}]0;PWNED\u{7}".to_owned()),
            Just("\u{1b}]8;;https://evil.example/\u{1b}\\x\u{1b}]8;;\u{1b}\\".to_owned()),
            Just("\u{9b}2J\u{202e}\u{200b}\r\n".to_owned()),
            "[a-z ]{0,6}",
            any::<char>().prop_map(|c| c.to_string()),
        ];
        proptest::collection::vec(piece, 1..6).prop_map(|p| p.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn no_field_of_a_log_line_reaches_the_terminal_raw(text in hostile()) {
            let out = logged(|| {
                tracing::warn!(error = %text, name = text.as_str(), "the server said {text}");
                tracing::info!(target: "frontdesk::client::server_stderr", "{text}");
            });
            let lines: Vec<&str> = out.lines().collect();
            prop_assert_eq!(lines.len(), 2, "one line per event: {:?}", out);
            let bad = out.chars().find(|&c| c != '\n' && is_unsafe(c));
            prop_assert!(bad.is_none(), "{:?} in {:?}", bad, out);
        }
    }

    #[test]
    fn an_osc_in_an_error_field_shows_escaped() {
        let out = logged(|| tracing::warn!(error = %"\u{1b}]0;PWNED\u{7}", "call failed"));
        assert!(
            out.contains(r"call failed error=\u{001B}]0;PWNED\u{0007}"),
            "{out}"
        );
    }
}
