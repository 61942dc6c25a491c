//! One JS isolate with the vendored TypeScript compiler and tsq's JS loaded.
//!
//! Rust calls one JS entry point per request. JS takes the request out of
//! `OpState` through an op and puts its answer back through another op
//! (the pattern of Deno's own tsc host). An `Isolate` is not `Send`: it lives
//! on the thread that made it (see `pool`).

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Once;
use std::time::{Duration, Instant};

use deno_core::{op2, v8, JsRuntime, OpState, RuntimeOptions};
use deno_error::JsErrorBox;

use super::collector::Trigger;
use super::host::WorkspaceFs;
use super::protocol::{DirEntries, ParseRequest, ParseResponse, ServiceRequest, ServiceResponse};
use super::TsError;

/// The vendored compiler, embedded at build time.
pub const TYPESCRIPT_JS: &str = include_str!("../../../vendor-typescript/lib/typescript.js");
// `TSQ_JS` (tsq's own JS, in load order) and `TYPESCRIPT_VERSION`.
include!(concat!(env!("OUT_DIR"), "/embedded_js.rs"));

/// What the engine's answers are computed by: the vendored compiler's
/// version and tsq's own JS, hashed once. Stored rows computed by another
/// engine are stale (the occurrence index's layout key includes it).
pub fn engine_fingerprint() -> &'static str {
    use sha2::Digest;
    static FINGERPRINT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    FINGERPRINT.get_or_init(|| {
        let mut h = sha2::Sha256::new();
        h.update(TYPESCRIPT_VERSION.as_bytes());
        for (name, text) in TSQ_JS {
            h.update([0]);
            h.update(name.as_bytes());
            h.update([0]);
            h.update(text.as_bytes());
        }
        crate::hex(&h.finalize())
    })
}

/// Native stack of an engine thread. Reserved, not committed, until used.
pub const THREAD_STACK_BYTES: usize = 512 * 1024 * 1024;
/// JS stack limit handed to the engine (`--stack-size`, KiB): well inside
/// the native stack, so a deep recursion ends in a catchable `RangeError`.
const JS_STACK_KIB: usize = 384 * 1024;

/// A request/response slot shared with JS through `OpState`: Rust puts the
/// request, JS takes it through an op and puts its answer back.
struct Slot<Req, Res> {
    request: Option<Req>,
    response: Option<Res>,
}

impl<Req, Res> Default for Slot<Req, Res> {
    fn default() -> Self {
        Slot { request: None, response: None }
    }
}

type ParseSlot = Slot<ParseRequest, ParseResponse>;
type ServiceSlot = Slot<ServiceRequest, ServiceResponse>;

fn take_request<Req: 'static, Res: 'static>(state: &mut OpState, op: &str) -> Result<Req, JsErrorBox> {
    state.borrow_mut::<Slot<Req, Res>>().request.take().ok_or_else(|| JsErrorBox::generic(format!("{op}: no request pending")))
}

#[op2]
#[serde]
fn op_tsq_parse_request(state: &mut OpState) -> Result<ParseRequest, JsErrorBox> {
    take_request::<ParseRequest, ParseResponse>(state, "op_tsq_parse_request")
}

#[op2]
fn op_tsq_parse_respond(state: &mut OpState, #[serde] response: ParseResponse) {
    state.borrow_mut::<ParseSlot>().response = Some(response);
}

#[op2]
#[serde]
fn op_tsq_service_request(state: &mut OpState) -> Result<ServiceRequest, JsErrorBox> {
    take_request::<ServiceRequest, ServiceResponse>(state, "op_tsq_service_request")
}

#[op2]
fn op_tsq_service_respond(state: &mut OpState, #[serde] response: ServiceResponse) {
    state.borrow_mut::<ServiceSlot>().response = Some(response);
}

/// A response as JSON text (occurrence batches: `JSON.stringify` is native
/// in the engine). serde_v8 on QuickJS copies every string it reads into a
/// new JS string that lives until the op returns, so a batch's strings were
/// held three times at once: the rows, those copies, Rust's.
#[op2(fast)]
fn op_tsq_service_respond_json(state: &mut OpState, #[string] json: &str) {
    state.borrow_mut::<ServiceSlot>().response = Some(ServiceResponse::from_json(json));
}

/// The workspace file system, present only in a service isolate.
struct HostFs(Option<WorkspaceFs>);

fn host(state: &mut OpState) -> Result<&mut WorkspaceFs, JsErrorBox> {
    state.borrow_mut::<HostFs>().0.as_mut().ok_or_else(|| JsErrorBox::generic("no workspace in this isolate"))
}

#[op2]
#[string]
fn op_tsq_fs_read(state: &mut OpState, #[string] path: String) -> Result<Option<String>, JsErrorBox> {
    Ok(host(state)?.read(&path))
}

#[op2(fast)]
fn op_tsq_fs_file_exists(state: &mut OpState, #[string] path: &str) -> Result<bool, JsErrorBox> {
    Ok(host(state)?.file_exists(path))
}

#[op2(fast)]
fn op_tsq_fs_dir_exists(state: &mut OpState, #[string] path: &str) -> Result<bool, JsErrorBox> {
    Ok(host(state)?.dir_exists(path))
}

#[op2]
#[serde]
fn op_tsq_fs_entries(state: &mut OpState, #[string] path: String) -> Result<DirEntries, JsErrorBox> {
    Ok(host(state)?.entries(&path))
}

#[op2]
#[string]
fn op_tsq_fs_version(state: &mut OpState, #[string] path: String) -> Result<String, JsErrorBox> {
    Ok(host(state)?.version(&path))
}

#[op2(fast)]
#[number]
fn op_tsq_fs_generation(state: &mut OpState) -> Result<u64, JsErrorBox> {
    Ok(host(state)?.generation())
}

#[op2]
#[string]
fn op_tsq_fs_realpath(state: &mut OpState, #[string] path: String) -> Result<String, JsErrorBox> {
    Ok(host(state)?.realpath(&path))
}

/// The process's resident memory in MiB, for the occurrence pass's
/// bound. Cheap (one read of `/proc/self/status`), unlike the engine's
/// heap statistics, which QuickJS computes by walking every object.
#[op2(fast)]
fn op_tsq_rss_mb() -> f64 {
    resident_mb().unwrap_or(0.0)
}

/// Resident memory in MiB, where the platform tells it cheaply: Linux's
/// `/proc/self/status`, macOS's `proc_pidinfo` task info. Elsewhere
/// `None`, and the occurrence pass's memory bound does not act.
pub fn resident_mb() -> Option<f64> {
    #[cfg(target_os = "linux")]
    {
        let status = std::fs::read_to_string("/proc/self/status").ok()?;
        let kb: f64 = status.lines().find_map(|l| l.strip_prefix("VmRSS:"))?.split_whitespace().next()?.parse().ok()?;
        Some(kb / 1024.0)
    }
    #[cfg(target_os = "macos")]
    {
        // SAFETY: a plain C struct of integers; all zeroes is a valid value.
        let mut info: libc::proc_taskinfo = unsafe { std::mem::zeroed() };
        let size = std::mem::size_of::<libc::proc_taskinfo>() as libc::c_int;
        let pid = std::process::id() as libc::c_int;
        // SAFETY: proc_pidinfo writes at most `size` bytes into `info`.
        let written = unsafe { libc::proc_pidinfo(pid, libc::PROC_PIDTASKINFO, 0, (&mut info as *mut libc::proc_taskinfo).cast(), size) };
        (written == size).then(|| info.pti_resident_size as f64 / (1024.0 * 1024.0))
    }
    #[cfg(not(any(target_os = "linux", target_os = "macos")))]
    {
        None
    }
}

/// Collects garbage now (QuickJS collects cycles only when its heap grows
/// half again past the size at its last collection). Never a fast call:
/// V8 forbids collecting inside one.
///
/// First it clears the engine's kept objects. QuickJS keeps every object
/// that became a `WeakMap` or `WeakSet` key (and every `WeakRef` target)
/// alive until the job that made it one ends, and a job ends only at a
/// microtask checkpoint, which tsq never runs: without the clearing, every
/// program, checker and symbol that a cache ever keyed stays alive, with
/// all it reaches (trpc's pass kept all 61 programs it built, 1.3 GB of
/// heap). Clearing inside a job is safe here: tsq's code holds weak keys
/// only as caches, never relying on a `deref` staying the same object.
#[op2(nofast)]
fn op_tsq_collect_garbage(isolate: &mut v8::Isolate) {
    collect(isolate, "inside a request");
}

/// Clears the kept objects, collects, hands free pages back, and logs
/// the heap left (debug logs only; benches/README.md reads them).
fn collect(isolate: &mut v8::Isolate, when: &'static str) {
    let started = Instant::now();
    isolate.clear_kept_objects();
    isolate.low_memory_notification();
    trim_malloc();
    if tracing::enabled!(tracing::Level::DEBUG) {
        let stats = isolate.get_heap_statistics();
        let ms = started.elapsed().as_millis() as u64;
        let rss_mb = resident_mb().unwrap_or(0.0) as u64;
        let [malloc_used_mb, malloc_free_mb] = malloc_mb().unwrap_or_default();
        tracing::debug!(heap_mb = stats.total_heap_size() / (1 << 20), rss_mb, malloc_used_mb, malloc_free_mb, ms, when, "engine heap after a collection");
    }
}

/// What the C allocator holds, in MiB: in use (the engine's heap plus
/// everything else malloc serves), and free but still mapped (freed
/// chunks inside pages that hold live ones, which no trim returns).
/// Debug logs only; benches/README.md ("Where a vue index's memory
/// goes") reads them.
fn malloc_mb() -> Option<[u64; 2]> {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: mallinfo2 only reads the allocator's counters.
        let mi = unsafe { libc::mallinfo2() };
        Some([(mi.uordblks >> 20) as u64, (mi.fordblks >> 20) as u64])
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        None
    }
}

/// glibc keeps what the engine freed mapped (its arenas are trimmed only
/// at their top): hands the free pages back after a collection, so the
/// process's footprint follows the engine's heap.
fn trim_malloc() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim takes no pointer; it only releases free memory.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Switches the engine's own collection trigger off (`true`) while a full
/// pass's bounded occurrence request paces the collections itself, and back to
/// QuickJS's rule (`false`) when it ends (`collector` says why).
#[op2(fast)]
fn op_tsq_pace_collections(state: &mut OpState, paced: bool) {
    if let Some(trigger) = state.try_borrow::<Trigger>() {
        trigger.pace(paced);
    }
}

deno_core::extension!(
    tsq_ext,
    ops = [
        op_tsq_parse_request,
        op_tsq_parse_respond,
        op_tsq_service_request,
        op_tsq_service_respond,
        op_tsq_service_respond_json,
        op_tsq_fs_read,
        op_tsq_fs_file_exists,
        op_tsq_fs_dir_exists,
        op_tsq_fs_entries,
        op_tsq_fs_version,
        op_tsq_fs_generation,
        op_tsq_fs_realpath,
        op_tsq_rss_mb,
        op_tsq_collect_garbage,
        op_tsq_pace_collections,
    ],
    options = { fs: Option<WorkspaceFs> },
    state = |state, options| {
        state.put(ParseSlot::default());
        state.put(ServiceSlot::default());
        state.put(HostFs(options.fs));
    }
);

fn set_engine_flags() {
    static FLAGS: Once = Once::new();
    FLAGS.call_once(|| {
        let unknown = deno_core::v8_set_flags(vec!["tsq".to_string(), format!("--stack-size={JS_STACK_KIB}")]);
        if unknown.len() > 1 {
            eprintln!("tsq: engine ignored flags: {:?}", &unknown[1..]);
        }
    });
}

/// A warm isolate holding `typescript.js`.
pub struct Isolate {
    runtime: JsRuntime,
    state: Rc<RefCell<OpState>>,
    startup: Duration,
}

impl Isolate {
    /// Creates the isolate and loads the compiler. Call on a thread with a
    /// native stack of at least [`THREAD_STACK_BYTES`].
    pub fn new() -> Result<Isolate, TsError> {
        Isolate::with_fs(None)
    }

    /// An engine that can also serve the Language Service over `fs`.
    pub fn for_workspace(fs: WorkspaceFs) -> Result<Isolate, TsError> {
        Isolate::with_fs(Some(fs))
    }

    fn with_fs(fs: Option<WorkspaceFs>) -> Result<Isolate, TsError> {
        set_engine_flags();
        let started = Instant::now();
        let mut runtime =
            JsRuntime::try_new(RuntimeOptions { extensions: vec![tsq_ext::init(fs)], ..Default::default() }).map_err(|e| TsError::Startup(e.to_string()))?;
        // The compiler loads as a module whose last line publishes `ts`:
        // QuickJS's backend compiles a classic script twice per isolate
        // (a syntax check at compile, then the run), where a module is
        // compiled once, from its on-disk bytecode cache once warm
        // (benches/runs/2026-12-06-compiler-as-module.md). The bundle is
        // strict inside already, and its wrapper runs alike in a module.
        runtime
            .lazy_load_es_module_with_code("tsq:vendor/typescript.js", format!("{TYPESCRIPT_JS}\nglobalThis.ts = ts;\n"))
            .map_err(|e| TsError::Startup(format!("loading typescript.js: {e}")))?;
        for (name, code) in TSQ_JS {
            runtime.execute_script(*name, code.to_string()).map_err(|e| TsError::Startup(format!("loading {name}: {e}")))?;
        }
        if let Some(trigger) = Trigger::of(&mut runtime) {
            runtime.op_state().borrow_mut().put(trigger);
        }
        let state = runtime.op_state();
        Ok(Isolate { runtime, state, startup: started.elapsed() })
    }

    /// How long `new` took: isolate creation plus loading the compiler.
    pub fn startup_time(&self) -> Duration {
        self.startup
    }

    /// Parses one file. A JS exception that escapes tsq's own handlers is
    /// an `Err`; the caller should then replace this engine.
    pub fn parse(&mut self, request: ParseRequest) -> Result<ParseResponse, TsError> {
        self.round_trip("tsqParse", request)
    }

    /// Runs one Language Service request.
    pub fn service(&mut self, request: ServiceRequest) -> Result<ServiceResponse, TsError> {
        if let Some(fs) = self.state.borrow_mut().borrow_mut::<HostFs>().0.as_mut() {
            fs.next_epoch();
        }
        // A full occurrence pass drops programs and checkers between its
        // requests: collect them now (QuickJS otherwise collects only when
        // its heap grows half again past the size at its last collection).
        // A request with a memory bound paces its own collections by it
        // (js/occurrences/61_occurrence_requests.js): one more here would
        // trace the live heap again below the bound. A settle collects
        // itself, to record the level it leaves (js/service/20_service.js).
        let collect = matches!(request, ServiceRequest::Occurrences { release: true, memory_mb: 0, .. });
        let response = self.round_trip("tsqService", request);
        if collect {
            self.collect_garbage();
        }
        response
    }

    /// Runs the engine's garbage collector now.
    fn collect_garbage(&mut self) {
        collect(self.runtime.v8_isolate(), "after a request");
    }

    /// Puts `request` in its slot, calls the JS entry point `entry`, and
    /// takes the answer it left.
    fn round_trip<Req: 'static, Res: 'static>(&mut self, entry: &'static str, request: Req) -> Result<Res, TsError> {
        self.state.borrow_mut().borrow_mut::<Slot<Req, Res>>().request = Some(request);
        let result = self.runtime.execute_script(entry, format!("{entry}()"));
        // The request's job has ended: what it kept alive only for the
        // job's length may go (`op_tsq_collect_garbage` says why this
        // matters).
        self.runtime.v8_isolate().clear_kept_objects();
        let response = {
            let mut state = self.state.borrow_mut();
            let slot = state.borrow_mut::<Slot<Req, Res>>();
            slot.request = None;
            slot.response.take()
        };
        match (result, response) {
            (Ok(_), Some(response)) => Ok(response),
            (Ok(_), None) => Err(TsError::Protocol(format!("{entry} returned without responding"))),
            (Err(e), _) => Err(TsError::Js(e.exception_message.clone())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sets up an object that only a `WeakMap` key and a `WeakRef` reach,
    /// as tsq's caches key programs and symbols.
    const WEAK_ONLY: &str = "globalThis.weakKeys = new WeakMap(); \
        (() => { const k = { payload: new Array(1000).fill(1) }; weakKeys.set(k, 1); globalThis.weakRef = new WeakRef(k); })();";
    const COLLECTED: &str = "if (weakRef.deref() !== undefined) throw new Error('a weak-only object outlived the collection');";

    fn on_engine_thread(test: impl FnOnce(&mut Isolate) + Send + 'static) {
        std::thread::Builder::new()
            .stack_size(THREAD_STACK_BYTES)
            .spawn(move || test(&mut Isolate::new().expect("the engine starts")))
            .expect("a thread")
            .join()
            .expect("the test passed");
    }

    /// What a request kept alive for its job's length is collectable once
    /// the request returned (QuickJS would keep it until a microtask
    /// checkpoint, which tsq never runs).
    #[test]
    fn a_weak_key_dies_after_the_request_that_made_it() {
        on_engine_thread(|engine| {
            engine.runtime.execute_script("setup", WEAK_ONLY).expect("setup runs");
            let parsed = engine.parse(ParseRequest { file_name: "/a.ts".into(), text: "export const a = 1;".into() });
            assert!(parsed.is_ok(), "the round trip parses: {parsed:?}");
            engine.collect_garbage();
            if let Err(e) = engine.runtime.execute_script("check", COLLECTED) {
                panic!("{}", e.exception_message);
            }
        });
    }

    /// A bounded occurrence request switches QuickJS's own trigger off
    /// and back on through the op; the trigger is found on QuickJS (a
    /// `deno_core` update that changes its context handles fails here,
    /// not silently in a slower pass).
    #[test]
    fn the_pacing_op_switches_the_engine_trigger() {
        on_engine_thread(|engine| {
            let paced = |engine: &mut Isolate| engine.state.borrow().try_borrow::<Trigger>().map(Trigger::paced);
            if cfg!(feature = "v8") {
                assert_eq!(paced(engine), None, "V8 schedules its own collections");
                return;
            }
            assert_eq!(paced(engine), Some(false), "QuickJS's trigger is found and on at start");
            engine.runtime.execute_script("pace", "Deno.core.ops.op_tsq_pace_collections(true)").expect("the op runs");
            assert_eq!(paced(engine), Some(true));
            engine.runtime.execute_script("unpace", "Deno.core.ops.op_tsq_pace_collections(false)").expect("the op runs");
            assert_eq!(paced(engine), Some(false));
        });
    }

    /// Inside one long request (a full occurrence pass slice), the JS side's
    /// collection frees them too.
    #[test]
    fn a_weak_key_dies_at_a_collection_inside_the_request() {
        on_engine_thread(|engine| {
            let script = format!("{WEAK_ONLY} Deno.core.ops.op_tsq_collect_garbage(); {COLLECTED}");
            if let Err(e) = engine.runtime.execute_script("inside", script) {
                panic!("{}", e.exception_message);
            }
        });
    }
}
