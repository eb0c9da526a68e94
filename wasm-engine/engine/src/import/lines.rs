//! Streaming line splitter: byte chunks of any size in, numbered UTF-8 lines out.
//!
//! Lines end at `\n`; a `\r` before it (CRLF files, e.g. traces saved on Windows) is dropped. A line
//! may straddle any number of chunks. A line that is not UTF-8 (comm bytes are arbitrary in the
//! kernel) or longer than [`MAX_LINE`] is reported through [`LineSink::bad_line`] and skipped; the
//! splitter never panics on input. Line numbers are 1-based; `offset` is the byte offset of the
//! line's first byte in the whole stream (for progress bars and error messages).

/// Longest line kept (bytes, without the newline). Real tracepoint lines are a few hundred bytes;
/// longer ones are binary data fed by mistake or embedded base64 blocks.
pub const MAX_LINE: usize = 256 * 1024;

/// Receives the lines of a [`LineSplitter`].
pub trait LineSink {
    fn line(&mut self, no: u64, offset: u64, text: &str);
    /// `column` is 1-based (bytes); `reason` says what was wrong.
    fn bad_line(&mut self, no: u64, column: u32, reason: &'static str);
}

#[derive(Default, Debug)]
pub struct LineSplitter {
    partial: Vec<u8>,
    /// The current partial line overflowed [`MAX_LINE`]: drop bytes until its newline.
    overlong: bool,
    /// Lines emitted so far.
    lines: u64,
    /// Bytes fed so far.
    fed: u64,
    /// Stream offset of the first byte of the current (partial) line.
    line_start: u64,
}

impl LineSplitter {
    pub fn new() -> Self {
        Self::default()
    }

    /// Lines emitted so far (the last line number).
    pub fn lines(&self) -> u64 {
        self.lines
    }

    /// Bytes fed so far.
    pub fn bytes(&self) -> u64 {
        self.fed
    }

    /// Feeds one chunk; every line completed inside it goes to `out`.
    pub fn feed<L: LineSink + ?Sized>(&mut self, chunk: &[u8], out: &mut L) {
        let mut start = 0;
        let base = self.fed;
        self.fed += chunk.len() as u64;
        while let Some(rel) = chunk[start..].iter().position(|&c| c == b'\n') {
            let end = start + rel;
            let next_start = base + end as u64 + 1;
            if self.overlong {
                self.overlong = false;
                self.partial.clear();
                self.emit_overlong(out);
            } else if self.partial.is_empty() {
                self.emit(&chunk[start..end], out);
            } else if self.partial.len() + (end - start) > MAX_LINE {
                self.partial.clear();
                self.emit_overlong(out);
            } else {
                let mut line = std::mem::take(&mut self.partial);
                line.extend_from_slice(&chunk[start..end]);
                self.emit(&line, out);
                line.clear();
                self.partial = line;
            }
            self.line_start = next_start;
            start = end + 1;
        }
        let rest = &chunk[start..];
        if !self.overlong {
            if self.partial.len() + rest.len() > MAX_LINE {
                self.overlong = true;
                self.partial.clear();
            } else {
                self.partial.extend_from_slice(rest);
            }
        }
    }

    /// Ends the stream: a last line without a newline is emitted.
    pub fn finish<L: LineSink + ?Sized>(&mut self, out: &mut L) {
        if self.overlong {
            self.overlong = false;
            self.emit_overlong(out);
        } else if !self.partial.is_empty() {
            let line = std::mem::take(&mut self.partial);
            self.emit(&line, out);
        }
        self.line_start = self.fed;
    }

    fn emit_overlong<L: LineSink + ?Sized>(&mut self, out: &mut L) {
        self.lines += 1;
        out.bad_line(self.lines, MAX_LINE as u32 + 1, "a line of at most 256 KiB (binary data?)");
    }

    fn emit<L: LineSink + ?Sized>(&mut self, bytes: &[u8], out: &mut L) {
        self.lines += 1;
        if bytes.len() > MAX_LINE {
            out.bad_line(self.lines, MAX_LINE as u32 + 1, "a line of at most 256 KiB (binary data?)");
            return;
        }
        let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
        match std::str::from_utf8(bytes) {
            Ok(text) => out.line(self.lines, self.line_start, text),
            Err(e) => out.bad_line(self.lines, e.valid_up_to() as u32 + 1, "UTF-8 text"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Collect(Vec<String>);
    impl LineSink for Collect {
        fn line(&mut self, no: u64, offset: u64, text: &str) {
            self.0.push(format!("{no}@{offset}:{text}"));
        }
        fn bad_line(&mut self, no: u64, column: u32, reason: &'static str) {
            self.0.push(format!("{no}!{column}:{reason}"));
        }
    }

    fn split(input: &[u8], chunk: usize) -> Vec<String> {
        let mut s = LineSplitter::new();
        let mut c = Collect::default();
        for part in input.chunks(chunk) {
            s.feed(part, &mut c);
        }
        s.finish(&mut c);
        c.0
    }

    #[test]
    fn chunk_size_does_not_matter() {
        let input = b"ab\r\n\ncd\xffx\nlast";
        let whole = split(input, input.len());
        assert_eq!(whole, vec!["1@0:ab", "2@4:", "3!3:UTF-8 text", "4@10:last"]);
        for n in 1..8 {
            assert_eq!(split(input, n), whole, "chunk size {n}");
        }
    }

    #[test]
    fn overlong_lines_are_skipped_not_kept() {
        let mut input = vec![b'x'; MAX_LINE + 10];
        input.extend_from_slice(b"\nok\n");
        for n in [7, 4096, input.len()] {
            let out = split(&input, n);
            assert_eq!(out.len(), 2, "chunk {n}");
            assert!(out[0].starts_with("1!"), "{out:?}");
            assert_eq!(out[1], format!("2@{}:ok", MAX_LINE + 11));
        }
    }
}
