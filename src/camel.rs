//! Where an identifier's words start: one rule for the ranking's path
//! words (`search::shape::words`) and for the text the local model reads
//! (`embed::local::identifier_words`). A leaf: it names no other module.

/// Whether a new word starts at `c`, which follows `prev` (and comes
/// before `next`) in a run of letters and digits: an upper-case letter
/// after a lower-case one (`useQuery`), or an upper-case letter that a
/// lower-case one follows, after a letter or digit (`TRPCClient`,
/// `v2Beta`).
pub(crate) fn starts_word(prev: char, c: char, next: Option<char>) -> bool {
    c.is_uppercase() && prev.is_alphanumeric() && (prev.is_lowercase() || next.is_some_and(char::is_lowercase))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_start_at_humps_and_at_the_last_capital_of_a_run() {
        assert!(starts_word('e', 'Q', Some('u')));
        assert!(starts_word('C', 'C', Some('l')));
        assert!(!starts_word('T', 'R', Some('P')));
        assert!(starts_word('2', 'B', Some('e')));
        assert!(!starts_word(' ', 'F', Some('o')), "a capital after a space starts a word already");
        assert!(!starts_word('_', 'F', Some('o')));
        assert!(starts_word('é', 'X', None));
        assert!(!starts_word('e', 'q', Some('u')));
    }
}
