//! The environment's template store: templates added by name, a loader
//! asked for the others at first use, the name rule that keeps every name
//! under the loader's root, and the cap on the bytes stored.
//!
//! The crate does no I/O: a loader is the host's function from a name to a
//! source (the command line's reads files under a directory). What it
//! returns is compiled once and kept; every clone of the environment and
//! every template compiled from it share the store (a batch shares one).

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError, RwLock};

use prompt_core::annotated::Annotated;
use prompt_core::diagnostic::Diagnostic;

use crate::error::{Error, ErrorKind};
use crate::unit::Compiled;

/// The longest template name, in bytes.
pub(crate) const MAX_NAME: usize = 255;

/// Why a loader could not load a template (not found is `Ok(None)`, not
/// this): an I/O error, a name the host refuses, a file that is not text.
///
/// ```
/// use minijinja_brackets::{Environment, ErrorKind, LoadError};
///
/// let mut env = Environment::new();
/// env.set_loader(|name| match name {
///     "part.txt" => Ok(Some("a part".to_owned())),
///     "locked.txt" => Err(LoadError::new("permission denied")),
///     _ => Ok(None),
/// });
/// let template = env.compile("[% include 'part.txt' %] [% include 'locked.txt' %]")?;
/// let err = template.render(&Default::default(), 0).unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::LoadError);
/// assert!(err.message().contains("permission denied"));
/// # Ok::<(), minijinja_brackets::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadError {
    message: String,
    /// The file is one of the run's own inputs (`not_a_template`).
    input: bool,
}

impl LoadError {
    /// A load failure described for people.
    pub fn new(message: impl Into<String>) -> LoadError {
        LoadError { message: message.into(), input: false }
    }

    /// A file the loader will not serve as a template because it is one of
    /// the run's own inputs (rows, context, tools, history, output, ...):
    /// the render fails with [`ErrorKind::NotATemplate`], not `load_error`.
    ///
    /// ```
    /// use minijinja_brackets::{Environment, ErrorKind, LoadError};
    ///
    /// let mut env = Environment::new();
    /// env.set_loader(|name| Err(LoadError::not_a_template(format!("`{name}` is the context"))));
    /// let err = env.render_str("[% include 'context.toml' %]", &Default::default(), 0);
    /// assert_eq!(err.unwrap_err().kind(), ErrorKind::NotATemplate);
    /// ```
    pub fn not_a_template(message: impl Into<String>) -> LoadError {
        LoadError { message: message.into(), input: true }
    }

    /// Whether the file was refused as one of the run's own inputs.
    pub fn is_not_a_template(&self) -> bool {
        self.input
    }

    /// What went wrong.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for LoadError {}

/// Always `load_error`, with no place in a text.
impl Diagnostic for LoadError {
    fn kind(&self) -> &'static str {
        "load_error"
    }
}

impl LoadError {
    /// The error for people, drawn by the suite's one renderer
    /// ([`prompt_core::annotated`]): `error[load_error]: message`.
    pub fn annotated(&self) -> Annotated {
        Annotated::of(self, None)
    }
}

/// A loader: a template's source by name, `None` when there is none.
pub(crate) type Loader = dyn Fn(&str) -> Result<Option<String>, LoadError> + Send + Sync;

/// The store shared by an environment's clones and its templates.
#[derive(Default)]
pub(crate) struct Library {
    loader: RwLock<Option<Arc<Loader>>>,
    stored: Mutex<Stored>,
}

#[derive(Default)]
struct Stored {
    templates: HashMap<Arc<str>, Arc<Compiled>>,
    /// Source bytes of every template stored, against
    /// [`Limits::template_bytes`](crate::Limits::template_bytes).
    bytes: usize,
}

impl fmt::Debug for Library {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let stored = self.stored.lock().unwrap_or_else(PoisonError::into_inner);
        let mut names: Vec<&str> = stored.templates.keys().map(|n| &**n).collect();
        names.sort_unstable();
        f.debug_struct("Library")
            .field("templates", &names)
            .field("loader", &self.loader.read().unwrap_or_else(PoisonError::into_inner).is_some())
            .finish()
    }
}

impl Library {
    pub(crate) fn set_loader(&self, loader: Arc<Loader>) {
        *self.loader.write().unwrap_or_else(PoisonError::into_inner) = Some(loader);
    }

    /// Compiles `source` and stores it under `name`, replacing a template
    /// of that name.
    /// `compile` compiles it; `cap` is the byte cap.
    pub(crate) fn add(
        &self,
        name: &str,
        source: Arc<str>,
        cap: usize,
        compile: impl FnOnce(Arc<str>) -> Result<Compiled, Error>,
    ) -> Result<(), Error> {
        check_name(name)?;
        let mut stored = self.stored.lock().unwrap_or_else(PoisonError::into_inner);
        let replaced = stored.templates.get(name).map_or(0, |t| t.source().len());
        let compiled = stored.admit(name, source, replaced, cap, compile)?;
        stored.templates.insert(Arc::from(name), compiled);
        Ok(())
    }

    /// The template `name`: stored, or loaded, compiled and stored now.
    ///
    /// # Errors
    ///
    /// `invalid_template_name` (checked before the loader is asked),
    /// `template_not_found`, `load_error`, `memory_limit` past the byte cap,
    /// and the template's compile errors (naming it).
    pub(crate) fn load(
        &self,
        name: &str,
        cap: usize,
        compile: impl FnOnce(Arc<str>) -> Result<Compiled, Error>,
    ) -> Result<Arc<Compiled>, Error> {
        check_name(name)?;
        // Held while the loader runs: two renders needing the same new
        // template load it once.
        let mut stored = self.stored.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(found) = stored.templates.get(name) {
            return Ok(found.clone());
        }
        let loader = self.loader.read().unwrap_or_else(PoisonError::into_inner).clone();
        let source = match loader.map(|load| load(name)) {
            Some(Ok(Some(source))) => source,
            Some(Err(why)) if why.is_not_a_template() => {
                return Err(Error::new(
                    ErrorKind::NotATemplate,
                    format!("template {name:?} is not a template: {why}"),
                ));
            }
            Some(Err(why)) => {
                return Err(Error::new(
                    ErrorKind::LoadError,
                    format!("template {name:?} could not be loaded: {why}"),
                ));
            }
            Some(Ok(None)) | None => {
                let how = if self.has_loader() { "" } else { " (the environment has no loader)" };
                return Err(Error::new(
                    ErrorKind::TemplateNotFound,
                    format!("template {name:?} not found{how}"),
                ));
            }
        };
        let compiled = stored.admit(name, source.into(), 0, cap, compile)?;
        stored.templates.insert(Arc::from(name), compiled.clone());
        Ok(compiled)
    }

    fn has_loader(&self) -> bool {
        self.loader.read().unwrap_or_else(PoisonError::into_inner).is_some()
    }
}

impl Stored {
    /// Counts `source` against the byte cap (giving back `replaced`
    /// bytes), then compiles it.
    fn admit(
        &mut self,
        name: &str,
        source: Arc<str>,
        replaced: usize,
        cap: usize,
        compile: impl FnOnce(Arc<str>) -> Result<Compiled, Error>,
    ) -> Result<Arc<Compiled>, Error> {
        let total = (self.bytes - replaced).saturating_add(source.len());
        if total > cap {
            return Err(Error::new(
                ErrorKind::MemoryLimit,
                format!(
                    "template {name:?} ({} bytes) would bring the templates stored past \
                     the limit of {cap} bytes",
                    source.len()
                ),
            ));
        }
        let compiled = compile(source)?;
        self.bytes = total;
        Ok(Arc::new(compiled))
    }
}

/// The name rule, checked before a loader is asked: `/`-separated
/// segments, none empty, `.` or `..`; no `\`, NUL or leading `/`; no `:`
/// in the first segment (a Windows drive); at most 255 bytes. A name is
/// always relative to the root, never to the template that names it.
pub(crate) fn check_name(name: &str) -> Result<(), Error> {
    let why = if name.is_empty() {
        Some("it is empty")
    } else if name.len() > MAX_NAME {
        Some("it is longer than 255 bytes")
    } else if name.starts_with('/') {
        Some("it starts with `/` (names are relative to the root)")
    } else if name.contains('\\') {
        Some("it contains `\\` (segments are separated by `/`)")
    } else if name.contains('\0') {
        Some("it contains a NUL byte")
    } else if name.split('/').next().is_some_and(|first| first.contains(':')) {
        Some("its first segment contains `:` (a drive or scheme)")
    } else if name.split('/').any(|s| s.is_empty() || s == "." || s == "..") {
        Some("it has an empty, `.` or `..` segment")
    } else {
        None
    };
    match why {
        None => Ok(()),
        Some(why) => {
            let shown: String = name.chars().take(80).collect();
            Err(Error::new(
                ErrorKind::InvalidTemplateName,
                format!("invalid template name {shown:?}: {why}"),
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::environment::Environment;

    #[test]
    fn names_cannot_leave_the_root() {
        for bad in [
            "",
            "/etc/passwd",
            "../x",
            "a/../b",
            "a/./b",
            "a//b",
            "a/",
            "./a",
            "a\\b",
            "C:/x",
            "c:x",
            "a\0b",
            ".",
            "..",
        ] {
            let err = check_name(bad).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::InvalidTemplateName, "{bad:?}");
        }
        assert!(check_name(&"a".repeat(256)).is_err());
        for good in ["a", "a.txt", "dir/a.txt", "a..b", ".hidden", "x/y/z:1", &"a".repeat(255)] {
            check_name(good).unwrap();
        }
    }

    #[test]
    fn the_byte_cap_counts_every_stored_template() {
        let mut env = Environment::new();
        env.set_limits(crate::Limits::default().with_template_bytes(10));
        env.add_template("a", "12345").unwrap();
        env.add_template("a", "123456").unwrap(); // replacing gives back the old bytes
        let err = env.add_template("b", "12345").unwrap_err();
        assert_eq!(err.kind(), ErrorKind::MemoryLimit);
        assert!(err.message().contains("\"b\""), "{err}");
        env.add_template("b", "1234").unwrap();
    }
}
