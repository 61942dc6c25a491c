//! Paths a manifest may name, and how they compare. A pulled index lands
//! on the reader's file system, which may fold case (macOS, Windows) and
//! normalize Unicode (macOS): `Config.toml` is the user's `config.toml`
//! there, and `LOCK` is the lock file. So names are compared folded, and
//! every platform refuses what any shipped platform would read as a root,
//! a drive, a share or a device.

use unicode_normalization::UnicodeNormalization;

/// The longest path a manifest may name, in bytes.
pub(crate) const MAX_PATH_BYTES: usize = 512;

/// `name` as a case-insensitive, normalizing file system sees it: NFC,
/// then lower case.
pub(crate) fn fold(name: &str) -> String {
    name.nfc().collect::<String>().to_lowercase()
}

/// Windows' reserved device names, with or without an extension.
fn is_device(segment: &str) -> bool {
    let stem = segment.split('.').next().unwrap_or(segment).trim_end_matches([' ', '.']).to_ascii_lowercase();
    matches!(stem.as_str(), "con" | "prn" | "aux" | "nul" | "conin$" | "conout$")
        || ((stem.starts_with("com") || stem.starts_with("lpt")) && stem.len() == 4 && stem.as_bytes()[3].is_ascii_digit())
}

/// A relative path of plain segments, safe on every platform: no root, no
/// drive letter (`C:`), no UNC share or backslash, no `.`/`..`, no device
/// name, no control character, no trailing dot or space (Windows strips
/// them, so two names would meet), at most `MAX_PATH_BYTES`.
pub(crate) fn safe_path(p: &str) -> bool {
    !p.is_empty()
        && p.len() <= MAX_PATH_BYTES
        && !p.starts_with('/')
        && !p.contains(['\\', ':'])
        && !p.chars().any(|c| c.is_control())
        && p.split('/').all(|s| !s.is_empty() && s != "." && s != ".." && !s.ends_with(['.', ' ']) && !is_device(s))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roots_drives_shares_devices_and_escapes_are_refused() {
        for bad in [
            "",
            "/etc/passwd",
            "C:/x",
            "c:x",
            "..\\x",
            "\\\\server\\share",
            "a/../b",
            "./a",
            "a//b",
            "con",
            "a/NUL.txt",
            "COM1",
            "lpt9.log",
            "a\u{0}b",
            "x.",
            "x ",
        ] {
            assert!(!safe_path(bad), "{bad:?} was taken");
        }
        for good in ["meta.json", "chunks.lance/data/0.lance", "a/b.c", "console.log", "com10", "nul-ish"] {
            assert!(safe_path(good), "{good:?} was refused");
        }
    }

    #[test]
    fn names_fold_as_case_insensitive_file_systems_do() {
        assert_eq!(fold("Config.TOML"), "config.toml");
        // NFD e + combining acute is NFC é.
        assert_eq!(fold("Caf\u{65}\u{301}"), fold("caf\u{e9}"));
    }
}
