//! QuickJS's own collection trigger, off while a full pass's occurrence
//! request paces its collections by the process's memory bound.
//!
//! QuickJS collects cycles whenever its allocations grow half again past
//! their size at its last automatic collection, and every collection
//! traces the whole live heap (desktop's pass: about 450 MB, 1 s each). A
//! bounded occurrence request already collects where the bound says
//! (`js/occurrences/61_occurrence_requests.js`: between files, and every
//! 64th identifier inside one), so the growth trigger only adds
//! collections below the bound, and so did the collection after every
//! request of a full pass. Without both, desktop's pass takes about 9%
//! less time (benches/runs/2026-11-30-pacing-issue47-pass8.md). An incremental
//! pass (`tsq serve`'s cascades, whose floor sits near their bound) keeps
//! the trigger: there it kept the server's peak about 75 MiB lower.
//!
//! deno_core's facade has no setter for the trigger. Under the QuickJS
//! backend a context handle points at a QuickJS value tagged
//! `JS_TAG_V8_CONTEXT` whose pointer is the `JSContext` (v8x's
//! `src/quickjs/core.rs`, `ctx_to_jsval`). [`Trigger::of`] reads the
//! runtime through the main context's handle, checks the tag, and is
//! `None` (logged; QuickJS keeps its trigger) when the value is not that.
//! `JS_GetRuntime`, `JS_GetGCThreshold`, `JS_SetGCThreshold` and
//! `v82jsc_malloc_size` are symbols of the QuickJS library the backend
//! links. Under V8 there is no `Trigger`: V8 schedules its own collections.

use deno_core::JsRuntime;

/// The handle on one runtime's automatic collection trigger.
pub(crate) struct Trigger {
    #[cfg(not(feature = "v8"))]
    rt: *mut std::ffi::c_void,
}

#[cfg(not(feature = "v8"))]
mod sys {
    use std::ffi::c_void;

    unsafe extern "C" {
        pub fn JS_GetRuntime(ctx: *mut c_void) -> *mut c_void;
        #[cfg(test)]
        pub fn JS_GetGCThreshold(rt: *mut c_void) -> usize;
        pub fn JS_SetGCThreshold(rt: *mut c_void, threshold: usize);
        pub fn v82jsc_malloc_size(rt: *mut c_void) -> usize;
    }

    /// v8x's `JS_TAG_V8_CONTEXT`: the tag of a context handle's value.
    pub const TAG_V8_CONTEXT: i64 = 0x7632;

    /// QuickJS's `JSValue` without NaN boxing (64-bit targets): a union
    /// whose pointer member is read here, and the tag.
    #[repr(C)]
    pub struct JsValue {
        pub ptr: *mut c_void,
        pub tag: i64,
    }
}

impl Trigger {
    /// The trigger of `runtime`'s engine, when the backend is QuickJS and
    /// its context handle is what this module expects.
    #[cfg(not(feature = "v8"))]
    pub(crate) fn of(runtime: &mut JsRuntime) -> Option<Trigger> {
        let context = runtime.main_context();
        let handle: &deno_core::v8::Context = context.open(runtime.v8_isolate());
        // SAFETY: under the QuickJS backend a handle points at a QuickJS
        // value (16 bytes: pointer, tag); the tag is checked before the
        // pointer is used.
        let value = unsafe { &*(handle as *const deno_core::v8::Context as *const sys::JsValue) };
        if value.tag != sys::TAG_V8_CONTEXT || value.ptr.is_null() {
            tracing::debug!(tag = value.tag, "the engine's context handle is not a QuickJS context value: its own collection trigger stays");
            return None;
        }
        // SAFETY: `value.ptr` is the live main context's `JSContext`.
        let rt = unsafe { sys::JS_GetRuntime(value.ptr) };
        (!rt.is_null()).then_some(Trigger { rt })
    }

    #[cfg(feature = "v8")]
    pub(crate) fn of(_runtime: &mut JsRuntime) -> Option<Trigger> {
        None
    }

    /// `true`: no automatic collection until `pace(false)`. `false`:
    /// QuickJS's own rule again, from the size now (the next automatic
    /// collection when allocations grow half again).
    pub(crate) fn pace(&self, paced: bool) {
        #[cfg(not(feature = "v8"))]
        // SAFETY: `rt` is the runtime of the isolate whose op state holds
        // this trigger, alive while its ops run.
        unsafe {
            let threshold = if paced {
                usize::MAX
            } else {
                let size = sys::v82jsc_malloc_size(self.rt);
                size + size / 2
            };
            sys::JS_SetGCThreshold(self.rt, threshold);
        }
        #[cfg(feature = "v8")]
        let _ = paced;
    }

    /// Whether automatic collection is off (`pace(true)` in effect).
    #[cfg(test)]
    pub(crate) fn paced(&self) -> bool {
        #[cfg(not(feature = "v8"))]
        // SAFETY: as in `pace`.
        return unsafe { sys::JS_GetGCThreshold(self.rt) } == usize::MAX;
        #[cfg(feature = "v8")]
        false
    }
}
