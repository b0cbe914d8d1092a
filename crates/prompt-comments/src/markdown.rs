//! The two pieces of Markdown the `Standard` dialect respects: fenced code
//! blocks and inline code spans. Inside them `///` is text.
//!
//! Both follow CommonMark where it matters here: a fence is a run of three or
//! more backticks or tildes (a backtick fence's info string holds no
//! backtick), closed by a run of the same character at least as long with
//! nothing but spaces after it; an unclosed fence runs to the end of the
//! text. A code span opens with a run of backticks and closes at the next run
//! of exactly the same length; a run with no partner is literal text. Unlike
//! CommonMark, a code span never crosses a line, fences may be indented by
//! any amount of spaces and tabs (prompts nest them in lists freely), and
//! there are no indented code blocks (indentation in prompts is layout).

use std::collections::HashMap;
use std::ops::Range;

/// An open fenced code block: its character and the length of its run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Fence {
    ch: u8,
    len: usize,
}

impl Fence {
    /// The fence `line` opens, if it is an opening fence line.
    pub(crate) fn opened_by(line: &[u8]) -> Option<Fence> {
        let rest = trim_indent(line);
        let ch = *rest.first()?;
        if ch != b'`' && ch != b'~' {
            return None;
        }
        let len = run_len(rest, ch);
        let info = &rest[len..];
        (len >= 3 && !(ch == b'`' && info.contains(&b'`'))).then_some(Fence { ch, len })
    }

    /// Whether `line` closes this fence.
    pub(crate) fn is_closed_by(self, line: &[u8]) -> bool {
        let rest = trim_indent(line);
        let len = run_len(rest, self.ch);
        len >= self.len && rest[len..].iter().all(|&b| b == b' ' || b == b'\t')
    }
}

fn trim_indent(line: &[u8]) -> &[u8] {
    let indent = line.iter().take_while(|&&b| b == b' ' || b == b'\t').count();
    &line[indent..]
}

fn run_len(bytes: &[u8], ch: u8) -> usize {
    bytes.iter().take_while(|&&b| b == ch).count()
}

/// The code spans of one line, asked about positions in increasing order.
///
/// Building them is linear in the line's length: one pass collects the
/// backtick runs, a backward pass links each run to the next run of the same
/// length, and a forward pass pairs them. The buffers are reused from line to
/// line.
#[derive(Debug, Default)]
pub(crate) struct CodeSpans {
    runs: Vec<Range<usize>>,
    partner: Vec<Option<usize>>,
    last_of_len: HashMap<usize, usize>,
    spans: Vec<Range<usize>>,
    cursor: usize,
}

impl CodeSpans {
    /// No code spans: what [`CodeSpans::find`] gives a line without a
    /// backtick, without looking at it.
    pub(crate) fn clear(&mut self) {
        self.runs.clear();
        self.spans.clear();
        self.cursor = 0;
    }

    /// Finds the code spans of `bytes[line]`; positions are absolute.
    pub(crate) fn find(&mut self, bytes: &[u8], line: Range<usize>) {
        self.clear();
        let mut at = line.start;
        while let Some(i) = memchr::memchr(b'`', &bytes[at..line.end]) {
            let start = at + i;
            let end = start + run_len(&bytes[start..line.end], b'`');
            self.runs.push(start..end);
            at = end;
        }
        if self.runs.len() < 2 {
            return;
        }
        self.partner.clear();
        self.partner.resize(self.runs.len(), None);
        self.last_of_len.clear();
        for (i, run) in self.runs.iter().enumerate().rev() {
            self.partner[i] = self.last_of_len.insert(run.len(), i);
        }
        let mut i = 0;
        while i < self.runs.len() {
            match self.partner[i] {
                Some(j) => {
                    self.spans.push(self.runs[i].start..self.runs[j].end);
                    i = j + 1;
                }
                None => i += 1,
            }
        }
    }

    /// Whether byte `at` lies inside a code span. `at` must not decrease
    /// between calls (after [`CodeSpans::find`]).
    pub(crate) fn covers(&mut self, at: usize) -> bool {
        while self.spans.get(self.cursor).is_some_and(|span| span.end <= at) {
            self.cursor += 1;
        }
        self.spans.get(self.cursor).is_some_and(|span| span.start <= at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spans(line: &str) -> Vec<&str> {
        let mut code = CodeSpans::default();
        code.find(line.as_bytes(), 0..line.len());
        code.spans.iter().map(|span| &line[span.clone()]).collect()
    }

    #[test]
    fn code_spans_pair_runs_of_equal_length() {
        assert_eq!(spans("a `b` c ``d ` e`` f"), ["`b`", "``d ` e``"]);
        assert_eq!(spans("``` x ` y"), Vec::<&str>::new());
        assert_eq!(spans("` `` `"), ["` `` `"]);
        assert_eq!(spans("`` ` ``` ` ``"), ["`` ` ``` ` ``"]);
        assert_eq!(spans("`a` `b"), ["`a`"]);
    }

    #[test]
    fn covers_walks_forward() {
        let line = "x `///` y ///";
        let mut code = CodeSpans::default();
        code.find(line.as_bytes(), 0..line.len());
        assert!(!code.covers(0));
        assert!(code.covers(3));
        assert!(!code.covers(10));
    }

    #[test]
    fn fences() {
        let fence = Fence::opened_by(b"  ```rust").unwrap();
        assert!(fence.is_closed_by(b"```"));
        assert!(fence.is_closed_by(b"\t````  "));
        assert!(!fence.is_closed_by(b"``"));
        assert!(!fence.is_closed_by(b"~~~"));
        assert!(!fence.is_closed_by(b"``` x"));
        let tilde = Fence::opened_by(b"~~~~ ``info``").unwrap();
        assert!(!tilde.is_closed_by(b"~~~"));
        assert!(tilde.is_closed_by(b"~~~~~"));
        assert_eq!(Fence::opened_by(b"``"), None);
        assert_eq!(Fence::opened_by(b"``` a`b"), None);
        assert_eq!(Fence::opened_by(b"/// ```"), None);
        assert_eq!(Fence::opened_by(b""), None);
    }
}
