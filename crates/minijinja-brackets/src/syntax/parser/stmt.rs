//! The statement grammar: what a `[% ... %]` tag's body says (`if`,
//! `for`, `set`, `macro`, block ends, ...), one tag at a time.

use super::*;

/// A statement tag's meaning.
#[derive(Debug)]
pub(super) enum Stmt<'a> {
    If(Expr<'a>),
    Elif(Expr<'a>),
    Else,
    /// `endif`, `endfor`, ... (the word).
    End(&'a str),
    For {
        pattern: Pattern<'a>,
        iterable: Expr<'a>,
        filter: Option<Expr<'a>>,
        recursive: bool,
    },
    /// Boxed, as every large payload: the block parser holds a statement
    /// in its frame once per nesting level.
    Set(Box<Target<'a>>, Box<Expr<'a>>),
    /// `set target [-> filters]`, the body up to `endset`.
    SetBlock(Box<Target<'a>>, Vec<FilterCall<'a>>),
    Control(Control),
    With(Vec<(Pattern<'a>, Expr<'a>)>),
    /// `generation` (the Jinja2 profile).
    Generation,
    Do(Expr<'a>),
    Filter(Vec<FilterCall<'a>>),
    Autoescape(bool),
    Macro(&'a str, Vec<(&'a str, Option<Expr<'a>>)>, Catch<'a>),
    /// `call(params) m(args)`: the parameters and the call.
    Call(Vec<(&'a str, Option<Expr<'a>>)>, Catch<'a>, Box<Expr<'a>>),
    Chance(Expr<'a>),
    Weighted,
    Choice(Expr<'a>),
    Effect(EffectKind, Expr<'a>),
    /// `include`, without its span (the tag's).
    Include {
        names: Expr<'a>,
        ignore_missing: bool,
        with_context: bool,
    },
    Import {
        template: Expr<'a>,
        binds: ImportBinds<'a>,
        with_context: bool,
    },
    Extends(Expr<'a>),
    Block {
        name: &'a str,
        scoped: bool,
        required: bool,
    },
    /// `endblock`, with the name it may repeat.
    EndBlock(Option<&'a str>),
}

impl Stmt<'_> {
    /// The word that opened the tag, for block-structure messages.
    pub(super) fn word(&self) -> &str {
        match self {
            Stmt::If(_) => "if",
            Stmt::Elif(_) => "elif",
            Stmt::Else => "else",
            Stmt::End(word) => word,
            Stmt::For { .. } => "for",
            Stmt::Set(..) | Stmt::SetBlock(..) => "set",
            Stmt::Control(Control::Break) => "break",
            Stmt::Control(Control::Continue) => "continue",
            Stmt::With(_) => "with",
            Stmt::Generation => "generation",
            Stmt::Do(_) => "do",
            Stmt::Filter(_) => "filter",
            Stmt::Autoescape(_) => "autoescape",
            Stmt::Macro(..) => "macro",
            Stmt::Call(..) => "call",
            Stmt::Chance(_) => "chance",
            Stmt::Weighted => "weighted",
            Stmt::Choice(_) => "choice",
            Stmt::Effect(EffectKind::QuickReply, _) => "qr",
            Stmt::Effect(EffectKind::SlashCommand, _) => "st",
            Stmt::Include { .. } => "include",
            Stmt::Import { binds: ImportBinds::Module(_), .. } => "import",
            Stmt::Import { .. } => "from",
            Stmt::Extends(_) => "extends",
            Stmt::Block { .. } => "block",
            Stmt::EndBlock(_) => "endblock",
        }
    }
}

impl<'a> Grammar<'a> {
    /// A statement tag's body.
    pub(super) fn statement(&self, body: &'a str) -> PResult<'a, Stmt<'a>> {
        let (start, _) = multispace0(body)?;
        let Some((i, word)) = peek_ok(ident, start)? else {
            return syntax(
                start,
                format!("expected a statement keyword, found {}", describe(start)),
            );
        };
        const REFERENCE_ONLY: &[&str] =
            &["chance", "weighted", "choice", "endchance", "endweighted", "endchoice", "qr", "st"];
        if self.jinja2() && REFERENCE_ONLY.contains(&word) {
            return self.not_in_profile(start, &format!("the `{word}` tag"));
        }
        let (i, stmt) = match word {
            "if" => self.expr(i).map(|(i, e)| (i, Stmt::If(e)))?,
            "elif" => self.expr(i).map(|(i, e)| (i, Stmt::Elif(e)))?,
            "else" => (i, Stmt::Else),
            "endif" | "endfor" | "endmacro" | "endchance" | "endweighted" | "endchoice"
            | "endset" | "endwith" | "endfilter" | "endautoescape" | "endcall"
            | "endgeneration" => (i, Stmt::End(word)),
            "break" => (i, Stmt::Control(Control::Break)),
            "continue" => (i, Stmt::Control(Control::Continue)),
            "with" => self.with_header(i)?,
            "generation" if self.jinja2() => (i, Stmt::Generation),
            "do" => self.expr(i).map(|(i, e)| (i, Stmt::Do(e)))?,
            "filter" => self.filter_chain(i).map(|(i, f)| (i, Stmt::Filter(f)))?,
            "autoescape" => self.autoescape(i)?,
            "for" => self.for_header(i)?,
            "set" => self.set(i)?,
            "macro" => self.macro_header(i)?,
            "call" => self.call_header(i)?,
            "chance" => self.expr(i).map(|(i, e)| (i, Stmt::Chance(e)))?,
            "weighted" => (i, Stmt::Weighted),
            "choice" => self.expr(i).map(|(i, e)| (i, Stmt::Choice(e)))?,
            "qr" => self.expr(i).map(|(i, e)| (i, Stmt::Effect(EffectKind::QuickReply, e)))?,
            "st" => self.expr(i).map(|(i, e)| (i, Stmt::Effect(EffectKind::SlashCommand, e)))?,
            "include" => self.include(i)?,
            "import" => self.import(i)?,
            "from" => self.import_from(i)?,
            "extends" => self.expr(i).map(|(i, e)| (i, Stmt::Extends(e)))?,
            "block" => self.block_header(i)?,
            "endblock" => match peek_ok(ident, i)? {
                Some((j, name)) => (j, Stmt::EndBlock(Some(name))),
                None => (i, Stmt::EndBlock(None)),
            },
            "endraw" => return syntax(start, "stray `endraw`: no `raw` block is open".into()),
            _ if UNSUPPORTED.contains(&word) => {
                return syntax(
                    start,
                    format!("unknown statement `{word}`: this language has no `{word}` tag"),
                );
            }
            _ => return syntax(start, format!("unknown statement `{word}`")),
        };
        self.end_of_tag(i)?;
        Ok((i, stmt))
    }

    /// `include name [ignore missing] [with context | without context]`
    fn include(&self, i: &'a str) -> PResult<'a, Stmt<'a>> {
        let (i, names) = self.expr(i)?;
        let (i, ignore_missing) = match peek_ok(kw("ignore"), i)? {
            Some((j, _)) => match peek_ok(kw("missing"), j)? {
                Some((j, _)) => (j, true),
                None => return syntax(j, format!("expected `missing`, found {}", describe(j))),
            },
            None => (i, false),
        };
        let (i, with_context) = self.context_clause(i, true)?;
        Ok((i, Stmt::Include { names, ignore_missing, with_context }))
    }

    /// `[with context | without context]`, `default` when absent.
    fn context_clause(&self, i: &'a str, default: bool) -> PResult<'a, bool> {
        let (i, with) = match (peek_ok(kw("with"), i)?, peek_ok(kw("without"), i)?) {
            (Some((j, _)), _) => (j, true),
            (_, Some((j, _))) => (j, false),
            _ => return Ok((i, default)),
        };
        match peek_ok(kw("context"), i)? {
            Some((j, _)) => Ok((j, with)),
            None => syntax(i, format!("expected `context`, found {}", describe(i))),
        }
    }

    /// `import name as alias [with context]`
    fn import(&self, i: &'a str) -> PResult<'a, Stmt<'a>> {
        let (i, template) = self.expr(i)?;
        let Some((i, _)) = peek_ok(kw("as"), i)? else {
            return syntax(i, format!("expected `as`, found {}", describe(i)));
        };
        let (i, alias) = self.binding(i, "an import alias")?;
        let (i, with_context) = self.context_clause(i, false)?;
        let binds = ImportBinds::Module(self.intern(alias));
        Ok((i, Stmt::Import { template, binds, with_context }))
    }

    /// `from name import a [as b], c [with context]`
    fn import_from(&self, i: &'a str) -> PResult<'a, Stmt<'a>> {
        let (i, template) = self.expr(i)?;
        let Some((mut i, _)) = peek_ok(kw("import"), i)? else {
            return syntax(i, format!("expected `import`, found {}", describe(i)));
        };
        let mut names = Vec::new();
        loop {
            let (start, _) = multispace0(i)?;
            let (j, name) = self.binding(start, "a macro name")?;
            let (j, alias) = match peek_ok(kw("as"), j)? {
                Some((k, _)) => self.binding(k, "an import alias")?,
                None => (j, name),
            };
            names.push((name, self.intern(alias), self.span(start, j)));
            match peek_ok(sym(","), j)? {
                Some((k, _)) => i = k,
                None => {
                    i = j;
                    break;
                }
            }
        }
        let (i, with_context) = self.context_clause(i, false)?;
        Ok((i, Stmt::Import { template, binds: ImportBinds::Macros(names), with_context }))
    }

    /// `block name [scoped] [required]`: a name defined once per template.
    fn block_header(&self, i: &'a str) -> PResult<'a, Stmt<'a>> {
        let (start, _) = multispace0(i)?;
        let (mut i, name) = self.binding(start, "a block name")?;
        if !self.blocks.borrow_mut().insert(name) {
            return syntax(start, format!("block `{name}` is defined twice in this template"));
        }
        let (mut scoped, mut required) = (false, false);
        loop {
            if let Some((j, _)) = peek_ok(kw("scoped"), i)? {
                (i, scoped) = (j, true);
            } else if let Some((j, _)) = peek_ok(kw("required"), i)? {
                (i, required) = (j, true);
            } else {
                return Ok((i, Stmt::Block { name, scoped, required }));
            }
        }
    }

    /// A name that a loop, macro parameter or `set` binds.
    pub(super) fn binding(&self, i: &'a str, what: &str) -> PResult<'a, &'a str> {
        let (start, _) = multispace0(i)?;
        match peek_ok(ident, start)? {
            Some((_, name)) if RESERVED.contains(&name) => {
                syntax(start, format!("`{name}` is reserved and cannot be used as {what}"))
            }
            Some(ok) => Ok(ok),
            None => syntax(start, format!("expected {what}, found {}", describe(start))),
        }
    }

    /// A pattern that binds names: `name`, or `(p, ...)` unpacking a list
    /// (`(a)` alone is `a`; `(a,)` is a one-item tuple).
    pub(super) fn pattern(&self, i: &'a str, what: &str) -> PResult<'a, Pattern<'a>> {
        let Some((mut i, _)) = peek_ok(sym("("), i)? else {
            return self.binding(i, what).map(|(i, name)| (i, Pattern::Name(name)));
        };
        self.enter(i)?;
        let (mut parts, mut comma) = (Vec::new(), false);
        loop {
            if let Some((j, _)) = peek_ok(sym(")"), i)? {
                i = j;
                break;
            }
            let (j, part) = self.pattern(i, what)?;
            parts.push(part);
            match peek_ok(sym(","), j)? {
                Some((j, _)) => (i, comma) = (j, true),
                None => {
                    i = self.expect(")", j)?.0;
                    break;
                }
            }
        }
        self.leave(1);
        match parts.len() {
            0 => syntax(i, format!("expected {what} inside `()`")),
            1 if !comma => Ok((i, parts.pop().unwrap_or(Pattern::Tuple(Vec::new())))),
            _ => Ok((i, Pattern::Tuple(parts))),
        }
    }

    /// Patterns separated by commas (`a, (b, c)`): one pattern, or a tuple
    /// of them.
    pub(super) fn patterns(&self, i: &'a str, what: &str) -> PResult<'a, Pattern<'a>> {
        let (mut i, first) = self.pattern(i, what)?;
        let mut parts = vec![first];
        while let Some((j, _)) = peek_ok(sym(","), i)? {
            let (j, part) = self.pattern(j, what)?;
            parts.push(part);
            i = j;
        }
        match parts.len() {
            1 => Ok((i, parts.pop().unwrap_or(Pattern::Tuple(Vec::new())))),
            _ => Ok((i, Pattern::Tuple(parts))),
        }
    }

    /// `with [pattern = value, ...]`: every value is evaluated before any
    /// name is bound.
    pub(super) fn with_header(&self, mut i: &'a str) -> PResult<'a, Stmt<'a>> {
        let mut bindings = Vec::new();
        while !i.trim().is_empty() {
            let (j, pattern) = self.pattern(i, "a `with` variable")?;
            let Some((j, _)) = peek_ok(terminated(sym("="), not(char('='))), j)? else {
                return syntax(j, format!("expected `=`, found {}", describe(j)));
            };
            let (j, value) = self.expr(j)?;
            bindings.push((pattern, value));
            match peek_ok(sym(","), j)? {
                Some((j, _)) => i = j,
                None => {
                    i = j;
                    break;
                }
            }
        }
        Ok((i, Stmt::With(bindings)))
    }

    /// Filter names with their arguments, joined by `->`:
    /// `upper -> replace("a", "b")`.
    pub(super) fn filter_chain(&self, i: &'a str) -> PResult<'a, Vec<FilterCall<'a>>> {
        let mut filters = Vec::new();
        let mut i = i;
        loop {
            let (j, (name, id)) = self.callee(i, "filter", "filter", &self.filters)?;
            let (j, args) = self.optional_args(j)?;
            filters.push(FilterCall { name, id, args });
            match peek_ok(sym(self.pipe()), j)? {
                Some((j, _)) => i = j,
                None => return Ok((j, filters)),
            }
        }
    }

    /// `autoescape true|false|"html"|"none"`: a constant, as in Jinja.
    pub(super) fn autoescape(&self, i: &'a str) -> PResult<'a, Stmt<'a>> {
        let (start, _) = multispace0(i)?;
        let (j, e) = self.expr(start)?;
        let on = match &e.kind {
            ExprKind::Const(v) if v.as_str() == Some("html") => Some(true),
            ExprKind::Const(v) if v.as_str() == Some("none") => Some(false),
            ExprKind::Const(Value(Repr::Bool(on))) => Some(*on),
            _ => None,
        };
        match on {
            Some(on) => Ok((j, Stmt::Autoescape(on))),
            None => {
                syntax(start, "`autoescape` takes `true`, `false`, `\"html\"` or `\"none\"`".into())
            }
        }
    }

    /// `for pattern in iterable [if cond] [recursive]`
    pub(super) fn for_header(&self, i: &'a str) -> PResult<'a, Stmt<'a>> {
        let (i, pattern) = self.patterns(i, "a loop variable")?;
        let Some((i, _)) = peek_ok(kw("in"), i)? else {
            return syntax(i, format!("expected `in`, found {}", describe(i)));
        };
        // Not `expr`: its `if` would swallow the loop filter.
        let (i, iterable) = self.operators(i, 1)?;
        let (i, filter) = match peek_ok(kw("if"), i)? {
            Some((i, _)) => self.operators(i, 1).map(|(i, e)| (i, Some(e)))?,
            None => (i, None),
        };
        let (i, recursive) = match peek_ok(kw("recursive"), i)? {
            Some((i, _)) => (i, true),
            None => (i, false),
        };
        Ok((i, Stmt::For { pattern, iterable, filter, recursive }))
    }

    /// `set x = v`, `set L.x = v`, `set G["my var"] = v`, or the block form
    /// `set x` (body up to `endset`).
    pub(super) fn set(&self, i: &'a str) -> PResult<'a, Stmt<'a>> {
        let (start, _) = multispace0(i)?;
        let invalid = |at| {
            syntax(
                at,
                "invalid `set` target: write `name`, `L.name`, `G.name`, `L[\"name\"]`, `G[\"name\"]` or `ns.attr`"
                    .to_string(),
            )
        };
        let Some((i, name)) = peek_ok(ident, start)? else { return invalid(start) };
        let (i, target) = match name {
            "L" | "G" if self.jinja2() => {
                return self.not_in_profile(start, &format!("the store `{name}`"));
            }
            "L" | "G" => {
                let scope = if name == "L" { Scope::Local } else { Scope::Global };
                let (i, key) = if let Some((j, _)) = peek_ok(sym("."), i)? {
                    let Some((j, key)) = peek_ok(ident, j)? else { return invalid(j) };
                    (j, TargetName::Static(Cow::Borrowed(key)))
                } else if let Some((j, _)) = peek_ok(sym("["), i)? {
                    let (j, key) = self.expr(j)?;
                    let (j, _) = self.expect("]", j)?;
                    let key = match key.kind {
                        ExprKind::Const(ref v) if v.as_str().is_some() => TargetName::Static(
                            Cow::Owned(v.as_str().unwrap_or_default().to_owned()),
                        ),
                        _ => TargetName::Computed(key),
                    };
                    (j, key)
                } else {
                    return syntax(
                        start,
                        format!("`{name}` alone cannot be assigned: write `{name}.name`"),
                    );
                };
                (i, Target { scope, name: key, attrs: Vec::new() })
            }
            _ if RESERVED.contains(&name) => {
                return syntax(start, format!("`{name}` is reserved and cannot be assigned"));
            }
            _ => {
                let name = TargetName::Static(Cow::Borrowed(name));
                (i, Target { scope: Scope::State, name, attrs: Vec::new() })
            }
        };
        // `ns.attr = v`, `ns.a.b = v`: an attribute of the variable's map.
        let (mut i, mut target) = (i, target);
        while let Some((j, _)) = peek_ok(sym("."), i)? {
            let Some((j, attr)) = peek_ok(ident, j)? else { return invalid(j) };
            target.attrs.push(attr);
            i = j;
        }
        if let Some((i, _)) = peek_ok(sym(self.pipe()), i)? {
            let (i, filters) = self.filter_chain(i)?;
            return Ok((i, Stmt::SetBlock(Box::new(target), filters)));
        }
        match peek_ok(terminated(sym("="), not(char('='))), i)? {
            Some((i, _)) => {
                let (i, value) = self.expr(i)?;
                Ok((i, Stmt::Set(Box::new(target), Box::new(value))))
            }
            None if i.trim().is_empty() => Ok((i, Stmt::SetBlock(Box::new(target), Vec::new()))),
            None => invalid(start),
        }
    }

    /// `macro name(p1, p2=default, *rest, **options)`
    pub(super) fn macro_header(&self, i: &'a str) -> PResult<'a, Stmt<'a>> {
        let (i, name) = self.binding(i, "a macro name")?;
        let (i, _) = self.expect("(", i)?;
        let (i, (params, catch)) = self.params(i, "macro")?;
        Ok((i, Stmt::Macro(name, params, catch)))
    }

    /// `call [(p1, p2=default)] m(args)`: the call must call something.
    pub(super) fn call_header(&self, i: &'a str) -> PResult<'a, Stmt<'a>> {
        let (i, (params, catch)) = match peek_ok(sym("("), i)? {
            Some((i, _)) => self.params(i, "`caller`")?,
            None => (i, (Vec::new(), Catch::default())),
        };
        let (start, _) = multispace0(i)?;
        let (i, call) = self.expr(start)?;
        if !matches!(call.kind, ExprKind::Call(..)) {
            return syntax(start, "a `call` block calls a macro: write `[% call m(...) %]`".into());
        }
        Ok((i, Stmt::Call(params, catch, Box::new(call))))
    }

    /// Parameters up to `)` (the `(` already read): `p1, p2=default`,
    /// then `*rest` and `**options` (each at most once, in that order).
    #[allow(clippy::type_complexity)]
    fn params(
        &self,
        mut i: &'a str,
        owner: &str,
    ) -> PResult<'a, (Vec<(&'a str, Option<Expr<'a>>)>, Catch<'a>)> {
        let what = format!("a {owner} parameter");
        let mut params = Vec::new();
        let mut catch = Catch::default();
        // A set, not a scan: a macro may have thousands of parameters.
        let mut seen = HashSet::new();
        loop {
            if let Some((j, _)) = peek_ok(sym(")"), i)? {
                return Ok((j, (params, catch)));
            }
            let (at, _) = multispace0(i)?;
            let stars = if at.starts_with("**") { 2 } else { usize::from(at.starts_with('*')) };
            let misplaced = match stars {
                0 if catch.varargs.is_some() || catch.kwargs.is_some() => {
                    Some("a named parameter cannot follow `*name` or `**name`")
                }
                1 if catch.varargs.is_some() => Some("there can be one `*name` parameter only"),
                1 if catch.kwargs.is_some() => Some("`*name` must come before `**name`"),
                2 if catch.kwargs.is_some() => Some("there can be one `**name` parameter only"),
                _ => None,
            };
            if let Some(why) = misplaced {
                return syntax(at, format!("{why} (in the {owner} parameters)"));
            }
            let (j, param) = self.binding(&at[stars..], &what)?;
            if !seen.insert(param) {
                return syntax(i, format!("duplicate {owner} parameter `{param}`"));
            }
            let j = match stars {
                1 => {
                    catch.varargs = Some(param);
                    j
                }
                2 => {
                    catch.kwargs = Some(param);
                    j
                }
                _ => {
                    let (j, default) = match peek_ok(terminated(sym("="), not(char('='))), j)? {
                        Some((j, _)) => self.expr(j).map(|(j, e)| (j, Some(e)))?,
                        None => (j, None),
                    };
                    params.push((param, default));
                    j
                }
            };
            i = match peek_ok(sym(","), j)? {
                Some((j, _)) => j,
                None => self.expect(")", j).map(|_| j)?,
            };
        }
    }
}
