//! The warm Language Service: one isolate on its own large-stack thread
//! holding the workspace's projects between requests. Requests queue on a
//! channel; the isolate never leaves its thread.

use std::sync::mpsc::{channel, Sender};
use std::thread::JoinHandle;
use std::time::Duration;

use super::host::WorkspaceFs;
use super::isolate::{Isolate, THREAD_STACK_BYTES};
use super::protocol::{ServiceRequest, ServiceResponse};
use super::TsError;

type Reply = Sender<Result<ServiceResponse, TsError>>;

pub struct Service {
    requests: Option<Sender<(ServiceRequest, Reply)>>,
    thread: Option<JoinHandle<()>>,
    startup: Duration,
}

impl Service {
    /// Starts the isolate with `fs` as its file system.
    pub fn start(fs: WorkspaceFs) -> Result<Service, TsError> {
        let (requests, rx) = channel::<(ServiceRequest, Reply)>();
        let (ready_tx, ready_rx) = channel();
        let thread = std::thread::Builder::new()
            .name("tsq-service".into())
            .stack_size(THREAD_STACK_BYTES)
            .spawn(move || {
                let mut engine = match Isolate::for_workspace(fs) {
                    Ok(e) => {
                        let _ = ready_tx.send(Ok(e.startup_time()));
                        e
                    }
                    Err(e) => {
                        let _ = ready_tx.send(Err(e));
                        return;
                    }
                };
                for (request, reply) in rx {
                    let _ = reply.send(engine.service(request));
                }
            })
            .map_err(|e| TsError::Thread(e.to_string()))?;
        let startup = ready_rx.recv().map_err(|_| TsError::PoolClosed)??;
        Ok(Service { requests: Some(requests), thread: Some(thread), startup })
    }

    pub fn startup_time(&self) -> Duration {
        self.startup
    }

    /// Sends one request and waits for its answer. A `failed` answer from
    /// JS becomes `TsError::Service`.
    pub fn call(&self, request: ServiceRequest) -> Result<ServiceResponse, TsError> {
        let (reply, answer) = channel();
        self.requests.as_ref().ok_or(TsError::PoolClosed)?.send((request, reply)).map_err(|_| TsError::PoolClosed)?;
        match answer.recv().map_err(|_| TsError::PoolClosed)?? {
            ServiceResponse::Failed { message } => Err(TsError::Service(message)),
            ok => Ok(ok),
        }
    }
}

impl Drop for Service {
    fn drop(&mut self) {
        self.requests.take();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
