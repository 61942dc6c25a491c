//! The ten global rules on every file of the real corpus from
//! `../shared/corpus.sh`: rxjs, zod, effect and the typescript package's
//! lib/ (with `_tsc.js`, 134K lines). Files that break a rule are listed
//! with the reason; the target is none. Skipped when the script is absent.

use crate::common;

use tsq::validate::check_file;

#[test]
fn every_corpus_file_keeps_the_rules() {
    let Some(corpora) = common::corpora(&["rxjs", "zod", "effect", "typescript"]) else {
        println!("corpus: skipped, ../shared/corpus.sh unavailable");
        return;
    };
    let mut failures = Vec::new();
    for (name, dir) in corpora {
        let walked = tsq::source::walk(&dir);
        for s in &walked.skipped {
            failures.push(format!("{name}: {}: skipped: {}", s.path, s.message));
        }
        let (mut files, mut chunks_total, mut lines, mut truncated) = (0, 0, 0u64, 0);
        common::engine().parse_files(&walked.files, &dir, &mut |r| match r {
            Err(s) => failures.push(format!("{name}: {}: skipped: {}", s.path, s.message)),
            Ok(f) => {
                let chunks = f.chunks();
                files += 1;
                chunks_total += chunks.len();
                lines += f.parsed.source.line_count() as u64;
                truncated += chunks.iter().filter(|c| c.embedding_truncated).count();
                for v in check_file(&f.parsed, &chunks, &f.chunks()) {
                    failures.push(format!("{name}: {}: rule {}: {}", f.paths.relative_path, v.rule, v.message));
                }
            }
        });
        println!("corpus {name}: {files} files, {lines} lines, {chunks_total} chunks, {truncated} embeddingTexts cut at 32K tokens");
    }
    println!("corpus: {} files break a rule", failures.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
