//! Inputs that once crashed or misbehaved (found by fuzzing or the hostile
//! corpus), each pinned with what it must give now.

use minijinja_brackets::{Context, Environment};

fn render(source: &str) -> Result<String, String> {
    let env = Environment::new();
    let template = env.compile(source).map_err(|err| err.to_string())?;
    template.render(&Context::default(), 0).map(|r| r.output).map_err(|err| err.to_string())
}

/// `range` computed `i * step` in i64, which overflows (a panic in debug
/// builds, wrapped numbers in release) when the step is over half the
/// span, although every item lies between start and stop.
#[test]
fn range_with_a_step_over_half_the_i64_span() {
    let source = "[% for i in range(-9223372036854775807, 9223372036854775807, 4611686018427387904) %]\
                  [[ i ]] [% endfor %]";
    assert_eq!(
        render(source).unwrap(),
        "-9223372036854775807 -4611686018427387903 1 4611686018427387905 "
    );
    assert_eq!(
        render("[[ range(9223372036854775807, -9223372036854775807, -9223372036854775807) ]]")
            .unwrap(),
        "[9223372036854775807,0]"
    );
}
