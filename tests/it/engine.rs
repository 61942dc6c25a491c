//! The engine under bad input: deep nesting, stack overflow, syntax errors,
//! and the pool staying usable afterwards.

use crate::common;

fn nested_functions(depth: usize) -> String {
    let mut s = String::new();
    for i in 0..depth {
        s.push_str(&format!("function f{i}() {{\n"));
    }
    for _ in 0..depth {
        s.push_str("}\n");
    }
    s
}

#[test]
fn a_thousand_nested_functions_parse_completely() {
    let parsed = common::engine().parse_text("deep.ts", nested_functions(1_000));
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics.first());
    let mut depth = 0;
    tsq::parse::walk(&parsed.symbols, &mut |s| depth = depth.max(s.depth));
    assert_eq!(depth, 999);
}

#[test]
fn a_thousand_nested_parentheses_parse() {
    let text = format!("const x = {}1{};\n", "(".repeat(1_000), ")".repeat(1_000));
    let parsed = common::engine().parse_text("parens.ts", text);
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics.first());
    assert_eq!(parsed.symbols.len(), 1);
    assert_eq!(parsed.symbols[0].name, "x");
}

#[test]
fn stack_overflow_is_a_diagnostic_and_the_engine_goes_on() {
    let text = format!("const x = {}1{};\n", "[".repeat(2_000_000), "]".repeat(2_000_000));
    let parsed = common::engine().parse_text("overflow.ts", text);
    assert!(parsed.diagnostics.iter().any(|d| d.message.contains("stack overflow") || d.message.contains("RangeError")), "{:?}", parsed.diagnostics);
    // The same engine pool still answers.
    let after = common::engine().parse_text("after.ts", "export function ok() {}\n".to_string());
    assert_eq!(after.symbols[0].name, "ok");
}

#[test]
fn syntax_errors_keep_a_partial_tree() {
    let parsed = common::engine().parse_text("broken.ts", "function a() {}\nconst = ;\nclass B { m() {} }\n".to_string());
    assert!(!parsed.diagnostics.is_empty());
    let names: Vec<&str> = parsed.symbols.iter().map(|s| s.name.as_str()).collect();
    assert!(names.contains(&"a") && names.contains(&"B"), "{names:?}");
}

#[test]
fn non_ascii_text_maps_to_the_right_lines() {
    let text = "const s = '😀é';\n/** ü */\nexport function g() {\n  return 'ß';\n}\n".to_string();
    let parsed = common::engine().parse_text("u.ts", text);
    let g = parsed.symbols.iter().find(|s| s.name == "g").expect("g");
    assert_eq!((g.range.start, g.range.end), (2, 5));
    assert_eq!(g.signature, "export function g()");
    assert_eq!(g.jsdoc.as_deref(), Some("/** ü */"));
}
