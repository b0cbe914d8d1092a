//! `batch`: prompt-pipeline's `Batch` over a Python iterable of rows,
//! streamed back as an iterator of dicts.
//!
//! The batch runs on a thread of its own. Its reader takes the GIL to pull
//! the next row from the Python iterable and hands it on as a JSON line;
//! its writers send each finished line through a bounded channel, which
//! the iterator's `__next__` waits on without the GIL. So rows are built on
//! `jobs` threads while Python consumes the results, memory stays bounded
//! (the batch's own chunk limits, and the channel), and the output is
//! exactly what `prompt-suite batch` writes, line for line.

use std::io::{self, BufRead, Read, Write};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, sync_channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use prompt_suite::pipeline::{Batch, Compiled, Format, Summary};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;

use crate::convert;
use crate::error::Family;
use crate::pipeline::{pipeline_error, provider, source_arg};
use crate::template::seed_or_draw;

/// Lines waiting in the channel at most.
const CHANNEL_LINES: usize = 4096;

/// The format named `name`, as the command line spells it.
fn format(name: &str) -> PyResult<Format> {
    [Format::Bodies, Format::OpenAiBatch, Format::AnthropicBatch, Format::GeminiBatch]
        .into_iter()
        .find(|format| format.as_str() == name)
        .ok_or_else(|| {
            PyValueError::new_err(format!(
                "format must be \"bodies\", \"openai-batch\", \"anthropic-batch\" or \"gemini-batch\", not {name:?}"
            ))
        })
}

/// One line of output, or the end of the batch.
enum Message {
    Line(Vec<u8>),
    Done(io::Result<Summary>),
}

/// The rows, read from the Python iterable one at a time: each a JSON
/// line. A row that is not JSON-like stops the batch with its `TypeError`
/// (kept in `failure`), raised after the lines before it.
struct Rows {
    iterator: Py<PyAny>,
    index: usize,
    buffer: Vec<u8>,
    at: usize,
    failure: Arc<Mutex<Option<PyErr>>>,
    done: bool,
}

impl Rows {
    fn fill(&mut self) -> io::Result<()> {
        self.buffer.clear();
        self.at = 0;
        if self.done {
            return Ok(());
        }
        let next = Python::attach(|py| -> PyResult<Option<Vec<u8>>> {
            let iterator = self.iterator.bind(py);
            let Some(row) = iterator.try_iter()?.next() else { return Ok(None) };
            let row = row?;
            let name = format!("rows[{}]", self.index);
            let json = convert::to_json(&row, &name)?;
            let mut line = serde_json::to_vec(&json)
                .map_err(|err| PyValueError::new_err(format!("{name}: {err}")))?;
            line.push(b'\n');
            Ok(Some(line))
        });
        match next {
            Ok(Some(line)) => {
                self.index += 1;
                self.buffer = line;
                Ok(())
            }
            Ok(None) => {
                self.done = true;
                Ok(())
            }
            Err(err) => {
                self.done = true;
                if let Ok(mut failure) = self.failure.lock() {
                    *failure = Some(err);
                }
                Err(io::Error::other("the rows failed"))
            }
        }
    }
}

impl Read for Rows {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let available = self.fill_buf()?;
        let n = available.len().min(out.len());
        out[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for Rows {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.at >= self.buffer.len() {
            self.fill()?;
        }
        Ok(&self.buffer[self.at..])
    }

    fn consume(&mut self, amount: usize) {
        self.at = (self.at + amount).min(self.buffer.len());
    }
}

/// Sends each line written to it through the channel. Anthropic's batch
/// document (`{"requests":[`, then each request on a line of its own after
/// `\n` or `,\n`, then `\n]}\n`) is written a piece at a time: its
/// framing pieces are dropped and each request is sent as it is written,
/// so every format yields one item per request, in row order with the
/// error records.
struct Lines {
    sender: SyncSender<Message>,
    pending: Vec<u8>,
    document: bool,
}

impl Lines {
    fn send(&mut self, line: &[u8]) -> io::Result<()> {
        self.sender
            .send(Message::Line(line.to_vec()))
            .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "the iterator is gone"))
    }
}

impl Write for Lines {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        if self.document {
            let framing: [&[u8]; 4] = [br#"{"requests":["#, b"\n", b",\n", b"\n]}\n"];
            if !framing.contains(&bytes) {
                self.send(bytes)?;
            }
            return Ok(bytes.len());
        }
        self.pending.extend_from_slice(bytes);
        let mut start = 0;
        while let Some(end) = memchr_newline(&self.pending[start..]) {
            let line = self.pending[start..start + end].to_vec();
            self.send(&line)?;
            start += end + 1;
        }
        self.pending.drain(..start);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

fn memchr_newline(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|&b| b == b'\n')
}

/// The iterator `batch` returns: one dict per row, in row order.
#[pyclass(module = "prompt_suite", name = "BatchIterator", frozen)]
pub(crate) struct PyBatchIterator {
    receiver: Mutex<Option<Receiver<Message>>>,
    thread: Mutex<Option<JoinHandle<()>>>,
    failure: Arc<Mutex<Option<PyErr>>>,
}

#[pymethods]
impl PyBatchIterator {
    fn __iter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    fn __next__(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        let mut guard = self
            .receiver
            .lock()
            .map_err(|_| PyRuntimeError::new_err("the batch iterator's lock is poisoned"))?;
        let Some(receiver) = guard.as_mut() else { return Ok(None) };
        let message = loop {
            // Moved in as `&mut`, which is Send (a receiver is not Sync).
            let waiting: &mut Receiver<Message> = &mut *receiver;
            match py.detach(move || waiting.recv_timeout(Duration::from_millis(100))) {
                Ok(message) => break Some(message),
                Err(RecvTimeoutError::Timeout) => py.check_signals()?,
                Err(RecvTimeoutError::Disconnected) => break None,
            }
        };
        match message {
            Some(Message::Line(line)) => {
                let value: serde_json::Value = serde_json::from_slice(&line).map_err(|err| {
                    PyRuntimeError::new_err(format!(
                        "the batch wrote a line that is not JSON: {err}"
                    ))
                })?;
                Ok(Some(convert::to_python(py, &value)?.unbind()))
            }
            Some(Message::Done(result)) => {
                *guard = None;
                drop(guard);
                self.join(py);
                self.finish(py, result).map(|()| None)
            }
            None => {
                *guard = None;
                Err(PyRuntimeError::new_err("the batch stopped unexpectedly"))
            }
        }
    }
}

impl PyBatchIterator {
    fn join(&self, py: Python<'_>) {
        let handle = self.thread.lock().ok().and_then(|mut thread| thread.take());
        if let Some(handle) = handle {
            let _ = py.detach(|| handle.join());
        }
    }

    /// The end of the batch: the rows' failure raised, the row notices as
    /// warnings.
    fn finish(&self, py: Python<'_>, result: io::Result<Summary>) -> PyResult<()> {
        if let Some(err) = self.failure.lock().ok().and_then(|mut failure| failure.take()) {
            return Err(err);
        }
        match result {
            Ok(summary) => {
                let notices: Vec<_> = summary.notices.into_iter().map(|row| row.notice).collect();
                crate::pipeline::warn_notices(py, &notices)
            }
            Err(err) if err.kind() == io::ErrorKind::InvalidInput => {
                Err(PyValueError::new_err(err.to_string()))
            }
            Err(err) => Err(PyRuntimeError::new_err(format!("the batch failed: {err}"))),
        }
    }
}

impl Drop for PyBatchIterator {
    fn drop(&mut self) {
        // Dropping the receiver stops the batch at its next line; the
        // thread is joined without the GIL, which its reader may need.
        if let Ok(mut receiver) = self.receiver.lock() {
            receiver.take();
        }
        Python::attach(|py| self.join(py));
    }
}

/// Builds one request per row of `rows` (any iterable of dicts, each a row
/// as `prompt-suite batch` takes it) on `jobs` threads, and yields one dict
/// per row in row order: the body (or the provider batch line with
/// `format`), or the error record `{"row": i, "error": {...}}`. Row `i`
/// uses seed `seed + i`; its id is `row-<i>` unless `id_field` names a key
/// of the rows.
#[pyfunction]
#[pyo3(signature = (prompt, rows, provider="openai", format="bodies", id_field=None, params=None, seed=None, jobs=None))]
#[allow(clippy::too_many_arguments, reason = "Python keyword arguments")]
pub(crate) fn batch(
    py: Python<'_>,
    prompt: &Bound<'_, PyAny>,
    rows: &Bound<'_, PyAny>,
    provider: &str,
    format: &str,
    id_field: Option<String>,
    params: Option<&Bound<'_, PyAny>>,
    seed: Option<u64>,
    jobs: Option<usize>,
) -> PyResult<PyBatchIterator> {
    let format = self::format(format)?;
    let mut builder = prompt_suite::pipeline::Pipeline::builder(self::provider(provider)?);
    if let Some(params) = params.filter(|p| !p.is_none()) {
        builder = builder.params(crate::pipeline::param_pairs(params)?);
    }
    let pipeline = builder.build();
    let source = source_arg(prompt)?;
    let compiled: Compiled = py
        .detach(|| pipeline.prepare(source).and_then(|prompt| prompt.compile()))
        .map_err(|err| pipeline_error(&err, Family::Pipeline))?;
    crate::pipeline::warn_notices(py, compiled.prompt().notices())?;
    let seed = seed_or_draw(seed);
    let jobs =
        jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from)).max(1);
    let iterator = rows.try_iter()?.into_any().unbind();
    let failure = Arc::new(Mutex::new(None));
    let (sender, receiver) = sync_channel(CHANNEL_LINES);
    let mut rows = Rows {
        iterator,
        index: 0,
        buffer: Vec::new(),
        at: 0,
        failure: Arc::clone(&failure),
        done: false,
    };
    let document = format == Format::AnthropicBatch;
    let thread = std::thread::Builder::new()
        .name("prompt-suite batch".to_owned())
        .spawn(move || {
            let mut out = Lines { sender: sender.clone(), pending: Vec::new(), document };
            let mut errors = Lines { sender: sender.clone(), pending: Vec::new(), document: false };
            let batch =
                Batch::new(&compiled, seed, jobs).format(format).id_field(id_field.as_deref());
            let result = batch.run(&mut rows, &mut out, &mut errors, |_| {});
            // The rows iterator is Python's: release it with the GIL.
            Python::attach(|_| drop(rows));
            let _ = sender.send(Message::Done(result));
        })
        .map_err(|err| PyRuntimeError::new_err(format!("cannot start the batch: {err}")))?;
    Ok(PyBatchIterator {
        receiver: Mutex::new(Some(receiver)),
        thread: Mutex::new(Some(thread)),
        failure,
    })
}
