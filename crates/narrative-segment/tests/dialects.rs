//! One test per difference of the Standard dialect from lmml 0.2.0, each
//! showing both behaviours on the same narrative.

use narrative_segment::{
    Attachments, Dialect, Narrative, OccurrenceKind, RoleAliases, SegmentOptions, segment,
};

/// `(role, text, embeds)` of every turn; references resolve to entries
/// named after them.
fn turns(text: &str, dialect: Dialect) -> Vec<(String, String, Vec<String>)> {
    let narrative = Narrative::parse(text, dialect);
    let entries: Vec<(String, Vec<u8>)> = narrative
        .occurrences()
        .filter(|o| o.kind == OccurrenceKind::Reference)
        .map(|o| (o.name.to_owned(), b"x".to_vec()))
        .collect();
    let resolved = narrative.resolve(&Attachments::from_entries(entries).unwrap()).unwrap();
    resolved
        .segment()
        .into_iter()
        .map(|t| (t.role.to_string(), t.text.into_owned(), t.embeds))
        .collect()
}

fn roles(text: &str, dialect: Dialect) -> Vec<String> {
    turns(text, dialect).into_iter().map(|(role, _, _)| role).collect()
}

fn names(text: &str, dialect: Dialect) -> Vec<String> {
    Narrative::parse(text, dialect).occurrences().map(|o| o.name.to_owned()).collect()
}

#[test]
fn difference_1_delimiters_inside_fences_and_embeds_are_text() {
    let text = "## user\nRun this:\n```md\n# user\n```\n~~~~\n## assistant\n~~~\nstill code\n~~~~\n\
                @@@notes.md\n## system\n@@@\n## assistant\nDone.\n";
    assert_eq!(roles(text, Dialect::Standard), ["user", "assistant"]);
    assert_eq!(
        turns(text, Dialect::Standard)[0].1,
        "Run this:\n```md\n# user\n```\n~~~~\n## assistant\n~~~\nstill code\n~~~~\n@@@notes.md\n## system\n@@@\n"
    );
    assert_eq!(roles(text, Dialect::Lmml), ["user", "user", "assistant", "system", "assistant"]);
    // An unclosed fence runs to the end of the text.
    assert_eq!(roles("## user\n```\n## assistant\n", Dialect::Standard), ["user"]);
}

#[test]
fn difference_2_a_comment_delimiter_holds_only_the_role_word() {
    let text = "## assistant\nHi\n<!-- TODO: ask the user -->\nmore\n<!--  User  -->\nQ\n\
                <!-- Turn 3 -- 🤖 assistant: -->\nA\n";
    assert_eq!(roles(text, Dialect::Standard), ["assistant", "user", "assistant"]);
    assert_eq!(turns(text, Dialect::Standard)[0].1, "Hi\n<!-- TODO: ask the user -->\nmore\n");
    assert_eq!(roles(text, Dialect::Lmml), ["assistant", "user", "user", "assistant"]);
}

#[test]
fn difference_3_headings_follow_the_heading_grammar() {
    let text = "## user's turn\nA\n## multi_assistant\nB\n## system2\nC\n## tool-call\nD\n## Über user\nE\n\
                ### Receiving User Input\nF\n## <i class=\"fa-user-shield\"></i> Users\nG\n";
    assert_eq!(roles(text, Dialect::Standard), ["context"]);
    assert_eq!(
        roles(text, Dialect::Lmml),
        ["user", "assistant", "system", "tool", "user", "user", "user"]
    );
    let text = "## Turn 1 -- user\nA\n### 2. Assistant:\nB\n## 👤 **User**\nC\n# 3) tool\nD\n";
    assert_eq!(roles(text, Dialect::Standard), ["user", "assistant", "user", "tool"]);
    assert_eq!(roles(text, Dialect::Lmml), ["user", "assistant", "user", "tool"]);
}

#[test]
fn difference_4_references_follow_the_documented_name_rule() {
    let text =
        "Mail bob@example.com about @report.pdf. See `@code.png`, @a.png**bold** and (@b.txt).";
    assert_eq!(names(text, Dialect::Standard), ["report.pdf", "a.png", "b.txt"]);
    assert_eq!(names(text, Dialect::Lmml), ["example.com", "report.pdf", "a.png**bold*", "b.txt)"]);
    // Fences hide references in both dialects.
    assert!(names("```\n@x.png\n```\n", Dialect::Standard).is_empty());
}

#[test]
fn difference_5_embeds_are_placed_where_the_parser_found_them() {
    // lmml searches the text for `@a.png`: the code span in the context wins.
    // (An embed on a delimiter line, which Standard gives the turn the
    // line opens, needs a value in the role slot there: `data_ranges.rs`.)
    let text = "Use `@a.png` like this.\n## user\nHere: @a.png\n";
    assert_eq!(
        turns(text, Dialect::Standard),
        [
            ("context".into(), "Use `@a.png` like this.\n".into(), vec![]),
            ("user".into(), "Here: @a.png\n".into(), vec!["a.png".to_owned()]),
        ]
    );
    assert_eq!(
        turns(text, Dialect::Lmml),
        [
            ("context".into(), "Use `@a.png` like this.\n".into(), vec!["a.png".to_owned()]),
            ("user".into(), "Here: @a.png\n".into(), vec![]),
        ]
    );
}

#[test]
fn difference_6_crlf_and_lone_cr_are_line_endings() {
    let text = "## user\r\nhi\r\n## assistant\rho\r";
    assert_eq!(
        turns(text, Dialect::Standard),
        [("user".into(), "hi\r\n".into(), vec![]), ("assistant".into(), "ho\r".into(), vec![])]
    );
    // lmml sees one line `## assistant\rho\r`: "ho" is swallowed by the delimiter.
    assert_eq!(
        turns(text, Dialect::Lmml),
        [("user".into(), "hi\r\n".into(), vec![]), ("assistant".into(), "".into(), vec![])]
    );
    // The CR of an embed's opening line is not part of its name.
    assert_eq!(names("@@@a.txt\r\nA\r\n@@@", Dialect::Standard), ["a.txt"]);
    assert_eq!(names("@@@a.txt\r\nA\r\n@@@", Dialect::Lmml), ["a.txt\r"]);
}

#[test]
fn difference_8_role_aliases_name_roles_in_standard_only() {
    let text = "#### You:\nHi\n#### ChatGPT:\nHello\n";
    let aliases = RoleAliases::from_pairs(["You=user", "ChatGPT=assistant"]).unwrap();
    let roles = |dialect| {
        let resolved = Narrative::parse(text, dialect).resolve(&Attachments::none()).unwrap();
        let options = SegmentOptions::new(dialect).with_aliases(aliases.clone());
        segment(&resolved, &options).iter().map(|t| t.role.to_string()).collect::<Vec<_>>()
    };
    assert_eq!(roles(Dialect::Standard), ["user", "assistant"]);
    assert_eq!(roles(Dialect::Lmml), ["context"]);
}

#[test]
fn difference_9_a_bare_reference_naming_nothing_stays_text() {
    let text = "## user\nthanks @IkariDevGIT and @NeoYokel, see https://x.social/@me.png\n";
    let resolved = Narrative::parse(text, Dialect::Standard).resolve(&Attachments::none()).unwrap();
    let warned: Vec<(&str, usize)> =
        resolved.warnings().iter().map(|w| (w.name(), w.column())).collect();
    assert_eq!(warned, [("IkariDevGIT", 8), ("NeoYokel", 25)]);
    assert!(resolved.embeds().is_empty());
    let err = Narrative::parse(text, Dialect::Lmml).resolve(&Attachments::none()).unwrap_err();
    assert_eq!((err.kind().as_str(), err.name()), ("unresolvable_reference", Some("IkariDevGIT")));
    // A bare name that an inline embed also has is meant: still an error.
    let text = "see @notes\n@@@notes\nN\n@@@\n";
    let err = Narrative::parse(text, Dialect::Standard).resolve(&Attachments::none()).unwrap_err();
    assert_eq!((err.kind().as_str(), err.line()), ("unresolvable_reference", Some(1)));
    // A name with an extension fails loudly in both.
    let err = Narrative::parse("see @notes.md", Dialect::Standard)
        .resolve(&Attachments::none())
        .unwrap_err();
    assert_eq!(err.kind().as_str(), "unresolvable_reference");
}
