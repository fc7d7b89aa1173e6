//! Every parser of outside input on 1 MiB of hostile input, against a time
//! bound (issue 24; the rule is in `docs/bounds.md`).
//!
//! ```text
//! cargo bench -p frontdesk --bench hostile                   # figures, optimized
//! cargo bench --profile dev -p frontdesk --bench hostile     # CI's check
//! cargo bench -p frontdesk --bench hostile -- --list         # the rows
//! cargo bench -p frontdesk --bench hostile -- --skip resources/read
//! ```
//!
//! Each row builds its input (not timed), runs the parser once on it in a
//! thread of its own and checks what the parser made of it. A parser that is
//! linear (or bounded) in its input takes milliseconds on 1 MiB even in the
//! dev profile; one that is quadratic takes minutes or hours. The bound
//! (2 s per row, `--bound-ms N`) sits between the two, orders of magnitude
//! from each, so it holds on a loaded CI machine and still fails the class.
//! A row over the bound fails the run (exit status 1, naming the row); a
//! row still running at its bound stops the run at once (it would hold a CPU
//! for the rows after it). `--skip NAME` (repeatable) leaves out every row
//! whose name contains `NAME`; a positional `FILTER` runs only the rows whose
//! names contain it.
#![allow(clippy::unwrap_used, clippy::expect_used)]
// A binary's, test's or benchmark's `pub` items are its own modules'; the
// workspace lint is for the libraries' public API.
#![allow(unreachable_pub)]

use std::process::ExitCode;
use std::sync::mpsc;
use std::time::{Duration, Instant};

#[path = "../bench_call/mod.rs"]
mod bench_call;
mod rows;

/// Every row gets 1 MiB of hostile input (some a little more).
pub const MIB: usize = 1 << 20;

/// One parser and its hostile input.
pub struct Row {
    /// `area/what`: what `--skip` and the filter match.
    pub name: &'static str,
    /// Builds the input (not timed) and returns the timed run.
    pub prepare: fn() -> Prepared,
}

/// A built input and the run to time.
pub struct Prepared {
    /// Size of the hostile input, in bytes.
    pub bytes: usize,
    /// The parser on the input: what it made of it, or why that is wrong.
    pub run: Box<dyn FnOnce() -> Result<String, String> + Send>,
}

impl Prepared {
    /// `run` on an input of `bytes` bytes.
    pub fn new(
        bytes: usize,
        run: impl FnOnce() -> Result<String, String> + Send + 'static,
    ) -> Self {
        Self {
            bytes,
            run: Box::new(run),
        }
    }
}

struct Options {
    bound: Duration,
    skip: Vec<String>,
    filter: Option<String>,
    list: bool,
}

fn options() -> Result<Options, String> {
    let mut options = Options {
        bound: Duration::from_secs(2),
        skip: Vec::new(),
        filter: None,
        list: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            // What `cargo bench` passes to every benchmark.
            "--bench" => {}
            "--list" => options.list = true,
            "--skip" => options
                .skip
                .push(args.next().ok_or("--skip needs a row name")?),
            "--bound-ms" => {
                let ms = args.next().ok_or("--bound-ms needs a number")?;
                let ms: u64 = ms
                    .parse()
                    .map_err(|_| format!("--bound-ms {ms}: not a number"))?;
                options.bound = Duration::from_millis(ms);
            }
            other if other.starts_with('-') => return Err(format!("unknown option {other}")),
            filter => options.filter = Some(filter.to_owned()),
        }
    }
    Ok(options)
}

enum Report {
    Ready(usize),
    Done(Duration, Result<String, String>),
}

fn main() -> ExitCode {
    let options = match options() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("hostile: {e}");
            eprintln!("usage: hostile [--list] [--skip NAME]... [--bound-ms N] [FILTER]");
            return ExitCode::from(2);
        }
    };
    let rows = rows::all();
    if options.list {
        for row in &rows {
            println!("{}", row.name);
        }
        return ExitCode::SUCCESS;
    }
    let profile = if cfg!(debug_assertions) {
        "dev profile (debug assertions on)"
    } else {
        "optimized"
    };
    println!(
        "hostile inputs: each parser once on its input, {profile}, bound {} ms per row",
        options.bound.as_millis()
    );
    println!(
        "{:<34} {:>9} {:>10} {:>9}  outcome",
        "row", "input", "time", "MiB/s"
    );
    let mut failed = Vec::new();
    let mut skipped = Vec::new();
    for (index, row) in rows.iter().enumerate() {
        if options.skip.iter().any(|s| row.name.contains(s.as_str()))
            || options
                .filter
                .as_ref()
                .is_some_and(|f| !row.name.contains(f.as_str()))
        {
            skipped.push(row.name);
            continue;
        }
        let (tell, reports) = mpsc::channel();
        let prepare = row.prepare;
        std::thread::Builder::new()
            .name(row.name.to_owned())
            .spawn(move || {
                let prepared = prepare();
                let _ = tell.send(Report::Ready(prepared.bytes));
                let started = Instant::now();
                let outcome = (prepared.run)();
                let _ = tell.send(Report::Done(started.elapsed(), outcome));
            })
            .expect("a thread starts");
        let Ok(Report::Ready(bytes)) = reports.recv() else {
            println!("{:<34} FAIL: building its input panicked", row.name);
            failed.push(row.name);
            continue;
        };
        let size = format!("{:.2} MiB", bytes as f64 / MIB as f64);
        match reports.recv_timeout(options.bound) {
            Ok(Report::Done(took, outcome)) => {
                let rate = bytes as f64 / MIB as f64 / took.as_secs_f64().max(1e-9);
                let time = format!("{:.2} ms", took.as_secs_f64() * 1e3);
                let over = took > options.bound;
                let verdict = match (&outcome, over) {
                    (Err(e), _) => format!("FAIL: {e}"),
                    (Ok(_), true) => {
                        format!("FAIL: over the bound of {} ms", options.bound.as_millis())
                    }
                    (Ok(what), false) => what.clone(),
                };
                println!(
                    "{:<34} {size:>9} {time:>10} {rate:>9.0}  {verdict}",
                    row.name
                );
                if outcome.is_err() || over {
                    failed.push(row.name);
                }
            }
            Ok(Report::Ready(_)) | Err(mpsc::RecvTimeoutError::Disconnected) => {
                println!("{:<34} {size:>9} FAIL: the parser panicked", row.name);
                failed.push(row.name);
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                println!(
                    "{:<34} {size:>9} FAIL: still running at its bound of {} ms",
                    row.name,
                    options.bound.as_millis()
                );
                let rest: Vec<&str> = rows[index + 1..].iter().map(|r| r.name).collect();
                if !rest.is_empty() {
                    println!(
                        "not run (the row above still holds a CPU): {}",
                        rest.join(", ")
                    );
                }
                println!(
                    "hostile: FAILED: {} (`-- --skip {}` leaves it out)",
                    row.name, row.name
                );
                // The row's thread cannot be stopped; the process ends it.
                std::process::exit(1);
            }
        }
    }
    if options.filter.is_some() {
        println!("{} rows not matching the filter", skipped.len());
    } else if !skipped.is_empty() {
        println!("skipped: {}", skipped.join(", "));
    }
    if failed.is_empty() {
        println!("hostile: every row within its bound");
        ExitCode::SUCCESS
    } else {
        println!("hostile: FAILED: {}", failed.join(", "));
        ExitCode::FAILURE
    }
}
