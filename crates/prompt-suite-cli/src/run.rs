//! Parse, dispatch, report: the whole life of one `prompt-suite` process.

use std::ffi::OsString;
use std::io::IsTerminal as _;
use std::process::ExitCode;

use clap::Parser;

use crate::args::{Args, ErrorFormat};
use crate::commands;
use crate::diagnostic;
use crate::output;

/// Runs the command line given by `args` (the program name first) and returns
/// the exit code: `0` success, `1` the input was rejected, `2` usage error.
pub fn run<I, T>(args: I) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let args = match Args::try_parse_from(args).and_then(|args| args.check().map(|()| args)) {
        Ok(args) => args,
        Err(err) => {
            // clap prints help and version on stdout (exit 0) and usage
            // errors on stderr (exit 2); a failed print leaves nothing to do.
            let _ = print_clap(&err);
            return ExitCode::from(u8::try_from(err.exit_code()).unwrap_or(2));
        }
    };
    let mut args = args;
    // `batch --split` writes its own files, named after `-o`'s.
    if let crate::args::Command::Batch(batch) = &mut args.command
        && batch.split
    {
        batch.split_into = args.output.take();
    }
    let color =
        args.color.colors(std::io::stderr().is_terminal(), std::env::var_os("NO_COLOR").as_deref());
    let outcome = match &args.output {
        Some(path) => output::to_file(path).and_then(|()| commands::execute(args.command)),
        None => commands::execute(args.command),
    };
    // `-o FILE` is replaced only by a command that succeeded (`batch`
    // commits its records itself).
    let outcome = match outcome {
        Ok(()) => output::commit(),
        Err(err) => {
            output::discard();
            Err(err)
        }
    };
    let warnings = diagnostic::take_warnings();
    let show_warnings = outcome.is_ok() || args.error_format == ErrorFormat::Human;
    if show_warnings {
        let text: String = warnings.iter().map(|w| w.render(color)).collect();
        eprint!("{text}");
    }
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(diagnostic) => {
            let text = match args.error_format {
                ErrorFormat::Human => diagnostic.render(color),
                ErrorFormat::Json => diagnostic::render_json(&diagnostic),
            };
            eprint!("{text}");
            ExitCode::from(1)
        }
    }
}

/// Prints what clap has to say: help and version as clap draws them, on
/// standard output; a usage error on standard error, without colours and
/// with every control character escaped (`prompt_core::text::escape_controls`,
/// line by line): clap quotes the arguments as given, and an argument may
/// hold an escape sequence, a CR or a bidirectional override.
fn print_clap(err: &clap::Error) -> std::io::Result<()> {
    if !err.use_stderr() {
        return err.print();
    }
    let text = escape_lines(&err.render().to_string());
    std::io::Write::write_all(&mut std::io::stderr().lock(), text.as_bytes())
}

/// `text` with the control characters of each line escaped, its line
/// breaks kept.
fn escape_lines(text: &str) -> String {
    let lines: Vec<_> = text.split('\n').map(prompt_core::text::escape_controls).collect();
    lines.join("\n")
}
