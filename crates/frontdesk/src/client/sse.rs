//! A small Server-Sent Events reader: bytes in, events out.
//!
//! Lines end with `\n`, `\r\n` or `\r`; `data:` lines of one event are joined
//! with `\n`; `id:` and `retry:` are kept; comments (`:`) are skipped. An
//! event is dispatched at a blank line. Bounded: an event larger than the
//! limit is dropped.

use std::time::Duration;

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
    limit: usize,
    skip_cr_lf: bool,
}

impl SseParser {
    /// A parser that drops events above `limit` bytes.
    pub fn new(limit: usize) -> Self {
        Self {
            buf: Vec::new(),
            current: SseEvent::default(),
            has_data: false,
            limit,
            skip_cr_lf: false,
        }
    }

    /// Feed bytes; returns the events completed by them.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<SseEvent> {
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
            return (had || ev.id.is_some() || ev.retry.is_some()).then_some(ev);
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
                if self.has_data {
                    self.current.data.push('\n');
                }
                self.has_data = true;
                if self.current.data.len() + value.len() <= self.limit {
                    self.current.data.push_str(value);
                }
            }
            "id" if !value.contains('\0') => self.current.id = Some(value.to_string()),
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
}
