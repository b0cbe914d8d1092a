//! The stages in order, over the modules that hold them: stage 1 makes a
//! [`Prompt`] ([`Pipeline::prepare`], `prompt.rs`), [`Prompt::compile`]
//! parses its template once (`compiled.rs`), and each request runs stages 2
//! to 5 for one context and seed ([`Compiled::build`]; [`Compiled::arrange`]
//! stops before the provider stage). A batch prepares and compiles once and
//! builds once per row.

use minijinja_brackets::{Context, Outcome};

use prompt_core::chat::{Message, Role};

use crate::arrange;
use crate::compiled::{Arranged, Built, Compiled};
use crate::config::Pipeline;
use crate::error::Error;
use crate::prompt::Prompt;
use crate::provider::Provider;
use crate::source::{Source, Transcript};

impl Pipeline {
    /// Runs stage 1 on `source`: strips comments, collects metadata and
    /// parses the parameters.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidParam`](crate::ErrorKind::InvalidParam), at the
    /// `/// param:` assignment that set it (without a position for a value
    /// set with [`PipelineBuilder::params`](crate::PipelineBuilder::params)).
    pub fn prepare(&self, source: Source) -> Result<Prompt, Error> {
        Prompt::new(self, source)
    }

    /// Prepares, compiles and builds in one call.
    ///
    /// # Errors
    ///
    /// Any stage's error; see [`Error`].
    pub fn build(&self, source: Source, context: &Context, seed: u64) -> Result<Built, Error> {
        self.prepare(source)?.compile()?.build(context, seed)
    }
}

impl Prompt {
    /// Parses the template once (when the template stage is on), into a
    /// [`Compiled`] prompt that owns a copy of this one.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Template`](crate::ErrorKind::Template) for a syntax
    /// error, an unknown filter or test, at its line in the prompt file.
    pub fn compile(&self) -> Result<Compiled, Error> {
        Compiled::new(self.clone())
    }
}

impl Compiled {
    /// Runs stages 2 to 5 with `context` and `seed`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Template`](crate::ErrorKind::Template) (at its line in
    /// the prompt file), [`ErrorKind::Narrative`](crate::ErrorKind::Narrative)
    /// (in the prompt, or in the rendered narrative when the template ran),
    /// a conversion error, or a provider error.
    pub fn build(&self, context: &Context, seed: u64) -> Result<Built, Error> {
        self.build_for(context, seed, None)
    }

    /// As [`Compiled::build`], with `transcript` flipped and appended after
    /// the prompt's own messages (which usually are just its system text).
    ///
    /// # Errors
    ///
    /// As [`Compiled::build`], and
    /// [`ErrorKind::Transcript`](crate::ErrorKind::Transcript) when flipping
    /// fails.
    pub fn build_with_transcript(
        &self,
        context: &Context,
        seed: u64,
        transcript: &Transcript,
    ) -> Result<Built, Error> {
        self.build_for(context, seed, Some(transcript))
    }

    /// Runs stages 2 to 4 and returns the arranged conversation, without a
    /// provider: same-role turns are merged only with
    /// [`Alternation::Always`](crate::Alternation::Always).
    ///
    /// # Errors
    ///
    /// As [`Compiled::build`], provider errors aside.
    pub fn arrange(&self, context: &Context, seed: u64) -> Result<Arranged, Error> {
        self.stages(context, seed, None, None)
    }

    /// As [`Compiled::arrange`], with `transcript` flipped and appended.
    ///
    /// # Errors
    ///
    /// As [`Compiled::build_with_transcript`], provider errors aside.
    pub fn arrange_with_transcript(
        &self,
        context: &Context,
        seed: u64,
        transcript: &Transcript,
    ) -> Result<Arranged, Error> {
        self.stages(context, seed, Some(transcript), None)
    }

    fn build_for(
        &self,
        context: &Context,
        seed: u64,
        transcript: Option<&Transcript>,
    ) -> Result<Built, Error> {
        let provider = self.prompt().pipeline().provider();
        let Arranged { messages, rendered, mut notices, seed } =
            self.stages(context, seed, transcript, Some(provider))?;
        // Stage 5: the provider's body.
        let config = &self.prompt().pipeline().config;
        let encoded = provider
            .encode(&messages, self.prompt().params(), config.chat_template.as_ref())
            .map_err(|err| with_empty_turns(err, &notices))?;
        crate::provider::append(&mut notices, encoded.notices);
        let model = self.prompt().params().model.clone();
        Ok(Built { body: encoded.body, model, messages, rendered, notices, seed })
    }

    /// Stages 2 to 4, arranged for `provider` (`None`: no provider stage).
    fn stages(
        &self,
        context: &Context,
        seed: u64,
        transcript: Option<&Transcript>,
        provider: Option<Provider>,
    ) -> Result<Arranged, Error> {
        let prompt = self.prompt();
        let config = &prompt.pipeline().config;
        // Stage 2: the template.
        let rendered = self.render(context, seed)?;
        // Stage 3: turns and embeds; the bytes that came from values are
        // data, never structure.
        let text = rendered.as_ref().map_or(prompt.text(), |r| r.output.as_str());
        let mut notices = prompt.notices().to_vec();
        notices.extend(self.include_notices());
        if let Some(rendered) = &rendered {
            notices.extend(prompt.undefined_notices(&rendered.undefined));
        }
        let mut messages = if config.stages.segment {
            let data_ranges = rendered.as_ref().map(|r| r.data_ranges.as_slice());
            arrange::segment(prompt, text, data_ranges, &mut notices)?
        } else {
            arrange::whole_text(text, config.context_as)?
        };
        if let Some(transcript) = transcript {
            messages.extend(arrange::flip(transcript, &mut notices)?);
        }
        // The host's frame: its system message leads, its instruction is
        // the last user message.
        if let Some(system) = &config.system {
            messages.insert(0, Message::text(Role::System, system.as_str()));
        }
        if let Some(instruction) = &config.instruction {
            messages.push(Message::text(Role::User, instruction.as_str()));
        }
        // Stage 4: the order the provider requires.
        if config.alternation.applies(provider) {
            messages = crate::alternation::alternate(messages)
                .map_err(|err| with_empty_turns(err, &notices))?;
        }
        Ok(Arranged { messages, rendered, notices, seed })
    }

    fn render(&self, context: &Context, seed: u64) -> Result<Option<Outcome>, Error> {
        let Some(template) = self.template() else { return Ok(None) };
        let outcome = template.render_outcome(context, seed);
        outcome.map(Some).map_err(|err| self.prompt().template_error(err, self.templates()))
    }
}

/// A `no_messages` error, with the turns that were left out as empty
/// (`notices`' [`Notice::EmptyTurn`]s) as its help: why there is nothing.
fn with_empty_turns(err: Error, notices: &[crate::provider::Notice]) -> Error {
    use crate::provider::Notice;
    if !matches!(err.kind(), crate::error::ErrorKind::NoMessages { .. }) {
        return err;
    }
    let empty: Vec<String> = notices
        .iter()
        .filter_map(|notice| match notice {
            Notice::EmptyTurn { turn, delimiter, line, .. } => {
                let line = line.map(|line| format!(", line {line}")).unwrap_or_default();
                Some(format!("turn {turn} (`{delimiter}`{line})"))
            }
            _ => None,
        })
        .collect();
    if empty.is_empty() {
        return err;
    }
    let help = format!("these turns are empty once rendered: {}", empty.join(", "));
    err.with_help(Some(help))
}

#[cfg(test)]
mod tests {
    use narrative_segment::ContextAs;
    use prompt_core::chat::{Message, Part, Role};

    use super::*;
    use crate::config::Stages;
    use crate::error::ErrorKind;
    use crate::provider::Notice;
    use prompt_core::diagnostic::{Diagnostic, Origin};

    #[test]
    fn param_errors_point_at_their_line() {
        let source = "/// param: max_tokens=5\nHi\n/// param: top_p=1, temperature = warm\n";
        let err = Pipeline::new(Provider::OpenAi).prepare(Source::new(source)).unwrap_err();
        assert_eq!((err.line(), err.column()), (Some(3), Some(21)));
        assert_eq!(err.snippet(), Some("temperature = warm"));
        assert_eq!(err.origin(), Origin::Input);
    }

    #[test]
    fn host_params_win_over_the_prompts() {
        let source = "/// param: model=gpt-4o, temperature=0.9\nHi\n";
        let builder = Pipeline::builder(Provider::Anthropic)
            .params([("model", "claude-sonnet-4-5"), ("max_tokens", "50")]);
        let prompt = builder.clone().build().prepare(Source::new(source)).unwrap();
        let params = prompt.params();
        assert_eq!(params.model.as_deref(), Some("claude-sonnet-4-5"));
        assert_eq!((params.temperature, params.max_tokens), (Some(0.9), Some(50)));
        // Also with the comments stage off, where the prompt sets none.
        let off = Stages { comments: false, ..Stages::default() };
        let without_comments = builder.stages(off).build();
        let prompt = without_comments.prepare(Source::new(source)).unwrap();
        assert_eq!(prompt.params().max_tokens, Some(50));
        // A bad host value is refused without a place in the prompt.
        let bad = Pipeline::builder(Provider::OpenAi).params([("temperature", "warm")]).build();
        let err = bad.prepare(Source::new(source)).unwrap_err();
        assert!(matches!(err.kind(), ErrorKind::InvalidParam { .. }), "{err}");
        assert_eq!(err.line(), None);
    }

    /// The provider-off result of `text` through `pipeline`.
    fn arrange(pipeline: Pipeline, text: &str) -> Result<Arranged, Error> {
        let context: Context = serde_json::from_str(r#"{"state": {"x": "X"}}"#).unwrap();
        pipeline.prepare(Source::new(text))?.compile()?.arrange(&context, 3)
    }

    const PROMPT: &str = "/// param: max_tokens=9\nPre [[ x ]]\n## user\nHi\n";

    /// The `empty_turn` notices of `text`: turn, delimiter, place.
    fn empty_turns(text: &str) -> Vec<(usize, String, Option<usize>)> {
        let arranged = arrange(Pipeline::new(Provider::OpenAi), text).unwrap();
        let notices = arranged.notices.into_iter();
        notices
            .filter_map(|notice| match notice {
                Notice::EmptyTurn { turn, delimiter, line, .. } => Some((turn, delimiter, line)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn an_authored_turn_rendered_empty_is_a_notice_at_its_delimiter() {
        let turn = |n, delimiter: &str, line| (n, delimiter.to_owned(), line);
        // Placed through the comments stage 1 deleted.
        let text = "/// a comment\nPre\n## user\n[[ mesage ]]\n## assistant\nok\n";
        assert_eq!(empty_turns(text), [turn(1, "## user", Some(3))]);
        // Without a template: in the prompt as written; a blank preamble is no turn.
        let blank = Pipeline::builder(Provider::OpenAi)
            .stages(Stages { template: false, ..Stages::default() })
            .build();
        let arranged = arrange(blank, "\n## user\n\n## assistant\nok\n").unwrap();
        assert!(matches!(
            &arranged.notices[..],
            [Notice::EmptyTurn { turn: 1, line: Some(2), column: Some(1), .. }]
        ));
        // Delimiters a loop wrote cannot be told apart: no place.
        let looped = "## user\nhi\n[% for i in range(2) %]\n## assistant\n[[ y ]]\n[% endfor %]";
        assert_eq!(
            empty_turns(looped),
            [turn(2, "## assistant", None), turn(3, "## assistant", None)]
        );
        // A request with no message says which turns went empty.
        let prompt = "/// param: model=claude-haiku-4-5, max_tokens=9\n## user\n[[ z ]]\n";
        let prompt = Pipeline::new(Provider::Anthropic).prepare(Source::new(prompt));
        let compiled = prompt.unwrap().compile().unwrap();
        let err = compiled.build(&Context::default(), 0).unwrap_err();
        assert_eq!(err.kind().as_str(), "no_messages");
        assert_eq!(
            Diagnostic::help(&err).as_deref(),
            Some("these turns are empty once rendered: turn 1 (`## user`, line 2)")
        );
    }

    #[test]
    fn an_undefined_name_is_a_notice_placed_in_the_prompt_file() {
        let text = "/// param: max_tokens=9\n/// a note\nSee [[Alice]] /// gone\n[[ y ]] [[Alice]] [[x]] [[bin]]\n";
        let arranged = arrange(Pipeline::new(Provider::OpenAi), text).unwrap();
        let undefined: Vec<_> = arranged
            .notices
            .iter()
            .map(|notice| match notice {
                Notice::UndefinedVariable { name, line, column, .. } => {
                    (name.as_str(), *line, *column)
                }
                other => panic!("{other:?}"),
            })
            .collect();
        // Whatever the spacing: `[[ y ]]` is as likely a misspelling.
        assert_eq!(
            undefined,
            [("Alice", Some(3), Some(5)), ("y", Some(4), Some(1)), ("bin", Some(4), Some(25))]
        );
        assert_eq!(
            arranged.notices[0].message(),
            "`Alice` is undefined, so the tag `[[Alice]]` printed nothing"
        );
        // A strict environment makes it an error, not a notice.
        let mut strict = minijinja_brackets::Environment::new();
        strict.set_strict(true);
        let pipeline = Pipeline::builder(Provider::OpenAi).environment(strict).build();
        let err = arrange(pipeline, text).unwrap_err();
        assert_eq!(
            (err.kind().as_str(), err.line(), err.column()),
            ("undefined_error", Some(3), Some(7))
        );
    }

    #[test]
    fn each_stage_can_be_switched_off() {
        let all = arrange(Pipeline::new(Provider::OpenAi), PROMPT).unwrap();
        assert_eq!(
            all.messages,
            [Message::text(Role::System, "Pre X"), Message::text(Role::User, "Hi")]
        );
        let off = |comments, template, segment| {
            let stages = Stages { comments, template, segment };
            arrange(Pipeline::builder(Provider::OpenAi).stages(stages).build(), PROMPT)
                .unwrap()
                .messages
        };
        assert_eq!(
            off(false, true, true)[0],
            Message::text(Role::System, "/// param: max_tokens=9\nPre X")
        );
        assert_eq!(off(true, false, true)[0], Message::text(Role::System, "Pre [[ x ]]"));
        assert_eq!(off(true, true, false), [Message::text(Role::System, "Pre X\n## user\nHi")]);
        assert_eq!(off(true, true, true).len(), 2);
    }

    #[test]
    fn the_preamble_goes_where_it_is_told() {
        let with = |context_as| {
            arrange(Pipeline::builder(Provider::OpenAi).context_as(context_as).build(), PROMPT)
        };
        assert_eq!(with(ContextAs::User).unwrap().messages[0], Message::text(Role::User, "Pre X"));
        assert_eq!(with(ContextAs::Drop).unwrap().messages, [Message::text(Role::User, "Hi")]);
        let err = with(ContextAs::Keep).unwrap_err();
        assert_eq!(err.kind().as_str(), "unsupported_role");
        assert_eq!((err.origin(), err.line(), err.column()), (Origin::Rendered, Some(1), Some(1)));
    }

    #[test]
    fn positions_without_the_template_stage_are_in_the_prompt() {
        let stages = Stages { template: false, ..Stages::default() };
        let pipeline = Pipeline::builder(Provider::OpenAi).stages(stages).build();
        let err =
            arrange(pipeline, "/// a comment\n/// another\nSee @x.png\n## user\nHi\n").unwrap_err();
        assert_eq!(err.kind().as_str(), "unresolvable_reference");
        assert_eq!((err.origin(), err.line(), err.column()), (Origin::Input, Some(3), Some(5)));
        assert_eq!(err.snippet(), Some("@x.png"));
    }

    #[test]
    fn template_errors_after_comments_point_into_the_prompt_file() {
        // The `[[` after stripped comments (one with its line ending) is
        // placed through stage 1's deletions.
        let text = "/// flow: a\nA /// x\nB\n/// y\nC [[ oops";
        let err = Pipeline::new(Provider::OpenAi).prepare(Source::new(text)).unwrap();
        let err = err.compile().unwrap_err();
        assert_eq!((err.origin(), err.line(), err.column()), (Origin::Input, Some(5), Some(3)));
    }

    #[test]
    fn a_transcript_alone_enters_at_the_provider_stage() {
        let pipeline = Pipeline::new(Provider::Gemini);
        let prompt = pipeline.prepare(Source::new("")).unwrap();
        let transcript = Transcript::from_json(
            r#"[{"speaker": "a", "text": "hi"}, {"speaker": "b", "text": "yo"}]"#,
            "b",
        )
        .unwrap();
        let built = prompt
            .compile()
            .unwrap()
            .build_with_transcript(&Context::default(), 0, &transcript)
            .unwrap();
        assert_eq!(
            built.messages,
            [
                Message::text(Role::User, "a: hi"),
                Message::text(Role::Assistant, "yo"),
                Message::text(Role::User, "(continue)")
            ]
        );
        let err = Transcript::from_json("[\n  {\"text\": 1}\n]", "b").unwrap_err();
        assert_eq!((err.origin(), err.line()), (Origin::Transcript, Some(2)));
    }

    /// A flipped transcript through a model's chat template: the roles and
    /// texts the flip made reach the template as messages, and the body
    /// asks for the next assistant turn.
    #[test]
    fn a_transcript_builds_a_completions_prompt() {
        let template = crate::ChatTemplate::from_jinja(
            "{{ bos_token }}{% for m in messages %}<|{{ m.role }}|>\n{{ m.content }}<|end|>\n{% endfor %}\
             {% if add_generation_prompt %}<|assistant|>\n{% endif %}",
            &chat_template::Options { allow_special_tokens: true, ..Default::default() },
        )
        .unwrap();
        let pipeline = Pipeline::builder(Provider::Completions)
            .params([("model", "phi-3-mini")])
            .chat_template(template)
            .build();
        let transcript = Transcript::from_json(
            r#"[{"speaker": "a", "text": "hi"}, {"speaker": "b", "text": "yo"}, {"speaker": "a", "text": "bye"}]"#,
            "b",
        )
        .unwrap();
        let compiled = pipeline.prepare(Source::new("You are b.")).unwrap().compile().unwrap();
        let built = compiled.build_with_transcript(&Context::default(), 0, &transcript).unwrap();
        assert_eq!(
            serde_json::to_value(&built.body).unwrap(),
            serde_json::json!({
                "model": "phi-3-mini",
                "prompt": "<|system|>\nYou are b.<|end|>\n<|user|>\na: hi<|end|>\n<|assistant|>\nyo<|end|>\n<|user|>\na: bye<|end|>\n<|assistant|>\n",
            })
        );
        assert_eq!(built.path().as_deref(), Some("/v1/completions"));
        // Without a template: a typed error, never an empty prompt.
        let bare = Pipeline::builder(Provider::Completions).params([("model", "m")]).build();
        let err = bare.build(Source::new("## user\nHi"), &Context::default(), 0).unwrap_err();
        assert_eq!(err.kind(), &ErrorKind::MissingChatTemplate);
        assert_eq!(err.kind().as_str(), "missing_chat_template");
    }

    #[test]
    fn compiled_prompts_are_owned_and_shared() {
        // At compile time: storable in a cache or a server.
        fn owned<T: Clone + Send + Sync + 'static>() {}
        owned::<Compiled>();
        owned::<Pipeline>();
        owned::<Prompt>();
    }

    #[test]
    fn compiling_shares_what_stage_one_made() {
        let source = Source::new("/// flow: a\n/// param: max_tokens=9\nHi [[ x ]]\n");
        let prompt = Pipeline::new(Provider::OpenAi).prepare(source).unwrap();
        let compiled = prompt.compile().unwrap();
        // The same cleaned text and metadata, not copies of them.
        assert!(std::ptr::eq(compiled.prompt().text(), prompt.text()));
        assert!(std::ptr::eq(compiled.prompt().params(), prompt.params()));
        // Debug shows the prompt's fields, as before they were shared.
        let debug = format!("{prompt:?}");
        assert!(debug.starts_with("Prompt { pipeline: Pipeline {"), "{debug}");
        assert!(debug.contains(", notices: [] }"), "{debug}");
    }

    #[test]
    fn a_compiled_prompt_builds_on_another_thread() {
        let compiled = {
            // Nothing borrowed from here outlives the block.
            let text = String::from(
                "/// param: model=claude-sonnet-4-5, max_tokens=9\n## user\nHi [[ x ]]\n",
            );
            let pipeline = Pipeline::new(Provider::Anthropic);
            pipeline.prepare(Source::new(text)).unwrap().compile().unwrap()
        };
        let context: Context = serde_json::from_str(r#"{"state": {"x": "there"}}"#).unwrap();
        let here = compiled.build(&context, 1).unwrap();
        let clone = compiled.clone();
        let there = std::thread::spawn(move || clone.build(&context, 1).unwrap()).join().unwrap();
        assert_eq!(here, there);
        assert_eq!(
            serde_json::to_string(&there.body).unwrap(),
            r#"{"model":"claude-sonnet-4-5","max_tokens":9,"messages":[{"role":"user","content":[{"type":"text","text":"Hi there"}]}]}"#
        );
    }

    #[test]
    fn an_image_is_typed_by_its_bytes_with_a_notice() {
        let png = b"\x89PNG\r\n\x1a\n".to_vec();
        let attachments =
            narrative_segment::Attachments::from_entries([("chart.jpg", png.clone())]).unwrap();
        let text = "/// param: model=claude-sonnet-4-5, max_tokens=9\n## user\nSee @chart.jpg\n";
        let source = Source::new(text).with_attachments(attachments);
        let built =
            Pipeline::new(Provider::Anthropic).build(source, &Context::default(), 1).unwrap();
        assert_eq!(built.messages[0].content[1], Part::image("image/png", png));
        assert_eq!(
            built.notices,
            [crate::Notice::MediaTypeMismatch {
                file: "chart.jpg".into(),
                extension: "image/jpeg".into(),
                bytes: "image/png".into()
            }]
        );
    }

    #[test]
    fn role_aliases_open_turns_and_a_bare_handle_is_a_notice() {
        let text = "/// param: model=claude-sonnet-4-5, max_tokens=9\n#### You:\nthanks @marta\n\
                    #### ChatGPT:\nWelcome.\n#### You:\nBye\n";
        let aliases = crate::RoleAliases::from_pairs(["You=user", "ChatGPT=assistant"]).unwrap();
        let pipeline = Pipeline::builder(Provider::Anthropic).role_aliases(aliases).build();
        let built = pipeline.build(Source::new(text), &Context::default(), 1).unwrap();
        let roles: Vec<Role> = built.messages.iter().map(|m| m.role).collect();
        assert_eq!(roles, [Role::User, Role::Assistant, Role::User]);
        assert_eq!(
            built.notices,
            [crate::Notice::UnresolvedReference { name: "marta".into(), line: 2, column: 8 }]
        );
        // Without the aliases no turn opens: the assistant's reply would
        // be sent as the caller's own text.
        let plain =
            Pipeline::new(Provider::Anthropic).build(Source::new(text), &Context::default(), 1);
        assert!(!plain.is_ok_and(|built| built.messages.iter().any(|m| m.role == Role::Assistant)));
    }
}
