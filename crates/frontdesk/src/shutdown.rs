//! The process signals that end a `serve` function gracefully.

/// Resolves when the process is asked to stop: Ctrl-C (SIGINT) or, on Unix,
/// SIGTERM (what service managers and `kill` send). If neither can be
/// listened for, it never resolves (the process then stops only when killed),
/// and says so in the log.
pub async fn requested() {
    let ctrl_c = async {
        if let Err(e) = tokio::signal::ctrl_c().await {
            tracing::error!(error = %e, "cannot listen for Ctrl-C");
            std::future::pending::<()>().await;
        }
        "Ctrl-C"
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(e) => {
                tracing::error!(error = %e, "cannot listen for SIGTERM");
                std::future::pending::<()>().await;
            }
        }
        "SIGTERM"
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<&str>();
    let which = tokio::select! {
        w = ctrl_c => w,
        w = term => w,
    };
    tracing::info!(signal = which, "shutting down");
}
