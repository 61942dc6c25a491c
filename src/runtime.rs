//! A tokio runtime owned by a synchronous API (the index, the HTTP client)
//! that may be dropped anywhere, including inside another runtime's async
//! context (the MCP server), where dropping a plain `Runtime` panics.

pub struct OwnedRuntime(Option<tokio::runtime::Runtime>);

impl OwnedRuntime {
    pub fn new(runtime: tokio::runtime::Runtime) -> OwnedRuntime {
        OwnedRuntime(Some(runtime))
    }
}

impl std::ops::Deref for OwnedRuntime {
    type Target = tokio::runtime::Runtime;
    fn deref(&self) -> &tokio::runtime::Runtime {
        self.0.as_ref().expect("the runtime lives until drop")
    }
}

impl Drop for OwnedRuntime {
    fn drop(&mut self) {
        if let Some(rt) = self.0.take() {
            rt.shutdown_background();
        }
    }
}
