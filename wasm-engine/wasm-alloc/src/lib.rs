//! The global allocator of schedlab's wasm builds (the browser module and the CLI under WASI):
//! dlmalloc, as Rust's own wasm allocator, over a linear memory that grows in large steps.
//!
//! Why: in V8 each `memory.grow` costs about 0.36 ms whatever its size (measured in Node 20:
//! growing a memory to 1.5 GiB one 64 KiB page at a time took 9.1 s, 256 pages at a time
//! 0.19 s), because every grow replaces the memory's `ArrayBuffer` and notifies the garbage
//! collector. The stock allocator grows by exactly what one request needs, so a run whose log
//! reaches a gigabyte grows hundreds of times. Here a grow takes at least an eighth of the
//! memory already in use (and at least 1 MiB): O(log n) grows, at the price of up to 12.5 %
//! of address space reserved ahead (untouched pages cost no resident memory).
//!
//! Natively this crate is empty: the binaries keep the system allocator.

#![no_std]

#[cfg(target_arch = "wasm32")]
mod imp {
    use core::alloc::{GlobalAlloc, Layout};
    use core::arch::wasm32;
    use core::cell::UnsafeCell;
    use core::ptr;
    use dlmalloc::{Allocator, Dlmalloc};

    const PAGE: usize = 64 * 1024;
    /// The smallest grow, in pages (1 MiB).
    const MIN_GROW_PAGES: usize = 16;

    /// dlmalloc's source of memory: `memory.grow`, by at least an eighth of the memory so far.
    pub struct GeometricGrow;

    unsafe impl Allocator for GeometricGrow {
        fn alloc(&self, size: usize) -> (*mut u8, usize, u32) {
            let need = size.div_ceil(PAGE);
            let have = wasm32::memory_size(0);
            let pages = need.max(have / 8).max(MIN_GROW_PAGES);
            // Ask for the large step first; near the 4 GiB limit fall back to what is needed.
            for p in [pages, need] {
                let prev = wasm32::memory_grow(0, p);
                if prev != usize::MAX {
                    let base = prev * PAGE;
                    let len = p * PAGE;
                    // The last bytes of the address space are never handed out (a pointer
                    // must not wrap to 0), as the stock wasm allocator does.
                    let len = if base.wrapping_add(len) == 0 { len - 16 } else { len };
                    return (base as *mut u8, len, 0);
                }
            }
            (ptr::null_mut(), 0, 0)
        }
        fn remap(&self, _ptr: *mut u8, _old: usize, _new: usize, _can_move: bool) -> *mut u8 {
            ptr::null_mut()
        }
        fn free_part(&self, _ptr: *mut u8, _old: usize, _new: usize) -> bool {
            false
        }
        fn free(&self, _ptr: *mut u8, _size: usize) -> bool {
            false
        }
        fn can_release_part(&self, _flags: u32) -> bool {
            false
        }
        fn allocates_zeros(&self) -> bool {
            true
        }
        fn page_size(&self) -> usize {
            PAGE
        }
    }

    /// The global allocator: one dlmalloc heap. The wasm builds are single-threaded (no
    /// `atomics` target feature), so no lock is needed; that is checked at compile time.
    pub struct GrowingDlmalloc(UnsafeCell<Dlmalloc<GeometricGrow>>);

    #[cfg(target_feature = "atomics")]
    compile_error!("schedlab-wasm-alloc assumes a single-threaded wasm build");

    // SAFETY: a wasm build without the atomics feature runs on one thread.
    unsafe impl Sync for GrowingDlmalloc {}

    impl GrowingDlmalloc {
        /// An empty heap.
        pub const fn new() -> Self {
            GrowingDlmalloc(UnsafeCell::new(Dlmalloc::new_with_allocator(GeometricGrow)))
        }
    }

    impl Default for GrowingDlmalloc {
        fn default() -> Self {
            Self::new()
        }
    }

    // SAFETY: every method forwards to the one dlmalloc heap, which upholds GlobalAlloc's
    // contract; there is a single thread, so the `&mut` taken from the cell is never aliased.
    unsafe impl GlobalAlloc for GrowingDlmalloc {
        unsafe fn alloc(&self, l: Layout) -> *mut u8 {
            (*self.0.get()).malloc(l.size(), l.align())
        }
        unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
            (*self.0.get()).calloc(l.size(), l.align())
        }
        unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
            (*self.0.get()).free(p, l.size(), l.align())
        }
        unsafe fn realloc(&self, p: *mut u8, l: Layout, new_size: usize) -> *mut u8 {
            (*self.0.get()).realloc(p, l.size(), l.align(), new_size)
        }
    }
}

#[cfg(target_arch = "wasm32")]
pub use imp::GrowingDlmalloc;
