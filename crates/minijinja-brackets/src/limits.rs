//! Resource limits that keep hostile templates from hanging, overflowing
//! the stack or exhausting memory.

/// The limits a compile and a render run under. Every field has a safe
/// default; change them with the `with_*` methods.
///
/// ```
/// use minijinja_brackets::Limits;
///
/// let limits = Limits::default().with_fuel(Some(10_000)).with_output_limit(64 * 1024);
/// assert_eq!(limits.fuel(), Some(10_000));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    pub(crate) nesting_limit: usize,
    pub(crate) recursion_limit: usize,
    pub(crate) fuel: Option<u64>,
    pub(crate) output_limit: usize,
    pub(crate) string_limit: usize,
    pub(crate) range_limit: usize,
    pub(crate) memory_limit: usize,
    pub(crate) stack_limit: usize,
    pub(crate) composition_depth: usize,
    pub(crate) template_bytes: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            nesting_limit: 100,
            recursion_limit: 100,
            fuel: Some(1_000_000),
            output_limit: 16 << 20,
            string_limit: 16 << 20,
            range_limit: 100_000,
            memory_limit: 128 << 20,
            stack_limit: 1 << 20,
            composition_depth: 32,
            template_bytes: 16 << 20,
        }
    }
}

impl Limits {
    /// How deeply expressions, operator chains and blocks may nest (default
    /// 100). Deeper templates are a `syntax_error` at compile time.
    pub fn nesting_limit(&self) -> usize {
        self.nesting_limit
    }

    /// Sets [`Limits::nesting_limit`].
    pub fn with_nesting_limit(mut self, limit: usize) -> Limits {
        self.nesting_limit = limit;
        self
    }

    /// How deeply macro calls may nest (default 100); deeper is a
    /// `recursion_limit` error.
    pub fn recursion_limit(&self) -> usize {
        self.recursion_limit
    }

    /// Sets [`Limits::recursion_limit`].
    pub fn with_recursion_limit(mut self, limit: usize) -> Limits {
        self.recursion_limit = limit;
        self
    }

    /// The evaluation steps a render may take (default one million; `None`
    /// for no limit). Each statement, expression, loop iteration and macro
    /// definition costs one step; building or walking large values costs
    /// one step per 256 bytes or 64 items, including what a built-in walks
    /// beyond one pass over its input (nested lists compared by `==` or
    /// searched by `in`, keys sorted, totals and the start `sum` copies,
    /// items `unique` keys), a filter's or test's arguments, an `attribute`
    /// path's steps and key bytes for every item (charged from the path's
    /// length before any item is walked), and parameters or loop variables
    /// bound. Running out is an `out_of_fuel` error.
    pub fn fuel(&self) -> Option<u64> {
        self.fuel
    }

    /// Sets [`Limits::fuel`].
    pub fn with_fuel(mut self, fuel: Option<u64>) -> Limits {
        self.fuel = fuel;
        self
    }

    /// The largest output in bytes (default 16 MiB); more is an
    /// `output_limit` error.
    pub fn output_limit(&self) -> usize {
        self.output_limit
    }

    /// Sets [`Limits::output_limit`].
    pub fn with_output_limit(mut self, bytes: usize) -> Limits {
        self.output_limit = bytes;
        self
    }

    /// The largest string an operation may build, in bytes (default
    /// 16 MiB): repetition (`"ab" * n`), concatenation, `join`, `replace`,
    /// `indent`, `tojson`, the text filters, a list or map converted to
    /// text. It is checked before the string is made, or while it is
    /// written when its size only shows then; a filter that rewrites a
    /// whole string (`upper`, `reverse`, ...) refuses an input over it
    /// first. More is an `invalid_operation` error.
    pub fn string_limit(&self) -> usize {
        self.string_limit
    }

    /// Sets [`Limits::string_limit`].
    pub fn with_string_limit(mut self, bytes: usize) -> Limits {
        self.string_limit = bytes;
        self
    }

    /// The most items an operation may put in a list it builds (default
    /// 100 000): `range()`, list concatenation, `split`, the `list` filter
    /// and `for` on a string (one item per character) or a map (one per
    /// key). It is checked before the list is made; more is an
    /// `invalid_operation` error.
    pub fn range_limit(&self) -> usize {
        self.range_limit
    }

    /// Sets [`Limits::range_limit`].
    pub fn with_range_limit(mut self, items: usize) -> Limits {
        self.range_limit = items;
        self
    }

    /// The bytes a render may build and keep (default 128 MiB), counted as
    /// it goes and never given back, so it bounds both what the render
    /// holds at once and what it hands the host:
    ///
    /// * every string, list and map an operator, filter or function builds,
    ///   and every text a macro call or `set` block captures, by the bytes
    ///   it holds that nothing else shares (a list of shared items costs
    ///   its slots, 24 bytes each);
    /// * every write, by the size of its value as the host's JSON copy of
    ///   it (its text, 72 bytes per list item, about 110 per map entry),
    ///   plus its name and 64 bytes, each time: the write log shares values
    ///   in memory, but it lists every assignment, and a host that applies,
    ///   prints or stores it pays for each entry;
    /// * every `qr`/`st` effect, by its text (plus 64 bytes);
    /// * every data range of the output (16 bytes).
    ///
    /// The output has its own limit ([`Limits::output_limit`]). More is a
    /// `memory_limit` error.
    pub fn memory_limit(&self) -> usize {
        self.memory_limit
    }

    /// Sets [`Limits::memory_limit`].
    pub fn with_memory_limit(mut self, bytes: usize) -> Limits {
        self.memory_limit = bytes;
        self
    }

    /// The native stack a compile or render may use, in bytes (default
    /// 1 MiB). The counted limits above normally stop recursion first; this
    /// one guards builds with large stack frames (debug builds), so that a
    /// template never overflows the stack of a thread with this much to
    /// spare. Past it, compiling gives a `syntax_error` and rendering a
    /// `recursion_limit` error.
    pub fn stack_limit(&self) -> usize {
        self.stack_limit
    }

    /// Sets [`Limits::stack_limit`].
    pub fn with_stack_limit(mut self, bytes: usize) -> Limits {
        self.stack_limit = bytes;
        self
    }

    /// How many templates may be active inside one another (default 32):
    /// `include`, `extends` and `import` levels together, the main template
    /// not counted. Deeper is a `composition_limit` error; a template that
    /// is already on the active chain is a `template_cycle` error whatever
    /// the depth.
    pub fn composition_depth(&self) -> usize {
        self.composition_depth
    }

    /// Sets [`Limits::composition_depth`].
    pub fn with_composition_depth(mut self, levels: usize) -> Limits {
        self.composition_depth = levels;
        self
    }

    /// The total source bytes of every template one [`Environment`] stores
    /// (default 16 MiB): those added with [`Environment::add_template`] and
    /// those its loader returned. A template that would pass it is refused
    /// with a `memory_limit` error naming it.
    ///
    /// [`Environment`]: crate::Environment
    /// [`Environment::add_template`]: crate::Environment::add_template
    pub fn template_bytes(&self) -> usize {
        self.template_bytes
    }

    /// Sets [`Limits::template_bytes`].
    pub fn with_template_bytes(mut self, bytes: usize) -> Limits {
        self.template_bytes = bytes;
        self
    }
}
