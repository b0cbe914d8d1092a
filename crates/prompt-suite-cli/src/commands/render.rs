//! `prompt-suite render`: renders a bracket template (`minijinja-brackets`).

use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};
use std::io::Write as _;
use std::path::PathBuf;

use prompt_suite::brackets::{Context, Environment, Error as TemplateError, Template};
use prompt_suite::pipeline::Templates;

use prompt_core::text::Deletions;
use prompt_suite::comments::Dialect;

use crate::args::RenderArgs;
use crate::context::{define, read_context, read_source, run_files, seed, templates};
use crate::diagnostic::Diagnostic;
use crate::history::Opened;
use crate::input::Input;
use crate::output;

/// Runs `render`.
pub(crate) fn execute(args: RenderArgs) -> Result<(), Diagnostic> {
    let input = read_source(&args.input)?;
    input.text()?;
    let mut context = read_context(args.input.context.as_deref())?;
    let mut env = Environment::new();
    env.set_strict(args.template.strict);
    env.set_trim_blocks(args.trim_blocks);
    env.set_lstrip_blocks(args.lstrip_blocks);
    let from = args.input.from();
    let history = args.history.history.as_deref();
    let lock = history.map(|path| crate::history::beside(path, ".lock"));
    let run = run_files(&[
        ("the context", args.input.context.as_deref()),
        ("the history", history),
        ("the history's lock", lock.as_deref()),
    ]);
    let templates = templates(args.templates.templates.as_deref(), &input, from, &mut env, run)?;
    // `--prompt`: the comment stage first, as `build` runs it; positions
    // are mapped back through what it deleted.
    let stripped = match args.prompt {
        true => {
            let processed = Dialect::Standard.process(input.text()?);
            Some((processed.cleaned.into_owned(), processed.deletions))
        }
        false => None,
    };
    let (stripped, deletions) = match stripped {
        Some((text, deletions)) => (Some(text), Some(deletions)),
        None => (None, None),
    };
    let input = &Sources { input, templates, deletions };
    let source = match &stripped {
        Some(text) => text.as_str(),
        None => input.text()?,
    };
    let template = env.compile(source).map_err(|err| input.report(&err))?;
    // What is printed counts against the output limit, whatever its form.
    let limit = env.limits().output_limit();

    let mut history = Opened::open(&args.history, &mut context)?;
    // The command line's own values win over every file's.
    define(&mut context, &args.input.defines);

    if args.exact {
        let exact =
            template.distribution(&context, args.max_paths).map_err(|err| input.report(&err))?;
        return output::write_json_within(&exact, limit, "`render --exact`");
    }

    if let Some(samples) = args.samples {
        let start = args.template.seed.unwrap_or(0);
        let printed = sample(&template, &context, start, samples, limit, input)?;
        return output::write_bytes(&printed);
    }

    let seed = seed(args.template.seed)?;
    let outcome = template.render_outcome(&context, seed).map_err(|err| input.report(&err))?;
    // Each bare `[[name]]` tag that printed an undefined name, once per name
    // (printing nothing for `[[ name ]]` is often meant in a lone template).
    let bare = outcome.undefined.iter().filter(|tag| tag.is_bare());
    let bare: Vec<Mapped<'_, _>> = bare.map(|tag| input.mapped(tag)).collect();
    input.warn_all(&bare);
    if let Some(history) = &mut history {
        history.record(&outcome.writes)?;
    }
    // Encoded before saving: a render whose output is refused is not
    // recorded either.
    let printed = if args.json {
        let rendered = outcome.into_rendered(&context);
        output::json_within(&rendered, limit, "`render --json`")?
    } else {
        outcome.output.into_bytes()
    };
    if let Some(history) = history {
        history.save()?;
    }
    output::write_bytes(&printed)
}

/// The main template's input and the templates it loaded: where a
/// template error is drawn.
struct Sources {
    input: Input,
    templates: Option<(Templates, PathBuf)>,
    /// With `--prompt`, what the comment stage deleted from the input.
    deletions: Option<Deletions>,
}

impl Sources {
    /// The diagnostic of a template error: placed in the main template, or
    /// in the loaded template it is in (named by its path).
    fn report(&self, err: &TemplateError) -> Diagnostic {
        use prompt_core::diagnostic::{Diagnostic as _, Origin};
        if let (Origin::Named(name), Some((templates, dir))) = (err.origin(), &self.templates)
            && let Some(text) = templates.source(&name)
        {
            return Diagnostic::of(err, Some(&text))
                .with_origin(dir.join(&name).display().to_string());
        }
        self.input.report(&self.mapped(err))
    }

    /// `diagnostic` with its span in the input as written (through what
    /// the comment stage deleted, with `--prompt`).
    fn mapped<'d, D: prompt_core::diagnostic::Diagnostic + ?Sized>(
        &'d self,
        diagnostic: &'d D,
    ) -> Mapped<'d, D> {
        Mapped { diagnostic, deletions: self.deletions.as_ref() }
    }
}

/// A diagnostic of the stripped text, placed in the input as written.
struct Mapped<'d, D: ?Sized> {
    diagnostic: &'d D,
    deletions: Option<&'d Deletions>,
}

impl<D: std::fmt::Display + ?Sized> std::fmt::Display for Mapped<'_, D> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.diagnostic.fmt(f)
    }
}

impl<D: prompt_core::diagnostic::Diagnostic + ?Sized> prompt_core::diagnostic::Diagnostic
    for Mapped<'_, D>
{
    fn kind(&self) -> &'static str {
        self.diagnostic.kind()
    }

    fn span(&self) -> Option<prompt_core::text::Span> {
        let span = self.diagnostic.span()?;
        let Some(deletions) = self.deletions else { return Some(span) };
        let start = deletions.to_input(span.start);
        let end = deletions.to_input(span.end).max(start);
        Some(prompt_core::text::Span::new(start, end))
    }

    fn origin(&self) -> prompt_core::diagnostic::Origin {
        self.diagnostic.origin()
    }

    fn help(&self) -> Option<String> {
        self.diagnostic.help()
    }
}

impl std::ops::Deref for Sources {
    type Target = Input;

    fn deref(&self) -> &Input {
        &self.input
    }
}

/// `--samples`: renders `samples` times from seed `start` and returns the
/// printed document, `{"samples": N, "outputs": {"<output>": count, ...}}`,
/// most frequent first; outputs seen equally often keep the order in which
/// they first appeared.
///
/// Only a fingerprint, a count, the first seed and the printed size of each
/// distinct output are kept; the outputs are rendered again, one at a time,
/// to print them. The document must fit the output limit: as soon as the
/// distinct outputs alone are longer, sampling stops with `output_limit`.
/// A render error is the template's, about `input`.
fn sample(
    template: &Template,
    context: &Context,
    start: u64,
    samples: u64,
    limit: usize,
    input: &Sources,
) -> Result<Vec<u8>, Diagnostic> {
    const WHAT: &str = "`render --samples`";
    struct Seen {
        count: u64,
        seed: u64,
        fingerprint: u128,
    }
    let fingerprints = Fingerprints::new();
    let render = |seed: u64| match template.render_outcome(context, seed) {
        Ok(outcome) => Ok(outcome.output),
        Err(err) => Err(input.report(&err)),
    };
    let head = format!("{{\"samples\":{samples},\"outputs\":{{");
    // The document's size if every count had one digit: a lower bound.
    let mut least = head.len() + "}}\n".len();
    let mut index: HashMap<u128, usize> = HashMap::new();
    let mut seen: Vec<Seen> = Vec::new();
    for i in 0..samples {
        let seed = start.wrapping_add(i);
        let output = render(seed)?;
        let fingerprint = fingerprints.of(&output);
        if let Some(&at) = index.get(&fingerprint) {
            seen[at].count += 1;
            continue;
        }
        // `"<output>":1` and a comma between entries.
        least += json_len(&output) + 2 + usize::from(!seen.is_empty());
        if least > limit {
            return Err(output::over_limit(WHAT, limit));
        }
        index.insert(fingerprint, seen.len());
        seen.push(Seen { count: 1, seed, fingerprint });
    }
    drop(index);
    // Stable: equal counts stay in first-seen order.
    seen.sort_by_key(|s| std::cmp::Reverse(s.count));
    let mut out = output::Limited::new(limit);
    let _ = out.write_all(head.as_bytes());
    for (n, s) in seen.iter().enumerate() {
        let output = render(s.seed)?;
        if fingerprints.of(&output) != s.fingerprint {
            let message = format!("seed {} rendered another output the second time", s.seed);
            return Err(Diagnostic::new("internal", message));
        }
        let separator = if n == 0 { "" } else { "," };
        let _ = write!(out, "{separator}");
        let _ = serde_json::to_writer(&mut out, &output);
        let _ = write!(out, ":{}", s.count);
    }
    let _ = out.write_all(b"}}\n");
    if out.is_over() {
        return Err(output::over_limit(WHAT, limit));
    }
    Ok(out.into_bytes())
}

/// 128-bit fingerprints of outputs: two SipHash-1-3 hashes with independent
/// random keys, so that two different outputs share one with a chance of
/// about 2^-128 (they would be counted as one).
struct Fingerprints([RandomState; 2]);

impl Fingerprints {
    fn new() -> Fingerprints {
        Fingerprints([RandomState::new(), RandomState::new()])
    }

    fn of(&self, text: &str) -> u128 {
        let [high, low] = &self.0;
        u128::from(high.hash_one(text)) << 64 | u128::from(low.hash_one(text))
    }
}

/// How many bytes `text` takes as a JSON string, quotes included.
fn json_len(text: &str) -> usize {
    output::json_len_within(text, usize::MAX).unwrap_or(usize::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprints_tell_outputs_apart() {
        let fingerprints = Fingerprints::new();
        assert_eq!(fingerprints.of("a"), fingerprints.of("a"));
        assert_ne!(fingerprints.of("a"), fingerprints.of("b"));
        assert_ne!(fingerprints.of(""), fingerprints.of("\0"));
        assert_eq!(json_len("a\"\u{1}é"), 2 + 1 + 2 + 6 + 2);
    }
}
