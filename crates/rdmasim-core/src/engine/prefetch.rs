//! A cache hint for the hot loop: the event loop's handlers touch state that does not stay in
//! cache on a large fabric, and asking for it one event ahead hides part of the miss.

/// Asks the cache for the line at `p` (a hint: nothing is read).
#[inline(always)]
pub(crate) fn prefetch_line<T>(p: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch reads nothing and cannot fault; `p` is a valid reference anyway.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>((p as *const T).cast::<i8>());
    }
}
