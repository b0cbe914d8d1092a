//! Renders a template file with the default limits (or with a memory limit
//! given as the second argument) the way the command line's
//! `render --json` does: `render` (complete stores), then the result
//! serialized (streamed into a byte counter). Prints the outcome, the time
//! and the process's peak resident memory (`VmHWM` from
//! `/proc/self/status`, Linux).
//!
//! `cargo run --release -p minijinja-brackets --example peak_memory -- template.txt`

use std::time::Instant;

use minijinja_brackets::{Context, Environment, Limits};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).ok_or("usage: peak_memory TEMPLATE_FILE [MEMORY_LIMIT]")?;
    let source = std::fs::read_to_string(path)?;
    let mut env = Environment::new();
    if let Some(limit) = std::env::args().nth(2) {
        env.set_limits(Limits::default().with_memory_limit(limit.parse()?));
    }
    let start = Instant::now();
    let result = env.compile(&source).and_then(|t| t.render(&Context::default(), 0));
    let summary = match &result {
        Ok(rendered) => {
            let mut counter = Counter(0);
            serde_json::to_writer(&mut counter, rendered)?;
            format!("ok: {} output bytes, {} bytes as JSON", rendered.output.len(), counter.0)
        }
        Err(err) => format!("error[{}]: {}", err.kind(), err.message()),
    };
    let elapsed = start.elapsed();
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let peak = status.lines().find(|l| l.starts_with("VmHWM")).unwrap_or("VmHWM: unknown");
    println!(
        "{summary}\n{:.2?}, {}",
        elapsed,
        peak.split_whitespace().skip(1).collect::<Vec<_>>().join(" ")
    );
    Ok(())
}

/// Counts the bytes written to it.
struct Counter(usize);

impl std::io::Write for Counter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
