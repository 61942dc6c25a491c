//! The short forms code uses for common words (`ws` for websocket, `req`
//! for request, `init` for initialize): a question says the word, the
//! code often says the short form. With `Steps::abbreviations` (measured,
//! off) BM25 reads a question's short forms beside its words. Only the
//! question is expanded: the index holds the code as written.

/// A word's start (as a question spells it, lower case) and the short form
/// code uses for it. A word matches when it starts with the entry, so
/// "initializing" and "initialization" both find `init`. Short forms that
/// most paths or much code hold whatever the question (`src`, `lib`, the
/// keyword `var`) are left out.
const SHORT_FORMS: &[(&str, &str)] = &[
    ("argument", "args"),
    ("asynchronous", "async"),
    ("attribute", "attr"),
    ("authenticat", "auth"),
    ("authoriz", "auth"),
    ("button", "btn"),
    ("callback", "cb"),
    ("command", "cmd"),
    ("compar", "cmp"),
    ("configur", "config"),
    ("context", "ctx"),
    ("current", "cur"),
    ("database", "db"),
    ("description", "desc"),
    ("destination", "dest"),
    ("development", "dev"),
    ("dictionary", "dict"),
    ("directory", "dir"),
    ("directories", "dir"),
    ("document", "doc"),
    ("element", "el"),
    ("environment", "env"),
    ("error", "err"),
    ("event", "evt"),
    ("execut", "exec"),
    ("expression", "expr"),
    ("extension", "ext"),
    ("function", "fn"),
    ("generat", "gen"),
    ("identifier", "id"),
    ("image", "img"),
    ("implementation", "impl"),
    ("index", "idx"),
    ("information", "info"),
    ("initial", "init"),
    ("iterat", "iter"),
    ("language", "lang"),
    ("length", "len"),
    ("manager", "mgr"),
    ("maximum", "max"),
    ("memory", "mem"),
    ("message", "msg"),
    ("millisecond", "ms"),
    ("minimum", "min"),
    ("number", "num"),
    ("object", "obj"),
    ("operator", "op"),
    ("option", "opts"),
    ("original", "orig"),
    ("package", "pkg"),
    ("parameter", "params"),
    ("position", "pos"),
    ("previous", "prev"),
    ("process", "proc"),
    ("production", "prod"),
    ("propert", "props"),
    ("reference", "ref"),
    ("repositor", "repo"),
    ("request", "req"),
    ("response", "res"),
    ("separator", "sep"),
    ("sequence", "seq"),
    ("specification", "spec"),
    ("statistic", "stats"),
    ("string", "str"),
    ("synchronous", "sync"),
    ("temporar", "tmp"),
    ("transaction", "tx"),
    ("utilit", "utils"),
    ("value", "val"),
    ("version", "ver"),
    ("websocket", "ws"),
];

/// The short form code uses for `word` (lower case), if it has one.
pub(crate) fn of(word: &str) -> Option<&'static str> {
    SHORT_FORMS.iter().find(|(long, _)| word.starts_with(long)).map(|(_, short)| *short)
}

/// The short forms of a question's words, each once, in order: what BM25
/// reads beside the question.
pub(crate) fn of_question(words: &[String]) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for w in words {
        if let Some(s) = of(w) {
            if !out.contains(&s) && !words.iter().any(|x| x == s) {
                out.push(s);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_find_their_short_forms() {
        assert_eq!(of("websocket"), Some("ws"));
        assert_eq!(of("initializing"), Some("init"));
        assert_eq!(of("initialization"), Some("init"));
        assert_eq!(of("request"), Some("req"));
        assert_eq!(of("requests"), Some("req"));
        assert_eq!(of("properties"), Some("props"));
        assert_eq!(of("router"), None);
        assert_eq!(of("req"), None);
        let words: Vec<String> = ["where", "websocket", "requests", "init", "initialize"].iter().map(|s| s.to_string()).collect();
        // `init` is already a word of the question.
        assert_eq!(of_question(&words), ["ws", "req"]);
    }
}
