//! What is erased whole or refused, decided per statement and class member
//! before the walk enters it: statements and members that are only types go
//! (TypeScript emits nothing for them), and TypeScript with runtime meaning
//! (`enum`, namespaces with values, `import x = …`, `export =`, parameter
//! properties) is refused with what to write instead.

use oxc_ast::ast::{
    AccessorPropertyType, ClassElement, Declaration, ExportDefaultDeclarationKind,
    MethodDefinitionType, PropertyDefinitionType, Statement, TSModuleReference,
    TSNamespaceDeclaration, TSNamespaceDeclarationBody, TSNamespaceDeclarationKind,
};

use super::Unsupported;

/// What becomes of a statement.
pub(super) enum Verdict {
    /// JavaScript, possibly with types inside: walk it.
    Keep,
    /// Only types: blank it whole.
    Erase,
    /// Runtime TypeScript: refuse the block.
    Refuse(Unsupported),
}

/// Whether `statement` is only types, JavaScript, or refused.
pub(super) fn statement_verdict(statement: &Statement<'_>) -> Verdict {
    match statement {
        Statement::ExportDeclaration(e) => declaration_verdict(&e.declaration),
        Statement::ExportNamedDeclaration(e) if e.export_kind.is_type() => Verdict::Erase,
        Statement::ExportFromDeclaration(e) if e.export_kind.is_type() => Verdict::Erase,
        Statement::ExportAllDeclaration(e) if e.export_kind.is_type() => Verdict::Erase,
        Statement::ExportDefaultDeclaration(e) => match &e.declaration {
            ExportDefaultDeclarationKind::TSInterfaceDeclaration(_) => Verdict::Erase,
            ExportDefaultDeclarationKind::FunctionDeclaration(f) if f.body.is_none() => {
                Verdict::Erase
            }
            _ => Verdict::Keep,
        },
        Statement::TSNamespaceExportDeclaration(_) => Verdict::Erase,
        Statement::TSExportAssignment(e) => Verdict::Refuse(refusal(
            e.span.start,
            "`export =`",
            "use `export default` (or just a name: a block's top-level declarations persist)",
        )),
        other => match other.as_declaration() {
            Some(declaration) => declaration_verdict(declaration),
            None => Verdict::Keep,
        },
    }
}

/// Whether a declaration (exported or not) is only types, JavaScript, or
/// refused.
fn declaration_verdict(declaration: &Declaration<'_>) -> Verdict {
    let erase_if = |only_types: bool| {
        if only_types {
            Verdict::Erase
        } else {
            Verdict::Keep
        }
    };
    match declaration {
        Declaration::VariableDeclaration(d) => erase_if(d.declare),
        // No body: `declare function` or an overload signature.
        Declaration::FunctionDeclaration(f) => erase_if(f.declare || f.body.is_none()),
        Declaration::ClassDeclaration(c) => erase_if(c.declare),
        Declaration::TSTypeAliasDeclaration(_)
        | Declaration::TSInterfaceDeclaration(_)
        | Declaration::TSGlobalDeclaration(_) => Verdict::Erase,
        Declaration::TSEnumDeclaration(e) if e.declare => Verdict::Erase,
        Declaration::TSEnumDeclaration(e) => Verdict::Refuse(refusal(
            e.span.start,
            if e.r#const { "`const enum`" } else { "`enum`" },
            "use a plain object (`const Color = { Red: 0, ... } as const`)",
        )),
        Declaration::TSNamespaceDeclaration(n) => namespace_verdict(n),
        Declaration::TSExternalModuleDeclaration(m) => {
            let only_types = m.declare
                || m.body
                    .as_ref()
                    .is_none_or(|b| !b.body.iter().any(statement_holds_values));
            if only_types {
                Verdict::Erase
            } else {
                Verdict::Refuse(refusal(
                    m.span.start,
                    "a `module` that holds values",
                    "declare only types in it (`declare module \"name\" { … }`) and put values in a real module",
                ))
            }
        }
        Declaration::TSImportEqualsDeclaration(i) if i.import_kind.is_type() => Verdict::Erase,
        Declaration::TSImportEqualsDeclaration(i) => Verdict::Refuse(match &i.module_reference {
            TSModuleReference::ExternalModuleReference(_) => refusal(
                i.span.start,
                "`import x = require(\"…\")`",
                "use `import x from \"…\"` (or `const x = await import(\"…\")`)",
            ),
            _ => refusal(i.span.start, "`import x = A.B`", "use `const x = A.B`"),
        }),
    }
}

/// A namespace goes when it is `declare`d or holds only types (TypeScript
/// emits nothing for it then); one with values is an object at runtime.
fn namespace_verdict(namespace: &TSNamespaceDeclaration<'_>) -> Verdict {
    if namespace.declare || !namespace_holds_values(&namespace.body) {
        return Verdict::Erase;
    }
    let what = match namespace.kind {
        TSNamespaceDeclarationKind::Namespace => "a `namespace` that holds values",
        TSNamespaceDeclarationKind::Module => "a `module` that holds values",
    };
    Verdict::Refuse(refusal(
        namespace.span.start,
        what,
        "use a plain object (`const NS = { f, x }`) or top-level declarations (a namespace of only types is fine)",
    ))
}

/// Whether a namespace body (or the innermost one of `A.B.C`) holds values.
fn namespace_holds_values(body: &TSNamespaceDeclarationBody<'_>) -> bool {
    match body {
        TSNamespaceDeclarationBody::TSNamespaceDeclaration(inner) => {
            namespace_holds_values(&inner.body)
        }
        TSNamespaceDeclarationBody::TSModuleBlock(block) => {
            block.body.iter().any(statement_holds_values)
        }
    }
}

/// TypeScript's own rule for an instantiated namespace: it holds values
/// unless it has only type aliases, interfaces, namespaces without values
/// and unexported `import x = A.B`. Even `declare let x` inside counts, as
/// TypeScript then creates the namespace object (so `N.x` can be read).
fn statement_holds_values(statement: &Statement<'_>) -> bool {
    let declaration = match statement {
        Statement::ExportDeclaration(e) => match &e.declaration {
            Declaration::TSImportEqualsDeclaration(_) => return true,
            declaration => declaration,
        },
        other => match other.as_declaration() {
            Some(declaration) => declaration,
            None => return true,
        },
    };
    match declaration {
        Declaration::TSTypeAliasDeclaration(_)
        | Declaration::TSInterfaceDeclaration(_)
        | Declaration::TSImportEqualsDeclaration(_) => false,
        Declaration::TSNamespaceDeclaration(n) => namespace_holds_values(&n.body),
        _ => true,
    }
}

/// Class members that are only types: index signatures, `declare` fields,
/// `abstract` members and overload signatures (methods without a body).
pub(super) fn member_is_type_only(element: &ClassElement<'_>) -> bool {
    match element {
        ClassElement::TSIndexSignature(_) => true,
        ClassElement::PropertyDefinition(p) => {
            p.declare || p.r#type == PropertyDefinitionType::TSAbstractPropertyDefinition
        }
        ClassElement::MethodDefinition(m) => {
            m.r#type == MethodDefinitionType::TSAbstractMethodDefinition || m.value.body.is_none()
        }
        ClassElement::AccessorProperty(a) => {
            a.r#type == AccessorPropertyType::TSAbstractAccessorProperty
        }
        ClassElement::StaticBlock(_) => false,
    }
}

/// A refusal of `what` at `at`, saying to write `instead`.
pub(super) fn refusal(at: u32, what: &str, instead: &str) -> Unsupported {
    Unsupported {
        at: at as usize,
        message: format!(
            "{what} is not supported in ts blocks: types are only stripped, not compiled; {instead}"
        ),
    }
}
