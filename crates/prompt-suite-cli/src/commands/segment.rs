//! `prompt-suite segment`: a narrative (or a `.lmmlz` bundle) split into
//! role turns and rendered as chat messages.

use prompt_core::diagnostic::Report;
use prompt_suite::segment::{
    AttachmentLimits, Attachments, Bundle, Dialect, Narrative, RenderOptions, SegmentOptions, lmml,
    render, segment,
};

use crate::args::SegmentArgs;
use crate::diagnostic::Diagnostic;
use crate::input::Input;
use crate::output;

/// The first bytes of a zip archive.
const ZIP_MAGIC: &[u8] = b"PK\x03\x04";

/// Runs `segment`.
pub(crate) fn execute(args: SegmentArgs) -> Result<(), Diagnostic> {
    let input = Input::read(args.input.file.as_deref())?;
    let limits = AttachmentLimits::default();
    let named_bundle = input
        .path()
        .and_then(|path| path.extension())
        .is_some_and(|extension| extension.eq_ignore_ascii_case("lmmlz"));
    // The narrative as its own input, so that positions point into it.
    let (narrative, attachments) = if named_bundle || input.bytes().starts_with(ZIP_MAGIC) {
        let Some(path) = input.path() else {
            return Err(Diagnostic::new(
                "invalid_archive",
                "a .lmmlz bundle must be given as FILE: its narrative entry is named after the file",
            )
            .with_origin(input.origin()));
        };
        if args.embeds_dir.is_some() {
            return Err(Diagnostic::new(
                "conflicting_options",
                "--embeds-dir cannot be used with a .lmmlz bundle, which holds its own attachments",
            ));
        }
        let file_name = path.display().to_string();
        // Positions (invalid UTF-8, references) are in the narrative entry.
        let origin = format!("{}:{}", input.origin(), Bundle::narrative_entry_name(&file_name));
        // The archive is not text (even should its bytes happen to be
        // UTF-8), and a narrative entry that is not UTF-8 has no text to
        // place a span in: its one error with a place (an invalid byte)
        // keeps the position narrative-segment computed from the valid text
        // before the byte, shown in the entry.
        let bundle = Bundle::from_zip(&file_name, input.bytes(), &limits).map_err(|err| {
            let diagnostic = Diagnostic::from_report(Report::new(&err, None));
            match err.position() {
                Some(at) => diagnostic.at(at.line, at.column).with_origin(origin.clone()),
                None => diagnostic.with_origin(input.origin()),
            }
        })?;
        let (text, attachments) = bundle.into_parts();
        (Input::from_bytes(origin, text.into_bytes()), attachments)
    } else {
        let attachments = match &args.embeds_dir {
            Some(dir) => Attachments::directory(dir, limits).map_err(|err| input.report(&err))?,
            None => Attachments::none(),
        };
        (input, attachments)
    };
    let dialect = Dialect::from(args.dialect);
    let resolved = Narrative::parse(narrative.text()?, dialect)
        .resolve(&attachments)
        .map_err(|err| narrative.report(&err))?;
    let turns = segment(&resolved, &SegmentOptions { dialect });
    if args.turns {
        return output::write_json(&turns);
    }
    let options = RenderOptions::new()
        .with_max_embed_bytes(args.max_embed_bytes)
        .with_context_as(args.context_as.into());
    let rendered = render(&resolved, &turns, &options);
    // Nothing is left out silently; the exit code stays 0.
    narrative.warn_all(&rendered.warnings);
    // lmml's wire shape, at the edge (narrative-segment renders core
    // messages since issue 14).
    output::write_json(&lmml::messages(&rendered))
}
