//! The type step: questions ask for behaviour, so
//! a type-only declaration (an interface, a type alias, a member with
//! neither body nor initializer) and data (`Steps::data_as_types`: an
//! enum, its members, a constant that is an object or array literal with
//! no call or function) give way to implementations, unless the
//! question asks for types or names it, or one of the strongest other
//! candidates uses it from the same file, by the occurrence rows (a config
//! interface beside the operator that answers). Measured in
//! benches/README.md; `demoteTypes` turns it off.

use std::sync::Mutex;

use super::evidence::{symbol_of, Uses};
use super::rank::QueryShape;
use crate::index::{ChunkRow, Index};

/// The type step over one ranking's candidates (`rows`, `scores` in the
/// same order): the owners' uses come from `uses` (read for the strongest
/// candidates beforehand), and are read for an owner outside them; if that
/// read fails, types are kept by file.
pub fn apply(index: &Index, shape: &QueryShape, rows: &[&ChunkRow], uses: &Mutex<Uses>, scores: &mut [f64]) {
    let files: Vec<&str> = rows.iter().map(|r| r.chunk.relative_path.as_str()).collect();
    let demotable: Vec<bool> = rows.iter().map(|r| shape.demotable_type(&r.chunk)).collect();
    let owners = owners(&demotable, scores, shape.steps.type_owners);
    let owner_uses: Option<Vec<Vec<String>>> = demotable
        .contains(&true)
        .then(|| {
            let mut uses = uses.lock().expect("not poisoned");
            let owned: Vec<&ChunkRow> = owners.iter().map(|&i| rows[i]).collect();
            match uses.read(index, &owned) {
                Ok(()) => Some(owned.iter().map(|r| uses.of(r).iter().map(|(s, _)| s.clone()).collect()).collect()),
                Err(e) => {
                    tracing::debug!("type step: uses not read ({e}); types kept beside their owners");
                    None
                }
            }
        })
        .flatten();
    let symbols: Vec<Option<String>> = rows.iter().zip(&demotable).map(|(r, &d)| if d { symbol_of(r) } else { None }).collect();
    let kept = kept(&files, &symbols, &demotable, &owners, owner_uses.as_deref());
    demote(&demotable, &kept, scores, shape.steps.types);
}

/// The `n` strongest candidates that are not demotable types.
pub(crate) fn owners(demotable: &[bool], scores: &[f64], n: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..scores.len()).filter(|&i| !demotable[i]).collect();
    order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]).then(a.cmp(&b)));
    order.truncate(n);
    order
}

/// Which demotable types keep their place: those an owner uses that are
/// declared in its file (against keeping every type of an owner's file,
/// it gained on five sets of six and lost on none). `files[i]`
/// and `symbols[i]` (the chunk's symbol id, `evidence::symbol_of`) of
/// every candidate, `owners` from `owners`, and `uses[k]`, the symbols
/// owner `k` uses. Without uses (none read, or no owner uses anything: an
/// index without occurrence rows) a type is kept beside any owner. A type
/// is used when an owner uses it, one of its members, or (for a member)
/// the type that declares it.
pub fn kept(files: &[&str], symbols: &[Option<String>], demotable: &[bool], owners: &[usize], uses: Option<&[Vec<String>]>) -> Vec<bool> {
    let beside = |i: usize| owners.iter().any(|&o| files[o] == files[i]);
    let uses = uses.filter(|u| u.iter().any(|u| !u.is_empty()));
    let used = |i: usize, k: usize| {
        let (Some(t), Some(u)) = (&symbols[i], uses.map(|u| &u[k])) else { return false };
        u.iter().any(|u| {
            u == t || t.strip_prefix(u.as_str()).is_some_and(|r| r.starts_with(" > ")) || u.strip_prefix(t.as_str()).is_some_and(|r| r.starts_with(" > "))
        })
    };
    (0..demotable.len())
        .map(|i| {
            demotable[i]
                && match uses {
                    None => beside(i),
                    Some(_) => (0..owners.len()).any(|k| files[owners[k]] == files[i] && used(i, k)),
                }
        })
        .collect()
}

/// The type step: each demotable type (`demotable[i]`) that is not kept
/// (`kept`) is multiplied by `factor`.
pub(crate) fn demote(demotable: &[bool], kept: &[bool], scores: &mut [f64], factor: f64) {
    for (i, s) in scores.iter_mut().enumerate() {
        if demotable[i] && !kept[i] {
            *s *= factor;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_beside_a_strong_implementation_keep_their_place() {
        let demote = |files: &[&str], demotable: &[bool], scores: &mut [f64], factor: f64, n: usize| {
            let owners = owners(demotable, scores, n);
            let kept = kept(files, &vec![None; files.len()], demotable, &owners, None);
            super::demote(demotable, &kept, scores, factor)
        };
        // 0: the operator, 1: its config beside it, 2: an options
        // interface in a types module, 3-6: other behaviour, 7: a weak
        // function in the types module (not among the 5 strongest).
        let files = ["op.ts", "op.ts", "types.ts", "a.ts", "b.ts", "c.ts", "d.ts", "types.ts"];
        let demotable = [false, true, true, false, false, false, false, false];
        let mut scores = [0.9, 0.8, 0.8, 0.7, 0.7, 0.7, 0.7, 0.1];
        demote(&files, &demotable, &mut scores, 0.5, 5);
        assert_eq!(scores, [0.9, 0.8, 0.4, 0.7, 0.7, 0.7, 0.7, 0.1]);
        // When the weak function is among the 5 strongest, its file's types stay.
        let mut scores = [0.9, 0.8, 0.8, 0.7, 0.7, 0.7, 0.1, 0.2];
        demote(&files, &demotable, &mut scores, 0.5, 5);
        assert_eq!(scores[2], 0.8);
        let files = ["op.ts", "op.ts", "types.ts", "types.ts"];
        let mut scores = [0.9, 0.8, 0.8, 0.1];
        demote(&files, &[true, true, true, true], &mut scores, 0.5, crate::search::steps::TYPE_OWNERS);
        assert_eq!(scores, [0.45, 0.4, 0.4, 0.05], "no behaviour candidate: every type gives way");
    }

    #[test]
    fn the_types_an_owner_uses_keep_their_place() {
        // 0: the operator, 1: its config beside it (used), 2: an unused
        // type beside it, 3: a member of an options interface in a types
        // module (its interface used), 4: an unrelated type there.
        let files = ["op.ts", "op.ts", "op.ts", "types.ts", "types.ts"];
        let symbols: Vec<Option<String>> =
            [None, Some("op.ts > Config"), Some("op.ts > Other"), Some("types.ts > Options > retry"), Some("types.ts > Unrelated")]
                .into_iter()
                .map(|s| s.map(str::to_string))
                .collect();
        let demotable = [false, true, true, true, true];
        let owners = [0];
        let uses = vec![vec!["op.ts > Config".to_string(), "types.ts > Options".to_string(), "lib.ts > helper".to_string()]];
        let kept = |uses: Option<&[Vec<String>]>| kept(&files, &symbols, &demotable, &owners, uses);
        // Config is used and beside the owner; Options is used but declared
        // elsewhere; Other is beside but unused.
        assert_eq!(kept(Some(&uses)), [false, true, false, false, false]);
        // A member used keeps its interface; a prefix of another name does not.
        let uses = vec![vec!["op.ts > Config > retry".to_string(), "op.ts > Oth".to_string()]];
        assert_eq!(kept(Some(&uses)), [false, true, false, false, false]);
        // No uses read, or none recorded (no occurrence rows): by file.
        assert_eq!(kept(None), [false, true, true, false, false]);
        assert_eq!(kept(Some(&[Vec::new()])), [false, true, true, false, false]);
    }
}
