//! The Voyage clients against a local HTTP server that speaks Voyage's
//! documented JSON (`POST /v1/embeddings`, `POST /v1/rerank`): success,
//! 429 with Retry-After, 500 then success, a response slower than the
//! timeout, a malformed body, and 401. The key never shows in an error.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};
use tsq::embed::voyage::{VoyageEmbedder, VoyageReranker};
use tsq::embed::{Document, EmbedError, Embedder, HttpConfig, Reranker};

const KEY: &str = "pa-secret-test-key-0123456789";

#[derive(Clone)]
struct Reply {
    status: u16,
    headers: Vec<(&'static str, String)>,
    body: String,
    delay: Duration,
}

fn ok(body: Value) -> Reply {
    Reply { status: 200, headers: vec![], body: body.to_string(), delay: Duration::ZERO }
}

fn status(code: u16, body: &str) -> Reply {
    Reply { status: code, headers: vec![], body: body.to_string(), delay: Duration::ZERO }
}

/// Seen by the server: path, Authorization header, JSON body.
type Seen = Arc<Mutex<Vec<(String, String, Value)>>>;

/// Serves `replies` in order, one per connection (each on its own thread,
/// so a slow reply does not hold up the next); returns the base URL.
fn serve(replies: Vec<Reply>) -> (String, Seen) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let seen: Seen = Arc::default();
    let log = Arc::clone(&seen);
    std::thread::spawn(move || {
        for reply in replies {
            let Ok((stream, _)) = listener.accept() else { return };
            let log = Arc::clone(&log);
            std::thread::spawn(move || {
                let _ = answer(stream, reply, &log);
            });
        }
    });
    (base, seen)
}

fn answer(mut stream: std::net::TcpStream, reply: Reply, log: &Seen) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let path = line.split_whitespace().nth(1).unwrap_or("").to_string();
    let (mut len, mut auth) = (0usize, String::new());
    loop {
        let mut h = String::new();
        reader.read_line(&mut h)?;
        if h.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = h.split_once(':') {
            match name.to_ascii_lowercase().as_str() {
                "content-length" => len = value.trim().parse().unwrap_or(0),
                "authorization" => auth = value.trim().to_string(),
                _ => {}
            }
        }
    }
    let mut body = vec![0u8; len];
    reader.read_exact(&mut body)?;
    log.lock().unwrap().push((path, auth, serde_json::from_slice(&body).unwrap_or(Value::Null)));
    std::thread::sleep(reply.delay);
    let mut head = format!("HTTP/1.1 {} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n", reply.status, reply.body.len());
    for (k, v) in &reply.headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    stream.write_all(format!("{head}\r\n{}", reply.body).as_bytes())
}

fn config(base: &str) -> HttpConfig {
    HttpConfig {
        base_url: base.to_string(),
        request_timeout: Duration::from_millis(500),
        total_timeout: Duration::from_secs(10),
        max_attempts: 4,
        initial_backoff: Duration::from_millis(20),
    }
}

fn embeddings(n: usize) -> Value {
    json!({"object": "list", "data": (0..n).map(|i| json!({"object": "embedding", "embedding": vec![i as f32 / 10.0; 1024], "index": i})).collect::<Vec<_>>(), "model": "voyage-code-3", "usage": {"total_tokens": 10}})
}

fn docs() -> Vec<Document<'static>> {
    vec![Document { text: "function a() {}", breadcrumb: "a.ts > a" }, Document { text: "class B {}", breadcrumb: "b.ts > B" }]
}

#[test]
fn embeds_documents_and_queries_with_the_documented_request() {
    let (base, seen) = serve(vec![ok(embeddings(2)), ok(embeddings(1))]);
    let e = VoyageEmbedder::new(KEY.into(), config(&base)).unwrap();
    let v = e.embed_documents(&docs()).unwrap();
    assert_eq!((v.len(), v[1][0].len(), v[1][0][0]), (2, 1024, 0.1));
    assert_eq!(e.embed_query("where are tokens refreshed").unwrap().len(), 1024);
    let seen = seen.lock().unwrap();
    assert_eq!(seen[0].0, "/v1/embeddings");
    assert_eq!(seen[0].1, format!("Bearer {KEY}"));
    assert_eq!(seen[0].2, json!({"input": ["function a() {}", "class B {}"], "model": "voyage-code-3", "input_type": "document", "output_dimension": 1024}));
    assert_eq!(seen[1].2["input_type"], "query");
}

#[test]
fn a_429_waits_for_retry_after_then_succeeds() {
    let mut limited = status(429, r#"{"detail":"rate limited"}"#);
    limited.headers.push(("Retry-After", "1".into()));
    let (base, seen) = serve(vec![limited, ok(embeddings(2))]);
    let started = std::time::Instant::now();
    let v = VoyageEmbedder::new(KEY.into(), config(&base)).unwrap().embed_documents(&docs()).unwrap();
    assert_eq!(v.len(), 2);
    assert!(started.elapsed() >= Duration::from_millis(950), "Retry-After was honoured");
    assert_eq!(seen.lock().unwrap().len(), 2);
}

#[test]
fn a_500_is_retried() {
    let (base, seen) = serve(vec![status(500, "oops"), status(503, "busy"), ok(embeddings(2))]);
    assert_eq!(VoyageEmbedder::new(KEY.into(), config(&base)).unwrap().embed_documents(&docs()).unwrap().len(), 2);
    assert_eq!(seen.lock().unwrap().len(), 3);
}

#[test]
fn a_slow_response_times_out_and_is_retried() {
    let mut slow = ok(embeddings(2));
    slow.delay = Duration::from_millis(1500);
    let (base, seen) = serve(vec![slow, ok(embeddings(2))]);
    assert_eq!(VoyageEmbedder::new(KEY.into(), config(&base)).unwrap().embed_documents(&docs()).unwrap().len(), 2);
    assert_eq!(seen.lock().unwrap().len(), 2);
}

#[test]
fn retries_end_within_the_total_limit() {
    let (base, _) = serve(vec![status(500, "a"), status(500, "b"), status(500, "c"), status(500, "d")]);
    let err = VoyageEmbedder::new(KEY.into(), config(&base)).unwrap().embed_documents(&docs()).unwrap_err();
    assert!(matches!(err, EmbedError::RetriesExhausted { attempts: 4, .. }), "{err}");
}

#[test]
fn a_malformed_body_is_an_error_not_a_vector() {
    let (base, _) = serve(vec![ok(json!({"data": [{"embedding": "nope", "index": 0}]})), ok(json!({"data": [{"embedding": [1.0, 2.0], "index": 0}]}))]);
    let e = VoyageEmbedder::new(KEY.into(), config(&base)).unwrap();
    assert!(matches!(e.embed_query("q").unwrap_err(), EmbedError::Malformed { .. }));
    let wrong_size = e.embed_query("q").unwrap_err().to_string();
    assert!(wrong_size.contains("2 dimensions"), "{wrong_size}");
}

#[test]
fn a_401_is_not_retried_and_never_shows_the_key() {
    let (base, seen) = serve(vec![status(401, &format!(r#"{{"detail":"Provided API key {KEY} is invalid"}}"#)), ok(embeddings(2))]);
    let err = VoyageEmbedder::new(KEY.into(), config(&base)).unwrap().embed_documents(&docs()).unwrap_err();
    let text = format!("{err} {err:?}");
    assert!(matches!(err, EmbedError::Http { status: 401, .. }), "{text}");
    assert!(!text.contains(KEY), "the key leaked: {text}");
    assert!(text.contains("[redacted]"));
    assert_eq!(seen.lock().unwrap().len(), 1, "no retry on 401");
}

#[test]
fn reranks_with_the_documented_request_and_fails_cleanly() {
    let (base, seen) = serve(vec![
        ok(
            json!({"object": "list", "data": [{"relevance_score": 0.2, "index": 1}, {"relevance_score": 0.9, "index": 0}], "model": "rerank-2.5", "usage": {"total_tokens": 5}}),
        ),
        status(400, r#"{"detail":"bad request"}"#),
    ]);
    let r = VoyageReranker::new(KEY.into(), config(&base)).unwrap();
    let docs = vec!["a".to_string(), "b".to_string()];
    assert_eq!(r.rerank("q", &docs).unwrap(), vec![0.9, 0.2]);
    assert!(matches!(r.rerank("q", &docs).unwrap_err(), EmbedError::Http { status: 400, .. }));
    let seen = seen.lock().unwrap();
    assert_eq!(seen[0].0, "/v1/rerank");
    assert_eq!(seen[0].2, json!({"query": "q", "documents": ["a", "b"], "model": "rerank-2.5", "top_k": 2, "truncation": true}));
}

#[test]
fn tsq_index_embeds_through_voyage_when_the_key_is_set() {
    let n = 9; // embeddable chunks of fixtures/index/workspace
    let (base, seen) = serve(vec![ok(embeddings(n))]);
    let dir = std::env::temp_dir().join(format!("tsq-voyage-e2e-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("src")).unwrap();
    for e in std::fs::read_dir(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/index/workspace/src")).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), dir.join("src").join(e.file_name())).unwrap();
    }
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tsq"))
        .args(["index", "--root", dir.to_str().unwrap(), "--json"])
        .env("VOYAGE_API_KEY", KEY)
        .env("TSQ_VOYAGE_BASE_URL", &base)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains(KEY) && !String::from_utf8_lossy(&out.stdout).contains(KEY));
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((r["embedder"].as_str(), r["embedded"].as_u64()), (Some("voyage-code-3"), Some(n as u64)));
    assert_eq!(seen.lock().unwrap()[0].2["input"].as_array().unwrap().len(), n);
    let _ = std::fs::remove_dir_all(&dir);
}
