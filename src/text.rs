//! Source text with the indexes tsq needs: line starts (tsc's rules) and the
//! UTF-16 to byte offset map that turns JS positions into Rust slices.

/// A file's text plus its line and offset tables.
pub struct SourceText {
    text: String,
    /// Byte offset of each line's first character.
    line_starts: Vec<usize>,
    /// Byte offset of each UTF-16 unit (plus one past the end); `None` when
    /// the text is ASCII and the two coincide.
    utf16_to_byte: Option<Vec<u32>>,
}

impl SourceText {
    pub fn new(text: String) -> SourceText {
        let line_starts = line_starts(&text);
        let utf16_to_byte = if text.is_ascii() {
            None
        } else {
            let mut map = Vec::with_capacity(text.len() + 1);
            for (byte, ch) in text.char_indices() {
                for _ in 0..ch.len_utf16() {
                    map.push(byte as u32);
                }
            }
            map.push(text.len() as u32);
            Some(map)
        };
        SourceText { text, line_starts, utf16_to_byte }
    }

    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Converts a UTF-16 offset from JS into a byte offset, clamped to the
    /// text and to a char boundary.
    pub fn byte(&self, utf16: u32) -> usize {
        match &self.utf16_to_byte {
            None => (utf16 as usize).min(self.text.len()),
            Some(map) => map.get(utf16 as usize).copied().unwrap_or(self.text.len() as u32) as usize,
        }
    }

    /// 1-based line of a byte offset.
    pub(crate) fn line_of(&self, byte: usize) -> u32 {
        match self.line_starts.binary_search(&byte) {
            Ok(i) => i as u32 + 1,
            Err(i) => i as u32,
        }
    }

    /// 1-based line range of the bytes `[start, end)`; an empty span sits on
    /// its start line.
    pub fn line_range(&self, start: usize, end: usize) -> (u32, u32) {
        let last = if end > start { end - 1 } else { start };
        (self.line_of(start), self.line_of(last))
    }

    pub fn line_count(&self) -> u32 {
        self.line_starts.len() as u32
    }

    /// The text of lines `first..=last` (1-based), line breaks included
    /// except after the last line.
    pub fn lines(&self, first: u32, last: u32) -> &str {
        let start = self.line_starts[(first.max(1) - 1) as usize];
        let end = self.line_end(last);
        &self.text[start..end]
    }

    /// Byte offset where 1-based `line`'s content ends (before its break).
    pub(crate) fn line_end(&self, line: u32) -> usize {
        let next = self.line_starts.get(line as usize).copied().unwrap_or(self.text.len());
        let bytes = self.text.as_bytes();
        let mut end = next;
        // Back over the line break that starts `next`.
        if end > 0 && line as usize != self.line_starts.len() {
            if self.text[..end].ends_with('\u{2028}') || self.text[..end].ends_with('\u{2029}') {
                end -= 3;
            } else if bytes[end - 1] == b'\n' {
                end -= 1;
                if end > 0 && bytes[end - 1] == b'\r' {
                    end -= 1;
                }
            } else if bytes[end - 1] == b'\r' {
                end -= 1;
            }
        }
        end
    }
}

/// Line starts as tsc computes them: breaks are `\r\n`, `\n`, `\r`,
/// U+2028 and U+2029.
fn line_starts(text: &str) -> Vec<usize> {
    let mut starts = vec![0];
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\n' => starts.push(i + 1),
            b'\r' => {
                if bytes.get(i + 1) == Some(&b'\n') {
                    i += 1;
                }
                starts.push(i + 1);
            }
            0xE2 if bytes.get(i + 1) == Some(&0x80) && matches!(bytes.get(i + 2), Some(0xA8 | 0xA9)) => {
                i += 2;
                starts.push(i + 1);
            }
            _ => {}
        }
        i += 1;
    }
    starts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_follow_tsc_breaks() {
        let t = SourceText::new("a\r\nb\rc\nd\u{2028}e".to_string());
        assert_eq!(t.line_count(), 5);
        assert_eq!(t.line_of(0), 1);
        assert_eq!(t.line_of(3), 2);
        assert_eq!(t.line_of(5), 3);
        assert_eq!(t.lines(1, 1), "a");
        assert_eq!(t.lines(2, 3), "b\rc");
        assert_eq!(t.lines(4, 4), "d");
        assert_eq!(t.lines(5, 5), "e");
    }

    #[test]
    fn utf16_offsets_map_to_bytes() {
        // 'é' is 1 UTF-16 unit / 2 bytes; '😀' is 2 units / 4 bytes.
        let t = SourceText::new("é😀x".to_string());
        assert_eq!(t.byte(0), 0);
        assert_eq!(t.byte(1), 2);
        assert_eq!(t.byte(3), 6);
        assert_eq!(t.byte(4), 7);
        assert_eq!(t.byte(99), 7);
    }
}
