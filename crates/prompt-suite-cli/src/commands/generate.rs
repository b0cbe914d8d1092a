//! `prompt-suite completions SHELL` and `prompt-suite man`: what the shell
//! and `man` need, generated from the clap definition of [`crate::args`]
//! (`clap_complete`, `clap_mangen`), so they never fall behind a flag.

use clap::CommandFactory;

use crate::args::{Args, CompletionsArgs, ManArgs};
use crate::diagnostic::Diagnostic;
use crate::output;

/// The binary's name, as the shell and `man` know it.
const NAME: &str = "prompt-suite";

/// Runs `completions`: the script of `args.shell`.
pub(crate) fn completions(args: &CompletionsArgs) -> Result<(), Diagnostic> {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut Args::command(), NAME, &mut script);
    if args.shell == clap_complete::Shell::Bash {
        script = bash_fixed(&script);
    }
    output::write_bytes(&script)
}

/// clap_complete 4.6's bash script spells the states of a hyphenated
/// binary's subcommands two ways (clap-rs/clap#6421, open): the loop that
/// reads the words arrives at `prompt__suite__subcmd__render`, the arms are
/// labelled `prompt__subcmd__suite__subcmd__render`, so no subcommand's
/// flags would complete. The arms are relabelled the loop's way; once clap
/// is fixed the wrong spelling is gone and this changes nothing.
fn bash_fixed(script: &[u8]) -> Vec<u8> {
    String::from_utf8_lossy(script).replace("prompt__subcmd__suite", "prompt__suite").into_bytes()
}

/// Runs `man`: the page of the whole command line, or of one subcommand
/// (named `prompt-suite-NAME`, as git names its pages); with `--dir`, every
/// page written into that directory.
pub(crate) fn man(args: &ManArgs) -> Result<(), Diagnostic> {
    let mut command = Args::command();
    // Building names each subcommand's page `prompt-suite-NAME`, its usage
    // `prompt-suite NAME`, and gives it the version the footer shows.
    command.build();
    if let Some(dir) = &args.dir {
        let pages = std::iter::once((NAME.to_owned(), command.clone())).chain(
            command
                .get_subcommands()
                // clap's own `help` is no page (clap_mangen leaves it out too).
                .filter(|sub| sub.get_name() != "help")
                .map(|sub| (format!("{NAME}-{}", sub.get_name()), sub.clone())),
        );
        for (name, page) in pages {
            let roff = page_of(page)?;
            let path = dir.join(format!("{name}.1"));
            let written = output::AtomicFile::create(&path).and_then(|mut file| {
                std::io::Write::write_all(&mut file, &roff)?;
                file.commit()
            });
            written.map_err(|err| {
                Diagnostic::new("io_error", format!("cannot write {}: {err}", path.display()))
            })?;
        }
        return Ok(());
    }
    let page = match &args.subcommand {
        None => command,
        // `Args::check` has refused a name that is not a subcommand.
        Some(name) => command.find_subcommand(name).cloned().unwrap_or_default(),
    };
    output::write_bytes(&page_of(page)?)
}

/// The roff of `page`: clap_mangen's sections, then EXIT STATUS,
/// ENVIRONMENT and EXAMPLES (before VERSION).
fn page_of(page: clap::Command) -> Result<Vec<u8>, Diagnostic> {
    let examples: Vec<String> = match examples(page.get_name()) {
        [] => vec![format!("{NAME} {} --help", page.get_name())],
        some => some.iter().map(|example| (*example).to_owned()).collect(),
    };
    let mut roff = Vec::new();
    clap_mangen::Man::new(page).render(&mut roff).map_err(|err| {
        Diagnostic::new("internal", format!("cannot render the manual page: {err}"))
    })?;
    let mut extra = String::from(
        ".SH \"EXIT STATUS\"\n\
         .TP\n0\nSuccess (also when standard output is a pipe closed early, as by \\fBhead\\fR).\n\
         .TP\n1\nThe input was rejected: \\fBerror[\\fIkind\\fB]\\fR on standard error, or with \
         \\fB\\-\\-error\\-format json\\fR one JSON object \
         {\"error\": {\"kind\", \"message\", \"line\", \"column\", \"snippet\"}}.\n\
         .TP\n2\nUsage error: an unknown flag, a missing or conflicting one.\n\
         .SH ENVIRONMENT\n\
         .TP\nNO_COLOR\nSet and not empty: no colours in errors and warnings with \
         \\fB\\-\\-color auto\\fR (the default).\n\
         .TP\nCOLUMNS\nThe width help text is wrapped to.\n",
    );
    extra.push_str(".SH EXAMPLES\n");
    for example in &examples {
        let escaped = example.replace('\\', "\\\\").replace('-', "\\-");
        extra.push_str(&format!(".PP\n.nf\n{escaped}\n.fi\n"));
    }
    let text = String::from_utf8_lossy(&roff).into_owned();
    let text = match text.find("\n.SH VERSION") {
        Some(at) => format!("{}\n{}{}", &text[..at], extra, &text[at + 1..]),
        None => format!("{text}{extra}"),
    };
    Ok(text.into_bytes())
}

/// A few command lines of the page of `command` (the binary, or one
/// subcommand), each with what it does.
fn examples(command: &str) -> &'static [&'static str] {
    match command {
        NAME => &[
            "prompt-suite build prompt.txt --context context.json --provider anthropic",
            "prompt-suite render -t 'Hello [[ name ]]' -D name=Ann",
            "prompt-suite man --dir ~/.local/share/man/man1",
        ],
        "render" => &[
            "prompt-suite render -t 'Hello [[ name ]]' -D name=Ann",
            "prompt-suite render preset.txt --context state.toml --seed 7 --json",
            "prompt-suite render preset.txt --prompt --history chat.json --commit",
        ],
        "build" => &[
            "prompt-suite build prompt.txt --context context.json --provider anthropic",
            "prompt-suite build preset.txt --history chat.json --commit --full",
            "prompt-suite build prompt.txt --transcript debate.json --speaker Ben --instruction 'Your turn, Ben.'",
        ],
        "batch" => &[
            "prompt-suite batch prompt.txt --rows rows.jsonl --format openai-batch -o batch.jsonl",
            "prompt-suite batch prompt.txt --rows - --provider gemini < rows.jsonl",
        ],
        "check" => &[
            "prompt-suite check prompt.txt --deny-warnings",
            "prompt-suite check prompt.txt --json",
        ],
        "convert" => {
            &["prompt-suite convert body.json --provider anthropic --param max_tokens=1024"]
        }
        "flip" => &[
            "prompt-suite flip transcript.json --speaker Ben --system 'You are Ben.' --instruction 'Your turn, Ben.'",
        ],
        "alternate" => &["prompt-suite alternate messages.json"],
        "segment" => {
            &["prompt-suite segment story.lmml --turns", "prompt-suite segment bundle.lmmlz"]
        }
        "comments" => &["prompt-suite comments prompt.txt --json"],
        "state" => &[
            "prompt-suite state list --history chat.json",
            "prompt-suite state truncate 3 --history chat.json",
        ],
        "completions" => &[
            "prompt-suite completions bash > ~/.local/share/bash-completion/completions/prompt-suite",
        ],
        "man" => &[
            "prompt-suite man render | man -l -",
            "prompt-suite man --dir ~/.local/share/man/man1",
        ],
        _ => &[],
    }
}
