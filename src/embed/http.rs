//! The embedders' HTTP path: JSON POSTs with a bearer key, request timeouts,
//! and retries on 429 and 5xx (exponential backoff with jitter, honouring
//! `Retry-After`) within a total time limit. No retry on other 4xx. The key
//! never appears in an error, a log line or a `Debug` print.

use std::time::{Duration, Instant};

use super::EmbedError;

/// Where and how patiently to call. Built once at the edge.
#[derive(Clone)]
pub struct HttpConfig {
    /// `https://api.voyageai.com`, or `TSQ_VOYAGE_BASE_URL` (tests point it
    /// at a local server).
    pub base_url: String,
    pub request_timeout: Duration,
    /// All attempts of one call together stay under this.
    pub total_timeout: Duration,
    pub max_attempts: u32,
    /// First backoff; it doubles per attempt, with up to 50% jitter.
    pub initial_backoff: Duration,
}

impl Default for HttpConfig {
    fn default() -> Self {
        HttpConfig {
            base_url: std::env::var("TSQ_VOYAGE_BASE_URL").ok().filter(|s| !s.is_empty()).unwrap_or_else(|| "https://api.voyageai.com".into()),
            request_timeout: Duration::from_secs(60),
            total_timeout: Duration::from_secs(180),
            max_attempts: 6,
            initial_backoff: Duration::from_millis(500),
        }
    }
}

impl std::fmt::Debug for HttpConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpConfig").field("base_url", &self.base_url).field("request_timeout", &self.request_timeout).finish()
    }
}

/// A client for one service, holding its key privately.
pub(super) struct JsonClient {
    service: &'static str,
    key: String,
    config: HttpConfig,
    client: reqwest::Client,
    runtime: crate::runtime::OwnedRuntime,
}

impl JsonClient {
    pub(super) fn new(service: &'static str, key: String, config: HttpConfig) -> Result<JsonClient, EmbedError> {
        let transport = |e: &dyn std::fmt::Display| EmbedError::Transport { service, message: e.to_string() };
        let client = reqwest::Client::builder().timeout(config.request_timeout).build().map_err(|e| transport(&e))?;
        let runtime = crate::runtime::OwnedRuntime::new(tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| transport(&e))?);
        Ok(JsonClient { service, key, config, client, runtime })
    }

    /// POSTs `body` to `{base}{path}` and parses the JSON answer.
    pub(super) fn post<T: serde::de::DeserializeOwned>(&self, path: &str, body: &serde_json::Value) -> Result<T, EmbedError> {
        let url = format!("{}{}", self.config.base_url.trim_end_matches('/'), path);
        let started = Instant::now();
        let mut attempt = 0;
        loop {
            attempt += 1;
            let outcome = self.runtime.block_on(async {
                let response = self.client.post(&url).bearer_auth(&self.key).json(body).send().await?;
                let status = response.status();
                let retry_after = response.headers().get(reqwest::header::RETRY_AFTER).and_then(|v| v.to_str().ok()).and_then(|s| s.trim().parse::<f64>().ok());
                let text = response.text().await?;
                Ok::<_, reqwest::Error>((status, retry_after, text))
            });
            let (retryable, wait_hint, last) = match outcome {
                Ok((status, _, text)) if status.is_success() => {
                    return serde_json::from_str(&text).map_err(|e| EmbedError::Malformed { service: self.service, message: e.to_string() });
                }
                Ok((status, retry_after, text)) => {
                    let message = self.scrub(&short(&text));
                    if status.as_u16() != 429 && !status.is_server_error() {
                        return Err(EmbedError::Http { service: self.service, status: status.as_u16(), message });
                    }
                    (true, retry_after.map(Duration::from_secs_f64), format!("HTTP {}: {message}", status.as_u16()))
                }
                // Timeouts and connection failures are worth another try.
                Err(e) => (true, None, self.scrub(&without_url(&e))),
            };
            let backoff = wait_hint.unwrap_or_else(|| self.backoff(attempt));
            let elapsed = started.elapsed();
            if !retryable || attempt >= self.config.max_attempts || elapsed + backoff > self.config.total_timeout {
                return Err(EmbedError::RetriesExhausted { service: self.service, attempts: attempt, secs: elapsed.as_secs_f64(), last });
            }
            tracing::debug!(service = self.service, attempt, wait_ms = backoff.as_millis() as u64, "retrying: {last}");
            std::thread::sleep(backoff);
        }
    }

    fn backoff(&self, attempt: u32) -> Duration {
        let base = self.config.initial_backoff.saturating_mul(1 << (attempt - 1).min(10));
        // Jitter without a RNG crate: the clock's nanoseconds.
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.subsec_nanos()).unwrap_or(0);
        base + base.mul_f64((nanos % 1000) as f64 / 2000.0)
    }

    /// Removes the key from any text that might echo it.
    fn scrub(&self, text: &str) -> String {
        if self.key.is_empty() {
            text.to_string()
        } else {
            text.replace(&self.key, "[redacted]")
        }
    }
}

fn short(text: &str) -> String {
    let t = text.trim();
    if t.chars().count() > 300 {
        t.chars().take(300).collect::<String>() + "…"
    } else {
        t.to_string()
    }
}

/// reqwest's error text without the URL (which may carry a query string).
fn without_url(e: &reqwest::Error) -> String {
    let kind = if e.is_timeout() {
        "request timed out"
    } else if e.is_connect() {
        "connection failed"
    } else {
        "request failed"
    };
    let mut source = std::error::Error::source(e);
    let mut detail = String::new();
    while let Some(s) = source {
        detail = s.to_string();
        source = s.source();
    }
    if detail.is_empty() {
        kind.to_string()
    } else {
        format!("{kind}: {detail}")
    }
}
