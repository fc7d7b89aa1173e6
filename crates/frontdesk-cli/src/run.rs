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
    match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
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
