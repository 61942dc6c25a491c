//! A client's roots (`file://` URIs) as workspace directories: decoded
//! on bytes, anything malformed skipped with a warning, never a panic.

use std::path::PathBuf;

/// A client root (`file://` URI) as a directory, if it is one. A root
/// that cannot be read (bad escape, not UTF-8, another host) is skipped
/// with a warning on stderr; the next root or the fallback is used.
pub(super) fn root_dir(uri: &str) -> Option<PathBuf> {
    match root_path(uri) {
        Ok(path) => {
            let p = path.canonicalize().ok()?;
            p.is_dir().then_some(p)
        }
        Err(why) => {
            tracing::warn!("client root {uri:?} skipped: {why}");
            None
        }
    }
}

/// The path of a `file://` URI: `file:///p` and `file://localhost/p`,
/// percent-escapes decoded on bytes.
fn root_path(uri: &str) -> Result<PathBuf, String> {
    const MAX_URI: usize = 4096;
    if uri.len() > MAX_URI {
        return Err(format!("longer than {MAX_URI} bytes"));
    }
    let rest = uri.strip_prefix("file://").ok_or("not a file:// URI")?;
    let path = if rest.starts_with('/') {
        rest
    } else if let Some(p) = rest.strip_prefix("localhost").filter(|p| p.starts_with('/')) {
        p
    } else {
        return Err("a file:// URI on another host".into());
    };
    let path = path.split(['?', '#']).next().unwrap_or(path);
    let decoded = percent_decode(path)?;
    if decoded.contains('\0') {
        return Err("it holds a NUL byte".into());
    }
    Ok(PathBuf::from(decoded))
}

/// Decodes `%XX` escapes on bytes; a `%` not followed by two hex digits,
/// or bytes that are not UTF-8, are an error.
fn percent_decode(s: &str) -> Result<String, String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = |b: u8| (b as char).to_digit(16);
            match (bytes.get(i + 1).copied().and_then(hex), bytes.get(i + 2).copied().and_then(hex)) {
                (Some(h), Some(l)) => {
                    out.push((h * 16 + l) as u8);
                    i += 3;
                    continue;
                }
                _ => return Err(format!("a bad percent escape at byte {i}")),
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).map_err(|e| format!("not UTF-8 after decoding (byte {})", e.utf8_error().valid_up_to()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roots_decode_on_bytes_and_bad_escapes_are_errors_not_panics() {
        assert_eq!(root_path("file:///x/a%20b").unwrap(), PathBuf::from("/x/a b"));
        assert_eq!(root_path("file://localhost/x/%C3%A9").unwrap(), PathBuf::from("/x/é"));
        assert!(root_path("file:///x/%aé").unwrap_err().contains("bad percent escape"));
        assert!(root_path("file:///x/%").unwrap_err().contains("bad percent escape"));
        assert!(root_path("file:///x/%ff").unwrap_err().contains("not UTF-8"));
        assert!(root_path("file:///x/%00").unwrap_err().contains("NUL"));
        assert!(root_path("file://server/share").unwrap_err().contains("another host"));
        assert!(root_path(&format!("file:///{}", "a".repeat(5000))).is_err());
        assert_eq!(root_dir("file:///x/%aé"), None);
    }
}
