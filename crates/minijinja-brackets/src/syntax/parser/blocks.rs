//! Block structure: tokens from the lexer, tag bodies through the
//! grammar, blocks by recursive descent (each block a level of the one
//! depth guard, `Grammar::enter`).

use super::stmt::Stmt;
use super::*;

/// A template that failed to parse: the error, and the filter and test
/// names written before the parser stopped.
pub(crate) struct Failure<'a> {
    pub(crate) error: Error,
    pub(crate) filters: Vec<Callee<'a>>,
    pub(crate) tests: Vec<Callee<'a>>,
}

/// Parses a whole template: tokens from the lexer, tag bodies with the
/// grammar, blocks by recursive descent.
pub(crate) struct TemplateParser<'a> {
    grammar: Grammar<'a>,
    lexer: Lexer<'a>,
    /// How many macro bodies are open (blocks may not be inside one).
    in_macro: usize,
    /// How many `for` bodies enclose the current tag within the current
    /// macro or block body: `break` and `continue` need one.
    loops: usize,
}

/// A statement tag and its span, boxed: it is large, and the block parser
/// is on the native stack once per nesting level.
type Tag<'a> = Box<(Stmt<'a>, Span)>;

/// How a block body ended: the closing statement and its span.
type Closing<'a> = Option<Tag<'a>>;

/// What the next token of a block body is.
enum Piece<'a> {
    Node(Node<'a>),
    Tag(Tag<'a>),
    End,
}

/// Conditional branches (head expression and body) and the `else` body.
type Branches<'a> = (Vec<(Expr<'a>, Vec<Node<'a>>)>, Vec<Node<'a>>);

/// How many distinct names a template of `source`'s length is expected to
/// write, at one per `bytes` bytes (at most `most`): the tables start that
/// large instead of being rehashed three or four times on the way (what a
/// table holds is hashed again at every growth).
fn expected(source: &str, bytes: usize, most: usize) -> usize {
    (source.len() / bytes).min(most)
}

impl<'a> TemplateParser<'a> {
    pub(crate) fn new(
        source: &'a str,
        limits: &Limits,
        whitespace: Whitespace,
        dialect: Dialect,
    ) -> TemplateParser<'a> {
        TemplateParser {
            grammar: Grammar {
                source,
                dialect,
                depth: Cell::new(0),
                limit: limits.nesting_limit,
                stack: StackBudget::new(limits.stack_limit),
                names: RefCell::new(HashMap::with_capacity(expected(source, 64, 256))),
                callers: Cell::new(0),
                filters: RefCell::new(Callees::with_capacity(expected(source, 256, 64))),
                tests: RefCell::default(),
                blocks: RefCell::default(),
            },
            lexer: Lexer::new(source, whitespace)
                .with_syntax(dialect.syntax)
                .with_nesting_limit(limits.nesting_limit),
            in_macro: 0,
            loops: 0,
        }
    }

    /// The template, or the error with the filter and test names written
    /// before it (an unknown one among them is reported instead, as it
    /// came first).
    pub(crate) fn parse(mut self) -> Result<Template<'a>, Failure<'a>> {
        let parsed = self.body(&[]);
        let filters = self.grammar.filters.into_inner().first;
        let tests = self.grammar.tests.into_inner().first;
        match parsed {
            Ok((body, closing)) => {
                debug_assert!(closing.is_none());
                Ok(Template { body, names: self.grammar.names.into_inner(), filters, tests })
            }
            Err(error) => Err(Failure { error, filters, tests }),
        }
    }

    fn error(&self, err: nom::Err<PErr<'a>>, fallback: &'a str) -> Error {
        let source = self.grammar.source;
        match err {
            nom::Err::Error(e) | nom::Err::Failure(e) => {
                let at = e.at.trim_start();
                let start = source.offset(at);
                let end = start + token_len(at);
                let message = e.message.unwrap_or_else(|| format!("unexpected {}", describe(e.at)));
                let error = Error::new(e.kind, message).at(source, Span::new(start, end));
                match jinja_filter(at) {
                    Some(filter) => error.with_help(format!(
                        "filters chain with '->' here: name -> {filter} (Jinja's `|` is not this language's)"
                    )),
                    None => error,
                }
            }
            nom::Err::Incomplete(_) => {
                let at = source.offset(fallback);
                Error::new(ErrorKind::SyntaxError, "unexpected end of tag")
                    .at(source, Span::new(at, at))
            }
        }
    }

    fn syntax_error(&self, message: String, span: Span) -> Error {
        Error::new(ErrorKind::SyntaxError, message).at(self.grammar.source, span)
    }

    /// Nodes up to a statement whose word is in `ends` (returned), or to the
    /// end of the template (`None`).
    fn body(&mut self, ends: &[&str]) -> Result<(Vec<Node<'a>>, Closing<'a>), Error> {
        let mut nodes = Vec::new();
        loop {
            match self.piece()? {
                Piece::Node(node) => nodes.push(node),
                Piece::Tag(tag) if ends.contains(&tag.0.word()) => return Ok((nodes, Some(tag))),
                Piece::Tag(tag) => nodes.push(self.block(tag, ends)?),
                Piece::End => return Ok((nodes, None)),
            }
        }
    }

    /// The next token, parsed: text, a print tag, a statement tag.
    fn piece(&mut self) -> Result<Piece<'a>, Error> {
        let Some(token) = self.lexer.next() else { return Ok(Piece::End) };
        let (token, span) = token?;
        let (kind, body) = match token {
            Token::Text(text) | Token::Raw(text) => return Ok(Piece::Node(Node::Text(text))),
            Token::Tag(kind, body) => (kind, body),
        };
        if kind == TagKind::Print {
            let (_, e) = self.grammar.full_expr(body).map_err(|e| self.error(e, body))?;
            return Ok(Piece::Node(Node::Print(e)));
        }
        let (_, stmt) = self.grammar.statement(body).map_err(|e| self.error(e, body))?;
        Ok(Piece::Tag(Box::new((stmt, span))))
    }

    /// A statement's node, parsing its body when it opens a block.
    // Boxed on purpose: unboxed, the statement would take room in the
    // frame of `body`, which is on the stack once per nesting level.
    #[allow(clippy::boxed_local)]
    fn block(&mut self, tag: Tag<'a>, ends: &[&str]) -> Result<Node<'a>, Error> {
        let (stmt, span) = *tag;
        let source = self.grammar.source;
        let tag = &source[span.start()..span.end()];
        self.grammar.enter(tag).map_err(|e| self.error(e, tag))?;
        let node = match stmt {
            Stmt::If(cond) => {
                let (branches, otherwise) = self.branches(cond, "if", "endif", span)?;
                Node::If { branches, otherwise }
            }
            Stmt::Chance(p) => {
                let (branches, otherwise) = self.branches(p, "chance", "endchance", span)?;
                Node::Chance { branches, otherwise }
            }
            Stmt::Set(target, value) => Node::Set { target, value, span },
            stmt @ (Stmt::Macro(..) | Stmt::Call(..)) => self.macro_block(stmt, span)?,
            Stmt::Weighted => self.weighted(span)?,
            Stmt::Effect(kind, value) => Node::Effect { kind, value: Box::new(value), span },
            Stmt::Choice(_) => {
                return Err(self.syntax_error("`choice` outside a `weighted` block".into(), span));
            }
            Stmt::Elif(_) | Stmt::Else | Stmt::End(_) | Stmt::EndBlock(_) => {
                return Err(self.stray(stmt.word(), span, ends));
            }
            stmt => self.scoped_block(stmt, span)?,
        };
        self.grammar.leave(1);
        Ok(node)
    }

    /// A macro's or a `call` block's body: outside the loops around it;
    /// whether it reads `caller` (a `call` body's reads count for the macro
    /// it is written in too). Apart from [`Self::block`], whose frame is on
    /// the native stack once per nesting level and so stays small.
    #[inline(never)]
    fn macro_block(&mut self, stmt: Stmt<'a>, span: Span) -> Result<Node<'a>, Error> {
        let callers = self.grammar.callers.get();
        let loops = std::mem::take(&mut self.loops);
        let macro_def = matches!(stmt, Stmt::Macro(..));
        let (end, opener) = if macro_def { ("endmacro", "macro") } else { ("endcall", "call") };
        // Left as it is on an error: the parse stops there.
        self.in_macro += 1;
        let (body, _) = self.closed_body(&[end], opener, span)?;
        self.in_macro -= 1;
        self.loops = loops;
        let caller = self.grammar.callers.get() > callers;
        Ok(match stmt {
            Stmt::Macro(name, params, catch) => {
                let name = self.grammar.intern(name);
                Node::Macro(Box::new(MacroDef { name, params, catch, body, caller }))
            }
            Stmt::Call(params, catch, call) => {
                let call = *call;
                Node::CallBlock(Box::new(CallBlock { params, catch, call, body, caller, span }))
            }
            _ => return Err(self.syntax_error("internal error: not a macro".into(), span)),
        })
    }

    /// `include`, `import`, `from`, `extends`, `block`: apart from
    /// [`Self::block`] and [`Self::scoped_block`], whose frames are on the
    /// native stack once per nesting level and so stay small.
    #[inline(never)]
    fn composition(&mut self, stmt: Stmt<'a>, span: Span) -> Result<Node<'a>, Error> {
        Ok(match stmt {
            Stmt::Include { names, ignore_missing, with_context } => {
                Node::Include(Box::new(Include { names, ignore_missing, with_context, span }))
            }
            Stmt::Import { template, binds, with_context } => {
                Node::Import(Box::new(Import { template, binds, with_context, span }))
            }
            Stmt::Extends(name) => Node::Extends { name: Box::new(name), span },
            Stmt::Block { .. } if self.in_macro > 0 => {
                return Err(self.syntax_error("a `block` cannot be inside a macro".into(), span));
            }
            Stmt::Block { name, scoped, required } => {
                // A block's body is rendered on its own (by a parent
                // through `extends`, by `self.name()`), outside the loops
                // written around it: `break` and `continue` need a `for`
                // inside the block, as in Jinja2.
                let loops = std::mem::take(&mut self.loops);
                let (body, closing) = self.closed_body(&["endblock"], "block", span)?;
                self.loops = loops;
                if let Stmt::EndBlock(Some(end)) = closing
                    && end != name
                {
                    return Err(
                        self.syntax_error(format!("`endblock {end}` closes block `{name}`"), span)
                    );
                }
                if required
                    && body.iter().any(|n| !matches!(n, Node::Text(t) if t.trim().is_empty()))
                {
                    return Err(self.syntax_error(
                        format!("required block `{name}` may hold only whitespace and comments"),
                        span,
                    ));
                }
                Node::Block(Box::new(BlockDef { name, body, scoped, required, span }))
            }
            stmt => return Err(self.stray(stmt.word(), span, &[])),
        })
    }

    /// `for`, `set` blocks, `with`, `filter`, `autoescape`, `call`,
    /// `break`, `continue`, `do`: apart from [`Self::block`], whose frame is on the
    /// native stack once per nesting level and so stays small.
    #[inline(never)]
    fn scoped_block(&mut self, stmt: Stmt<'a>, span: Span) -> Result<Node<'a>, Error> {
        Ok(match stmt {
            Stmt::For { pattern, iterable, filter, recursive } => {
                self.loops += 1;
                let (body, closing) = self.closed_body(&["else", "endfor"], "for", span)?;
                self.loops -= 1;
                let otherwise = match closing {
                    Stmt::Else => self.closed_body(&["endfor"], "for", span)?.0,
                    _ => Vec::new(),
                };
                let mut targets = Vec::new();
                pattern.names(&mut targets);
                let l = ForLoop {
                    targets,
                    pattern,
                    iterable,
                    filter,
                    recursive,
                    body,
                    otherwise,
                    span,
                };
                Node::For(Box::new(l))
            }
            Stmt::SetBlock(target, filters) => {
                let (body, _) = self.closed_body(&["endset"], "set", span)?;
                Node::SetBlock(Box::new(SetBlock { target: *target, filters, body, span }))
            }
            Stmt::Control(control) if self.loops == 0 => {
                let word = if control == Control::Break { "break" } else { "continue" };
                return Err(self.syntax_error(
                    format!(
                        "`{word}` outside a `for` loop (a macro or block body is outside the loops around it)"
                    ),
                    span,
                ));
            }
            Stmt::Control(control) => Node::Control(control, span),
            Stmt::With(bindings) => {
                let (body, _) = self.closed_body(&["endwith"], "with", span)?;
                with_block(bindings, body, span)
            }
            Stmt::Do(e) => Node::Do(e),
            Stmt::Generation => {
                let (body, _) = self.closed_body(&["endgeneration"], "generation", span)?;
                Node::Generation(body, span)
            }
            Stmt::Filter(filters) => {
                let (body, _) = self.closed_body(&["endfilter"], "filter", span)?;
                Node::FilterBlock(Box::new(FilterBlock { filters, body, span }))
            }
            Stmt::Autoescape(on) => {
                let (body, _) = self.closed_body(&["endautoescape"], "autoescape", span)?;
                Node::Autoescape { on, body }
            }
            stmt => self.composition(stmt, span)?,
        })
    }

    /// The bodies of `if` or `chance` (`opener`): one per `elif`, then the
    /// `else` body (empty without `else`), up to `end`.
    fn branches(
        &mut self,
        first: Expr<'a>,
        opener: &str,
        end: &'static str,
        open: Span,
    ) -> Result<Branches<'a>, Error> {
        let mut branches = Vec::new();
        let mut head = first;
        loop {
            let (body, closing) = self.closed_body(&["elif", "else", end], opener, open)?;
            branches.push((head, body));
            match closing {
                Stmt::Elif(next) => head = next,
                Stmt::Else => {
                    let (otherwise, _) = self.closed_body(&[end], opener, open)?;
                    return Ok((branches, otherwise));
                }
                _ => return Ok((branches, Vec::new())),
            }
        }
    }

    /// A block body that must end with one of `ends`; an unclosed block is
    /// reported at its opening tag.
    fn closed_body(
        &mut self,
        ends: &[&str],
        opener: &str,
        open: Span,
    ) -> Result<(Vec<Node<'a>>, Stmt<'a>), Error> {
        match self.body(ends)? {
            (nodes, Some(tag)) => Ok((nodes, tag.0)),
            (_, None) => Err(self.unclosed(opener, open, ends)),
        }
    }

    fn unclosed(&self, opener: &str, open: Span, ends: &[&str]) -> Error {
        let expected = ends.last().copied().unwrap_or("end");
        self.syntax_error(
            format!(
                "unclosed block: this `{opener}` has no `[% {expected} %]` (expected `{expected}`)"
            ),
            open,
        )
    }

    /// An end, `elif` or `else` tag that does not close the current block.
    fn stray(&self, word: &str, span: Span, ends: &[&str]) -> Error {
        let message = match ends.last() {
            Some(expected) => format!("unexpected `{word}`: the open block expects `{expected}`"),
            None if word == "endchoice" => "`endchoice` outside a `weighted` block".into(),
            None => format!("stray `{word}`: no block is open that it could close"),
        };
        self.syntax_error(message, span)
    }

    /// `weighted`: only `choice` blocks, comments and whitespace inside.
    fn weighted(&mut self, open: Span) -> Result<Node<'a>, Error> {
        let mut choices = Vec::new();
        while let Some(token) = self.lexer.next() {
            let (token, span) = token?;
            match token {
                Token::Text(text) if text.trim().is_empty() => continue,
                Token::Tag(TagKind::Statement, body) => {
                    let (_, stmt) =
                        self.grammar.statement(body).map_err(|e| self.error(e, body))?;
                    match stmt {
                        Stmt::Choice(weight) => {
                            let (body, _) = self.closed_body(&["endchoice"], "choice", span)?;
                            choices.push((weight, body));
                        }
                        Stmt::End("endweighted") => return Ok(Node::Weighted { choices }),
                        _ => {
                            return Err(self.syntax_error(
                                format!("`{}` directly inside `weighted`: only `choice` blocks may appear there", stmt.word()),
                                span,
                            ));
                        }
                    }
                }
                _ => {
                    return Err(self.syntax_error(
                        "content directly inside `weighted` must be inside a `choice` block".into(),
                        span,
                    ));
                }
            }
        }
        Err(self.unclosed("weighted", open, &["endweighted"]))
    }
}

/// A `with` block's node: each name once in the frame, where first bound (a
/// later binding of it replaces its value). Apart from the parser's
/// recursion, so its locals take no room there.
#[inline(never)]
fn with_block<'a>(
    bindings: Vec<(Pattern<'a>, Expr<'a>)>,
    body: Vec<Node<'a>>,
    span: Span,
) -> Node<'a> {
    let mut all = Vec::new();
    bindings.iter().for_each(|(p, _)| p.names(&mut all));
    let mut seen = HashSet::new();
    let names = all.into_iter().filter(|n| seen.insert(*n)).collect();
    Node::With(Box::new(WithBlock { names, bindings, body, span }))
}

/// The filter after a Jinja-style `|` that a parse stopped at (`| upper`:
/// `upper`; a bare `|`: `upper`, the example), or `None` when the parse
/// stopped elsewhere (`||` is no filter either).
fn jinja_filter(at: &str) -> Option<&str> {
    let rest = at.strip_prefix('|').filter(|rest| !rest.starts_with('|'))?;
    let rest = rest.trim_start();
    let end = rest.find(|c: char| !(c == '_' || c.is_alphanumeric())).unwrap_or(rest.len());
    Some(if end == 0 { "upper" } else { &rest[..end] })
}
