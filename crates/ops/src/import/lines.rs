//! The lines of an import's input, read as a stream (issue 20): one line in memory at a time,
//! never the whole input. Owns the input's limits: the whole input stops at
//! `limits.import_bytes` (an error, before anything is written), a single line at
//! `limits.file_bytes` (a bad line: no entry could be longer than a file cogmem reads).
//!
//! Lines end at `\n`; a `\r` before it is dropped, as `str::lines` does. Input that is not UTF-8
//! fails the import naming the input and the byte offset, as reading it whole did.

use std::io::BufRead;
use std::path::PathBuf;

use crate::error::InputError;
use cogmem_store::store::StoreError;
use cogmem_store::store::fsx::IoError;

/// One line of the input.
pub(super) enum Line<'a> {
    /// The line's text, without its line break.
    Text(&'a str),
    /// A line longer than the limit, skipped without keeping it.
    TooLong,
}

/// Reads an input line by line.
pub(super) struct Lines<'r> {
    reader: &'r mut dyn BufRead,
    /// The input as errors name it (a path, or `<stdin>`).
    origin: PathBuf,
    /// Bytes read so far.
    read: u64,
    /// The whole input's limit (`limits.import_bytes`).
    total_limit: u64,
    /// One line's limit (`limits.file_bytes`).
    line_limit: u64,
    buf: Vec<u8>,
    /// 1-based number of the last line read.
    number: usize,
}

impl<'r> Lines<'r> {
    /// Starts reading `reader`, named `origin` in errors.
    pub(super) fn new(
        reader: &'r mut dyn BufRead,
        origin: PathBuf,
        total_limit: u64,
        line_limit: u64,
    ) -> Self {
        Self { reader, origin, read: 0, total_limit, line_limit, buf: Vec::new(), number: 0 }
    }

    /// Bytes read so far.
    pub(super) fn bytes_read(&self) -> u64 {
        self.read
    }

    /// Reads the next line and its 1-based number; `None` at the end of the input.
    pub(super) fn next_line(&mut self) -> crate::Result<Option<(usize, Line<'_>)>> {
        self.buf.clear();
        let start = self.read;
        let cap = self.line_limit.saturating_add(1);
        let n = self.read_until(cap)?;
        if n == 0 {
            return Ok(None);
        }
        self.number += 1;
        if self.buf.last() != Some(&b'\n') && n as u64 >= cap {
            // Too long: drop the rest of the line without keeping it.
            loop {
                self.buf.clear();
                let more = self.read_until(64 * 1024)?;
                if more == 0 || self.buf.last() == Some(&b'\n') {
                    break;
                }
            }
            return Ok(Some((self.number, Line::TooLong)));
        }
        if self.buf.last() == Some(&b'\n') {
            self.buf.pop();
            if self.buf.last() == Some(&b'\r') {
                self.buf.pop();
            }
        }
        // A byte-order mark (Windows tools save UTF-8 with one) is not part of the first line.
        let bom = if self.number == 1 && self.buf.starts_with(b"\xEF\xBB\xBF") { 3 } else { 0 };
        match std::str::from_utf8(&self.buf[bom..]) {
            Ok(text) => Ok(Some((self.number, Line::Text(text)))),
            Err(e) => Err(StoreError::NotUtf8 {
                path: self.origin.clone(),
                offset: usize::try_from(start).unwrap_or(usize::MAX) + bom + e.valid_up_to(),
            }
            .into()),
        }
    }

    /// Reads up to `cap` bytes of one line into `buf`, counting them against the input's
    /// limit.
    fn read_until(&mut self, cap: u64) -> crate::Result<usize> {
        let n = std::io::Read::take(&mut *self.reader, cap)
            .read_until(b'\n', &mut self.buf)
            .map_err(|e| IoError::new(self.origin.clone(), "read", e))?;
        self.read += n as u64;
        if self.read > self.total_limit {
            return Err(InputError::ImportTooLarge { limit: self.total_limit }.into());
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(input: &[u8], line_limit: u64) -> Vec<(usize, Option<String>)> {
        let mut reader: &[u8] = input;
        let mut lines = Lines::new(&mut reader, "chat.jsonl".into(), 1 << 20, line_limit);
        let mut out = Vec::new();
        while let Some((n, line)) = lines.next_line().unwrap() {
            let text = match line {
                Line::Text(t) => Some(t.to_owned()),
                Line::TooLong => None,
            };
            out.push((n, text));
        }
        out
    }

    #[test]
    fn lines_are_numbered_and_long_ones_skipped_whole() {
        let got = read_all(b"a\r\n\nccccccccc\nd", 4);
        let want = vec![
            (1, Some("a".to_owned())),
            (2, Some(String::new())),
            (3, None),
            (4, Some("d".to_owned())),
        ];
        assert_eq!(got, want);
        assert_eq!(read_all(b"abcd\n", 4), vec![(1, Some("abcd".to_owned()))]);
    }

    #[test]
    fn a_byte_order_mark_is_not_part_of_the_first_line() {
        let got = read_all(b"\xEF\xBB\xBF{\"a\":1}\n\xEF\xBB\xBFb\n", 100);
        assert_eq!(got, vec![(1, Some("{\"a\":1}".to_owned())), (2, Some("\u{feff}b".to_owned()))]);
    }

    #[test]
    fn over_the_total_limit_or_not_utf8_is_an_error_naming_it() {
        let mut reader: &[u8] = b"one\ntwo\nthree\n";
        let mut lines = Lines::new(&mut reader, "chat.jsonl".into(), 6, 100);
        assert!(lines.next_line().is_ok());
        let err = lines.next_line().map(|_| ()).unwrap_err().to_string();
        assert!(err.contains("`limits.import_bytes`"), "{err}");
        let mut reader: &[u8] = b"ok\nbad \xff\n";
        let mut lines = Lines::new(&mut reader, "chat.jsonl".into(), 100, 100);
        assert!(lines.next_line().is_ok());
        let err = lines.next_line().map(|_| ()).unwrap_err().to_string();
        assert!(err.contains("chat.jsonl") && err.contains('7'), "{err}");
    }
}
