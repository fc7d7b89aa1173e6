//! How every async command runs: one tokio runtime, and one way to turn its outcome
//! into an exit status.

use std::future::Future;
use std::process::ExitCode;

/// Run `body` on a fresh multi-threaded runtime. An error prints as
/// `frontdesk COMMAND: …` (with its causes) and exits 1; a runtime that cannot
/// start exits 2.
pub fn block_on<F>(command: &str, body: F) -> ExitCode
where
    F: Future<Output = anyhow::Result<()>>,
{
    block_on_exit(command, async {
        match body.await {
            Ok(()) => ExitCode::SUCCESS,
            Err(error) => {
                eprintln!("frontdesk {command}: {error:#}");
                ExitCode::from(1)
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
        Ok(runtime) => runtime.block_on(body),
        Err(error) => {
            eprintln!("frontdesk {command}: cannot start the async runtime: {error}");
            ExitCode::from(2)
        }
    }
}
