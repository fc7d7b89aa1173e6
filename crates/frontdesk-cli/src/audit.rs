//! `frontdesk audit SERVER`: check a server's elicitation against the spec and
//! its security rules (the `frontdesk-audit` crate), print the report as a
//! table or JSON, and exit 1 when a check of the chosen severity fails.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, bail};
use clap::{Args, ValueEnum};
use frontdesk::BoxFuture;
use frontdesk::wire::Revision;
use frontdesk_audit::target::Pipe;
use frontdesk_audit::{CheckId, Disclosure, Endpoint, Options, Severity, Target, render};
use serde_json::Value;

use crate::exit;
use crate::hosting::{RevisionArg, Target as Server, demo_pipe};
use crate::output;
use crate::signin::RemoteArgs;

/// `--fail-on`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FailOn {
    /// A failed check of any severity fails the run.
    Info,
    /// A failed warning, error or critical check.
    Warning,
    /// A failed error or critical check.
    Error,
    /// A failed critical check only.
    Critical,
    /// Never: exit 0 whatever was found.
    Never,
}

impl FailOn {
    fn severity(self) -> Option<Severity> {
        match self {
            FailOn::Info => Some(Severity::Info),
            FailOn::Warning => Some(Severity::Warning),
            FailOn::Error => Some(Severity::Error),
            FailOn::Critical => Some(Severity::Critical),
            FailOn::Never => None,
        }
    }
}

/// Arguments of `frontdesk audit`.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  frontdesk audit 'node server.mjs' --call-all
  frontdesk audit 'python server.py stdio' --call book='{\"hotel\":\"central\"}' --call verify
  frontdesk audit http://127.0.0.1:8080/mcp --call-all --stress --json > audit.json
  frontdesk audit https://mcp.example.com/mcp --call-all --also https://mcp-2.example.com/mcp \\
      --second-token-file bob-tokens.json --fail-on critical

Tools have effects, so none is called unless --call or --call-all allows it; every check
calls an allowed tool again, some many times (--stress: a thousand). Audit a test instance.

Exit status: 0 when no check of the --fail-on severity (default error) or above failed,
1 when one did, 2 when the audit could not run (bad arguments, no revision spoken).")]
pub struct AuditArgs {
    /// The server: a command line (quoted as in a shell) for stdio, an http(s):// URL, or
    /// `demo` (brightgrid, in this process).
    #[arg(value_name = "SERVER", required_unless_present_any = ["list_checks", "json_schema"])]
    server: Option<String>,
    /// Let the audit call TOOL, with ARGS (a JSON object; default {}) (repeatable).
    #[arg(long = "call", value_name = "TOOL[=ARGS]")]
    calls: Vec<String>,
    /// Let the audit call every tool (with {} unless --call gives its arguments).
    #[arg(long)]
    call_all: bool,
    /// TOOL has effects (its final retry must work only once), whatever its annotations
    /// say (repeatable).
    #[arg(long = "effects", value_name = "TOOL")]
    effects: Vec<String>,
    /// Only this revision (default: both, each the server speaks).
    #[arg(long, value_enum)]
    revision: Option<RevisionArg>,
    /// A second instance of the same server (same keys and tools): a retry there must work.
    #[arg(long, value_name = "SERVER")]
    also: Option<String>,
    /// Another principal's sign-in tokens for the same URL (a token file, as
    /// --token-file): it must not be able to use the first principal's state.
    #[arg(long, value_name = "FILE", conflicts_with = "second_command")]
    second_token_file: Option<PathBuf>,
    /// The same server started as another principal (a command line).
    #[arg(long, value_name = "COMMAND")]
    second_command: Option<String>,
    /// Run the limit checks (a thousand questions, answers and retries).
    #[arg(long)]
    stress: bool,
    /// Hold a requestState this long, then retry with it: longer than the server's state
    /// lifetime (checks that states expire).
    #[arg(long, value_name = "SECS")]
    state_age: Option<f64>,
    /// Seconds each request may take.
    #[arg(long, value_name = "SECS", default_value_t = 10.0)]
    timeout: f64,
    /// Run only this check (repeatable; --list-checks names them).
    #[arg(long = "check", value_name = "ID")]
    checks: Vec<String>,
    /// Print the report as JSON (its schema: --json-schema).
    #[arg(long)]
    json: bool,
    /// Exit 1 when a check of this severity or above fails.
    #[arg(long, value_enum, default_value = "error")]
    fail_on: FailOn,
    /// Show answer content and tool results in the evidence (never tokens or states).
    #[arg(long)]
    show_content: bool,
    /// Print every check (id, severity, spec reference) and exit.
    #[arg(long)]
    list_checks: bool,
    /// Print the JSON Schema of the --json report and exit.
    #[arg(long)]
    json_schema: bool,
    #[command(flatten)]
    remote: RemoteArgs,
}

/// Run `frontdesk audit`.
pub fn run(args: &AuditArgs) -> ExitCode {
    if args.list_checks {
        for line in render::catalog().lines() {
            output::line(line);
        }
        return ExitCode::SUCCESS;
    }
    if args.json_schema {
        for line in render::REPORT_SCHEMA.lines() {
            output::line(line);
        }
        return ExitCode::SUCCESS;
    }
    let prepared = target(args).and_then(|t| Ok((t, options(args)?)));
    let (target, options) = match prepared {
        Ok(p) => p,
        Err(e) => {
            return exit::cannot_start("audit", &e);
        }
    };
    crate::run::block_on_exit("audit", async move {
        let report = frontdesk_audit::audit(&target, &options).await;
        if args.json {
            output::json(&render::json(&report));
        } else {
            for line in render::table(&report, args.fail_on.severity()).lines() {
                output::line(line);
            }
        }
        if !report.revisions.iter().any(|r| r.spoken) {
            return exit::cannot_start(
                "audit",
                "the server speaks none of the revisions tried, so nothing was checked",
            );
        }
        let failing = args.fail_on.severity().map(|s| report.failed_at(s));
        match failing {
            Some(failed) if !failed.is_empty() => exit::code(exit::FAILED),
            _ => ExitCode::SUCCESS,
        }
    })
}

/// `TOOL[=ARGS]`.
fn call(spec: &str) -> anyhow::Result<(String, Value)> {
    let (tool, args) = match spec.split_once('=') {
        Some((tool, args)) => {
            let value: Value = serde_json::from_str(args)
                .with_context(|| format!("--call {tool}=…: the arguments are not JSON"))?;
            if !value.is_object() {
                bail!("--call {tool}=…: the arguments must be a JSON object");
            }
            (tool, value)
        }
        None => (spec, Value::Object(Default::default())),
    };
    if tool.is_empty() {
        bail!("--call needs a tool name");
    }
    Ok((tool.to_owned(), args))
}

fn options(args: &AuditArgs) -> anyhow::Result<Options> {
    let calls = args
        .calls
        .iter()
        .map(|c| call(c))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let only = args
        .checks
        .iter()
        .map(|c| c.parse::<CheckId>().map_err(anyhow::Error::msg))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let state_age = match args.state_age {
        Some(secs) => Some(
            Duration::try_from_secs_f64(secs)
                .ok()
                .filter(|d| !d.is_zero())
                .context("--state-age wants a positive number of seconds")?,
        ),
        None => None,
    };
    let revisions = match args.revision {
        Some(only) => vec![only.revision()],
        None => vec![Revision::V2025_11_25, Revision::V2026_07_28],
    };
    if calls.is_empty() && !args.call_all {
        output::note(
            "frontdesk audit: no tool may be called (--call TOOL or --call-all), so only discovery runs",
        );
    }
    Ok(Options {
        calls,
        call_all: args.call_all,
        revisions,
        effects: args.effects.clone(),
        stress: args.stress,
        state_age,
        timeout: crate::client_args::timeout(args.timeout),
        disclosure: Disclosure {
            content: args.show_content,
        },
        only,
        progress: Some(Arc::new(|line: &str| {
            output::note(&format!("frontdesk audit: {line}"));
        })),
        ..Options::default()
    })
}

/// The server as an endpoint: a command, a URL with the remote flags, or
/// the demo in this process.
fn endpoint(spec: &str, remote: &RemoteArgs) -> anyhow::Result<Endpoint> {
    Ok(match Server::parse(spec)? {
        Server::Command(words) => Endpoint::command(words),
        Server::Url(url) => {
            let remote = remote.clone();
            Endpoint::url(url)
                .configured(move |config| remote.apply(config).map_err(|e| format!("{e:#}")))
        }
        Server::Demo => Endpoint::pipe(
            "the brightgrid demo (in this process)",
            || -> BoxFuture<'static, std::io::Result<Pipe>> {
                Box::pin(async {
                    let (read, write) = demo_pipe().await?;
                    Ok((Box::new(read) as _, Box::new(write) as _))
                })
            },
        ),
    })
}

fn target(args: &AuditArgs) -> anyhow::Result<Target> {
    let Some(spec) = &args.server else {
        bail!("no server given");
    };
    let mut target = Target::new(endpoint(spec, &args.remote)?);
    if let Some(also) = &args.also {
        target.also = Some(endpoint(also, &args.remote).context("--also")?);
    }
    if let Some(file) = &args.second_token_file {
        let Server::Url(_) = Server::parse(spec)? else {
            bail!(
                "--second-token-file is for a server reached by URL; for a command use --second-command"
            );
        };
        let mut other = args.remote.clone();
        other.token_file = Some(file.clone());
        target.second_principal = Some(endpoint(spec, &other)?);
    }
    if let Some(command) = &args.second_command {
        let Server::Command(words) = Server::parse(command).context("--second-command")? else {
            bail!("--second-command wants a command line");
        };
        target.second_principal = Some(Endpoint::command(words));
    }
    Ok(target)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_are_read_with_their_arguments() {
        assert_eq!(
            call(r#"book={"hotel":"central"}"#).ok(),
            Some(("book".into(), serde_json::json!({"hotel": "central"})))
        );
        assert_eq!(
            call("verify").ok(),
            Some(("verify".into(), serde_json::json!({})))
        );
        assert!(call("book=[1]").is_err());
        assert!(call("book={").is_err());
        assert!(call("={}").is_err());
    }
}
