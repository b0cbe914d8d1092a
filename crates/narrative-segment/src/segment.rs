//! Segmentation: delimiter lines split the narrative into role turns, and
//! each embed is attached to the turn of its first occurrence.

use std::borrow::Cow;

use memchr::memmem;
use serde::{Deserialize, Serialize};

use std::ops::ControlFlow;

use crate::alias::RoleAliases;
use crate::data::{Authored, Provenance};
use crate::delimiter::{Opened, delimiters};
use crate::dialect::Dialect;
use crate::narrative::{Embed, EmbedOrigin, Narrative, ResolvedNarrative};
use crate::role::TurnRole;
use crate::source::{Line, Source};
use crate::span::Span;

/// How [`segment`] splits a narrative.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct SegmentOptions {
    /// The delimiter and embed-placement rules. Normally the dialect the
    /// narrative was parsed with, which [`ResolvedNarrative::segment`] uses.
    pub dialect: Dialect,
    /// Other names delimiters may give the roles (`You`, `ChatGPT`), in the
    /// Standard dialect; none by default. lmml has no aliases: with
    /// [`Dialect::Lmml`] they are not used (the command line refuses the
    /// combination).
    pub aliases: RoleAliases,
}

impl SegmentOptions {
    /// The options of `dialect`, without aliases.
    pub fn new(dialect: Dialect) -> SegmentOptions {
        SegmentOptions { dialect, aliases: RoleAliases::new() }
    }

    /// The same options, delimiters also naming roles by `aliases`.
    pub fn with_aliases(self, aliases: RoleAliases) -> SegmentOptions {
        SegmentOptions { aliases, ..self }
    }
}

/// One turn of the conversation.
///
/// `text` is the exact slice `span` of the narrative, borrowed from it:
/// nothing trimmed, line endings kept. The delimiter line that opened the turn is at `delimiter`
/// (`None` for the `context` preamble), so turn texts and delimiter lines
/// together restore the narrative byte for byte.
///
/// Serialized as `{"role", "text", "embeds"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Turn<'a> {
    /// Who speaks.
    pub role: TurnRole,
    /// The turn's text, exactly as written.
    #[serde(borrow)]
    pub text: Cow<'a, str>,
    /// Where `text` is in the narrative.
    #[serde(skip)]
    pub span: Span,
    /// The delimiter line (with its line ending) that opened the turn.
    #[serde(skip)]
    pub delimiter: Option<Span>,
    /// The names of the embeds attached to this turn, in first-occurrence
    /// order.
    pub embeds: Vec<String>,
}

impl ResolvedNarrative {
    /// Splits the narrative into turns with the dialect it was parsed with;
    /// see [`segment`].
    pub fn segment(&self) -> Vec<Turn<'_>> {
        segment(self, &SegmentOptions::new(self.narrative().dialect()))
    }
}

/// Splits a resolved narrative into turns.
///
/// - With no delimiter line, the whole text (even `""`) is one `context`
///   turn.
/// - Text before the first delimiter is a `context` turn, kept even when it
///   is only whitespace; none when the first delimiter starts the text.
/// - Each delimiter opens a turn of its role running to the next delimiter
///   line. Empty turns and consecutive same-role turns are kept.
/// - Each embed lands in the turn of its first occurrence (see
///   [`Dialect`] for how each dialect finds it).
pub fn segment<'a>(resolved: &'a ResolvedNarrative, options: &SegmentOptions) -> Vec<Turn<'a>> {
    let dialect = options.dialect;
    let text = resolved.text();
    let mut turns = split(resolved.narrative(), options);
    let embeds = resolved.embeds();
    let (offsets, with_delimiter) = if dialect.places_embeds_by_search() {
        let data = resolved.narrative().data();
        let offsets = if data.is_empty() {
            searched_offsets(text.as_bytes(), Authored, embeds)
        } else {
            searched_offsets(text.as_bytes(), data, embeds)
        };
        (offsets, false)
    } else {
        (embeds.iter().map(|embed| Some(embed.span.start)).collect(), true)
    };
    for (embed, offset) in embeds.iter().zip(offsets) {
        let Some(offset) = offset else { continue };
        // The region a turn owns: its text, and (Standard) its delimiter line.
        let region = |turn: &Turn<'_>| {
            let start = if with_delimiter {
                turn.delimiter.unwrap_or(turn.span).start
            } else {
                turn.span.start
            };
            Span::new(start, turn.span.end)
        };
        let index = turns.partition_point(|turn| region(turn).start <= offset);
        if let Some(turn) = index.checked_sub(1).map(|i| &mut turns[i])
            && region(turn).contains(offset)
        {
            turn.embeds.push(embed.name.clone());
        }
    }
    turns
}

/// The turns, without embeds. A delimiter line whose role slot holds an
/// invalid value is text here: [`Narrative::resolve`] rejects such a
/// narrative for its own dialect, so only a narrative segmented with
/// another dialect than it was parsed with gets this far.
fn split<'a>(narrative: &'a Narrative, options: &SegmentOptions) -> Vec<Turn<'a>> {
    let dialect = options.dialect;
    // lmml has no aliases.
    let none = RoleAliases::new();
    let aliases = if dialect == Dialect::Standard { &options.aliases } else { &none };
    let text = narrative.text();
    let body = Source::new(text, dialect, narrative.data()).body_start();
    let mut turns = Vec::new();
    // The open turn: its role, delimiter, and the text from its start on.
    let mut role = TurnRole::Context;
    let mut delimiter = None;
    let mut rest = &text[body..];
    let mut rest_start = body;
    let mut open = |line: Line, opened: Opened| {
        let Ok(opened) = opened else { return ControlFlow::Continue(()) };
        let (turn_text, tail) = rest.split_at(line.start - rest_start);
        // The preamble is left out only when the first delimiter starts the text.
        if line.start > body || delimiter.is_some() {
            turns.push(Turn::new(role, turn_text, rest_start, delimiter));
        }
        rest = &tail[line.next - line.start..];
        rest_start = line.next;
        role = TurnRole::Chat(opened);
        delimiter = Some(Span::new(line.start, line.next));
        ControlFlow::Continue(())
    };
    // The scan `resolve` made serves unless aliases may name more roles.
    let scanned = (dialect == narrative.dialect() && aliases.is_empty())
        .then(|| narrative.scanned_delimiters());
    match scanned.flatten() {
        Some(scanned) => scanned.iter().for_each(|&(line, opened)| _ = open(line, opened)),
        None => delimiters(
            narrative.text(),
            narrative.data(),
            narrative.code_spans(),
            (dialect, aliases),
            open,
        ),
    }
    turns.push(Turn::new(role, rest, rest_start, delimiter));
    turns
}

impl<'a> Turn<'a> {
    fn new(role: TurnRole, text: &'a str, start: usize, delimiter: Option<Span>) -> Turn<'a> {
        let span = Span::new(start, start + text.len());
        Turn { role, text: Cow::Borrowed(text), span, delimiter, embeds: Vec::new() }
    }
}

/// lmml's embed location, by searching the text: each inline embed's fence
/// rebuilt and searched after the previous one; then a walk over the text
/// where, at each `@`, the longest `@name` of an attachment matches (the
/// located fences skipped whole). Only the first match of a name counts,
/// and only where its `@@@` or `@` was authored.
fn searched_offsets<'a, P: Provenance<'a>>(
    text: &[u8],
    data: P,
    embeds: &[Embed],
) -> Vec<Option<usize>> {
    let mut offsets = vec![None; embeds.len()];
    let mut fences = Vec::new();
    let mut from = 0;
    for (index, embed) in embeds.iter().enumerate() {
        if embed.origin != EmbedOrigin::Inline {
            continue;
        }
        let fence =
            [b"@@@", embed.name.as_bytes(), b"\n", embed.content.as_bytes(), b"@@@"].concat();
        // The first match can be no later than the embed itself (where lmml
        // parsed it), so the search stops there: linear in total.
        let window = (embed.span.start + fence.len()).min(text.len());
        let finder = memmem::Finder::new(&fence);
        let search =
            |at: usize| text.get(at..window).and_then(|hay| finder.find(hay)).map(|i| at + i);
        let mut at = from;
        let found = loop {
            let Some(start) = data.find(at, 3, search) else { break None };
            if data.is_authored(start + fence.len() - 3, start + fence.len()) {
                break Some(start);
            }
            at = start + 1;
        };
        if let Some(start) = found {
            offsets[index] = Some(start);
            fences.push(Span::new(start, start + fence.len()));
            from = start + fence.len();
        }
    }
    let mut names = NameTrie::default();
    for (index, embed) in embeds.iter().enumerate() {
        if embed.origin == EmbedOrigin::Attachment {
            names.insert(embed.name.as_bytes(), index);
        }
    }
    let mut unplaced =
        embeds.iter().filter(|embed| embed.origin == EmbedOrigin::Attachment).count();
    let mut pos = 0;
    let mut next_fence = 0;
    while unplaced > 0 {
        let at = data.find(pos, 1, |from| memchr::memchr(b'@', &text[from..]).map(|i| from + i));
        let Some(at) = at else { break };
        pos = at;
        while next_fence < fences.len() && fences[next_fence].start < pos {
            next_fence += 1;
        }
        if let Some(fence) = fences.get(next_fence).filter(|fence| fence.start == pos) {
            pos = fence.end;
            continue;
        }
        match names.longest_prefix(&text[pos + 1..]) {
            Some((length, index)) => {
                if offsets[index].is_none() {
                    offsets[index] = Some(pos);
                    unplaced -= 1;
                }
                pos += 1 + length;
            }
            None => pos += 1,
        }
    }
    offsets
}

/// Attachment names by their bytes, to find the longest one a text starts
/// with in time proportional to that name, however many names there are.
#[derive(Debug, Default)]
struct NameTrie {
    nodes: Vec<TrieNode>,
}

#[derive(Debug, Default)]
struct TrieNode {
    next: Vec<(u8, usize)>,
    embed: Option<usize>,
}

impl NameTrie {
    fn insert(&mut self, name: &[u8], embed: usize) {
        if self.nodes.is_empty() {
            self.nodes.push(TrieNode::default());
        }
        let mut node = 0;
        for &byte in name {
            node = match self.nodes[node].next.iter().find(|(b, _)| *b == byte) {
                Some(&(_, child)) => child,
                None => {
                    self.nodes.push(TrieNode::default());
                    let child = self.nodes.len() - 1;
                    self.nodes[node].next.push((byte, child));
                    child
                }
            };
        }
        self.nodes[node].embed.get_or_insert(embed);
    }

    /// The longest name `text` starts with: its length and embed index.
    fn longest_prefix(&self, text: &[u8]) -> Option<(usize, usize)> {
        let mut node = 0;
        let mut longest = None;
        for (length, &byte) in text.iter().enumerate() {
            let Some(&(_, child)) = self.nodes.get(node)?.next.iter().find(|(b, _)| *b == byte)
            else {
                break;
            };
            node = child;
            if let Some(embed) = self.nodes[node].embed {
                longest = Some((length + 1, embed));
            }
        }
        longest
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attachments::Attachments;
    use crate::data::Data;
    use crate::delimiter::scan;
    use crate::narrative::Narrative;
    use prompt_core::chat::Role;

    fn turns(
        text: &str,
        dialect: Dialect,
        entries: &[&str],
    ) -> Vec<(TurnRole, String, Vec<String>)> {
        let attachments =
            Attachments::from_entries(entries.iter().map(|name| (*name, b"x".to_vec()))).unwrap();
        let resolved = Narrative::parse(text, dialect).resolve(&attachments).unwrap();
        resolved.segment().into_iter().map(|t| (t.role, t.text.into_owned(), t.embeds)).collect()
    }

    fn strings(names: &[&str]) -> Vec<String> {
        names.iter().map(|n| (*n).to_owned()).collect()
    }

    proptest::proptest! {
        /// The delimiter scan without data (`Authored`) is the scan with no
        /// data ranges.
        #[test]
        fn both_provenances_agree_without_data(text in "([#<!\\- a-z`~@]|## user|<!-- system -->|```|\r|\n){0,40}") {
            for dialect in [Dialect::Standard, Dialect::Lmml] {
                let narrative = Narrative::parse(text.as_str(), dialect);
                let collect = |generic: bool| {
                    let mut lines = Vec::new();
                    let visit = |line: Line, opened: Opened| {
                        lines.push((line, opened));
                        ControlFlow::Continue(())
                    };
                    let none = Data::default();
                    let code = if dialect.delimiters_inside_code() { &[] } else { narrative.code_spans() };
                    if generic {
                        scan(Source::new(&text, dialect, &none), code, visit);
                    } else {
                        delimiters(narrative.text(), narrative.data(), narrative.code_spans(), (dialect, &RoleAliases::new()), visit);
                    }
                    lines
                };
                proptest::prop_assert_eq!(collect(true), collect(false));
            }
        }
    }

    #[test]
    fn embeds_on_delimiter_lines() {
        let text = "## user @a.png\nhi\n";
        assert_eq!(
            turns(text, Dialect::Lmml, &["a.png"]),
            [(TurnRole::Chat(Role::User), "hi\n".into(), vec![])]
        );
        // The Standard heading grammar takes `## user @a.png` for a heading
        // (something follows the role word): text, with its embed.
        assert_eq!(
            turns(text, Dialect::Standard, &["a.png"]),
            [(TurnRole::Context, text.into(), strings(&["a.png"]))]
        );
        // A delimiter line whose role a value names may still hold an
        // embed: it belongs to the turn the line opens.
        let text = "## user @a.png\nhi\n";
        let attachments = Attachments::from_entries([("a.png", b"x".to_vec())]).unwrap();
        let data = std::slice::from_ref(&(3..7));
        let resolved = Narrative::parse_with_data(text, Dialect::Standard, data)
            .resolve(&attachments)
            .unwrap();
        let turns = resolved.segment();
        assert_eq!((turns.len(), turns[0].role), (1, TurnRole::Chat(Role::User)));
        assert_eq!(turns[0].embeds, strings(&["a.png"]));
    }

    #[test]
    fn lmml_locates_by_searching_the_text() {
        // The code span mentions `@a.png` first: lmml attaches the embed there.
        let text = "`@a.png`\n## user\nsee @a.png\n";
        assert_eq!(
            turns(text, Dialect::Lmml, &["a.png"]),
            [
                (TurnRole::Context, "`@a.png`\n".into(), strings(&["a.png"])),
                (TurnRole::Chat(Role::User), "see @a.png\n".into(), vec![])
            ]
        );
        assert_eq!(turns(text, Dialect::Standard, &["a.png"])[1].2, strings(&["a.png"]));
        // The longest marker wins at a position.
        let text = "## user\n@a.png.bak\n## assistant\n@a.png\n";
        assert_eq!(
            turns(text, Dialect::Lmml, &["a.png", "a.png.bak"]),
            [
                (TurnRole::Chat(Role::User), "@a.png.bak\n".into(), strings(&["a.png.bak"])),
                (TurnRole::Chat(Role::Assistant), "@a.png\n".into(), strings(&["a.png"]))
            ]
        );
    }

    #[test]
    fn many_distinct_references_are_placed_in_one_pass() {
        let names: Vec<String> = (0..20_000).map(|i| format!("n{i}.txt")).collect();
        let text: String = names.iter().map(|name| format!("@{name} ")).collect();
        let entries: Vec<&str> = names.iter().map(String::as_str).collect();
        for dialect in [Dialect::Lmml, Dialect::Standard] {
            let placed = turns(&text, dialect, &entries);
            assert_eq!(placed.len(), 1);
            assert_eq!(placed[0].2, names);
        }
    }

    #[test]
    fn standard_ignores_delimiters_in_code_and_embeds() {
        let text = "## user\n```\n# assistant\n```\n@@@a.txt\n## system\n@@@\n";
        let standard = turns(text, Dialect::Standard, &[]);
        assert_eq!(standard.len(), 1);
        assert_eq!(standard[0].2, strings(&["a.txt"]));
        let lmml = turns(text, Dialect::Lmml, &[]);
        let roles: Vec<TurnRole> = lmml.iter().map(|t| t.0).collect();
        assert_eq!(
            roles,
            [
                TurnRole::Chat(Role::User),
                TurnRole::Chat(Role::Assistant),
                TurnRole::Chat(Role::System)
            ]
        );
        // The fence starts in the assistant turn and stays there, though
        // `## system` splits its content.
        assert_eq!(lmml[1].2, strings(&["a.txt"]));
    }

    #[test]
    fn line_endings() {
        let text = "## user\rhi\r## assistant\rho";
        assert_eq!(
            turns(text, Dialect::Lmml, &[]),
            [(TurnRole::Chat(Role::User), "".into(), vec![])]
        );
        assert_eq!(
            turns(text, Dialect::Standard, &[]),
            [
                (TurnRole::Chat(Role::User), "hi\r".into(), vec![]),
                (TurnRole::Chat(Role::Assistant), "ho".into(), vec![])
            ]
        );
    }
}
