//! The soak benchmark (issue 10): the 2026-07-28 `bench_confirm` round trip
//! at full speed for a fixed time against one `frontdesk serve` child, every
//! call checked. Errors are counted (a client whose call fails reconnects
//! and goes on); the server's RSS is sampled every few seconds. The run
//! fails when any call failed.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail};

use crate::support::Http;
use crate::support::clock_ticks_per_second;
use crate::workload::{Client, Kind};
use crate::{StoreArgs, spawn_frontdesk};

/// How often the server's RSS is read.
const SAMPLE_EVERY: Duration = Duration::from_secs(5);

/// Run the soak for `duration` with `c` clients against the frontdesk at
/// `path` (on `cpu` alone when one is given); print the figures.
pub async fn run(
    path: &str,
    cpu: Option<core_affinity::CoreId>,
    duration: Duration,
    c: usize,
) -> anyhow::Result<()> {
    let server = spawn_frontdesk(path, cpu, &StoreArgs::Memory)?;
    let addr = server.addr();
    let ticks = clock_ticks_per_second();
    println!(
        "soak: 2026-07-28 bench_confirm round trip, C={c}, {:.0} s, frontdesk pid {}",
        duration.as_secs_f64(),
        server.pid()
    );
    let stop = Arc::new(AtomicBool::new(false));
    let calls = Arc::new(AtomicU64::new(0));
    let errors = Arc::new(AtomicU64::new(0));
    let start_rss = server.rss_kib()?;
    let cpu0 = server.cpu_ticks()?;
    let t0 = Instant::now();
    let workers: Vec<_> = (0..c as u64)
        .map(|i| {
            let (stop, calls, errors) =
                (Arc::clone(&stop), Arc::clone(&calls), Arc::clone(&errors));
            tokio::spawn(async move {
                let mut client = None;
                let mut n = i << 32;
                while !stop.load(Ordering::Relaxed) {
                    let outcome = match client.as_mut() {
                        Some(cl) => Client::call(cl, n).await,
                        None => match Client::connect(Kind::Modern, addr, i, Http::One).await {
                            Ok(cl) => {
                                client = Some(cl);
                                continue;
                            }
                            Err(e) => Err(e),
                        },
                    };
                    match outcome {
                        Ok(()) => {
                            calls.fetch_add(1, Ordering::Relaxed);
                        }
                        Err(e) => {
                            if errors.fetch_add(1, Ordering::Relaxed) < 5 {
                                eprintln!("soak: client {i}: {e:#}");
                            }
                            client = None;
                            tokio::time::sleep(Duration::from_millis(50)).await;
                        }
                    }
                    n += 1;
                }
            })
        })
        .collect();
    let mut peak = start_rss;
    let mut last_rss = start_rss;
    let mut last_report = Instant::now();
    while t0.elapsed() < duration {
        let left = duration.saturating_sub(t0.elapsed());
        tokio::time::sleep(left.min(SAMPLE_EVERY)).await;
        last_rss = server.rss_kib()?;
        peak = peak.max(last_rss);
        if last_report.elapsed() >= Duration::from_secs(60) {
            last_report = Instant::now();
            println!(
                "  {:>5.0} s: {} calls, {} errors, RSS {last_rss} KiB (peak {peak} KiB)",
                t0.elapsed().as_secs_f64(),
                calls.load(Ordering::Relaxed),
                errors.load(Ordering::Relaxed)
            );
        }
    }
    stop.store(true, Ordering::SeqCst);
    let elapsed = t0.elapsed().as_secs_f64();
    let cpu1 = server.cpu_ticks()?;
    for w in workers {
        w.await.context("a soak client panicked")?;
    }
    let end_rss = server.rss_kib()?;
    peak = peak.max(end_rss);
    let (calls, errors) = (calls.load(Ordering::SeqCst), errors.load(Ordering::SeqCst));
    #[allow(clippy::cast_precision_loss)]
    let (per_second, cpu_us) = (
        calls as f64 / elapsed,
        (cpu1 - cpu0) as f64 * 1e6 / ticks as f64 / calls.max(1) as f64,
    );
    println!(
        "soak result: {elapsed:.0} s, {calls} calls ({per_second:.0}/s), {errors} errors, \
         {cpu_us:.1} server CPU-µs/call, RSS start {start_rss} KiB / peak {peak} KiB / end \
         {end_rss} KiB (last sample {last_rss} KiB)"
    );
    if errors > 0 {
        bail!("{errors} of {} calls failed", calls + errors);
    }
    Ok(())
}
