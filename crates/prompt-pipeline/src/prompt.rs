//! Stage 1: a [`Prompt`] is a [`Source`] with its `///` comments stripped,
//! their [`Metadata`] collected and the `/// param:` values typed.

use std::collections::BTreeMap;

use narrative_segment::Attachments;
use prompt_comments::DirectiveKind;
use prompt_core::text::{Deletions, LineIndex};
use serde::{Deserialize, Serialize};

use crate::config::Pipeline;
use crate::error::{Error, ErrorKind, Location, Origin};
use crate::location::locate;
use crate::params::Params;
use crate::provider::Notice;
use crate::source::Source;

/// What the `///` comments said, besides the parameters' typed values.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Metadata {
    /// The last `/// flow:` value; empty when there is none.
    pub flow: String,
    /// The last `/// node:` value; empty when there is none.
    pub node: String,
    /// Every tag in order, then `flow:<flow>` and `node:<node>`.
    pub tags: Vec<String>,
    /// Every `/// key: value` entry (keys lowercased).
    pub entries: BTreeMap<String, String>,
    /// The `/// param:` assignments as written.
    pub params: BTreeMap<String, String>,
}

/// A prompt after stage 1: comment-free text, metadata and parameters. It
/// owns everything it holds, so it can be kept and compiled later.
#[derive(Debug, Clone)]
pub struct Prompt {
    pub(crate) pipeline: Pipeline,
    source: String,
    /// `None` when the comments stage is off (the text is `source`).
    cleaned: Option<String>,
    /// What stage 1 deleted from `source` to make `cleaned`.
    deletions: Deletions,
    metadata: Metadata,
    pub(crate) params: Params,
    pub(crate) attachments: Attachments,
    /// What stage 1 noticed (a `/// param:` key set twice).
    pub(crate) notices: Vec<Notice>,
}

impl Prompt {
    /// Stage 1 of `pipeline` over `source`.
    pub(crate) fn new(pipeline: &Pipeline, source: Source) -> Result<Prompt, Error> {
        let Source { text, attachments } = source;
        let mut notices = Vec::new();
        let mut metadata = Metadata::default();
        let mut param_spans = BTreeMap::new();
        let (cleaned, deletions) = if pipeline.config.stages.comments {
            let processed = prompt_comments::process(&text);
            // One index for every warning, so many repeats stay linear.
            let index = LineIndex::new(&text);
            notices.extend(processed.warnings.iter().map(|warning| {
                let at = index.position(&text, warning.span().start);
                Notice::DuplicateParam {
                    param: warning.key().to_owned(),
                    line: at.line,
                    column: at.column,
                    message: warning.message().to_owned(),
                }
            }));
            // The last assignment of each key is the one whose value counts.
            for directive in &processed.directives {
                if directive.kind == DirectiveKind::Param {
                    param_spans.insert(directive.key.to_string(), directive.span.start);
                }
            }
            metadata = Metadata {
                flow: processed.flow,
                node: processed.node,
                tags: processed.tags,
                entries: processed.metadata,
                params: processed.params,
            };
            (Some(processed.cleaned.into_owned()), processed.deletions)
        } else {
            (None, Deletions::new())
        };
        let pairs = metadata.params.iter().map(|(k, v)| (k.as_str(), v.as_str()));
        let mut params = Params::parse(pairs).map_err(|err| {
            let location = match err.kind() {
                ErrorKind::InvalidParam { name, .. } => {
                    param_spans.get(name).map(|&at| locate(Origin::Prompt, &text, at))
                }
                _ => None,
            };
            err.located(location)
        })?;
        // The host's own values have no place in the prompt to point at.
        let host = pipeline.config.params.iter().map(|(k, v)| (k.as_str(), v.as_str()));
        params.apply(host)?;
        Ok(Prompt {
            pipeline: pipeline.clone(),
            source: text,
            cleaned,
            deletions,
            metadata,
            params,
            attachments,
            notices,
        })
    }

    /// The text stage 2 reads: the prompt without its comments.
    pub fn text(&self) -> &str {
        self.cleaned.as_deref().unwrap_or(&self.source)
    }

    /// The metadata the comments carried.
    pub fn metadata(&self) -> &Metadata {
        &self.metadata
    }

    /// The typed parameters.
    pub fn params(&self) -> &Params {
        &self.params
    }

    /// What stage 1 noticed about the prompt (a `/// param:` key set again
    /// to another value); every result's notices start with these.
    pub fn notices(&self) -> &[Notice] {
        &self.notices
    }

    /// The location in the prompt file of byte `offset` of [`Prompt::text`],
    /// through what stage 1 deleted.
    pub(crate) fn location(&self, offset: usize) -> Location {
        locate(Origin::Prompt, &self.source, self.deletions.to_input(offset))
    }

    /// A template error, placed in the prompt file.
    pub(crate) fn template_error(&self, err: minijinja_brackets::Error) -> Error {
        let location = err.span().map(|span| self.location(span.start));
        Error::new(ErrorKind::Template(err)).located(location)
    }
}
