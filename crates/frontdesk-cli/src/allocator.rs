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
//! call of the load benchmark did not move. libmimalloc-sys's `no_thp` feature stops
//! the `madvise` in every command; [`settle`] turns them off for the whole
//! process, which also covers kernels set to `always`, in `serve` only: the
//! setting is inherited by every program a process starts, and the servers
//! `gateway`, `call` or `lab` start decide their own memory.
//!
//! Called through [`Mimalloc`] rather than the `mimalloc` crate's allocator,
//! which asks for every block with its alignment (`mi_malloc_aligned`):
//! mimalloc answers that from its fast path only for a block of at most 1
//! KiB whose size class has a free block at hand, and otherwise over-
//! allocates by the alignment and marks the page for a slower `free`. For
//! the 8 or 16 bytes nearly every Rust value asks, a plain `mi_malloc`
//! already gives that alignment. Counted with callgrind on `frontdesk
//! serve --store memory` (a 2026-07-28 call, two requests): 25 allocations
//! took the slow path, 5,574 instructions of 219,906 (2.5 %).
//!
//! This module is the binary's one exception to the workspace's
//! `unsafe_code` lint (denied, not forbidden, in this crate only, see its
//! `Cargo.toml`): four calls into mimalloc behind the allocator interface.

/// Every allocation of the binary goes through mimalloc (the system's
/// malloc with the `system-allocator` feature, for profilers such as
/// `heaptrack` that watch malloc and do not see mimalloc's arenas).
#[cfg(not(feature = "system-allocator"))]
#[global_allocator]
static GLOBAL: Mimalloc = Mimalloc;

/// mimalloc as the global allocator, asked for alignment only when a plain
/// allocation does not already guarantee it.
#[cfg_attr(feature = "system-allocator", allow(dead_code))]
pub(crate) struct Mimalloc;

/// The alignment every `mi_malloc` block of at least this size has
/// (mimalloc's `MI_MAX_ALIGN_SIZE`); a smaller block is aligned to its size
/// class, the smallest of which is 8 bytes.
#[cfg_attr(feature = "system-allocator", allow(dead_code))]
const PLAIN_ALIGN: usize = 16;

/// Whether a plain (`mi_malloc`, `mi_zalloc`, `mi_realloc`) block of `size`
/// bytes is aligned to `align`: `align` at most 16 and at most `size` (the
/// rule the standard library's own allocator follows for `malloc`).
#[cfg_attr(feature = "system-allocator", allow(dead_code))]
fn plain(size: usize, align: usize) -> bool {
    align <= PLAIN_ALIGN && align <= size
}

// SAFETY (for the impl): each method forwards to the mimalloc function with
// the same contract as the `GlobalAlloc` method (a block of at least `size`
// bytes, or null; `mi_free` and `mi_realloc*` take any block mimalloc
// returned, whichever function returned it), and asks mimalloc for the
// alignment explicitly whenever `plain` does not guarantee it.
#[allow(unsafe_code)]
unsafe impl std::alloc::GlobalAlloc for Mimalloc {
    #[inline]
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        let (size, align) = (layout.size(), layout.align());
        let block = if plain(size, align) {
            // SAFETY: see the impl.
            unsafe { libmimalloc_sys::mi_malloc(size) }
        } else {
            // SAFETY: see the impl.
            unsafe { libmimalloc_sys::mi_malloc_aligned(size, align) }
        };
        block.cast()
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
        let (size, align) = (layout.size(), layout.align());
        let block = if plain(size, align) {
            // SAFETY: see the impl.
            unsafe { libmimalloc_sys::mi_zalloc(size) }
        } else {
            // SAFETY: see the impl.
            unsafe { libmimalloc_sys::mi_zalloc_aligned(size, align) }
        };
        block.cast()
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: std::alloc::Layout) {
        // SAFETY: see the impl; `ptr` came from this allocator.
        unsafe { libmimalloc_sys::mi_free(ptr.cast()) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
        let align = layout.align();
        let block = if plain(new_size, align) {
            // SAFETY: see the impl; `ptr` came from this allocator.
            unsafe { libmimalloc_sys::mi_realloc(ptr.cast(), new_size) }
        } else {
            // SAFETY: see the impl; `ptr` came from this allocator.
            unsafe { libmimalloc_sys::mi_realloc_aligned(ptr.cast(), new_size, align) }
        };
        block.cast()
    }
}

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

#[cfg(test)]
mod tests {
    use std::alloc::{GlobalAlloc, Layout};

    use super::Mimalloc;

    /// Every block has its layout's alignment, on the plain path and the
    /// aligned one, fresh, zeroed and grown or shrunk (with its bytes kept);
    /// a plain path taken for an alignment it does not guarantee (say, 32
    /// bytes from `mi_malloc`) fails here within a few blocks.
    #[test]
    #[allow(unsafe_code)]
    fn every_block_has_its_layouts_alignment() {
        let sizes = [
            1, 2, 3, 7, 8, 12, 16, 24, 40, 48, 100, 1000, 1024, 1025, 4000, 70_000,
        ];
        for align in [1, 2, 4, 8, 16, 32, 64, 128, 4096] {
            for size in sizes {
                let Ok(layout) = Layout::from_size_align(size.max(align), align) else {
                    continue;
                };
                // Many of each, so that blocks come from several places in
                // their pages, not only the first.
                let mut blocks = Vec::new();
                for i in 0..64 {
                    // SAFETY: a layout of non-zero size; each block is
                    // freed below with the layout it was made with.
                    let p = unsafe {
                        if i % 2 == 0 {
                            Mimalloc.alloc(layout)
                        } else {
                            Mimalloc.alloc_zeroed(layout)
                        }
                    };
                    assert!(!p.is_null());
                    assert_eq!(
                        p as usize % align,
                        0,
                        "size {} align {align}",
                        layout.size()
                    );
                    if i % 2 == 1 {
                        // SAFETY: the block has `layout.size()` bytes.
                        let bytes = unsafe { std::slice::from_raw_parts(p, layout.size()) };
                        assert!(bytes.iter().all(|&b| b == 0));
                    }
                    // SAFETY: as above.
                    unsafe { p.write_bytes(0xA5, layout.size()) };
                    blocks.push(p);
                }
                for (i, p) in blocks.into_iter().enumerate() {
                    let new_size = if i % 2 == 0 {
                        layout.size() * 3
                    } else {
                        layout.size().div_ceil(2)
                    };
                    let new_size = new_size.max(1);
                    // SAFETY: `p` came from `alloc` with `layout`; the new
                    // size is non-zero.
                    let q = unsafe { Mimalloc.realloc(p, layout, new_size) };
                    assert!(!q.is_null());
                    assert_eq!(
                        q as usize % align,
                        0,
                        "realloc {} -> {new_size}, align {align}",
                        layout.size()
                    );
                    let kept = new_size.min(layout.size());
                    // SAFETY: the block has at least `kept` bytes.
                    let bytes = unsafe { std::slice::from_raw_parts(q, kept) };
                    assert!(bytes.iter().all(|&b| b == 0xA5));
                    let Ok(grown) = Layout::from_size_align(new_size, align) else {
                        panic!("a valid layout");
                    };
                    // SAFETY: `q` came from `realloc` to `new_size`.
                    unsafe { Mimalloc.dealloc(q, grown) };
                }
            }
        }
    }
}
