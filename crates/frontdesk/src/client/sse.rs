//! A small Server-Sent Events reader: bytes in, events out.
//!
//! Lines end with `\n`, `\r\n` or `\r`; `data:` lines of one event are joined
//! with `\n`; `id:` and `retry:` are kept; comments (`:`) are skipped. An
//! event is dispatched at a blank line. Bounded: the parser never holds more
//! than the limit (a line, plus the event being built); an event that grows
//! past it is dropped whole, with a warning, and the stream goes on.

use std::time::Duration;

/// Longest `id:` kept (a longer one is ignored, as if absent).
const MAX_ID: usize = 1024;

/// One dispatched event.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct SseEvent {
    /// `id:` of the event, if it had one.
    pub id: Option<String>,
    /// The joined `data:` lines (empty for priming events).
    pub data: String,
    /// `retry:` in milliseconds, if given.
    pub retry: Option<Duration>,
}

/// Incremental parser.
#[derive(Debug)]
pub(crate) struct SseParser {
    buf: Vec<u8>,
    current: SseEvent,
    has_data: bool,
    /// The event being built went over the limit: drop it at its end.
    oversized: bool,
    limit: usize,
    skip_cr_lf: bool,
}

impl SseParser {
    /// A parser that drops events above `limit` bytes.
    pub(crate) fn new(limit: usize) -> Self {
        Self {
            buf: Vec::new(),
            current: SseEvent::default(),
            has_data: false,
            oversized: false,
            limit,
            skip_cr_lf: false,
        }
    }

    /// Feed bytes; returns the events completed by them.
    pub(crate) fn feed(&mut self, bytes: &[u8]) -> Vec<SseEvent> {
        let mut out = Vec::new();
        for &b in bytes {
            if self.skip_cr_lf {
                self.skip_cr_lf = false;
                if b == b'\n' {
                    continue;
                }
            }
            match b {
                b'\n' | b'\r' => {
                    self.skip_cr_lf = b == b'\r';
                    let line = std::mem::take(&mut self.buf);
                    if let Some(ev) = self.line(&line) {
                        out.push(ev);
                    }
                }
                _ => {
                    if self.buf.len() + self.current.data.len() < self.limit {
                        self.buf.push(b);
                    } else {
                        self.oversized = true;
                    }
                }
            }
        }
        out
    }

    fn line(&mut self, line: &[u8]) -> Option<SseEvent> {
        if line.is_empty() {
            let ev = std::mem::take(&mut self.current);
            let had = std::mem::replace(&mut self.has_data, false);
            if std::mem::replace(&mut self.oversized, false) {
                tracing::warn!(
                    limit = self.limit,
                    "an event from the server is over the size limit; dropped"
                );
                return None;
            }
            return (had || ev.id.is_some() || ev.retry.is_some()).then_some(ev);
        }
        if self.oversized {
            return None;
        }
        if line.first() == Some(&b':') {
            return None;
        }
        let text = String::from_utf8_lossy(line);
        let (field, value) = match text.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (text.as_ref(), ""),
        };
        match field {
            "data" => {
                let joined = usize::from(self.has_data) + value.len();
                if self.current.data.len() + joined > self.limit {
                    self.oversized = true;
                    self.current = SseEvent::default();
                    return None;
                }
                if self.has_data {
                    self.current.data.push('\n');
                }
                self.has_data = true;
                self.current.data.push_str(value);
            }
            "id" if !value.contains('\0') && value.len() <= MAX_ID => {
                self.current.id = Some(value.to_string());
            }
            "retry" => {
                if let Ok(ms) = value.trim().parse::<u64>() {
                    self.current.retry = Some(Duration::from_millis(ms));
                }
            }
            _ => {}
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_across_chunks_and_line_endings() {
        let mut p = SseParser::new(1 << 20);
        let mut evs =
            p.feed(b"id: 1\r\nretry: 500\r\ndata: \r\n\r\n: keepalive\n\nevent: message\nda");
        evs.extend(p.feed(b"ta: {\"a\":1}\ndata: x\r\r"));
        assert_eq!(evs.len(), 2);
        assert_eq!(evs[0].id.as_deref(), Some("1"));
        assert_eq!(evs[0].retry, Some(Duration::from_millis(500)));
        assert_eq!(evs[0].data, "");
        assert_eq!(evs[1].data, "{\"a\":1}\nx");
    }

    /// What a hostile server can do inside one event: a huge line, endless
    /// `data:` lines (even empty ones), a huge id. The parser stays within its
    /// limit, drops that event, and reads the next one.
    #[test]
    fn an_endless_event_is_bounded_and_dropped() {
        let limit = 1000;
        let attacks: [Vec<u8>; 3] = [
            [b"data: ".as_slice(), &vec![b'x'; 100_000], b"\n"].concat(),
            b"data:\n".repeat(100_000),
            [b"id: ".as_slice(), &vec![b'7'; 100_000], b"\ndata: ok\n"].concat(),
        ];
        for (i, attack) in attacks.iter().enumerate() {
            let mut p = SseParser::new(limit);
            let mut events = Vec::new();
            for chunk in attack.chunks(4096) {
                events.extend(p.feed(chunk));
                assert!(
                    p.buf.len() + p.current.data.len() <= limit,
                    "attack {i} grew the parser past its limit"
                );
            }
            events.extend(p.feed(b"\n\ndata: next\n\n"));
            let data: Vec<&str> = events.iter().map(|e| e.data.as_str()).collect();
            assert_eq!(data, ["next"], "attack {i}");
        }
    }
}
