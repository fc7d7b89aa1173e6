//! How every async command runs: one tokio runtime, and one way to turn its outcome
//! into an exit status.

use std::future::Future;
use std::process::ExitCode;

use crate::exit;

/// Run `body` on a fresh multi-threaded runtime. An error prints as one line,
/// `frontdesk COMMAND: …` (with its causes), and exits 1.
pub fn block_on<F>(command: &str, body: F) -> ExitCode
where
    F: Future<Output = anyhow::Result<()>>,
{
    block_on_failing(command, exit::FAILED, body)
}

/// Like [`block_on`], exiting with `failure` on an error.
pub fn block_on_failing<F>(command: &str, failure: u8, body: F) -> ExitCode
where
    F: Future<Output = anyhow::Result<()>>,
{
    block_on_exit(command, async {
        match body.await {
            Ok(()) => ExitCode::SUCCESS,
            Err(error) => {
                crate::output::error(command, &format!("{error:#}"));
                exit::code(failure)
            }
        }
    })
}

/// Like [`block_on`], for commands that choose their own exit status.
pub fn block_on_exit<F>(command: &str, body: F) -> ExitCode
where
    F: Future<Output = ExitCode>,
{
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    match worker_threads() {
        Ok(Some(count)) => {
            builder.worker_threads(count);
        }
        Ok(None) => {}
        Err(problem) => {
            crate::output::error(command, &problem);
            return exit::code(exit::CANNOT_START);
        }
    }
    match builder.enable_all().build() {
        Ok(runtime) => {
            let code = runtime.block_on(body);
            // tokio reads stdin on a blocking thread that returns only when a line
            // (or end of input) comes; dropping the runtime would wait for it, so a
            // stdio server told to stop by a signal, its input still open, would
            // never exit. The command's work is done: do not wait for that read.
            runtime.shutdown_background();
            code
        }
        Err(error) => {
            crate::output::error(command, &format!("cannot start the async runtime: {error}"));
            exit::code(exit::CANNOT_START)
        }
    }
}

/// The environment variable that sets the runtime's count of worker threads
/// (tokio's own name for it).
const WORKER_THREADS_ENV: &str = "TOKIO_WORKER_THREADS";

/// Most worker threads [`WORKER_THREADS_ENV`] may ask for: more than any
/// machine this serves on has CPUs, fewer than would exhaust its threads.
const MAX_WORKER_THREADS: usize = 1024;

/// The runtime's worker count from [`WORKER_THREADS_ENV`]: `None` when it
/// is unset (tokio's default, one per CPU the process may use), the
/// problem when it is set to anything but a count from 1 to
/// [`MAX_WORKER_THREADS`]. Read here because tokio, reading it itself,
/// panics on a value it cannot use.
fn worker_threads() -> Result<Option<usize>, String> {
    let Some(raw) = std::env::var_os(WORKER_THREADS_ENV) else {
        return Ok(None);
    };
    match raw.to_str().and_then(|s| s.trim().parse::<usize>().ok()) {
        Some(count) if (1..=MAX_WORKER_THREADS).contains(&count) => Ok(Some(count)),
        _ => Err(format!(
            "{WORKER_THREADS_ENV} is `{}`: give the number of runtime worker threads, from 1 to {MAX_WORKER_THREADS} (unset: one per CPU)",
            raw.to_string_lossy()
        )),
    }
}
