//! `frontdesk serve --config FILE`: a TOML file whose keys are `serve`'s
//! flags, by their long names (`http = "127.0.0.1:8080"`, `data-dir = "…"`,
//! `allow-origin = ["…"]`).
//!
//! The list of keys, their types and the checks of their values all come
//! from `serve`'s clap definition: a key is accepted when `serve` has a flag
//! of that long name, its value goes through that flag's own value parser,
//! and the values the file gives are added to the command line for the one
//! strict parse (so `requires`, `conflicts_with` and the required transport
//! are checked as for flags). What the command line or the environment
//! gives wins over the file: a key is used only where its flag's value would
//! otherwise be the default, and not when a flag it conflicts with was
//! given (`--stdio` on the command line over the file's `http`).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::parser::ValueSource;
use clap::{Arg, ArgAction, ArgMatches, Command};
use toml::Spanned;
use toml::de::{DeTable, DeValue};

/// The subcommand that reads a config file.
const SERVE: &str = "serve";
/// The id of its `--config` flag (not a key of the file).
const CONFIG: &str = "config";

/// Why the command line could not be read.
#[derive(Debug)]
pub enum Failure {
    /// clap's own answer (bad usage, `--help`, `--version`), and, when the
    /// config file gave flags, which ones (the usage error may be about them).
    Clap(clap::Error, Option<String>),
    /// The config file cannot be read, or a key, a type or a value in it is
    /// wrong: one line naming the file, the line and the key.
    Config(String),
}

/// A value the config file gives, as a command-line argument.
struct FromFile {
    /// `--long=value`, or `--long` for a flag without a value.
    arg: OsString,
    /// The key and its line, for a usage error about it.
    key: String,
    line: usize,
}

/// Parse `argv` with `command`; for `serve --config FILE`, the file's keys
/// fill in what neither the command line nor the environment gave.
pub fn matches(command: Command, argv: Vec<OsString>) -> Result<ArgMatches, Failure> {
    // A lenient pass first, only to learn the file and where each flag's
    // value comes from: a flag the file alone gives (`http`) would fail the
    // strict parse.
    let lenient = command
        .clone()
        .ignore_errors(true)
        .try_get_matches_from(&argv);
    let serve_matches = lenient
        .as_ref()
        .ok()
        .and_then(|top| top.subcommand_matches(SERVE));
    let file = serve_matches
        .and_then(|given| given.try_get_one::<PathBuf>(CONFIG).ok().flatten())
        .cloned();
    let mut added = Vec::new();
    if let (Some(given), Some(file), Some(serve)) =
        (serve_matches, &file, command.find_subcommand(SERVE))
    {
        added = read(serve, given, file).map_err(Failure::Config)?;
    }
    let file = file.unwrap_or_default();
    let mut argv = argv;
    argv.extend(added.iter().map(|a| a.arg.clone()));
    command.try_get_matches_from(argv).map_err(|e| {
        let from_file = (!added.is_empty() && e.use_stderr()).then(|| {
            let keys: Vec<String> = added
                .iter()
                .map(|a| format!("{} (line {})", a.key, a.line))
                .collect();
            format!(
                "frontdesk serve: the config file {} gave {}",
                file.display(),
                keys.join(", ")
            )
        });
        Failure::Clap(e, from_file)
    })
}

/// The keys of `serve`'s config file: its flags, by long name.
fn keys(serve: &Command) -> impl Iterator<Item = (&str, &Arg)> {
    serve.get_arguments().filter_map(|arg| {
        let id = arg.get_id().as_str();
        match arg.get_long() {
            Some(long) if id != CONFIG && id != "help" && id != "version" => Some((long, arg)),
            _ => None,
        }
    })
}

/// Whether `id`'s value came from the command line or the environment.
fn given(matches: &ArgMatches, id: &str) -> bool {
    matches!(
        matches.value_source(id),
        Some(ValueSource::CommandLine | ValueSource::EnvVariable)
    )
}

/// The 1-based line of byte `at` in `text`.
fn line_of(text: &str, at: usize) -> usize {
    text.get(..at).unwrap_or(text).matches('\n').count() + 1
}

/// Read and check `file`; the arguments it adds to the command line.
fn read(serve: &Command, matches: &ArgMatches, file: &Path) -> Result<Vec<FromFile>, String> {
    let name = file.display();
    let text = std::fs::read_to_string(file)
        .map_err(|e| format!("cannot read the config file {name}: {e}"))?;
    let table = DeTable::parse(&text).map_err(|e| {
        let span = e.span().unwrap_or_default();
        let line = line_of(&text, span.start);
        // What is wrong, when it is short (`duplicate key` says not which).
        let what = match text.get(span) {
            Some(s) if !s.trim().is_empty() && s.len() <= 40 && !s.contains('\n') => {
                format!(" (at `{}`)", s.trim())
            }
            _ => String::new(),
        };
        format!("config file {name}, line {line}: {}{what}", e.message())
    })?;
    let mut entries: Vec<_> = table.get_ref().iter().collect();
    entries.sort_by_key(|(key, _)| key.span().start);
    let mut added = Vec::new();
    for (key, value) in entries {
        let line = line_of(&text, key.span().start);
        let at = |line: usize| format!("config file {name}, line {line}");
        let Some((long, arg)) = keys(serve).find(|(long, _)| *long == key.get_ref().as_ref())
        else {
            return Err(format!("{}: {}", at(line), unknown(serve, key.get_ref())));
        };
        let values = raw_values(arg, value, &|span_start| line_of(&text, span_start))
            .map_err(|(line, why)| format!("{}: `{long}` {why}", at(line)))?;
        for (raw, line) in &values {
            let Some(raw) = raw else { continue };
            check(arg, raw)
                .map_err(|why| format!("{}: bad value `{raw}` for `{long}`: {why}", at(*line)))?;
        }
        let id = arg.get_id().as_str();
        // The command line and the environment win, and so does a flag given
        // there that this one conflicts with.
        let overridden = given(matches, id)
            || keys(serve).any(|(_, other)| {
                let other_id = other.get_id().as_str();
                given(matches, other_id)
                    && (serve
                        .get_arg_conflicts_with(arg)
                        .iter()
                        .any(|c| c.get_id() == other_id)
                        || serve
                            .get_arg_conflicts_with(other)
                            .iter()
                            .any(|c| c.get_id() == id))
            });
        if overridden {
            continue;
        }
        for (raw, line) in values {
            let arg = match raw {
                None => format!("--{long}"),
                Some(v) => format!("--{long}={v}"),
            };
            added.push(FromFile {
                arg: arg.into(),
                key: long.to_string(),
                line,
            });
        }
    }
    Ok(added)
}

/// Why `key` is not a key, and what the keys are.
fn unknown(serve: &Command, key: &str) -> String {
    if key == CONFIG {
        return "`config` cannot be set in a config file".into();
    }
    let kebab = key.replace('_', "-");
    if kebab != key && keys(serve).any(|(long, _)| long == kebab) {
        return format!("unknown key `{key}`: keys are kebab-case, like the flags: `{kebab}`");
    }
    let all: Vec<&str> = keys(serve).map(|(long, _)| long).collect();
    format!(
        "unknown key `{key}`; the keys are serve's flags without their dashes: {}",
        all.join(", ")
    )
}

/// What one key of the file gives the command line: `Some(text)` for a
/// flag's value, `None` for a flag without one; each with its line.
type Raw = Vec<(Option<String>, usize)>;

/// `value` as the command-line values of `arg`, checking its TOML type:
/// a boolean for a flag without a value, an integer for a number, a string
/// otherwise, and a string or an array of them for a repeatable flag. The
/// error names the line and says what type the key takes.
fn raw_values(
    arg: &Arg,
    value: &Spanned<DeValue<'_>>,
    line: &dyn Fn(usize) -> usize,
) -> Result<Raw, (usize, String)> {
    let here = line(value.span().start);
    let wrong = |line: usize, want: &str, got: &DeValue<'_>| {
        (line, format!("must be {want}, not {}", a(got.type_str())))
    };
    match arg.get_action() {
        ArgAction::SetTrue => match value.get_ref() {
            DeValue::Boolean(true) => Ok(vec![(None, here)]),
            DeValue::Boolean(false) => Ok(Vec::new()),
            other => Err(wrong(here, "true or false", other)),
        },
        ArgAction::Append => match value.get_ref() {
            DeValue::String(s) => Ok(vec![(Some(s.to_string()), here)]),
            DeValue::Array(items) => items
                .iter()
                .map(|item| {
                    let at = line(item.span().start);
                    match item.get_ref() {
                        DeValue::String(s) => Ok((Some(s.to_string()), at)),
                        other => Err(wrong(at, "an array of strings", other)),
                    }
                })
                .collect(),
            other => Err(wrong(here, "a string or an array of strings", other)),
        },
        _ if is_integer(arg) => match value.get_ref() {
            DeValue::Integer(n) => match i128::from_str_radix(n.as_str(), n.radix()) {
                Ok(n) => Ok(vec![(Some(n.to_string()), here)]),
                Err(e) => Err((here, format!("is not a usable integer: {e}"))),
            },
            other => Err(wrong(here, "an integer", other)),
        },
        _ => match value.get_ref() {
            DeValue::String(s) => Ok(vec![(Some(s.to_string()), here)]),
            other => Err(wrong(here, "a string", other)),
        },
    }
}

/// "a string", "an integer", "an array".
fn a(kind: &str) -> String {
    let article = if kind.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    };
    format!("{article} {kind}")
}

/// Whether `arg`'s value parser makes a number.
fn is_integer(arg: &Arg) -> bool {
    use std::any::TypeId;
    let kind = arg.get_value_parser().type_id();
    [
        TypeId::of::<usize>(),
        TypeId::of::<u64>(),
        TypeId::of::<u32>(),
        TypeId::of::<u16>(),
        TypeId::of::<u8>(),
        TypeId::of::<i64>(),
        TypeId::of::<i32>(),
    ]
    .iter()
    .any(|t| kind == *t)
}

/// Run `raw` through `arg`'s own value parser (the flag's checks, written
/// once); why it is refused.
fn check(arg: &Arg, raw: &str) -> Result<(), String> {
    let probe = Command::new("config").no_binary_name(true).arg(
        Arg::new("value")
            .value_parser(arg.get_value_parser().clone())
            .allow_hyphen_values(true)
            .required(true),
    );
    let Err(e) = probe.try_get_matches_from([raw]) else {
        return Ok(());
    };
    if e.kind() == ErrorKind::InvalidValue
        && let Some(ContextValue::Strings(valid)) = e.get(ContextKind::ValidValue)
    {
        return Err(format!("expected one of {}", valid.join(", ")));
    }
    match std::error::Error::source(&e) {
        Some(why) => Err(why.to_string()),
        None => Err(e
            .to_string()
            .lines()
            .next()
            .unwrap_or_default()
            .trim_start_matches("error: ")
            .to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_count_from_one() {
        let text = "a = 1\nb = 2\n";
        assert_eq!(line_of(text, 0), 1);
        assert_eq!(line_of(text, 6), 2);
        // Past the end: the last line.
        assert_eq!(line_of(text, 999), 3);
    }

    #[test]
    fn articles() {
        assert_eq!(a("integer"), "an integer");
        assert_eq!(a("string"), "a string");
    }
}
