//! A pool of engines, one per thread, that parses files in parallel.
//!
//! Each worker thread gets a large native stack and builds its own
//! [`Isolate`]; `typescript.js` loads once per isolate, in parallel. A file
//! whose parse throws past tsq's JS handlers gets a `TsError`, and that
//! worker replaces its isolate before taking the next job: one bad file
//! never stops the run.

use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use super::isolate::{Isolate, THREAD_STACK_BYTES};
use super::protocol::{ParseRequest, ParseResponse};
use super::TsError;

/// How many isolates to run.
#[derive(Debug, Clone)]
pub struct PoolConfig {
    pub workers: usize,
}

impl Default for PoolConfig {
    /// One isolate per core.
    fn default() -> Self {
        let workers = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
        PoolConfig { workers }
    }
}

struct Job {
    index: usize,
    request: ParseRequest,
    reply: Sender<(usize, Result<ParseResponse, TsError>)>,
}

pub struct IsolatePool {
    jobs: Option<Sender<Job>>,
    workers: Vec<JoinHandle<()>>,
    startups: Vec<Duration>,
}

impl IsolatePool {
    /// Starts the workers and waits until every isolate is warm.
    pub fn new(config: &PoolConfig) -> Result<IsolatePool, TsError> {
        let (jobs, job_rx) = channel::<Job>();
        let job_rx = Arc::new(Mutex::new(job_rx));
        let (ready_tx, ready_rx) = channel::<Result<Duration, TsError>>();
        let mut workers = Vec::new();
        for i in 0..config.workers.max(1) {
            let job_rx = Arc::clone(&job_rx);
            let ready_tx = ready_tx.clone();
            let handle = std::thread::Builder::new()
                .name(format!("tsq-engine-{i}"))
                .stack_size(THREAD_STACK_BYTES)
                .spawn(move || worker(job_rx, ready_tx))
                .map_err(|e| TsError::Thread(e.to_string()))?;
            workers.push(handle);
        }
        drop(ready_tx);
        let mut startups = Vec::new();
        for ready in ready_rx.iter().take(workers.len()) {
            startups.push(ready?);
        }
        Ok(IsolatePool { jobs: Some(jobs), workers, startups })
    }

    /// Start-up time of each isolate (creation plus loading the compiler).
    pub fn startup_times(&self) -> &[Duration] {
        &self.startups
    }

    pub fn workers(&self) -> usize {
        self.workers.len()
    }

    /// Parses every request, in parallel; results keep the input order.
    pub fn parse_all(&self, requests: Vec<ParseRequest>) -> Vec<Result<ParseResponse, TsError>> {
        let n = requests.len();
        let (reply, results) = channel();
        let Some(jobs) = &self.jobs else {
            return (0..n).map(|_| Err(TsError::PoolClosed)).collect();
        };
        for (index, request) in requests.into_iter().enumerate() {
            if jobs.send(Job { index, request, reply: reply.clone() }).is_err() {
                break;
            }
        }
        drop(reply);
        let mut out: Vec<Option<Result<ParseResponse, TsError>>> = (0..n).map(|_| None).collect();
        for (index, result) in results.iter() {
            out[index] = Some(result);
        }
        out.into_iter().map(|r| r.unwrap_or(Err(TsError::PoolClosed))).collect()
    }

    pub fn parse(&self, request: ParseRequest) -> Result<ParseResponse, TsError> {
        self.parse_all(vec![request]).pop().unwrap_or(Err(TsError::PoolClosed))
    }
}

impl Drop for IsolatePool {
    fn drop(&mut self) {
        self.jobs.take();
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
    }
}

fn worker(jobs: Arc<Mutex<Receiver<Job>>>, ready: Sender<Result<Duration, TsError>>) {
    let mut engine = match Isolate::new() {
        Ok(engine) => {
            let _ = ready.send(Ok(engine.startup_time()));
            engine
        }
        Err(e) => {
            let _ = ready.send(Err(e));
            return;
        }
    };
    drop(ready);
    loop {
        let job = {
            let Ok(rx) = jobs.lock() else { return };
            match rx.recv() {
                Ok(job) => job,
                Err(_) => return,
            }
        };
        let result = engine.parse(job.request);
        if result.is_err() {
            // The isolate saw an exception escape; start from a clean one.
            match Isolate::new() {
                Ok(fresh) => engine = fresh,
                Err(e) => {
                    let _ = job.reply.send((job.index, Err(e)));
                    return;
                }
            }
        }
        let _ = job.reply.send((job.index, result));
    }
}
