//! The global allocator of costlab's native programs that plan (the command line, the
//! planner benches and examples): mimalloc. The join search makes about a thousand small
//! allocations per query, and glibc's malloc was a fifth of its instructions; the page
//! keeps wasm's dlmalloc.
//!
//! The `mimalloc` crate's allocator asks for every block through `mi_malloc_aligned` and
//! `mi_realloc_aligned`, whose generic path (blocks above mimalloc's small size, such as
//! a join relation's list of paths) costs more than plain `mi_malloc`: the PostgreSQL join
//! planner's 22 DBT3 queries took 2.75 ms with it and 2.68 ms with this one. Plain
//! `mi_malloc` is used where Rust's own `System` allocator uses plain `malloc`: an
//! alignment of at most 16 bytes (mimalloc's `MI_MAX_ALIGN_SIZE`) and no larger than the
//! size; every other layout goes through the aligned entry points.
//!
//! ```ignore
//! #[global_allocator]
//! static ALLOCATOR: costlab_alloc::Mimalloc = costlab_alloc::Mimalloc;
//! ```

use libmimalloc_sys as mi;
use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;

/// mimalloc's natural alignment: every block of 16 bytes or more is aligned to it.
const NATURAL_ALIGN: usize = 16;

/// mimalloc as a Rust global allocator.
pub struct Mimalloc;

fn plain(align: usize, size: usize) -> bool {
    align <= NATURAL_ALIGN && align <= size
}

// SAFETY: every block comes from mimalloc and goes back to it (`mi_free` takes blocks of
// either kind of entry point); blocks from the plain entry points meet the layout's
// alignment under `plain`'s condition, which the debug assertions check.
unsafe impl GlobalAlloc for Mimalloc {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = if plain(layout.align(), layout.size()) {
            unsafe { mi::mi_malloc(layout.size()) }
        } else {
            unsafe { mi::mi_malloc_aligned(layout.size(), layout.align()) }
        };
        debug_assert_eq!(p as usize % layout.align(), 0);
        p as *mut u8
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = if plain(layout.align(), layout.size()) {
            unsafe { mi::mi_zalloc(layout.size()) }
        } else {
            unsafe { mi::mi_zalloc_aligned(layout.size(), layout.align()) }
        };
        debug_assert_eq!(p as usize % layout.align(), 0);
        p as *mut u8
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        unsafe { mi::mi_free(ptr as *mut c_void) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = if plain(layout.align(), new_size) {
            unsafe { mi::mi_realloc(ptr as *mut c_void, new_size) }
        } else {
            unsafe { mi::mi_realloc_aligned(ptr as *mut c_void, new_size, layout.align()) }
        };
        debug_assert_eq!(p as usize % layout.align(), 0);
        p as *mut u8
    }
}

#[cfg(test)]
mod tests {
    use super::Mimalloc;
    use std::alloc::{GlobalAlloc, Layout};

    /// Blocks of every alignment up to a page and sizes around mimalloc's size classes
    /// meet their layout, keep their bytes through a reallocation, and go back.
    #[test]
    fn blocks_meet_their_layout_through_realloc() {
        for align in [1, 2, 4, 8, 16, 32, 64, 4096] {
            for size in [1, 7, 8, 15, 16, 24, 48, 100, 1000, 1024, 1500, 70_000] {
                let size = size.max(align);
                let layout = Layout::from_size_align(size, align).expect("a layout");
                unsafe {
                    let p = Mimalloc.alloc(layout);
                    assert!(!p.is_null());
                    assert_eq!(p as usize % align, 0, "size {size}, align {align}");
                    for i in 0..size {
                        *p.add(i) = (i % 251) as u8;
                    }
                    let q = Mimalloc.realloc(p, layout, size * 3);
                    assert_eq!(q as usize % align, 0, "grown: size {size}, align {align}");
                    assert!((0..size).all(|i| *q.add(i) == (i % 251) as u8));
                    Mimalloc.dealloc(
                        q,
                        Layout::from_size_align(size * 3, align).expect("a layout"),
                    );
                    let z = Mimalloc.alloc_zeroed(layout);
                    assert_eq!(z as usize % align, 0);
                    assert!((0..size).all(|i| *z.add(i) == 0));
                    Mimalloc.dealloc(z, layout);
                }
            }
        }
    }
}
