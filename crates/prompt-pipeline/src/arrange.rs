//! Stages 3 and 4: the rendered text as a conversation (turns, embeds,
//! the preamble), a transcript after it, and the arrangement the provider
//! requires.

use std::ops::Range;
use std::sync::Arc;

use narrative_segment::{ContextAs, Narrative, RenderOptions, WarningKind, render, tool_parts};

use prompt_core::chat::{Message, Part, Role};
use prompt_core::diagnostic::Origin;

use crate::error::{Error, ErrorKind};
use crate::prompt::Prompt;
use crate::provider::Notice;
use crate::source::Transcript;

/// Stage 3: turns, embeds, and the preamble mapped. `data_ranges` are
/// the bytes of a rendered `text` that came from values (`None` when the
/// template did not run): they are data, so no delimiter, embed or
/// reference is ever recognised in them.
pub(crate) fn segment(
    prompt: &Prompt,
    text: &str,
    data_ranges: Option<&[Range<usize>]>,
    notices: &mut Vec<Notice>,
) -> Result<Vec<Message>, Error> {
    let pipeline = &*prompt.pipeline().config;
    // A rendered text is in no file: the error keeps it (copied only on
    // this failure path).
    let place = |err: Error, offset: usize| {
        if data_ranges.is_some() {
            err.at(Origin::Rendered, &Arc::from(text), offset)
        } else {
            prompt.place(err, offset)
        }
    };
    // A narrative error, placed where it points (in the prompt file or the
    // rendered text).
    let narrative_error = |err: narrative_segment::Error| {
        let offset = err.offset();
        let wrapped = Error::new(ErrorKind::Narrative(err));
        match offset {
            Some(offset) => place(wrapped, offset),
            None => wrapped,
        }
    };
    let narrative = match data_ranges {
        Some(data_ranges) => {
            Narrative::parse_with_data(text, pipeline.segmenting.dialect, data_ranges)
        }
        None => Narrative::parse(text, pipeline.segmenting.dialect),
    };
    let resolved = narrative.resolve(prompt.attachments()).map_err(narrative_error)?;
    let turns = narrative_segment::segment(&resolved, &pipeline.segmenting);
    let options = RenderOptions::new().with_context_as(pipeline.context_as);
    let mut rendered = render(&resolved, &turns, &options);
    // Without a size limit: a bare reference kept as text, an embed typed
    // by its bytes.
    notices.extend(rendered.warnings.iter().filter_map(|warning| {
        let (name, line, column) = (warning.name().to_owned(), warning.line(), warning.column());
        match warning.kind() {
            WarningKind::UnresolvedReference => {
                return Some(Notice::UnresolvedReference { name, line, column });
            }
            WarningKind::UnclosedEmbed => {
                return Some(Notice::UnclosedEmbed { name, line, column });
            }
            _ => {}
        }
        let (extension, bytes) = warning.media_types()?;
        Some(Notice::MediaTypeMismatch {
            file: warning.name().to_owned(),
            extension: extension.to_owned(),
            bytes: bytes.to_owned(),
        })
    }));
    // Messages are rendered from turns one for one (a dropped preamble
    // aside), so a refused message's index names its turn, whose delimiter
    // is where the author can fix it.
    let mut kept = turns.iter().filter(|turn| {
        turn.role != narrative_segment::TurnRole::Context || pipeline.context_as != ContextAs::Drop
    });
    let refuse = |turn: Option<&narrative_segment::Turn<'_>>, message, role: &str| {
        let err = unsupported_role(message, role);
        match turn {
            Some(turn) => place(err, turn.delimiter.unwrap_or(turn.span).start),
            None => err,
        }
    };
    if rendered.context.is_some() {
        return Err(refuse(kept.next(), 0, "context"));
    }
    // Tool blocks (standard dialect): a turn's text part becomes its text
    // around its tool calls or results; its embeds stay after them.
    let kept: Vec<_> = kept.collect();
    for (turn, message) in kept.iter().zip(rendered.messages.iter_mut()) {
        let parts = tool_parts(&resolved, turn).map_err(narrative_error)?;
        if let Some(parts) = parts {
            message.content.splice(0..1, parts);
        }
    }
    // A tool turn holds tool results; one with none has no place.
    let resultless = |m: &Message| {
        m.role == Role::Tool && !m.content.iter().any(|p| matches!(p, Part::ToolResult { .. }))
    };
    if let Some(index) = rendered.messages.iter().position(resultless) {
        return Err(refuse(kept.get(index).copied(), index, Role::Tool.as_str()));
    }
    // An authored turn left with no message is said, never dropped unseen.
    let mut messages = Vec::with_capacity(rendered.messages.len());
    let mut ordinal = 0;
    for (i, message) in rendered.messages.into_iter().enumerate() {
        let delimiter = kept.get(i).and_then(|turn| turn.delimiter);
        ordinal += usize::from(delimiter.is_some());
        match (tidied(message), delimiter) {
            (Some(message), _) => messages.push(message),
            (None, Some(delimiter)) => {
                let rendered = data_ranges.is_some();
                notices.push(empty_turn(prompt, text, rendered, delimiter, ordinal));
            }
            (None, None) => {}
        }
    }
    Ok(messages)
}

/// Where each line of `text` reading `line` (without its line ending)
/// starts.
fn lines_reading(text: &str, line: &str) -> Vec<usize> {
    let mut start = 0;
    let mut found = Vec::new();
    for each in text.split_inclusive('\n') {
        if each.trim_end_matches(['\r', '\n']) == line {
            found.push(start);
        }
        start += each.len();
    }
    found
}

/// The notice of turn `ordinal`, opened by `delimiter` in `text`, empty.
/// When `text` is what the template rendered, its delimiter is placed in
/// the prompt file only when that file has as many lines reading the same
/// (the k-th rendered is the k-th written); a template that writes it in a
/// loop leaves it unplaced.
fn empty_turn(
    prompt: &Prompt,
    text: &str,
    rendered: bool,
    delimiter: narrative_segment::Span,
    ordinal: usize,
) -> Notice {
    let line_of = |span: narrative_segment::Span| text[span.range()].trim_end_matches(['\r', '\n']);
    let written = line_of(delimiter);
    let offset = if rendered {
        let in_source = lines_reading(prompt.text(), written);
        let in_text = lines_reading(text, written);
        let before = in_text.iter().take_while(|&&at| at < delimiter.start).count();
        if in_text.len() == in_source.len() { in_source.get(before).copied() } else { None }
    } else {
        Some(delimiter.start)
    };
    let at = offset.map(|offset| prompt.input_position(offset));
    Notice::EmptyTurn {
        turn: ordinal,
        delimiter: written.chars().take(80).collect(),
        line: at.map(|at| at.0),
        column: at.map(|at| at.1),
    }
}

/// A narrative message in a role no provider request carries.
fn unsupported_role(message: usize, role: &str) -> Error {
    Error::new(ErrorKind::UnsupportedRole { from: "narrative", message, role: role.to_owned() })
}

/// `transcript` flipped for its speaker; what the flip warned of goes to
/// `notices`.
pub(crate) fn flip(
    transcript: &Transcript,
    notices: &mut Vec<Notice>,
) -> Result<Vec<Message>, Error> {
    let flipped = transcript_flip::flip_with_warnings(
        &transcript.turns,
        &transcript.speaker,
        &transcript.options,
    )
    .map_err(|err| Error::new(ErrorKind::Transcript(err)))?;
    for warning in &flipped.warnings {
        // The flip's one kind of warning; a new kind gets its notice here.
        if warning.kind() == transcript_flip::WarningKind::SpeakerNotInTranscript {
            notices.push(Notice::SpeakerNotInTranscript {
                speaker: transcript.speaker.clone(),
                message: warning.message().to_owned(),
            });
        }
    }
    Ok(flipped.messages)
}

/// The whole text as one message, in the role the preamble is given.
pub(crate) fn whole_text(text: &str, context_as: ContextAs) -> Result<Vec<Message>, Error> {
    let role = match context_as {
        ContextAs::System => Role::System,
        ContextAs::User => Role::User,
        ContextAs::Drop => return Ok(Vec::new()),
        _ => return Err(unsupported_role(0, "context")),
    };
    Ok(tidy(vec![Message::text(role, text)]))
}

/// Trims the blank lines around each text part (a narrative keeps them, as
/// they separate turns in the file) and the whitespace at its end, and
/// leaves out text parts and then messages that hold nothing but whitespace.
/// The indentation of the first line is kept (it may be an indented code
/// block).
fn tidy(messages: Vec<Message>) -> Vec<Message> {
    messages.into_iter().filter_map(tidied).collect()
}

/// One message of [`tidy`]: `None` when nothing but whitespace is left.
fn tidied(mut message: Message) -> Option<Message> {
    message.content.retain_mut(|part| match part {
        Part::Text { text } => {
            // Cut in place: the text moves down in its own buffer.
            let kept = without_blank_lines_around(text);
            text.truncate(kept.end);
            text.drain(..kept.start);
            !text.is_empty()
        }
        _ => true,
    });
    (!message.content.is_empty()).then_some(message)
}

/// The bytes of `text` left without its leading blank lines and its
/// trailing whitespace.
fn without_blank_lines_around(text: &str) -> Range<usize> {
    let text = text.trim_end();
    let blank = text.len() - text.trim_start().len();
    let start = text[..blank].rfind('\n').map_or(0, |newline| newline + 1);
    start..text.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tidy_trims_and_leaves_out_blank_turns() {
        let messages =
            vec![Message::text(Role::System, "\n  \n"), Message::text(Role::User, "\nhi\n\n")];
        assert_eq!(tidy(messages), [Message::text(Role::User, "hi")]);
        let code = vec![Message::text(Role::User, "\n\n    let x = 1;\n  \n")];
        assert_eq!(tidy(code), [Message::text(Role::User, "    let x = 1;")]);
        let text = " \r\n\t a \n b \r\n";
        assert_eq!(&text[without_blank_lines_around(text)], "\t a \n b");
    }
}
