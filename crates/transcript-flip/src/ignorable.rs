//! Characters that render as nothing: where the sanitizer and the speaker
//! check must look through them.

/// Whether `c` is a Default_Ignorable_Code_Point (Unicode's
/// `DerivedCoreProperties.txt`): zero-width space and joiners, soft hyphen,
/// word joiner, BOM, bidi controls, variation selectors, Hangul fillers,
/// tags, and the code points reserved for more of them.
pub(crate) fn is_default_ignorable(c: char) -> bool {
    matches!(c,
        '\u{ad}' | '\u{34f}' | '\u{61c}' | '\u{115f}' | '\u{1160}' | '\u{17b4}' | '\u{17b5}'
        | '\u{180b}'..='\u{180f}' | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}'
        | '\u{2060}'..='\u{206f}' | '\u{3164}' | '\u{fe00}'..='\u{fe0f}' | '\u{feff}'
        | '\u{ffa0}' | '\u{fff0}'..='\u{fff8}' | '\u{1bca0}'..='\u{1bca3}'
        | '\u{1d173}'..='\u{1d17a}' | '\u{e0000}'..='\u{e0fff}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invisible_characters_are_ignorable_and_letters_are_not() {
        for c in ['\u{200b}', '\u{200d}', '\u{feff}', '\u{2060}', '\u{ad}', '\u{e0041}', '\u{fe0f}']
        {
            assert!(is_default_ignorable(c), "{c:?}");
        }
        for c in ['a', ' ', '\u{a0}', '\u{301}', 'В', '\u{2800}'] {
            assert!(!is_default_ignorable(c), "{c:?}");
        }
    }
}
