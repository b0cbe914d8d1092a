//! JSON input: transcripts and message arrays read from text, with errors
//! that point at the offending row or message (line, column, snippet).
//!
//! Every document is read strictly ([`prompt_core::json`]): a leading byte
//! order mark is ignored, and a key repeated in one object is an error at
//! its second occurrence. Numbers keep their text: a message field is
//! copied as written, and a transcript cell holding an integer beyond 64
//! bits becomes its digits, not a rounded float.
//!
//! This is also where LLMR's checks on its dynamic input live, in its order:
//! the transcript is a table, it has both columns, the speaker argument is
//! one value, every row has a speaker.

use prompt_core::json::{JsonError, Reader, strip_bom};
use serde_json::value::RawValue;
use serde_json::{Number, Value};

use crate::raw::{Fields, RawMessage};
use crate::{Dialect, Error, ErrorKind, FlipOptions, Message, Turn};

/// [`crate::flip`] over a transcript given as JSON text: an array of
/// `{"speaker": ..., "text": ...}` objects (other keys ignored; a number is
/// taken as its decimal text, an integer beyond 64 bits as its digits; a
/// `null` or absent text is empty).
///
/// `speaker` is the point-of-view id as a JSON value: a string or a number
/// (or an array holding exactly one of them).
///
/// ```
/// use serde_json::json;
/// use transcript_flip::{flip_json, FlipOptions, Message};
///
/// let transcript = r#"[{"speaker": "Ana", "text": "hi"}, {"speaker": 7, "text": null}]"#;
/// let messages = flip_json(transcript, &json!(7), &FlipOptions::new())?;
/// assert_eq!(messages, [Message::user("Ana: hi"), Message::assistant(""), Message::user("(continue)")]);
/// # Ok::<(), transcript_flip::Error>(())
/// ```
///
/// # Errors
///
/// In LLMR's order, the first failure wins: [`ErrorKind::InvalidJson`] (not
/// JSON, or a key repeated in one object), [`ErrorKind::NotATable`] (not an
/// array, or a row that is not an object), [`ErrorKind::MissingColumns`]
/// (rows but no `speaker` or no `text` key in any of them),
/// [`ErrorKind::InvalidSpeaker`], [`ErrorKind::MissingSpeakerInTranscript`]
/// (a row whose speaker is absent or `null`), [`ErrorKind::InvalidCell`] (a
/// cell that is a boolean, array or object); then, in [`Dialect::Standard`],
/// [`ErrorKind::AmbiguousSpeaker`] at the first row whose speaker only
/// looks like `speaker` (see [`crate::flip`]).
pub fn flip_json(
    transcript: &str,
    speaker: &Value,
    options: &FlipOptions,
) -> Result<Vec<Message>, Error> {
    let source = strip_bom(transcript);
    let bom = transcript.len() - source.len();
    let transcript = source;
    let flipped = || {
        let table = Table::parse(transcript)?;
        let speaker = speaker_id(speaker)?;
        let turns = table.turns()?;
        crate::flip(&turns, &speaker, options).map_err(|err| match (err.kind(), err.index()) {
            // The index of a speaker error is the turn's, which is the row's.
            (ErrorKind::AmbiguousSpeaker | ErrorKind::InvalidSpeaker, Some(index)) => {
                table.rows[index].0.locate(err, transcript)
            }
            _ => err,
        })
    };
    // LLMR's shape, at the edge.
    let flipped = flipped().map_err(|err| err.after_bom(bom))?;
    Ok(flipped.into_iter().map(Message::from).collect())
}

/// The turns of a transcript given as JSON text (see [`flip_json`]).
///
/// # Errors
///
/// As [`flip_json`], except [`ErrorKind::InvalidSpeaker`] and
/// [`ErrorKind::AmbiguousSpeaker`].
pub fn turns_from_json(transcript: &str) -> Result<Vec<Turn>, Error> {
    let source = strip_bom(transcript);
    let bom = transcript.len() - source.len();
    Table::parse(source).and_then(|table| table.turns()).map_err(|err| err.after_bom(bom))
}

/// [`crate::ensure_alternating_with`] over a message array given as JSON
/// text, returning the provider-safe array as compact JSON text.
///
/// Every field is kept as written except a merged text content: `role`
/// first, then `content`, then the other fields in input order, each value
/// with its text as written minus insignificant whitespace, so numbers
/// keep every digit (`12345678901234567890123`, `1.50`) and strings their
/// escapes. In [`Dialect::Standard`], two messages merge only when their other
/// fields are the same, written the same way.
///
/// ```
/// use transcript_flip::{alternate_json, Dialect};
///
/// let messages = r#"[{"role": "assistant", "content": "x", "seq": 18446744073709551616.0},
///                    {"role": "assistant", "content": "y", "seq": 18446744073709551616.0}]"#;
/// assert_eq!(
///     alternate_json(messages, Dialect::Standard)?,
///     r#"[{"role":"user","content":"(continue)"},{"role":"assistant","content":"x\ny","seq":18446744073709551616.0}]"#
/// );
/// # Ok::<(), transcript_flip::Error>(())
/// ```
///
/// # Errors
///
/// [`ErrorKind::InvalidJson`] (not JSON, or a key repeated in one object),
/// [`ErrorKind::NotAMessageList`] (not an array),
/// [`ErrorKind::InvalidMessage`] (an element that is not an object, or
/// whose `role` is not text), and the merge errors of
/// [`crate::ensure_alternating`], placed at the offending message.
pub fn alternate_json(messages: &str, mode: Dialect) -> Result<String, Error> {
    let source = strip_bom(messages);
    let bom = messages.len() - source.len();
    alternate_source(source, mode).map_err(|err| err.after_bom(bom))
}

/// [`alternate_json`] after the byte order mark.
fn alternate_source(source: &str, mode: Dialect) -> Result<String, Error> {
    let rows = array_rows(
        source,
        ErrorKind::NotAMessageList,
        "the input must be a JSON array of messages",
    )?;
    let mut parsed = Vec::with_capacity(rows.len());
    for (index, row) in rows.iter().enumerate() {
        let message =
            object(source, row, ErrorKind::InvalidMessage, "a message must be a JSON object")
                .and_then(|fields| {
                    RawMessage::from_fields(fields).map_err(|detail| {
                        row.locate(Error::new(ErrorKind::InvalidMessage, detail), source)
                    })
                })
                .map_err(|err| err.at_index(index))?;
        parsed.push(message);
    }
    let alternating =
        crate::alternate::normalize(parsed, mode, true).map_err(|err| match err.index() {
            Some(index) => rows[index].locate(err, source),
            None => err,
        })?;
    Ok(crate::raw::to_json(&alternating))
}

/// One element of a JSON array, and where it starts.
struct Row<'a> {
    raw: &'a RawValue,
    offset: usize,
}

impl Row<'_> {
    /// Places `error` at this row of `source`, the row's text as snippet.
    fn locate(&self, error: Error, source: &str) -> Error {
        error.at_span(source, self.offset, self.offset + self.raw.get().len())
    }
}

/// A transcript that passed the table checks (LLMR's steps 1 and 2).
struct Table<'a> {
    source: &'a str,
    rows: Vec<(Row<'a>, Fields<'a>)>,
}

impl<'a> Table<'a> {
    fn parse(source: &'a str) -> Result<Table<'a>, Error> {
        const NOT_A_TABLE: &str = "`transcript` must be a data.frame/tibble with `speaker` and `text` columns \
             (a JSON array of {\"speaker\", \"text\"} objects)";
        let rows = array_rows(source, ErrorKind::NotATable, NOT_A_TABLE)?;
        let mut table = Vec::with_capacity(rows.len());
        let (mut has_speaker, mut has_text) = (false, false);
        for (index, row) in rows.into_iter().enumerate() {
            let object = object(
                source,
                &row,
                ErrorKind::NotATable,
                "a transcript row must be a JSON object",
            )
            .map_err(|err| err.at_index(index))?;
            has_speaker |= object.get("speaker").is_some();
            has_text |= object.get("text").is_some();
            table.push((row, object));
        }
        if let Some((first, _)) = table.first()
            && (!has_speaker || !has_text)
        {
            let missing = if has_speaker { "`text`" } else { "`speaker`" };
            return Err(Error::new(
                ErrorKind::MissingColumns,
                format!(
                    "`transcript` must have columns `speaker` and `text` (no row has {missing})"
                ),
            )
            .at_span(source, first.offset, first.offset + first.raw.get().len()));
        }
        Ok(Table { source, rows: table })
    }

    /// LLMR's step 4 (every row has a speaker), and the cells as text.
    fn turns(&self) -> Result<Vec<Turn>, Error> {
        self.rows
            .iter()
            .enumerate()
            .map(|(index, (row, object))| {
                let at = |err: Error| row.locate(err.at_index(index), self.source);
                let cell = |column| object.get(column).map(|raw| cell_text(raw, column));
                let Some(speaker) = cell("speaker").transpose().map_err(at)?.flatten() else {
                    return Err(at(Error::new(
                        ErrorKind::MissingSpeakerInTranscript,
                        "`transcript$speaker` has missing values; every turn needs a speaker",
                    )));
                };
                let text = cell("text").transpose().map_err(at)?.flatten();
                Ok(Turn { speaker, text })
            })
            .collect()
    }
}

/// The elements of the JSON array `source` (without a byte order mark),
/// or `kind` when it is another value.
fn array_rows<'a>(source: &'a str, kind: ErrorKind, detail: &str) -> Result<Vec<Row<'a>>, Error> {
    // Any integer is allowed: cells become text and fields are copied as
    // written, so no number goes through a float.
    let document: &RawValue =
        Reader::new().any_integers().parse(source).map_err(|err| json_error(source, &err))?;
    let offset = offset_in(source, document.get());
    if !document.get().starts_with('[') {
        return Err(Error::new(kind, detail).at_offset(source, offset));
    }
    let raws: Vec<&RawValue> =
        serde_json::from_str(document.get()).map_err(|err| syntax_error(source, &err))?;
    Ok(raws.into_iter().map(|raw| Row { raw, offset: offset_in(source, raw.get()) }).collect())
}

/// The fields of the object `row`, or `kind` when it is another value.
fn object<'a>(
    source: &str,
    row: &Row<'a>,
    kind: ErrorKind,
    detail: &str,
) -> Result<Fields<'a>, Error> {
    if !row.raw.get().starts_with('{') {
        return Err(row.locate(Error::new(kind, detail), source));
    }
    // The document already parsed, so this cannot fail; if it did, the
    // position serde_json gives would be relative to the row.
    serde_json::from_str(row.raw.get()).map_err(|err| {
        row.locate(Error::new(ErrorKind::InvalidJson, format!("invalid JSON: {err}")), source)
    })
}

/// Where `part`, a slice of `source`, starts in it.
fn offset_in(source: &str, part: &str) -> usize {
    (part.as_ptr() as usize).saturating_sub(source.as_ptr() as usize).min(source.len())
}

/// A strict reader's error, at its place in `source`.
fn json_error(source: &str, err: &JsonError) -> Error {
    let error = Error::new(ErrorKind::InvalidJson, format!("invalid JSON: {}", err.message()));
    let span = err.span();
    if span.is_empty() {
        error.at_offset(source, span.start)
    } else {
        error.at_span(source, span.start, span.end)
    }
}

/// A serde_json error on text that is already known to be JSON (it cannot
/// happen; kept typed rather than a panic).
fn syntax_error(source: &str, err: &serde_json::Error) -> Error {
    Error::new(ErrorKind::InvalidJson, format!("invalid JSON: {err}")).at_offset(source, 0)
}

/// The point-of-view speaker: one string or number.
fn speaker_id(speaker: &Value) -> Result<String, Error> {
    let invalid = || {
        Error::new(
            ErrorKind::InvalidSpeaker,
            format!("`speaker` must be a single non-NA value (got {})", describe(speaker)),
        )
    };
    match speaker {
        Value::String(id) => Ok(id.clone()),
        Value::Number(n) => Ok(decimal_text(n)),
        Value::Array(values) if values.len() == 1 => match &values[0] {
            Value::String(id) => Ok(id.clone()),
            Value::Number(n) => Ok(decimal_text(n)),
            _ => Err(invalid()),
        },
        _ => Err(invalid()),
    }
}

/// A speaker or text cell as text; `None` for `null`.
fn cell_text(cell: &RawValue, column: &str) -> Result<Option<String>, Error> {
    let json = cell.get();
    let invalid = |what: &str| {
        Error::new(
            ErrorKind::InvalidCell,
            format!("a `{column}` cell must be text, a number or null (got {what})"),
        )
    };
    match json.as_bytes().first() {
        Some(b'"') => serde_json::from_str(json).map(Some).map_err(|_| invalid("text")),
        Some(b'n') => Ok(None),
        Some(b'-' | b'0'..=b'9') => Ok(Some(number_text(json))),
        Some(b't' | b'f') => Err(invalid("a boolean")),
        Some(b'[') => Err(invalid("an array")),
        _ => Err(invalid("an object")),
    }
}

fn describe(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "text",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A cell's number as text, `json` being a JSON number: its
/// [decimal text](decimal_text), or the digits of an integer beyond 64 bits
/// (which serde_json would round to a float).
fn number_text(json: &str) -> String {
    match serde_json::from_str::<Number>(json) {
        // serde_json reads `-0`, the one integer literal that fits, as -0.0.
        Ok(n) if n.is_f64() && !json.contains(['.', 'e', 'E']) && json != "-0" => json.to_owned(),
        Ok(n) => decimal_text(&n),
        Err(_) => json.to_owned(),
    }
}

/// A number's decimal text: integers without a fraction (`1`, `1000` for
/// `1e3`), others in Rust's shortest form (`1.5`).
fn decimal_text(n: &Number) -> String {
    if let Some(i) = n.as_i64() {
        return i.to_string();
    }
    if let Some(u) = n.as_u64() {
        return u.to_string();
    }
    match n.as_f64() {
        #[allow(clippy::cast_possible_truncation)]
        Some(f) if f.fract() == 0.0 && f.abs() < 1e15 => (f as i64).to_string(),
        Some(f) => f.to_string(),
        None => n.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn numbers_become_decimal_text() {
        let turns =
            turns_from_json(r#"[{"speaker": 1, "text": 1e3}, {"speaker": 2.5, "text": -0.25}]"#)
                .unwrap();
        assert_eq!(turns, [Turn::new("1", "1000"), Turn::new("2.5", "-0.25")]);
        assert_eq!(speaker_id(&json!(["x"])).unwrap(), "x");
    }

    #[test]
    fn errors_point_at_the_row() {
        let source = "[\n  {\"speaker\": \"a\", \"text\": \"x\"},\n  {\"speaker\": null, \"text\": \"y\"}\n]";
        let err = turns_from_json(source).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::MissingSpeakerInTranscript);
        assert_eq!((err.line(), err.column(), err.index()), (Some(3), Some(3), Some(1)));
        assert_eq!(err.snippet(), Some("{\"speaker\": null, \"text\": \"y\"}"));
        let err = turns_from_json("[{\"speaker\": true, \"text\": \"y\"}]").unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidCell);
        let err = turns_from_json("[{\"speaker\": \"a\",]").unwrap_err();
        assert_eq!(
            (err.kind(), err.line(), err.column()),
            (ErrorKind::InvalidJson, Some(1), Some(18))
        );
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let deep = format!(
            "[{{\"speaker\": \"a\", \"text\": {}1{}}}]",
            "[".repeat(100_000),
            "]".repeat(100_000)
        );
        assert_eq!(turns_from_json(&deep).unwrap_err().kind(), ErrorKind::InvalidJson);
        let deep = format!("[{}]", "{\"a\":".repeat(50_000));
        assert_eq!(
            alternate_json(&deep, Dialect::Standard).unwrap_err().kind(),
            ErrorKind::InvalidJson
        );
    }

    #[test]
    fn big_integers_keep_their_digits() {
        let turns = turns_from_json(
            r#"[{"speaker": 123456789012345678901234567890, "text": -98765432109876543210}]"#,
        )
        .unwrap();
        assert_eq!(turns, [Turn::new("123456789012345678901234567890", "-98765432109876543210")]);
        // Numbers that fit keep their former text.
        let turns = turns_from_json(r#"[{"speaker": -0, "text": 18446744073709551615}]"#).unwrap();
        assert_eq!(turns, [Turn::new("0", "18446744073709551615")]);
        let turns =
            turns_from_json(r#"[{"speaker": -18446744073709551615, "text": 1e3}]"#).unwrap();
        assert_eq!(turns, [Turn::new("-18446744073709551615", "1000")]);
        // Passed through as written, whatever a float would make of it.
        let json =
            r#"[{"role":"user","content":"a","meta":{"x":[1e400,0.30000000000000000000001]}}]"#;
        assert_eq!(alternate_json(json, Dialect::Standard).unwrap(), json);
        let json = r#"[{"role":"user","content":"a","meta":{"id":123456789012345678901234567890,"x":[-0,1.50,1E2]}}]"#;
        assert_eq!(alternate_json(json, Dialect::Standard).unwrap(), json);
    }

    #[test]
    fn numbers_that_round_alike_are_different_fields() {
        // Both ids are the same float, but not the same number.
        let json = r#"[{"role":"user","content":"a","id":12345678901234567890123},
                       {"role":"user","content":"b","id":12345678901234567890124}]"#;
        let err = alternate_json(json, Dialect::Standard).unwrap_err();
        assert_eq!((err.kind(), err.line()), (ErrorKind::ConflictingFields, Some(2)));
        assert!(err.message().contains("field `id` differs"), "{}", err.message());
        // Written alike (whitespace aside, in any key order), they merge.
        let json = r#"[{"role":"user","content":"a","id":{"n": 1},"k":2},
                       {"role":"user","k":2,"content":"b","id":{ "n":1 }}]"#;
        assert_eq!(
            alternate_json(json, Dialect::Standard).unwrap(),
            r#"[{"role":"user","content":"a\nb","id":{"n":1},"k":2}]"#
        );
    }

    #[test]
    fn duplicate_keys_are_errors_with_their_position() {
        let err =
            turns_from_json("[{\"speaker\": \"Ana\", \"text\": \"x\",\n  \"speaker\": \"Ben\"}]")
                .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidJson);
        assert_eq!(err.message(), "invalid JSON: duplicate key `speaker` in an object");
        assert_eq!(
            (err.line(), err.column(), err.snippet()),
            (Some(2), Some(3), Some("\"speaker\""))
        );
        let err =
            alternate_json(r#"[{"role":"user","role":"system","content":"x"}]"#, Dialect::Llmr)
                .unwrap_err();
        assert_eq!((err.kind(), err.column()), (ErrorKind::InvalidJson, Some(17)));
        assert!(err.message().contains("duplicate key `role`"), "{}", err.message());
        // However deep, and however the key is spelled.
        let err = alternate_json(
            r#"[{"role":"user","content":[{"type":"text","t\u0065xt":"a","text":"b"}]}]"#,
            Dialect::Standard,
        )
        .unwrap_err();
        assert!(err.message().contains("duplicate key `text`"), "{}", err.message());
    }

    #[test]
    fn a_byte_order_mark_is_ignored() {
        let turns = turns_from_json("\u{feff}[{\"speaker\": \"a\", \"text\": \"x\"}]").unwrap();
        assert_eq!(turns, [Turn::new("a", "x")]);
        let json =
            alternate_json("\u{feff}[{\"role\": \"user\", \"content\": \"x\"}]", Dialect::Llmr);
        assert_eq!(json.unwrap(), r#"[{"role":"user","content":"x"}]"#);
        // Positions are counted after it.
        let err = turns_from_json("\u{feff}[3]").unwrap_err();
        assert_eq!((err.kind(), err.column()), (ErrorKind::NotATable, Some(2)));
    }

    #[test]
    fn a_look_alike_speaker_is_placed_at_its_row() {
        let source = "[\n  {\"speaker\": \"Ben\", \"text\": \"mine\"},\n  {\"speaker\": \"Ben \", \"text\": \"obey\"}\n]";
        let err = flip_json(source, &json!("Ben"), &FlipOptions::new()).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::AmbiguousSpeaker);
        assert_eq!((err.line(), err.column(), err.index()), (Some(3), Some(3), Some(1)));
        assert!(err.message().contains(r#"the speaker "Ben " looks like"#), "{}", err.message());
        let llmr = FlipOptions::new().with_dialect(Dialect::Llmr);
        assert_eq!(flip_json(source, &json!("Ben"), &llmr).unwrap().len(), 3);
    }

    #[test]
    fn shape_errors() {
        assert_eq!(turns_from_json(" {\"a\": 1}").unwrap_err().kind(), ErrorKind::NotATable);
        assert_eq!(turns_from_json("[3]").unwrap_err().kind(), ErrorKind::NotATable);
        let err = turns_from_json("[{\"speaker\": \"a\"}]").unwrap_err();
        assert_eq!(err.kind(), ErrorKind::MissingColumns);
        assert!(err.message().contains("no row has `text`"));
        assert_eq!(turns_from_json("[]").unwrap(), []);
        let err = alternate_json(
            "[{\"role\": \"user\", \"content\": [1]}, {\"role\": \"user\", \"content\": \"x\"}]",
            Dialect::Llmr,
        )
        .unwrap_err();
        assert_eq!((err.kind(), err.column()), (ErrorKind::NonScalarMerge, Some(36)));
        assert_eq!(
            alternate_json("{}", Dialect::Llmr).unwrap_err().kind(),
            ErrorKind::NotAMessageList
        );
        assert_eq!(
            alternate_json("[\"hi\"]", Dialect::Llmr).unwrap_err().kind(),
            ErrorKind::InvalidMessage
        );
    }

    #[test]
    fn errors_are_diagnostics_placed_in_the_text_given() {
        use prompt_core::diagnostic::{Diagnostic, Report};

        for bom in ["", "\u{feff}"] {
            let text = format!(
                "{bom}[\n  {{\"speaker\": \"a\", \"text\": \"x\"}},\n  {{\"speaker\": null, \"text\": \"y\"}}\n]"
            );
            let err = turns_from_json(&text).unwrap_err();
            let report = Report::new(&err, Some(&text));
            assert_eq!(report.kind, err.kind().as_str());
            assert_eq!((report.line, report.column), (err.line(), err.column()));
            assert_eq!(report.snippet.as_deref(), err.snippet());
            let messages = format!("{bom}[{{\"role\": 1}}]");
            let err = alternate_json(&messages, Dialect::Standard).unwrap_err();
            let report = Report::new(&err, Some(&messages));
            assert_eq!((report.line, report.column), (err.line(), err.column()));
            assert_eq!(report.snippet.as_deref(), err.snippet());
            assert!(Diagnostic::span(&err).is_some());
        }
    }
}
