//! The `prompt-suite` binary. All the work is in the library half of this
//! crate; `main` only maps its outcome to the process exit code.

fn main() -> std::process::ExitCode {
    prompt_suite_cli::run(std::env::args_os())
}
