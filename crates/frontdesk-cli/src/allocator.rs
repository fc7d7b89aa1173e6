//! The binary's memory allocator: mimalloc, with transparent huge pages off
//! for the process.
//!
//! mimalloc because under the load benchmark (`cargo bench -p frontdesk-cli
//! --bench load`) glibc's malloc and free took about a third of `frontdesk
//! serve`'s CPU; the library leaves the choice to each application.
//!
//! Huge pages off because mimalloc asks the kernel for them on its arenas
//! (`madvise(MADV_HUGEPAGE)`; kernels set to `always` use them anyway), and
//! then memory is taken and given back 2 MiB at a time: with 10,000 pending
//! 2025-11-25 questions (`cargo bench -p frontdesk-cli --bench pending`),
//! `frontdesk serve` held 27.6 KiB per question on HTTP/1.1 with them and
//! 19.5 KiB without, and started at 33 MB of RSS instead of 22; the CPU per
//! call of the load benchmark did not move. The crate's `no_thp` feature stops
//! the `madvise` in every command; [`settle`] turns them off for the whole
//! process, which also covers kernels set to `always`, in `serve` only: the
//! setting is inherited by every program a process starts, and the servers
//! `gateway`, `call` or `lab` start decide their own memory.

/// Every allocation of the binary goes through mimalloc (the system's
/// malloc with the `system-allocator` feature, for profilers such as
/// `heaptrack` that watch malloc and do not see mimalloc's arenas).
#[cfg(not(feature = "system-allocator"))]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Turn transparent huge pages off for this process and the processes it
/// starts (so only in a command that starts none: `serve`). Where the
/// kernel does not have the setting, nothing changes: the allocator works
/// either way.
pub fn settle() {
    #[cfg(target_os = "linux")]
    {
        let _ = rustix::thread::disable_transparent_huge_pages(true);
    }
}
