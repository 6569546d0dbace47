//! Tests of type blanking: each case is stripped, compared with the expected
//! JavaScript (same length, same lines) and parsed again as JavaScript;
//! refusals are checked for where they point and what they say.

use super::*;
// Blocks are parsed here as the hub parses them.
use super::super::reading::parse;
use oxc_allocator::Allocator;
use oxc_span::SourceType;

fn strip(src: &str) -> Result<String, Unsupported> {
    let allocator = Allocator::default();
    let parsed = parse(&allocator, src, SourceType::ts().with_unambiguous(true));
    assert!(
        parsed.diagnostics.is_empty(),
        "the TypeScript does not parse: {src:?}\n{:?}",
        parsed.diagnostics
    );
    let mut splices = Splices::new();
    strip_types(&parsed.program, src, &mut splices)?;
    Ok(splices.apply(src).0)
}

/// `before` strips to `after`, keeping length and lines, and the result
/// is plain JavaScript.
fn check(before: &str, after: &str) {
    let out = strip(before).unwrap_or_else(|e| panic!("refused {before:?}: {e:?}"));
    assert_eq!(out, after, "\nstripping {before:?}");
    assert_eq!(out.len(), before.len(), "length of {before:?}");
    assert_eq!(
        out.lines().count(),
        before.lines().count(),
        "lines of {before:?}"
    );
    let allocator = Allocator::default();
    let js = parse(&allocator, &out, SourceType::unambiguous());
    assert!(
        js.diagnostics.is_empty(),
        "not JavaScript: {out:?}\n{:?}",
        js.diagnostics
    );
}

fn check_all(cases: &[(&str, &str)]) {
    for (before, after) in cases {
        check(before, after);
    }
}

/// `source` is refused at `at` with a message containing `message`.
fn check_refused(source: &str, at: usize, message: &str) {
    match strip(source) {
        Ok(out) => panic!("not refused: {source:?} gave {out:?}"),
        Err(e) => {
            assert!(e.message.contains(message), "{source:?}: {}", e.message);
            assert_eq!(e.at, at, "{source:?}: {}", e.message);
        }
    }
}

#[test]
fn annotations() {
    check_all(&[
        ("let x: number = 1;", "let x         = 1;"),
        ("let x!: number;", "let x         ;"),
        ("let a: A, b!: B;", "let a   , b    ;"),
        (
            "function f(a: string, b?: number): void {}",
            "function f(a        , b         )       {}",
        ),
        (
            "function f(...r: number[]) {}",
            "function f(...r          ) {}",
        ),
        (
            "function f({ a }: { a: number } = {}) {}",
            "function f({ a }                = {}) {}",
        ),
        (
            "const f = (a: number): string => String(a);",
            "const f = (a        )         => String(a);",
        ),
        (
            "const f = async (a?: A) => a;",
            "const f = async (a    ) => a;",
        ),
        (
            "const o = { m(a: A): B { return a } };",
            "const o = { m(a   )    { return a } };",
        ),
        (
            "class A { get x(): number { return 1 } set x(v: number) {} }",
            "class A { get x()         { return 1 } set x(v        ) {} }",
        ),
        (
            "class A { x: number = 1; y?: string; z!: Z }",
            "class A { x         = 1; y         ; z     }",
        ),
        ("class A { m?(): void {} }", "class A { m ()       {} }"),
        ("class A { [k]?(): void {} }", "class A { [k] ()       {} }"),
        ("class A { #p: number = 1 }", "class A { #p         = 1 }"),
        (
            "class A { accessor x: number = 1 }",
            "class A { accessor x         = 1 }",
        ),
        (
            "try {} catch (e: unknown) {}",
            "try {} catch (e         ) {}",
        ),
        (
            "function isS(x: unknown): x is string { return true }",
            "function isS(x         )              { return true }",
        ),
        (
            "for (let i: number = 0; i < 1; i++) {}",
            "for (let i         = 0; i < 1; i++) {}",
        ),
    ]);
}

#[test]
fn this_parameter() {
    check_all(&[
        (
            "function f(this: Window, a) {}",
            "function f(              a) {}",
        ),
        ("function f(this: Window) {}", "function f(            ) {}"),
        (
            "const g = function (this: X, a: A) {};",
            "const g = function (         a   ) {};",
        ),
    ]);
}

#[test]
fn generics() {
    check_all(&[
        (
            "function id<T>(x: T): T { return x }",
            "function id   (x   )    { return x }",
        ),
        ("const f = <T,>(x: T) => x;", "const f =     (x   ) => x;"),
        (
            "const f = async <T>(x: T) => x;",
            "const f = async    (x   ) => x;",
        ),
        (
            "class Box<T extends object = {}> {}",
            "class Box                        {}",
        ),
        (
            "class A { m<T, U>(x: T) {} }",
            "class A { m      (x   ) {} }",
        ),
        ("f<string>();", "f        ();"),
        ("a?.b<T>(c);", "a?.b   (c);"),
        ("new Map<string, number>();", "new Map                ();"),
        ("tag<T>`x`;", "tag   `x`;"),
        (
            "class B extends A<string> {}",
            "class B extends A         {}",
        ),
        (
            "const C = class extends A<T> {};",
            "const C = class extends A    {};",
        ),
        ("const g = f<string>;", "const g = f        ;"),
        (
            "function f<const T extends readonly unknown[]>() {}",
            "function f                                    () {}",
        ),
    ]);
}

#[test]
fn assertions() {
    check_all(&[
        ("const a = x as number;", "const a = x          ;"),
        ("const b = y satisfies Y;", "const b = y            ;"),
        ("const c = [1] as const;", "const c = [1]         ;"),
        ("const d = (x as any).y;", "const d = (x       ).y;"),
        ("x!.y;", "x .y;"),
        ("a!.b!.c();", "a .b .c();"),
        ("x! = 1;", "x  = 1;"),
        ("(x as any) = 1;", "(x       ) = 1;"),
        ("a?.b!.c;", "a?.b .c;"),
        ("const d = <number>z;", "const d =         z;"),
        ("f(<any>x, <T>y);", "f(     x,    y);"),
        ("return <T>x;", "return    x;"),
        (
            "const e = x as unknown as Y;",
            "const e = x                ;",
        ),
    ]);
}

#[test]
fn type_only_statements() {
    check_all(&[
        ("interface I {}", ";             "),
        ("type X = string;", ";               "),
        ("type X<T> = { a: T };", ";                    "),
        ("declare const x: number;", ";                       "),
        (
            "declare let x: number, y: string;",
            ";                                ",
        ),
        ("declare function f(): void;", ";                          "),
        (
            "declare class C { m(): void }",
            ";                            ",
        ),
        ("declare enum E { A }", ";                   "),
        ("declare const enum E { A }", ";                         "),
        (
            "declare module 'm' { export const x: 1 }",
            ";                                       ",
        ),
        (
            "declare namespace N { const x: 1 }",
            ";                                 ",
        ),
        (
            "declare global { interface Window { a: 1 } }",
            ";                                           ",
        ),
        (
            "namespace N { export type T = 1; interface I {} }",
            ";                                                ",
        ),
        (
            "namespace A.B { type T = 1 }",
            ";                           ",
        ),
        ("namespace N {}", ";             "),
        ("module M { type T = 1 }", ";                      "),
        (
            "function f(a: string): void;\nfunction f(a) {}",
            ";                           \nfunction f(a) {}",
        ),
        (
            "import type T = require('t');",
            ";                            ",
        ),
        ("export as namespace Lib;", ";                       "),
    ]);
}

#[test]
fn type_only_exports() {
    check_all(&[
        ("export interface I { a: 1 }", ";                          "),
        ("export type T = 1;", ";                 "),
        (
            "export declare const x: number;",
            ";                              ",
        ),
        (
            "export declare function f(): void;",
            ";                                 ",
        ),
        (
            "export function f(): void;\nexport function f() {}",
            ";                         \nexport function f() {}",
        ),
        (
            "export namespace N { export interface I {} }",
            ";                                           ",
        ),
        (
            "export default interface I {}",
            ";                            ",
        ),
        ("export type { A, B };", ";                    "),
        (
            "export type { A } from './a';",
            ";                            ",
        ),
        ("export type * from './a';", ";                        "),
        (
            "export type * as ns from './a';",
            ";                              ",
        ),
        ("export { type A, b };", "export {         b };"),
        ("export { b, type A };", "export { b,        };"),
        (
            "export { type A as B } from './a';",
            "export {             } from './a';",
        ),
        // Value exports are the rewrite's: only their types go.
        ("export const x: number = 1;", "export const x         = 1;"),
    ]);
}

#[test]
fn class_members() {
    check_all(&[
        ("abstract class A {}", "         class A {}"),
        ("export abstract class A {}", "export          class A {}"),
        (
            "export default abstract class {}",
            "export default          class {}",
        ),
        (
            "abstract class A { abstract m(): void; abstract x: number; n() {} }",
            "         class A { ;                   ;                   n() {} }",
        ),
        (
            "class A { public x = 1; private y; protected z; readonly w = 2 }",
            "class A {        x = 1;         y;           z;          w = 2 }",
        ),
        (
            "class A { public static override readonly x = 1 }",
            "class A {        static                   x = 1 }",
        ),
        (
            "class A { private async *m() {} protected get g() { return 1 } }",
            "class A {         async *m() {}           get g() { return 1 } }",
        ),
        (
            "class A { public constructor() {} }",
            "class A {        constructor() {} }",
        ),
        (
            "class A { declare x: number; y = 1 }",
            "class A { ;                  y = 1 }",
        ),
        (
            "class A { [k: string]: any; y = 1 }",
            "class A { ;                 y = 1 }",
        ),
        (
            "class A { static [k: string]: any }",
            "class A { ;                       }",
        ),
        (
            "class A { m(a: string): void; m(a) {} }",
            "class A { ;                   m(a) {} }",
        ),
        (
            "class A { constructor(a: string); constructor(a) {} }",
            "class A { ;                       constructor(a) {} }",
        ),
        (
            "class A implements I, J<T> { }",
            "class A                    { }",
        ),
        (
            "class A<T> extends B<T> implements I {}",
            "class A    extends B                 {}",
        ),
        (
            "const C = class implements I {};",
            "const C = class              {};",
        ),
        (
            "class A { @dec public x = 1; @dec private m() {} }",
            "class A { @dec        x = 1; @dec         m() {} }",
        ),
        (
            "class A { readonly readonly = 1 }",
            "class A {          readonly = 1 }",
        ),
        (
            "class A { public accessor x = 1 }",
            "class A {        accessor x = 1 }",
        ),
        (
            "class A { override m(): void {} }",
            "class A {          m()       {} }",
        ),
    ]);
}

#[test]
fn multi_line_types() {
    check_all(&[
        (
            "let o: {\n  a: number\n  b: string\n} = f()",
            "let o   \n           \n           \n  = f()",
        ),
        (
            "function f(\n  a: number,\n  b: {\n    c: string\n  },\n): Promise<\n  void\n> {}",
            "function f(\n  a        ,\n  b   \n             \n   ,\n)          \n      \n  {}",
        ),
        (
            "type U =\n  | 'a'\n  | 'b'\nlet x = 1",
            ";       \n       \n       \nlet x = 1",
        ),
        (
            "const x = y as {\n  a: 1\n};",
            "const x = y     \n      \n ;",
        ),
    ]);
}

#[test]
fn statements_do_not_join_the_next_line() {
    check_all(&[
        // From ts-blank-space's ASI fixture.
        ("foo\ntype x = 1;\n(1);", "foo\n;          \n(1);"),
        ("foo\ninterface I {}\n`t`;", "foo\n;             \n`t`;"),
        (
            "let a = b\ndeclare const c: C\n[1].map(f)",
            "let a = b\n;                 \n[1].map(f)",
        ),
        (
            "f()\nfunction g(): void\n(h)",
            "f()\n;                 \n(h)",
        ),
        // `as T` ended the statement in TypeScript (ASI before `(`).
        ("a = b as T\n(c)", "a = b;    \n(c)"),
        (
            "let v = w satisfies T\n[1].map(f)",
            "let v = w;           \n[1].map(f)",
        ),
        ("x as T\n`t`", "x;    \n`t`"),
        // Binary operators continue in both, so no `;` is needed.
        ("a = b as T\n+ c", "a = b     \n+ c"),
        ("a = b as T", "a = b     "),
        // A field that no `;` ends is not continued by the next member.
        (
            "class A {\n  x = 1\n  declare y: T\n  ['z'] = 2\n}",
            "class A {\n  x = 1\n  ;           \n  ['z'] = 2\n}",
        ),
        (
            "class A {\n  x = 1\n  public ['z'] = 2\n}",
            "class A {\n  x = 1\n  ;      ['z'] = 2\n}",
        ),
        (
            "class A {\n  x = 1\n  public *g() {}\n}",
            "class A {\n  x = 1\n  ;      *g() {}\n}",
        ),
        (
            "class A {\n  x = a as T\n  ['z']() {}\n}",
            "class A {\n  x = a;    \n  ['z']() {}\n}",
        ),
        (
            "class A {\n  m() {}\n  public ['z'] = 2\n}",
            "class A {\n  m() {}\n         ['z'] = 2\n}",
        ),
    ]);
}

#[test]
fn arrows_keep_their_line_rules() {
    check_all(&[
        // JavaScript forbids a line break between `)` and `=>`.
        (
            "const f = (a: A): {\n  b: B\n} => g(a);",
            "const f = (a       \n      \n) => g(a);",
        ),
        (
            "const f = (): Promise<\n  void\n> => g();",
            "const f = (           \n      \n) => g();",
        ),
        // `async` must stay on the line of its `(`.
        (
            "const b = async <\n    T\n>/**/(/**/v: T) => {};",
            "const b = async (\n     \n      /**/v   ) => {};",
        ),
        (
            "const c = async <\n    T\n>(v: T): Promise<\n    T\n> => v;",
            "const c = async (\n     \n  v              \n     \n) => v;",
        ),
        (
            "const d = <\n  T,\n>(v: T) => v;",
            "const d =  \n    \n (v   ) => v;",
        ),
    ]);
}

#[test]
fn odd_corners() {
    check_all(&[
        // Blanks count bytes, so columns after a multi-byte name move
        // on that line only; the lines stay.
        ("let é: Ünïcode = 1;\nf()", "let é            = 1;\nf()"),
        (
            "let a /* c */ : /* d */ T = 1;",
            "let a /* c */             = 1;",
        ),
        ("@dec abstract class A {}", "@dec          class A {}"),
        ("class A { x? = 1 }", "class A { x  = 1 }"),
        (
            "class A {\n  get: T\n  m() {}\n  static?: S\n  n() {}\n}",
            "class A {\n  get;  \n  m() {}\n  static;   \n  n() {}\n}",
        ),
        (
            "const o = {\n  a: 1,\n} satisfies {\n  a: number\n};",
            "const o = {\n  a: 1,\n}            \n           \n ;",
        ),
        (
            "class A extends (B as any) implements I {}",
            "class A extends (B       )              {}",
        ),
        (
            "function* g() { yield <T>x }",
            "function* g() { yield    x }",
        ),
    ]);
}

#[test]
fn leaves_imports_decorators_and_javascript_alone() {
    // Imports are the rewrite's, `type` ones included.
    for source in [
        "import type { T } from './t';",
        "import { type T, a } from './t'; a",
    ] {
        assert_eq!(strip(source), Ok(source.to_string()));
    }
    check_all(&[
        (
            "@dec class A { @dec m() {} }",
            "@dec class A { @dec m() {} }",
        ),
        ("@dec() export class A {}", "@dec() export class A {}"),
        ("const a = b < c && d > (e);", "const a = b < c && d > (e);"),
        (
            "label: for (;;) break label;",
            "label: for (;;) break label;",
        ),
    ]);
}

#[test]
fn realistic_snippet() {
    let before = "\
interface Shape {
  area(): number;
}
type Point = { x: number; y: number };

class Circle<T extends Point = Point> implements Shape {
  private readonly center: T;
  static count: number = 0;
  constructor(center: T, public radius?: number) {
    this.center = center;
  }
  area(): number {
    return Math.PI * (this.radius ?? 1) ** 2;
  }
}

const byArea = <S extends Shape>(shapes: S[]): S[] =>
  [...shapes].sort((a: S, b: S) => a.area() - b.area());
const circles = [new Circle<Point>({ x: 0, y: 0 }, 2)] as Circle[];
const largest = byArea(circles).at(-1)!;
export type { Shape };
";
    // A parameter property has runtime meaning: refused.
    check_refused(
        before,
        before.find("public radius").unwrap(),
        "parameter property",
    );

    let before = before.replace("public radius?: number", "radius?: number");
    let before = before.replace(
        "this.center = center;",
        "this.center = center; this.radius = radius;",
    );
    let before = before.replace("  static count", "  radius?: number;\n  static count");
    let after = "\
;                
                 
 
;                                     

class Circle                                           {
                   center   ;
  radius         ;
  static count         = 0;
  constructor(center   , radius         ) {
    this.center = center; this.radius = radius;
  }
  area()         {
    return Math.PI * (this.radius ?? 1) ** 2;
  }
}

const byArea =                  (shapes     )      =>
  [...shapes].sort((a   , b   ) => a.area() - b.area());
const circles = [new Circle       ({ x: 0, y: 0 }, 2)]            ;
const largest = byArea(circles).at(-1) ;
;                     
";
    check(&before, after);
}

#[test]
fn refuses_runtime_typescript() {
    let cases: &[(&str, usize, &str)] = &[
        ("enum Color { Red }", 0, "`enum` is not supported in ts blocks: types are only stripped, not compiled; use a plain object"),
        ("const enum E { A }", 0, "`const enum` is not supported"),
        ("let a = 1\nexport enum E { A }", 17, "`enum`"),
        ("function f() { enum E { A } }", 15, "`enum`"),
        ("namespace N { export const x = 1 }", 0, "`namespace` that holds values"),
        ("namespace N { enum E { A } }", 0, "`namespace` that holds values"),
        ("namespace A.B { export function f() {} }", 0, "`namespace` that holds values"),
        ("module M { export let x = 1 }", 0, "`module` that holds values"),
        ("class A { constructor(private x: number) {} }", 22, "declare the field in the class body"),
        ("class A { constructor(readonly x) {} }", 22, "parameter property"),
        ("class A { constructor(public override x) {} }", 22, "parameter property"),
        ("import fs = require('fs');", 0, "use `import x from"),
        ("import X = A.B;", 0, "use `const x = A.B`"),
        ("export import X = A.B;", 7, "`import x = A.B`"),
        ("export = x;", 0, "use `export default`"),
        ("const f = () => <T>{ a: 1 };", 16, "write `(value as T)`"),
        ("const f = () => <T>{ p: 1 }.p ?? 2;", 16, "write `(value as T)`"),
        ("<T>{ a: 1 }.a;", 0, "write `(value as T)`"),
        ("<T>function () {}();", 0, "start of a statement"),
        ("function f() { return <T>\n  x }", 22, "write `value as T`"),
        ("function f() { throw <A><B>\n  x }", 24, "line break before the value"),
        ("function* g() { yield <T>\n  x }", 22, "write `value as T`"),
        ("enum A { X }\nenum B { Y }", 0, "`enum`"),
        ("let a = 1\nnamespace N { export const x = a }\nenum E {}", 10, "namespace"),
    ];
    for (source, at, message) in cases {
        check_refused(source, *at, message);
    }
}

#[test]
fn prefix_assertions_that_keep_their_meaning() {
    check_all(&[
        ("const f = () => <T>x;", "const f = () =>    x;"),
        ("const f = () => (<T>{});", "const f = () => (   {});"),
        ("<T>x;", "   x;"),
        (
            "function f() { return <T>x }",
            "function f() { return    x }",
        ),
    ]);
}
#[test]
fn operator_grouping() {
    // Same grouping either way.
    check_all(&[
        (
            "x = a - b satisfies number - c;",
            "x = a - b                  - c;",
        ),
        ("x = a ** b as number;", "x = a ** b          ;"),
        ("x = (a + b as number) * 2;", "x = (a + b          ) * 2;"),
    ]);
    // `**` groups to the right: `(2 ** 3) ** 2` would become `2 ** (3 ** 2)`.
    check_refused(
        "x = 2 ** 3 as number ** 2;",
        4,
        "add parentheses (`(a + b as T) * c`)",
    );
    check_refused("x = a ** b as any as number ** 2;", 4, "group differently");
}

#[test]
fn namespaces_follow_typescripts_rule() {
    check_all(&[
        (
            "namespace B { import x = A.x }",
            ";                             ",
        ),
        (
            "namespace N { export declare namespace M { type T = 1 } }",
            ";                                                        ",
        ),
    ]);
    // TypeScript creates the namespace object for these.
    for source in [
        "namespace D { declare let x: number }",
        "namespace J { {} }",
        "namespace I { export import X = E.T }",
        "namespace F { export namespace Inner { 3 } }",
    ] {
        check_refused(source, 0, "`namespace` that holds values");
    }
}
