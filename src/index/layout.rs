//! The names of what lives in the index directory (`.tsq/`): the tables'
//! directories (`schema::TABLES`), the index's own files, and the local
//! files no publish uploads and no pull may bring. A leaf of `index`:
//! `confine`, `swap`, `disk` and `sync` read it.

/// The write journal: chunk rows a sync is about to replace.
pub(crate) const JOURNAL: &str = "pending.json";
/// A pull's staged index.
pub(crate) const INCOMING: &str = "incoming";
/// The replaced index, deleted once the swap is done.
pub(crate) const OUTGOING: &str = "outgoing";
/// The swap's journal: present from the commit point until the swap is done.
pub(crate) const SWAP: &str = "swap.json";
/// Changes with every swap; readers reopen when it moved.
pub(crate) const GENERATION: &str = "generation";
/// The workspace's commit history (`history`): read from the local git
/// at each sync, so never published and never pulled.
pub(crate) const HISTORY: &str = "history.json";

/// How a swap journal tsq will not act on, and what its swap had moved
/// out, are renamed (`swap`): `refused-swap-<stamp>.json`,
/// `refused-outgoing-<stamp>`. Local: kept for the user to look at, never
/// published, pulled or moved by a swap.
pub(crate) const REFUSED: &str = "refused-";

/// This install's seal over the root (`made_here`): the index was made
/// here. Local: a marker brought by a checkout or a pull never verifies.
pub(crate) const MADE_HERE: &str = "made-here";

/// The occurrence pass's lock (`lock::PassLock`): one pass per index.
pub(crate) const PASS_LOCK: &str = "occurrence-pass.lock";

/// What stays local in the index directory: the writer and pass locks, the user's
/// `config.toml`, the write journal, a pull's staging, journal and
/// generation, where the index came from, the local git's history (and
/// what a refused swap left, `REFUSED`).
/// Everything else is the index a publish uploads and a pull replaces.
const LOCAL_ONLY: &[&str] =
    &["lock", PASS_LOCK, ".gitignore", "config.toml", JOURNAL, ORIGIN, INCOMING, OUTGOING, SWAP, GENERATION, HISTORY, MADE_HERE, ".write-probe"];
/// The local files tsq writes at the top of the index directory, beside
/// `INDEX_FILES` (`is_tsq_file`).
const LOCAL_FILES: &[&str] = &["lock", PASS_LOCK, ".gitignore", "config.toml", JOURNAL, ORIGIN, SWAP, GENERATION, HISTORY, MADE_HERE, ".write-probe"];

/// Whether tsq writes a plain file named `name` at the top of the index
/// directory (`confine` checks its type, `clean` removes it).
pub(super) fn is_tsq_file(name: &str) -> bool {
    LOCAL_FILES.contains(&name) || INDEX_FILES.contains(&name)
}
/// Where a pulled index came from (`Origin`).
pub(super) const ORIGIN: &str = "origin.json";
/// The index's own files beside its tables: what wrote it, and the
/// occurrence index's layout key, program scope and resolution inputs
/// (`structure::inputs`, `structure::scope`; records are
/// `Index::record`s). Published and pulled with the tables.
pub(super) const INDEX_FILES: &[&str] = &["meta.json", "occurrences-layout", "occurrence-scope.json", "occurrence-inputs.json", "occurrence-pending.json"];

/// Whether `rel` (relative to the index directory) names a local-only
/// file, which no pulled index may bring. Compared as a case-insensitive
/// file system would (`Config.toml` is `config.toml` on macOS).
pub(crate) fn is_local_only(rel: &str) -> bool {
    let first = super::names::fold(rel.split(['/', '\\']).next().unwrap_or(rel));
    LOCAL_ONLY.iter().any(|l| super::names::fold(l) == first) || first.starts_with(REFUSED) || super::names::fold(rel).ends_with(".tmp")
}

/// Whether `rel` (relative to the index directory) lies in the index
/// itself: a table's directory (`schema::TABLES`) or one of
/// `INDEX_FILES`. All a publish uploads, all a pull may bring, and all a
/// swap moves out: a user's own files in `.tsq/` are never touched.
pub(crate) fn is_index_entry(rel: &str) -> bool {
    let first = super::names::fold(rel.split(['/', '\\']).next().unwrap_or(rel));
    let table = |t: &&str| super::names::fold(&format!("{t}.lance")) == first;
    super::schema::TABLES.iter().any(table) || INDEX_FILES.iter().any(|f| super::names::fold(f) == first)
}
