//! Which ranking steps run and their weights (`Steps`): the defaults the
//! ablation in benches/README.md chose, the all-off set it starts from,
//! and the constants each step moves scores by. Built once at the edge
//! (`config`), read by `rank`, `evidence` and `type_step`. A leaf: it
//! names no other module. A step measured and not adopted is not kept
//! here as an option: its figures stay in benches/README.md ("Tried and
//! not adopted").

/// Which steps run (all by default; the ablation turns them on in turn).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Steps {
    pub roles: bool,
    pub definitions: bool,
    pub paths: bool,
    /// A file whose chunks are only imports and re-exports is a barrel
    /// (`evidence::barrels`), demoted like a declaration file.
    pub barrels: bool,
    /// The usage prior read from the index, and how far the most used
    /// symbol moves toward 1.0.
    pub usage: Prior,
    pub usage_lift: f64,
    /// A test or example that matches lends to what it uses, by the
    /// occurrence rows (`evidence::Lending`).
    pub test_lending: bool,
    /// An implementation candidate among the strongest lends to what it
    /// uses, by the occurrence rows (`evidence::Lending`): the call graph.
    pub call_lending: bool,
    /// How far a declaration an implementation lender uses moves toward
    /// 1.0, per unit of the lender's score.
    pub call_lift: f64,
    /// Call lending lends only to declarations in the lender's own file
    /// (its private helpers), not to shared ones.
    pub call_local: bool,
    /// Call lending lends only to the values its lender uses (calls,
    /// `new`, references), not to the types it names.
    pub call_values: bool,
    /// What call lending lifts never passes its lender's own score.
    pub call_capped: bool,
    /// A type-only declaration (an interface, a type alias, their members)
    /// is worth this much (1.0: the step is off) for a question that does
    /// not ask for types or name the declaration: questions ask for
    /// behaviour (`type_step`).
    pub types: f64,
    /// How many of the strongest other candidates keep the types they
    /// use in place (`type_step::owners`).
    pub type_owners: usize,
    /// Path evidence as a boost of `ratio × path_top × the top score`
    /// after every other step; 0: the older lift toward 1.0
    /// by `PATH_LIFT × ratio`.
    pub path_top: f64,
    /// The definition lift needs declaration syntax, and is stronger in a
    /// file named after the declaration (`rank::definition_lift`).
    pub definition_syntax: bool,
    /// A query that is identifiers and little else leans on BM25
    /// (`rank::is_symbol_query`, `SYMBOL_BM25`).
    pub symbols: bool,
    /// Comment-only chunks: a block repeated in several files ranks once,
    /// and at most one takes a place in the top 10 (`comments`).
    pub comments: bool,
    /// Re-export chunks rank, as barrels, when the question names their
    /// file (path evidence); otherwise they stay out.
    pub reexports: bool,
    /// BM25 reads the question without its English function words
    /// (`shape::bm25_terms`); vectors read it whole.
    pub stop_words: bool,
    /// A path word counts as much as it says: little when most of the
    /// workspace's paths name it (`paths::specificity`).
    pub path_specificity: bool,
    /// History evidence (`history`): each candidate gains this share of
    /// the top score times its file's vote from the past commits whose
    /// subjects resemble the question, and the files those commits changed
    /// that retrieval missed are taken in; 0.0: off. On by default for
    /// queries that state a change (`QueryShape::reads_file_level`);
    /// `historyEvidence = false` turns it off.
    pub history: f64,
    /// History votes measure how much the past subjects are like the
    /// question (each commit's BM25 score over the score of a subject
    /// equal to the question, summed, at most 1.0) instead of how they
    /// compare with the strongest voted file (`history::votes`).
    pub history_relative: bool,
    /// Whole-file evidence (`rank::file_boost`): each candidate
    /// gains this share of the top score times its file's BM25 over whole
    /// files (`Index::file_bm25`) relative to the best file's; 0.0: off.
    pub whole_files: f64,
    /// The type step treats data as it treats types: an enum, its
    /// members, and a constant whose value is an object or array literal
    /// with no call or function in it (`shape::is_data_only`).
    pub data_as_types: bool,
    /// Chunks of one or two lines that declare nothing (a directive,
    /// `export default X;`, a short comment) stay out of ranking
    /// (`shape::is_noise`); their lines stay reachable through their file
    /// and the imports of the chunks that use them.
    pub noise: bool,
}

/// Which usage prior ranks (`structure::usage`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prior {
    Off,
    /// Referencing files, log-scaled.
    FanIn,
}

impl Steps {
    pub const NONE: Steps = Steps {
        roles: false,
        definitions: false,
        paths: false,
        barrels: false,
        usage: Prior::Off,
        usage_lift: 0.0,
        test_lending: false,
        call_lending: false,
        call_lift: CALL_LIFT,
        call_local: false,
        call_values: false,
        call_capped: false,
        types: 1.0,
        type_owners: TYPE_OWNERS,
        path_top: 0.0,
        definition_syntax: false,
        symbols: false,
        comments: false,
        reexports: false,
        stop_words: false,
        path_specificity: false,
        history: 0.0,
        history_relative: false,
        whole_files: 0.0,
        data_as_types: false,
        noise: false,
    };
    /// What ships: each step that gained on the untuned queries
    /// (benches/README.md, the ablation).
    pub const DEFAULT: Steps = Steps {
        roles: true,
        definitions: true,
        paths: true,
        barrels: true,
        usage: Prior::FanIn,
        usage_lift: USAGE_LIFT,
        test_lending: true,
        call_lending: true,
        call_lift: CALL_LIFT,
        call_local: true,
        call_values: true,
        call_capped: true,
        types: TYPE_DEMOTE,
        type_owners: TYPE_OWNERS,
        path_top: PATH_TOP,
        definition_syntax: true,
        symbols: true,
        comments: true,
        reexports: true,
        stop_words: true,
        path_specificity: true,
        history: HISTORY,
        history_relative: true,
        whole_files: WHOLE_FILES,
        data_as_types: true,
        noise: true,
    };
}

/// How far the most used symbol moves toward 1.0 (the usage prior).
pub(crate) const USAGE_LIFT: f64 = 0.2;
/// How far a declaration a matching test uses moves toward 1.0, per unit
/// of the test's score before its role demotion.
pub(crate) const TEST_LIFT: f64 = 0.5;

/// How far a declaration an implementation lender uses moves toward 1.0,
/// per unit of the lender's score (call lending).
pub(crate) const CALL_LIFT: f64 = 0.5;

/// How far a definition the query names moves toward 1.0.
pub(crate) const DEFINITION_LIFT: f64 = 0.5;
/// How far a file whose path parts match every query word moves toward 1.0
/// (path evidence as a lift, the older form `path_top = 0` keeps).
pub(crate) const PATH_LIFT: f64 = 0.3;
/// Path evidence as a boost: a file whose path names every query word
/// gains this share of the top score. 1.0 at first; 0.5
/// once BM25 read questions without their function words and path words
/// counted by their specificity; 0.25 since the local model reads
/// identifiers as words, and its vectors find more of the files a
/// question names (benches/README.md, the ablation).
pub const PATH_TOP: f64 = 0.25;
/// How much more a definition lifts in a file named after it.
pub(crate) const STEM_LIFT: f64 = 0.3;
/// BM25's share of the hybrid for a symbol query (at least).
pub(crate) const SYMBOL_BM25: f64 = 0.8;
/// History evidence (`historyEvidence`): the share of the top score a
/// file whose vote is 1.0 gains, votes relative to a subject equal to the
/// question (`Steps::history_relative`). Relative 0.5 gained most on the
/// 400 tuning change questions and gains on the 240 never-tuned ones
/// (benches/runs/2026-12-02-changes-issue45-pass10.md, -pass11.md).
pub const HISTORY: f64 = 0.5;
/// Whole-file evidence (`wholeFileEvidence`): the share of the top score
/// the best file by BM25 over whole texts gains (0.3 gained most on the
/// 400 tuning change questions: benches/runs/2026-12-02-changes-issue45-pass11.md).
pub const WHOLE_FILES: f64 = 0.3;
/// How many files BM25 over whole texts reads: those below the best
/// `WHOLE_FILES_READ` gain nothing.
pub(crate) const WHOLE_FILES_READ: usize = 60;
/// How many past commits, most like the question first, vote.
pub(crate) const HISTORY_COMMITS: usize = 20;
/// How many of the files they voted for count (and are taken in when
/// retrieval missed them).
pub(crate) const HISTORY_FILES: usize = 10;
/// How many comment-only chunks may rank in the top 10.
pub(crate) const COMMENTS_IN_TOP: usize = 1;
/// Same-file decay in the concise list.
pub(crate) const DECAY: f64 = 0.5;
/// How many of the strongest candidates lend (and name declarations to
/// take in).
pub(crate) const LENDERS: usize = 10;

// ---- the type step's constants (`type_step`) ----

/// What a type-only declaration is worth when the question asks for
/// behaviour (`Steps::types`).
pub(crate) const TYPE_DEMOTE: f64 = 0.7;

/// How many of the strongest behaviour candidates keep the types they use
/// beside them from the type step's demotion.
pub(crate) const TYPE_OWNERS: usize = 3;
