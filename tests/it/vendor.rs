//! The vendored model files are the ones `vendor-models/update.sh` checked:
//! every file listed in `vendor-models/SHA256SUMS` exists and matches.

use crate::common;

use sha2::{Digest, Sha256};

#[test]
fn vendored_models_match_their_checksums() {
    let dir = common::repo().join("vendor-models");
    let sums = std::fs::read_to_string(dir.join("SHA256SUMS")).expect("vendor-models/SHA256SUMS");
    let mut checked = 0;
    for line in sums.lines().filter(|l| !l.trim().is_empty()) {
        let (want, file) = line.split_once("  ").expect("`<sha256>  <path>` lines");
        let bytes = std::fs::read(dir.join(file)).unwrap_or_else(|e| panic!("vendor-models/{file}: {e}"));
        let got = format!("{:x}", Sha256::digest(&bytes));
        assert_eq!(got, want, "vendor-models/{file}: checksum differs from SHA256SUMS (run vendor-models/update.sh)");
        checked += 1;
    }
    // The embedder's model, tokenizer and config, and the static table.
    assert_eq!(checked, 4, "SHA256SUMS lists {checked} files");
}
