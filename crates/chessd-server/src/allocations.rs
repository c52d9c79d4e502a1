//! Counting allocations, for the tests that hold a hot path to allocating nothing per move:
//! the unit tests' allocator is the system's, counting each thread's allocations.

use std::{
    alloc::{GlobalAlloc, Layout, System},
    cell::Cell,
};

thread_local! {
    /// Allocations (and reallocations) made by this thread so far.
    static MADE: Cell<u64> = const { Cell::new(0) };
}

/// The system allocator, counting.
struct Counting;

// SAFETY: every call is passed on unchanged to the system allocator, which upholds the
// trait's contract; counting touches a const-initialised thread-local `Cell`, which neither
// allocates nor registers a destructor.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        MADE.with(|made| made.set(made.get() + 1));
        // SAFETY: the caller's guarantees about `layout` are the system allocator's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was allocated by `System` with `layout` (every allocation here is).
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        MADE.with(|made| made.set(made.get() + 1));
        // SAFETY: as for `dealloc`, and the caller's guarantees about `new_size`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

/// What `f` gives, and how many allocations it made on this thread.
pub(crate) fn counted<T>(f: impl FnOnce() -> T) -> (T, u64) {
    let before = MADE.with(Cell::get);
    let value = f();
    (value, MADE.with(Cell::get) - before)
}
