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

use std::io::{self, BufRead, Read};
use std::sync::mpsc::{Receiver, RecvTimeoutError, sync_channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use prompt_suite::pipeline::{Batch, Compiled, Format, RowLine, Summary};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyString;

use crate::convert;
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

/// One row's line (its row, JSON text and whether it is an error
/// record, as prompt-pipeline's `RowLine`), or the end of the batch.
enum Message {
    Line { row: usize, text: Vec<u8>, error: bool },
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
            // A str row is one JSON line, read as the command line reads it.
            if let Ok(text) = row.cast::<PyString>() {
                let text = text.to_cow()?;
                if text.contains(['\n', '\r']) {
                    return Err(PyValueError::new_err(format!(
                        "{name} is a str with a line break: a str row is one line of JSON"
                    )));
                }
                return Ok(Some(format!("{text}\n").into_bytes()));
            }
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

/// The iterator `batch` returns: one dict per row, in row order (with
/// `text=True`, each line's JSON text as the command line writes it; with
/// `tagged=True`, a tuple `(row, line, error)`: the row's number, its
/// line, and whether the line is its error record).
#[pyclass(module = "prompt_suite", name = "BatchIterator", frozen)]
pub(crate) struct PyBatchIterator {
    text: bool,
    tagged: bool,
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
            Some(Message::Line { row, text, error }) => {
                let line = self.line(py, text)?;
                if self.tagged {
                    let tagged = (row, line, error).into_pyobject(py)?;
                    return Ok(Some(tagged.into_any().unbind()));
                }
                Ok(Some(line.unbind()))
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
    /// A line as the iterator yields it: its JSON text (`text=True`) or
    /// its value as native objects.
    fn line<'py>(&self, py: Python<'py>, line: Vec<u8>) -> PyResult<Bound<'py, PyAny>> {
        if self.text {
            let line = String::from_utf8(line).map_err(|err| {
                PyRuntimeError::new_err(format!("the batch wrote a line that is not UTF-8: {err}"))
            })?;
            return Ok(PyString::new(py, &line).into_any());
        }
        let value: serde_json::Value = serde_json::from_slice(&line).map_err(|err| {
            PyRuntimeError::new_err(format!("the batch wrote a line that is not JSON: {err}"))
        })?;
        convert::to_python(py, &value)
    }

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
                crate::error::warn_notices(py, &notices)
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

/// What a batch is run with besides its prompt and rows.
pub(crate) struct Settings {
    pub(crate) format: Format,
    pub(crate) id_field: Option<String>,
    pub(crate) seed: Option<u64>,
    pub(crate) jobs: Option<usize>,
    pub(crate) first_row: usize,
    pub(crate) text: bool,
    pub(crate) tagged: bool,
}

impl Settings {
    pub(crate) fn new(
        format: &str,
        id_field: Option<String>,
        seed: Option<u64>,
        jobs: Option<usize>,
        first_row: usize,
        text: bool,
        tagged: bool,
    ) -> PyResult<Settings> {
        let format = self::format(format)?;
        Ok(Settings { format, id_field, seed, jobs, first_row, text, tagged })
    }
}

/// Starts the batch of `compiled` over `rows` on a thread of its own.
pub(crate) fn start(
    compiled: Compiled,
    rows: &Bound<'_, PyAny>,
    settings: Settings,
) -> PyResult<PyBatchIterator> {
    let Settings { format, id_field, seed, jobs, first_row, text, tagged } = settings;
    let seed = seed_or_draw(seed)?;
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
    let thread = std::thread::Builder::new()
        .name("prompt-suite batch".to_owned())
        .spawn(move || {
            let batch = Batch::new(&compiled, seed, jobs)
                .format(format)
                .id_field(id_field.as_deref())
                .first_row(first_row);
            let send = |line: RowLine<'_>| {
                let message =
                    Message::Line { row: line.row, text: line.text.to_vec(), error: line.error };
                sender
                    .send(message)
                    .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "the iterator is gone"))
            };
            let result = batch.run_lines(&mut rows, send, |_| {});
            // The rows iterator is Python's: release it with the GIL.
            Python::attach(|_| drop(rows));
            let _ = sender.send(Message::Done(result));
        })
        .map_err(|err| PyRuntimeError::new_err(format!("cannot start the batch: {err}")))?;
    Ok(PyBatchIterator {
        text,
        tagged,
        receiver: Mutex::new(Some(receiver)),
        thread: Mutex::new(Some(thread)),
        failure,
    })
}

/// The most requests and bytes one provider batch file of `format` may
/// hold (`None`: no documented limit).
#[pyfunction]
pub(crate) fn batch_file_limits(format: &str) -> PyResult<(Option<usize>, Option<u64>)> {
    let format = self::format(format)?;
    Ok((format.max_requests(), format.max_bytes()))
}
