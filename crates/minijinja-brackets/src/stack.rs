//! A native-stack budget for the recursive parser and evaluator.
//!
//! The counted limits (nesting depth, macro recursion) bound recursion in
//! units of the language; how many bytes of native stack one unit takes
//! depends on the build (debug frames are many times larger). This guard
//! measures the stack actually used since compiling or rendering started,
//! so no template can overflow the stack of the thread it runs on, as long
//! as that thread has [`crate::Limits::stack_limit`] bytes to spare. It
//! uses only safe code: the address of a local variable.

/// Where the stack was when a compile or render started, and how far it
/// may grow from there.
#[derive(Debug, Clone, Copy)]
pub(crate) struct StackBudget {
    base: usize,
    limit: usize,
}

impl StackBudget {
    /// A budget of `limit` bytes from the current stack position.
    #[inline(never)]
    pub(crate) fn new(limit: usize) -> StackBudget {
        StackBudget { base: position(), limit }
    }

    /// Whether the stack has grown past the budget.
    #[inline(always)]
    pub(crate) fn exceeded(&self) -> bool {
        // Direction-agnostic: stacks grow down on every mainstream target.
        self.base.abs_diff(position()) > self.limit
    }
}

/// The address of a local variable: the current stack position.
#[inline(always)]
fn position() -> usize {
    let marker = 0u8;
    std::ptr::from_ref(std::hint::black_box(&marker)) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    fn recurse(budget: &StackBudget, depth: usize) -> usize {
        let padding = std::hint::black_box([0u8; 512]);
        if budget.exceeded() || depth > 1_000_000 {
            return depth + usize::from(padding[0]);
        }
        recurse(budget, depth + 1)
    }

    #[test]
    fn the_budget_stops_deep_recursion() {
        let budget = StackBudget::new(64 * 1024);
        let depth = recurse(&budget, 0);
        // 64 KiB of frames of at least 512 bytes: fewer than 128 levels.
        assert!(depth > 0 && depth <= 128, "{depth}");
    }
}
