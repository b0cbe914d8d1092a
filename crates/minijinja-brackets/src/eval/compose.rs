//! Composition: `include`, `import`/`from`, `extends`, `block`, `super()`
//! and `self.<block>()`.
//!
//! Every template a render loads is kept in an arena for the render, so
//! its syntax tree is borrowed for as long as the main one's. Each run of
//! a template's top level gets a [`Table`] of the macros and imports it
//! defines; the code running now reads its own table, then (with context)
//! the tables of the templates that included it. All templates share the
//! renderer's stores, write log, effects, fuel and memory: composition
//! adds no state of its own that a render could leak.
//!
//! The active chain (main template, then each template entered by an
//! `include`, `import` or `extends` still running) bounds nesting
//! ([`Limits::composition_depth`](crate::Limits::composition_depth)) and
//! finds cycles when the statement runs.

use std::collections::HashMap;
use std::sync::Arc;

use prompt_core::diagnostic::Origin;

use super::scope::Frame;
use super::{ENTRY, Renderer};
use crate::arguments::NameIndex;
use crate::error::{Error, ErrorKind, LoadSite, LoadStatement};
use crate::provenance::Mark;
use crate::span::Span;
use crate::syntax::ast::{
    BlockDef, CallArgs, Expr, ExprKind, Import, ImportBinds, Include, MacroDef, Name, Node,
};
use crate::unit::Compiled;
use crate::value::{Map, Module, Repr, Value, ValueMap};

/// Where a render keeps the templates it loads.
pub(crate) type Arena = typed_arena::Arena<Arc<Compiled>>;

/// A macro and the table its body reads names from.
#[derive(Debug, Clone, Copy)]
pub(crate) struct MacroRef<'t> {
    pub(crate) def: &'t MacroDef<'t>,
    pub(crate) table: usize,
}

/// One run of a template's top level: what it defines.
pub(crate) struct Table<'t> {
    unit: &'t Compiled,
    /// By the unit's name numbers; empty until a macro is defined.
    macros: Vec<Option<MacroRef<'t>>>,
    /// `import ... as alias`: the alias's number and the module's table.
    modules: Vec<(u32, usize)>,
    /// An imported template's top-level variables, recorded as its top
    /// level `set`s them (`None`: not recorded, not an import), and how many
    /// frames are below its top level.
    pub(super) vars: Option<(ValueMap, usize)>,
    /// An import's module: what its top level printed, then, once the
    /// module is first used as a value, that value (built on demand: most
    /// imports are only reached through `m.macro(...)`).
    module: Option<(Value, Option<Value>)>,
    /// The table whose macros and imports are visible from here (the
    /// includer's, `with context`).
    parent: Option<usize>,
    /// Set by `extends`: the parent and where the discarded output starts.
    extends: Option<(&'t Compiled, Mark, Span)>,
    /// This template's own blocks, found when `self.<block>()` first asks.
    own_blocks: Option<HashMap<&'t str, &'t BlockDef<'t>>>,
}

impl<'t> Table<'t> {
    pub(crate) fn new(unit: &'t Compiled, parent: Option<usize>) -> Table<'t> {
        Table {
            unit,
            macros: Vec::new(),
            modules: Vec::new(),
            vars: None,
            module: None,
            parent,
            extends: None,
            own_blocks: None,
        }
    }

    fn macro_named(&self, name: &str) -> Option<MacroRef<'t>> {
        let id = *self.unit.tree().names.get(name)?;
        self.macros.get(id as usize).copied().flatten()
    }

    fn module_named(&self, name: &str) -> Option<usize> {
        let id = *self.unit.tree().names.get(name)?;
        self.module_by_id(id)
    }

    fn module_by_id(&self, id: u32) -> Option<usize> {
        self.modules.iter().find(|(m, _)| *m == id).map(|&(_, t)| t)
    }
}

/// A block being rendered, for `super()`.
#[derive(Clone, Copy)]
struct BlockFrame<'t> {
    name: &'t str,
    /// Which of the block's definitions (most derived first).
    level: usize,
    /// The definition in the template where the block statement ran.
    own: Option<(&'t BlockDef<'t>, usize)>,
}

/// The render's composition state.
pub(crate) struct Composition<'t> {
    arena: &'t Arena,
    /// What this render loaded, by name.
    loaded: HashMap<Arc<str>, &'t Compiled>,
    /// The active chain's names (`None` for an unnamed main template).
    chain: Vec<Option<&'t str>>,
    /// Overrides from the templates extending the one running, most
    /// derived first, with the table each runs in.
    blocks: HashMap<&'t str, Vec<(&'t BlockDef<'t>, usize)>>,
    block_stack: Vec<BlockFrame<'t>>,
}

impl<'t> Composition<'t> {
    pub(crate) fn new(arena: &'t Arena, main: &'t Compiled) -> Composition<'t> {
        Composition {
            arena,
            loaded: HashMap::new(),
            chain: vec![main.name.as_deref()],
            blocks: HashMap::new(),
            block_stack: Vec::new(),
        }
    }
}

/// The blocks anywhere in `nodes` (nested ones too), by name.
fn collect_blocks<'t>(nodes: &'t [Node<'t>]) -> HashMap<&'t str, &'t BlockDef<'t>> {
    let mut found = HashMap::new();
    let mut todo: Vec<&'t [Node<'t>]> = vec![nodes];
    while let Some(nodes) = todo.pop() {
        for node in nodes {
            match node {
                Node::Block(def) => {
                    found.insert(def.name, &**def);
                    todo.push(&def.body);
                }
                Node::If { branches, otherwise } | Node::Chance { branches, otherwise } => {
                    todo.extend(branches.iter().map(|(_, body)| body.as_slice()));
                    todo.push(otherwise);
                }
                Node::Weighted { choices } => {
                    todo.extend(choices.iter().map(|(_, body)| body.as_slice()));
                }
                Node::For(l) => {
                    todo.push(&l.body);
                    todo.push(&l.otherwise);
                }
                Node::SetBlock(block) => todo.push(&block.body),
                Node::With(block) => todo.push(&block.body),
                Node::FilterBlock(block) => todo.push(&block.body),
                Node::Autoescape { body, .. } | Node::Generation(body, _) => todo.push(body),
                Node::Macro(def) => todo.push(&def.body),
                Node::CallBlock(block) => todo.push(&block.body),
                Node::Text(_)
                | Node::Print(_)
                | Node::Set { .. }
                | Node::Effect { .. }
                | Node::Include(_)
                | Node::Import(_)
                | Node::Extends { .. }
                | Node::Control(..)
                | Node::Do(_) => {}
            }
        }
    }
    found
}

/// Hides the loop variables and macro parameters around it.
fn barrier<'t>() -> Frame<'t> {
    Frame::Macro(Vec::new(), NameIndex::of(std::iter::empty()))
}

impl<'t> Renderer<'t> {
    /// Makes table `table` (and its template) the one code runs in; returns
    /// the one that ran before.
    pub(super) fn switch_table(&mut self, table: usize) -> usize {
        let before = self.table;
        let unit = self.tables[table].unit;
        self.table = table;
        self.unit = unit;
        self.source = unit.source();
        self.resolved = &unit.resolved;
        self.names = &unit.tree().names;
        before
    }

    /// Runs table `table`'s template from the top, then its parent when it
    /// ran `extends`.
    pub(super) fn exec_root(&mut self, table: usize) -> Result<(), Error> {
        let before = self.switch_table(table);
        let done = self.run_root(table);
        self.switch_table(before);
        done
    }

    fn run_root(&mut self, table: usize) -> Result<(), Error> {
        let unit = self.tables[table].unit;
        self.exec(&unit.tree().body)?;
        let Some((parent, mark, span)) = self.tables[table].extends.take() else { return Ok(()) };
        // After `extends`, the child's output is discarded; its blocks
        // are rendered where the parent puts them.
        self.out.discard_from(mark);
        for (name, def) in collect_blocks(&unit.tree().body) {
            self.compose.blocks.entry(name).or_default().push((def, table));
        }
        self.enter(parent, span)?;
        let inherited = self.tables[table].parent;
        let parent_table = self.push_table(parent, inherited, span)?;
        let done = self.exec_root(parent_table);
        self.compose.chain.pop();
        done.map_err(|e| e.loaded_from(self.load_site(LoadStatement::Extends, span)))
    }

    /// A new table for a run of `unit`'s top level.
    fn push_table(
        &mut self,
        unit: &'t Compiled,
        parent: Option<usize>,
        span: Span,
    ) -> Result<usize, Error> {
        self.charge(ENTRY, span)?;
        self.tables.push(Table::new(unit, parent));
        Ok(self.tables.len() - 1)
    }

    /// The statement at `span` of the running template, for an error from
    /// the template it loaded. Made only on the error path: finding a line
    /// and column scans the text up to the statement.
    fn load_site(&self, statement: LoadStatement, span: Span) -> LoadSite {
        let template = match &self.unit.name {
            Some(name) => Origin::Named(name.to_string()),
            None => Origin::Input,
        };
        LoadSite::new(statement, template, self.source, span.into())
    }

    /// Defines `name` in the running table.
    pub(super) fn define_macro(
        &mut self,
        name: Name<'t>,
        def: MacroRef<'t>,
        span: Span,
    ) -> Result<(), Error> {
        if self.tables[self.table].macros.is_empty() {
            let slots = self.names.len();
            self.charge(slots.saturating_mul(size_of::<Option<MacroRef<'_>>>()), span)?;
            self.tables[self.table].macros = vec![None; slots];
        }
        if let Some(slot) = self.tables[self.table].macros.get_mut(name.id as usize) {
            *slot = Some(def);
        }
        Ok(())
    }

    /// The macro `name` visible from the running code: the running table's,
    /// then those of the templates that included it with context.
    #[inline]
    pub(super) fn macro_in_scope(&self, name: Name<'t>) -> Option<MacroRef<'t>> {
        let here = &self.tables[self.table];
        if let Some(found) = here.macros.get(name.id as usize).copied().flatten() {
            return Some(found);
        }
        self.outer_tables().find_map(|t| t.macro_named(name.text))
    }

    /// The tables visible from the running one, innermost first, without it.
    fn outer_tables(&self) -> impl Iterator<Item = &Table<'t>> {
        let mut next = self.tables[self.table].parent;
        std::iter::from_fn(move || {
            let table = &self.tables[next?];
            next = table.parent;
            Some(table)
        })
    }

    /// The module imported as `name`, if no loop variable or parameter
    /// hides it.
    /// Inlined: every read of a state variable asks, and most renders
    /// import nothing.
    #[inline(always)]
    pub(super) fn module(&self, name: Name<'t>) -> Option<usize> {
        let here = &self.tables[self.table];
        if here.modules.is_empty() && here.parent.is_none() {
            return None;
        }
        self.imported_module(name)
    }

    fn imported_module(&self, name: Name<'t>) -> Option<usize> {
        if self.frames_bind(name.text) {
            return None;
        }
        let here = &self.tables[self.table];
        here.module_by_id(name.id)
            .or_else(|| self.outer_tables().find_map(|t| t.module_named(name.text)))
    }

    fn frames_bind(&self, name: &str) -> bool {
        for frame in self.frames.iter().rev() {
            if frame.binding(name).is_some() {
                return true;
            }
            if let Frame::Macro(..) = frame {
                break;
            }
        }
        false
    }

    /// Loads `name` (once per render), under the name rule.
    fn load(&mut self, name: &str, span: Span) -> Result<&'t Compiled, Error> {
        if let Some(&unit) = self.compose.loaded.get(name) {
            return Ok(unit);
        }
        let compiled = crate::resolve::load(self.env, name).map_err(self.locate(span))?;
        let key = compiled.name.clone().unwrap_or_else(|| Arc::from(name));
        let unit: &'t Compiled = self.compose.arena.alloc(compiled);
        self.compose.loaded.insert(key, unit);
        Ok(unit)
    }

    /// Puts `unit` on the active chain: a `composition_limit` error past
    /// the depth, a `template_cycle` error when it is already on it.
    fn enter(&mut self, unit: &'t Compiled, span: Span) -> Result<(), Error> {
        let name = unit.display_name();
        if self.compose.chain.contains(&unit.name.as_deref()) {
            let mut shown: Vec<&str> =
                self.compose.chain.iter().map(|n| n.unwrap_or("main")).collect();
            shown.push(name);
            let chain = shown.join(" → ");
            return Err(self.error(
                ErrorKind::TemplateCycle,
                format!("template {name:?} is already being rendered: {chain}"),
                span,
            ));
        }
        let limit = self.limits.composition_depth;
        if self.compose.chain.len() > limit {
            return Err(self.error(
                ErrorKind::CompositionLimit,
                format!(
                    "templates nest deeper than the limit of {limit} levels \
                     (include, import and extends together)"
                ),
                span,
            ));
        }
        self.compose.chain.push(unit.name.as_deref());
        Ok(())
    }

    /// A template name from a value: a string.
    fn template_name<'v>(&self, value: &'v Value, span: Span) -> Result<&'v str, Error> {
        value.as_str().ok_or_else(|| {
            self.error(
                ErrorKind::InvalidOperation,
                format!("a template name must be a string, not {}", super::describe(value)),
                span,
            )
        })
    }

    /// Runs `unit` from the top in a table of its own: `with_context`, it
    /// sees the running code's bindings and macros. The block overrides
    /// of the running template do not reach it.
    /// Errors from inside it get the statement's [`LoadSite`]. An import
    /// (`record`) keeps the variables its top level sets (see
    /// [`Table::vars`]).
    fn run_loaded(
        &mut self,
        unit: &'t Compiled,
        with_context: bool,
        record: bool,
        span: Span,
        statement: LoadStatement,
    ) -> Result<usize, Error> {
        self.enter(unit, span)?;
        let parent = with_context.then_some(self.table);
        let table = self.push_table(unit, parent, span)?;
        let blocks = std::mem::take(&mut self.compose.blocks);
        let block_stack = std::mem::take(&mut self.compose.block_stack);
        if !with_context {
            self.frames.push(barrier());
        }
        if record {
            self.tables[table].vars = Some((ValueMap::new(), self.frames.len()));
        }
        let done = self.exec_root(table);
        if !with_context {
            self.frames.pop();
        }
        self.compose.blocks = blocks;
        self.compose.block_stack = block_stack;
        self.compose.chain.pop();
        done.map(|()| table).map_err(|e| e.loaded_from(self.load_site(statement, span)))
    }

    /// `include`: the first of the names that exists, rendered here.
    pub(super) fn exec_include(&mut self, include: &'t Include<'t>) -> Result<(), Error> {
        let span = include.span;
        self.spend(1, span)?;
        let value = self.eval(&include.names)?;
        let names: Vec<&str> = match value.as_list() {
            Some(list) => {
                let mut names = Vec::with_capacity(list.len());
                for item in list.iter() {
                    names.push(self.template_name(item, include.names.span)?);
                }
                names
            }
            None => vec![self.template_name(&value, include.names.span)?],
        };
        let mut found = None;
        let mut missing = None;
        for name in &names {
            match self.load(name, span) {
                Ok(unit) => {
                    found = Some(unit);
                    break;
                }
                Err(e) if e.kind() == ErrorKind::TemplateNotFound => missing = Some(e),
                Err(e) => return Err(e),
            }
        }
        let Some(unit) = found else {
            if include.ignore_missing {
                return Ok(());
            }
            return Err(match (names.as_slice(), missing) {
                ([_], Some(missing)) => missing,
                (all, _) => self.error(
                    ErrorKind::TemplateNotFound,
                    format!("none of the templates {all:?} was found"),
                    span,
                ),
            });
        };
        let table =
            self.run_loaded(unit, include.with_context, false, span, LoadStatement::Include)?;
        if include.with_context {
            self.export_macros(table, span)?;
        }
        Ok(())
    }

    /// The macros an included template defined at its top level, defined
    /// in the running table too (minijinja's behaviour: an include with
    /// context defines them where it runs).
    fn export_macros(&mut self, from: usize, span: Span) -> Result<(), Error> {
        for (text, found) in self.defined_macros(from) {
            // Only names the running template writes can reach them.
            if let Some(&id) = self.names.get(text) {
                self.define_macro(Name { text, id }, found, span)?;
            }
        }
        Ok(())
    }

    /// The macros table `table` defined, with their names.
    fn defined_macros(&self, table: usize) -> Vec<(&'t str, MacroRef<'t>)> {
        let table = &self.tables[table];
        let names = &table.unit.tree().names;
        names
            .iter()
            .filter_map(|(&text, &id)| {
                Some((text, table.macros.get(id as usize).copied().flatten()?))
            })
            .collect()
    }

    /// `import name as m` and `from name import a as b`: the template's top
    /// level runs (its output is discarded, its writes and effects count),
    /// then its macros are bound here.
    pub(super) fn exec_import(&mut self, import: &'t Import<'t>) -> Result<(), Error> {
        let span = import.span;
        self.spend(1, span)?;
        let value = self.eval(&import.template)?;
        let name = self.template_name(&value, import.template.span)?;
        let unit = self.load(name, span)?;
        let mark = self.out.mark();
        let record = matches!(import.binds, ImportBinds::Module(_));
        let done = self.run_loaded(unit, import.with_context, record, span, LoadStatement::Import);
        if done.is_err() || !record {
            self.out.discard_from(mark);
        }
        let module = done?;
        match &import.binds {
            ImportBinds::Module(alias) => {
                // What its top level printed is what the module prints.
                let output = self.take_capture(mark, span)?;
                self.tables[module].module = Some((output, None));
                let modules = &mut self.tables[self.table].modules;
                modules.retain(|(id, _)| *id != alias.id);
                modules.push((alias.id, module));
            }
            ImportBinds::Macros(names) => {
                // A name that is no macro binds nothing: what the template's
                // top level `set` is in the shared state store already.
                for (name, alias, at) in names {
                    if let Some(found) = self.tables[module].macro_named(name) {
                        self.define_macro(*alias, found, *at)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// `extends`: remembered; the parent runs when this template's top level
    /// has run (see [`Renderer::exec_root`]).
    pub(super) fn exec_extends(&mut self, name: &'t Expr<'t>, span: Span) -> Result<(), Error> {
        self.spend(1, span)?;
        if self.tables[self.table].extends.is_some() {
            return Err(self.error(
                ErrorKind::InvalidOperation,
                "this template already extends another one",
                span,
            ));
        }
        let value = self.eval(name)?;
        let parent = self.template_name(&value, name.span)?;
        let parent = self.load(parent, span)?;
        let mark = self.out.mark();
        self.tables[self.table].extends = Some((parent, mark, span));
        Ok(())
    }

    /// A `block` statement: the most derived definition of the block,
    /// unless this template extends another (the parent places it).
    pub(super) fn exec_block_node(&mut self, def: &'t BlockDef<'t>) -> Result<(), Error> {
        if self.tables[self.table].extends.is_some() {
            return Ok(());
        }
        self.spend(1, def.span)?;
        let own = Some((def, self.table));
        self.render_block(BlockFrame { name: def.name, level: 0, own }, def.span)
    }

    /// The definition of a block at a level: the overrides, most derived
    /// first, then the one where the block statement is.
    fn block_at(&self, frame: BlockFrame<'t>) -> Option<(&'t BlockDef<'t>, usize)> {
        let overrides = self.compose.blocks.get(frame.name).map_or(&[][..], |v| v.as_slice());
        overrides.iter().copied().chain(frame.own).nth(frame.level)
    }

    fn render_block(&mut self, frame: BlockFrame<'t>, span: Span) -> Result<(), Error> {
        let Some((def, table)) = self.block_at(frame) else {
            return Err(self.error(
                ErrorKind::InvalidOperation,
                format!("block `{}` has no parent block for `super()`", frame.name),
                span,
            ));
        };
        // Only a block nothing overrides may be required (minijinja's rule:
        // an intermediate template's required block is an override).
        let definitions = self.compose.blocks.get(frame.name).map_or(0, Vec::len)
            + usize::from(frame.own.is_some());
        if def.required && definitions == 1 {
            let message = format!(
                "block `{}` is required: a template extending {:?} must override it",
                def.name,
                self.tables[table].unit.display_name()
            );
            return Err(self.error(ErrorKind::InvalidOperation, message, span));
        }
        // A block calling itself (`self.x()`, `super()`) nests like a macro.
        if self.macro_depth >= self.limits.recursion_limit {
            return Err(self.error(
                ErrorKind::RecursionLimit,
                format!(
                    "block `{}` nests deeper than the recursion limit of {} calls",
                    def.name, self.limits.recursion_limit
                ),
                span,
            ));
        }
        // As in minijinja, every block sees the bindings around the block
        // statement (`scoped` is accepted and changes nothing).
        self.macro_depth += 1;
        self.compose.block_stack.push(frame);
        let before = self.switch_table(table);
        let done = self.exec_block(&def.body, def.span);
        self.switch_table(before);
        self.compose.block_stack.pop();
        self.macro_depth -= 1;
        done
    }

    /// `super()`, `self.name()` and `module.macro(...)`: `None` when the
    /// call is none of these.
    pub(super) fn composed_call(
        &mut self,
        callee: &'t Expr<'t>,
        args: &'t CallArgs<'t>,
        span: Span,
    ) -> Result<Option<Value>, Error> {
        match &callee.kind {
            ExprKind::Name(name) if name.text == "super" && !self.frames_bind("super") => {
                let Some(&current) = self.compose.block_stack.last() else {
                    return Err(self.error(
                        ErrorKind::InvalidOperation,
                        "`super()` is only valid inside a block",
                        callee.span,
                    ));
                };
                self.no_arguments(args, "super()", span)?;
                let frame = BlockFrame { level: current.level + 1, ..current };
                self.block_output(frame, span).map(Some)
            }
            ExprKind::Attr(base, block) if matches!(base.kind, ExprKind::Name(n) if n.text == "self") =>
            {
                if self.frames_bind("self") {
                    return Ok(None);
                }
                self.no_arguments(args, "a block call", span)?;
                if self.tables[self.table].own_blocks.is_none() {
                    let own = collect_blocks(&self.unit.tree().body);
                    self.tables[self.table].own_blocks = Some(own);
                }
                let own = self.tables[self.table].own_blocks.as_ref().and_then(|b| b.get(block));
                let own = own.map(|&def| (def, self.table));
                let frame = BlockFrame { name: block, level: 0, own };
                if self.block_at(frame).is_none() {
                    return Err(self.error(
                        ErrorKind::InvalidOperation,
                        format!("`self.{block}()`: this template has no block `{block}`"),
                        callee.span,
                    ));
                }
                self.block_output(frame, span).map(Some)
            }
            ExprKind::Attr(base, name) => {
                let ExprKind::Name(module) = base.kind else { return Ok(None) };
                let Some(table) = self.module(module) else { return Ok(None) };
                let Some(found) = self.tables[table].macro_named(name) else {
                    let unit = self.tables[table].unit.display_name();
                    return Err(self.error(
                        ErrorKind::UnknownFunction,
                        format!("`{module}.{name}()`: template {unit:?} defines no macro `{name}`"),
                        callee.span,
                    ));
                };
                let args = self.eval_args(args)?;
                self.call_macro(found, args, span).map(Some)
            }
            _ => Ok(None),
        }
    }

    fn no_arguments(&self, args: &CallArgs<'_>, what: &str, span: Span) -> Result<(), Error> {
        if args.positional.is_empty() && args.keywords.is_empty() {
            return Ok(());
        }
        Err(self.error(ErrorKind::BadArguments, format!("{what} takes no arguments"), span))
    }

    /// A block rendered into a value of its own, with its provenance.
    fn block_output(&mut self, frame: BlockFrame<'t>, span: Span) -> Result<Value, Error> {
        let mark = self.out.mark();
        self.render_block(frame, span)?;
        self.take_capture(mark, span)
    }

    /// The module imported as `name`, as a value.
    pub(super) fn module_value(
        &mut self,
        name: Name<'t>,
        span: Span,
    ) -> Result<Option<Value>, Error> {
        let Some(table) = self.module(name) else { return Ok(None) };
        let Some((output, built)) = &self.tables[table].module else { return Ok(None) };
        if let Some(value) = built {
            return Ok(Some(value.clone()));
        }
        let output = output.clone();
        let value = self.module_of(table, output, span)?;
        if let Some((_, built)) = &mut self.tables[table].module {
            *built = Some(value.clone());
        }
        Ok(Some(value))
    }

    /// Records a top-level `set` of an imported template: the module's
    /// variable `name` (`m.name`, `dict(m)`).
    pub(super) fn record_var(
        &mut self,
        name: &str,
        value: &Value,
        span: Span,
    ) -> Result<(), Error> {
        let depth = self.frames.len();
        let Some((vars, root)) = &mut self.tables[self.table].vars else { return Ok(()) };
        if *root != depth {
            return Ok(());
        }
        if let Some(slot) = vars.get_mut(name) {
            *slot = value.clone();
            return Ok(());
        }
        vars.insert(Arc::from(name), value.clone());
        self.charge(ENTRY + name.len(), span)
    }

    /// The module value of an import that ran in table `table`: its
    /// top-level macros and variables, by name in sorted order (as
    /// minijinja's module lists them), and what its top level printed.
    fn module_of(&mut self, table: usize, output: Value, span: Span) -> Result<Value, Error> {
        let mut entries = self.tables[table].vars.take().map(|(vars, _)| vars).unwrap_or_default();
        for (text, found) in self.defined_macros(table) {
            let value = self.macro_value(found, span)?;
            entries.insert(Arc::from(text), value);
        }
        entries.sort_unstable_keys();
        self.charge(2 * crate::value::SLOT * entries.len() + ENTRY, span)?;
        let exports = Arc::new(Map::new(entries));
        Ok(Value(Repr::Module(Arc::new(Module { exports, output }))))
    }
}
