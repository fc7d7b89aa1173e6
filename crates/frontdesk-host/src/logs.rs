//! Log lines never land inside an interactive screen.
//!
//! While a screen holds the terminal ([`hold`]: a form, a consent screen, a menu),
//! whatever is written to [`GatedStderr`] waits; when the last hold ends, the waiting
//! lines are written to stderr in order. A host's logger writes to `GatedStderr` (the
//! CLI's does, unless `--log-file` sends the log elsewhere). At most
//! [`MAX_HELD_BYTES`] wait; past that, the oldest go and the count of dropped lines is
//! said when the rest are written.

use std::collections::VecDeque;
use std::io::Write;
use std::sync::Mutex;

/// The most bytes of log lines kept while a screen is busy.
pub const MAX_HELD_BYTES: usize = 256 * 1024;

#[derive(Default)]
struct Gate {
    holds: usize,
    held: VecDeque<Vec<u8>>,
    held_bytes: usize,
    dropped: usize,
}

static GATE: Mutex<Gate> = Mutex::new(Gate {
    holds: 0,
    held: VecDeque::new(),
    held_bytes: 0,
    dropped: 0,
});

/// While alive, log lines written to [`GatedStderr`] wait (see the module docs).
#[derive(Debug)]
#[must_use = "the hold ends when this is dropped"]
pub struct LogHold {
    _private: (),
}

/// Hold log lines until the returned guard (and every other hold) is dropped.
pub fn hold() -> LogHold {
    if let Ok(mut gate) = GATE.lock() {
        gate.holds += 1;
    }
    LogHold { _private: () }
}

/// Whether a screen holds the terminal now.
pub fn is_held() -> bool {
    GATE.lock().map(|g| g.holds > 0).unwrap_or(false)
}

impl Drop for LogHold {
    fn drop(&mut self) {
        let Ok(mut gate) = GATE.lock() else { return };
        gate.holds = gate.holds.saturating_sub(1);
        if gate.holds > 0 {
            return;
        }
        let mut err = std::io::stderr().lock();
        if gate.dropped > 0 {
            let _ = writeln!(
                err,
                "({} log lines were dropped while the screen was busy)",
                gate.dropped
            );
            gate.dropped = 0;
        }
        while let Some(line) = gate.held.pop_front() {
            let _ = err.write_all(fitted(&line).as_bytes());
        }
        gate.held_bytes = 0;
        let _ = err.flush();
    }
}

/// Log text as the terminal should get it: wrapped to its width.
fn fitted(buf: &[u8]) -> String {
    crate::layout::fit_stderr(&String::from_utf8_lossy(buf))
}

/// Write `buf` to stderr now (wrapped to the terminal's width); all of it counts as
/// written.
fn write_now(buf: &[u8]) -> std::io::Result<usize> {
    std::io::stderr().write_all(fitted(buf).as_bytes())?;
    Ok(buf.len())
}

/// Stderr, except while a screen holds the terminal: then the bytes wait.
#[derive(Debug, Clone, Copy, Default)]
pub struct GatedStderr;

impl Write for GatedStderr {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let Ok(mut gate) = GATE.lock() else {
            return write_now(buf);
        };
        if gate.holds == 0 {
            drop(gate);
            return write_now(buf);
        }
        gate.held.push_back(buf.to_vec());
        gate.held_bytes += buf.len();
        while gate.held_bytes > MAX_HELD_BYTES {
            match gate.held.pop_front() {
                Some(old) => {
                    gate.held_bytes -= old.len();
                    gate.dropped += 1;
                }
                None => break,
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        std::io::stderr().flush()
    }
}
