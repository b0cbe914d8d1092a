//! The Python package `prompt_suite`: a translation layer over the
//! prompt-suite facade (Python values in, Rust types out, and back). No
//! behaviour lives here: every rule is the Rust crates'.
//!
//! Built by maturin into the `prompt-suite` abi3 wheel as the private module
//! `prompt_suite._lowlevel`; `python/prompt_suite/` gives the public names,
//! the exception classes and the type stubs (minijinja-py's layout).

mod batch;
mod chat;
mod convert;
mod error;
mod pipeline;
mod stages;
mod template;

use pyo3::prelude::*;

/// The compiled core of `prompt_suite` (use the package's public names).
#[pymodule]
mod _lowlevel {
    use pyo3::prelude::*;

    #[pymodule_export]
    use crate::template::{PyEnvironment, PyOutcome, PyStateHistory, PyTemplate, render};

    #[pymodule_export]
    use crate::chat::{
        PyChatOutcome, PyChatTemplate, apply_chat_template, apply_chat_template_outcome,
    };

    #[pymodule_export]
    use crate::pipeline::{PyCompiledPrompt, PyPipeline, PyPrompt, batch, convert_body};

    #[pymodule_export]
    use crate::batch::{PyBatchIterator, batch_file_limits};

    #[pymodule_export]
    use crate::stages::{comments_process, comments_strip_messages, flip, segment_text};

    #[pymodule_init]
    fn init(m: &Bound<'_, PyModule>) -> PyResult<()> {
        m.add("__version__", env!("CARGO_PKG_VERSION"))
    }
}
