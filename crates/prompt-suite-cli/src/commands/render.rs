//! `prompt-suite render`: renders a bracket template (`minijinja-brackets`).

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::PathBuf;

use prompt_suite::brackets::{Context, Environment, Error};

use crate::args::InputArg;
use crate::diagnostic::{Diagnostic, Reportable};
use crate::input::Input;
use crate::output;

/// Arguments of `render`.
#[derive(Debug, clap::Args)]
pub(crate) struct RenderArgs {
    #[command(flatten)]
    pub(crate) input: InputArg,

    /// A JSON file with the stores: `{"state": {...}, "local": {...}, "global": {...}}`,
    /// each key optional.
    #[arg(long, value_name = "JSON_FILE")]
    pub(crate) context: Option<PathBuf>,

    /// The random seed for `chance`/`weighted` blocks; random when absent (0 with --samples).
    #[arg(long, value_name = "N")]
    pub(crate) seed: Option<u64>,

    /// Print the output, the stores after rendering, the writes and the effects as JSON.
    #[arg(long, conflicts_with = "samples")]
    pub(crate) json: bool,

    /// Render N times with seeds S..S+N-1 and print how often each output occurs.
    #[arg(long, value_name = "N")]
    pub(crate) samples: Option<u64>,

    /// Printing or iterating an undefined value is an error.
    #[arg(long)]
    pub(crate) strict: bool,
}

impl Reportable for Error {
    fn kind_name(&self) -> Cow<'static, str> {
        Cow::Borrowed(self.kind().as_str())
    }

    fn message(&self) -> String {
        Error::message(self).to_owned()
    }

    fn position(&self) -> Option<(usize, usize)> {
        Some((self.line()?, self.column()?))
    }

    fn snippet(&self) -> Option<String> {
        Error::snippet(self).map(str::to_owned)
    }
}

/// Runs `render`.
pub(crate) fn execute(args: RenderArgs) -> Result<(), Diagnostic> {
    let input = Input::read(args.input.file.as_deref())?;
    let source = input.text()?;
    let context: Context = match &args.context {
        Some(path) => Input::read(Some(path))?.json()?,
        None => Context::default(),
    };
    let mut env = Environment::new();
    env.set_strict(args.strict);
    let template = env.compile(source).map_err(|err| input.reject(&err))?;

    if let Some(samples) = args.samples {
        let start = args.seed.unwrap_or(0);
        // Counts in first-seen order, then sorted by count (stable, so ties
        // keep the order they first appeared in).
        let mut index: HashMap<String, usize> = HashMap::new();
        let mut counts: Vec<(String, u64)> = Vec::new();
        for i in 0..samples {
            let output = template
                .render(&context, start.wrapping_add(i))
                .map_err(|err| input.reject(&err))?
                .output;
            match index.get(&output) {
                Some(&at) => counts[at].1 += 1,
                None => {
                    index.insert(output.clone(), counts.len());
                    counts.push((output, 1));
                }
            }
        }
        counts.sort_by_key(|&(_, count)| std::cmp::Reverse(count));
        let outputs: serde_json::Map<String, serde_json::Value> =
            counts.into_iter().map(|(output, count)| (output, count.into())).collect();
        return output::write_json(&serde_json::json!({"samples": samples, "outputs": outputs}));
    }

    let seed = args.seed.unwrap_or_else(random_seed);
    let rendered = template.render(&context, seed).map_err(|err| input.reject(&err))?;
    if args.json {
        output::write_json(&rendered)
    } else {
        output::write_bytes(rendered.output.as_bytes())
    }
}

/// A seed that differs between runs: the process's random hasher keys
/// mixed with the clock.
fn random_seed() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
    hasher.write_u128(now.map_or(0, |d| d.as_nanos()));
    hasher.finish()
}
