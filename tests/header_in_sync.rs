//! Fails when include/sqlbatch.h differs from what is generated from src/ and the template
//! include/sqlbatch.h.in. Run with SQLBATCH_BLESS=1 (or scripts/gen-header.sh) to rewrite the
//! header.
//!
//! cbindgen generates the items (constants, types, functions, each with its doc comment) from
//! the sources; the template holds the preamble, the sections in the order a program meets
//! them, and the inline helpers. Each `@items FILE...` line of the template becomes the items
//! defined in those source files, constants and types first, in cbindgen's order. Every item
//! must land in exactly one section.

use std::collections::HashMap;
use std::path::Path;

/// The items cbindgen generates, each its doc comment and its declaration, in its order.
fn cbindgen_items(root: &Path) -> Vec<String> {
    let config = cbindgen::Config::from_file(root.join("cbindgen.toml")).expect("read cbindgen.toml");
    let mut generated = Vec::new();
    cbindgen::Builder::new()
        .with_crate(root)
        .with_config(config)
        .generate()
        .expect("cbindgen failed")
        .write(&mut generated);
    let text = String::from_utf8(generated).expect("UTF-8");
    // Items are separated by blank lines, and hold none (doc comments use " *" lines).
    let items: Vec<String> =
        text.split("\n\n").map(|s| s.trim_matches('\n').to_string()).filter(|s| !s.is_empty()).collect();
    for item in &items {
        let first = item.lines().next().unwrap_or_default();
        assert!(
            first.starts_with("/**") || first.starts_with("#define") || first.starts_with("typedef"),
            "cbindgen's output did not split into items here: {item}"
        );
    }
    items
}

/// The C name an item declares (a function's, a type's or a constant's).
fn declared_name(item: &str) -> String {
    let code: Vec<&str> = item
        .lines()
        .skip_while(|l| l.starts_with("/**") || l.starts_with(" *") || l.starts_with(" */"))
        .collect();
    let decl = code.join("\n");
    let ident = |s: &str| s.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect::<String>();
    if let Some(rest) = decl.strip_prefix("#define ") {
        return ident(rest);
    }
    if decl.starts_with("typedef") {
        let aggregate =
            ["typedef struct", "typedef enum", "typedef union"].iter().any(|p| decl.starts_with(p));
        if let (false, Some(at)) = (aggregate, decl.find("(*")) {
            return ident(&decl[at + 2..]);
        }
        // `typedef struct X {...} X;` or `typedef struct X X;` or `typedef T X;`
        let last =
            decl.trim_end_matches(';').rsplit(|c: char| c.is_whitespace() || c == '}').next().unwrap_or("");
        return ident(last);
    }
    // A function: the identifier just before the first '('.
    let head = &decl[..decl.find('(').unwrap_or(decl.len())];
    head.rsplit(|c: char| c.is_whitespace() || c == '*').next().map(ident).unwrap_or_default()
}

/// Where each C name of the library is defined: the source file of its `pub const`,
/// `pub struct`, `pub type` or `extern "C" fn`.
fn definitions(root: &Path) -> HashMap<String, String> {
    fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).expect("read src") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let mut files = Vec::new();
    walk(&root.join("src"), &mut files);
    let mut defs = HashMap::new();
    for file in files {
        let rel = file.strip_prefix(root).expect("in root").to_string_lossy().replace('\\', "/");
        let text = std::fs::read_to_string(&file).expect("read source");
        for line in text.lines() {
            let line = line.trim_start();
            for prefix in [
                "pub const ",
                "pub struct ",
                "pub type ",
                "pub unsafe extern \"C\" fn ",
                "pub extern \"C\" fn ",
            ] {
                if let Some(rest) = line.strip_prefix(prefix) {
                    let name: String =
                        rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                    if name.to_ascii_lowercase().starts_with("sqlbatch_") {
                        defs.insert(name, rel.clone());
                    }
                }
            }
        }
    }
    defs
}

/// The header: the template with its `@items` lines and version placeholders filled in.
fn generate(root: &Path) -> String {
    let template = std::fs::read_to_string(root.join("include/sqlbatch.h.in")).expect("read the template");
    let defs = definitions(root);
    let items = cbindgen_items(root);
    let mut placed = vec![false; items.len()];
    let is_fn = |item: &str| !item.lines().any(|l| l.starts_with("#define") || l.starts_with("typedef"));
    let mut out = String::new();
    for line in template.lines() {
        let Some(files) = line.strip_prefix("@items ") else {
            out.push_str(line);
            out.push('\n');
            continue;
        };
        let files: Vec<&str> = files.split_whitespace().collect();
        let mut section: Vec<&str> = Vec::new();
        // Constants and types first, then functions, each group in cbindgen's order.
        for functions in [false, true] {
            for (i, item) in items.iter().enumerate() {
                let name = declared_name(item);
                let file =
                    defs.get(&name).unwrap_or_else(|| panic!("no definition found in src/ for {name}"));
                if is_fn(item) == functions && files.contains(&file.as_str()) {
                    assert!(!placed[i], "{name} is in two sections");
                    placed[i] = true;
                    section.push(item);
                }
            }
        }
        assert!(!section.is_empty(), "the template's line `{line}` names no file with C items");
        out.push_str(&section.join("\n\n"));
        out.push('\n');
    }
    let unplaced: Vec<String> =
        items.iter().zip(&placed).filter(|(_, p)| !**p).map(|(item, _)| declared_name(item)).collect();
    assert!(
        unplaced.is_empty(),
        "items defined in files no section of include/sqlbatch.h.in lists: {unplaced:?} (in {:?})",
        unplaced.iter().map(|n| defs.get(n)).collect::<Vec<_>>()
    );
    let version = env!("CARGO_PKG_VERSION");
    let mut parts = version.split(['.', '-']);
    out.replace("@VERSION@", version)
        .replace("@VERSION_MAJOR@", parts.next().unwrap_or("0"))
        .replace("@VERSION_MINOR@", parts.next().unwrap_or("0"))
        .replace("@VERSION_PATCH@", parts.next().unwrap_or("0"))
}

#[test]
fn header_matches_cbindgen_output() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let generated = generate(root);
    let path = root.join("include/sqlbatch.h");
    if std::env::var_os("SQLBATCH_BLESS").is_some() {
        std::fs::write(&path, &generated).expect("write header");
        for copy in COPIES {
            std::fs::write(root.join(copy), &generated).expect("write a copy of the header");
        }
        return;
    }
    let current = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        current == generated,
        "include/sqlbatch.h is out of date with src/ and include/sqlbatch.h.in: run scripts/gen-header.sh and commit the result"
    );
}

/// Copies of the header that must stay equal to it, written with it: the Go module's (a module
/// holds only its own files, so its cgo package cannot reach include/).
const COPIES: &[&str] = &["bindings/go/internal/capi/sqlbatch.h"];

#[test]
fn header_copies_match_the_header() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let header = std::fs::read_to_string(root.join("include/sqlbatch.h")).expect("read header");
    for copy in COPIES {
        let text = std::fs::read_to_string(root.join(copy)).unwrap_or_default();
        assert!(
            text == header,
            "{copy} differs from include/sqlbatch.h: run scripts/gen-header.sh and commit the result"
        );
    }
}

#[test]
fn header_version_matches_cargo() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let header = std::fs::read_to_string(root.join("include/sqlbatch.h")).expect("read header");
    let want = format!("#define SQLBATCH_VERSION \"{}\"", env!("CARGO_PKG_VERSION"));
    assert!(header.contains(&want), "the header's SQLBATCH_VERSION must be {}", env!("CARGO_PKG_VERSION"));
    for (part, value) in ["MAJOR", "MINOR", "PATCH"].iter().zip(env!("CARGO_PKG_VERSION").split(['.', '-'])) {
        assert!(
            header.contains(&format!("#define SQLBATCH_VERSION_{part} {value}\n")),
            "SQLBATCH_VERSION_{part}"
        );
    }
}

#[test]
fn header_sections_come_in_the_order_a_program_meets_them() {
    // Opening a connection before preparing, preparing before fetching, the core before
    // functions, hooks and the rest.
    let header = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/include/sqlbatch.h")).unwrap();
    let at = |decl: &str| header.find(decl).unwrap_or_else(|| panic!("{decl} is not declared"));
    let order = [
        "sqlbatch_code_str(",
        "sqlbatch_conn_open(",
        "sqlbatch_conn_close(",
        "sqlbatch_stmt_prepare(",
        "sqlbatch_stmt_bind(",
        "sqlbatch_stmt_fetch(",
        "sqlbatch_conn_exec(",
        "sqlbatch_stmt_execute_many(",
        "sqlbatch_conn_create_function(",
        "sqlbatch_conn_update_hook(",
        "sqlbatch_conn_limit(",
        "sqlbatch_backup_init(",
        "sqlbatch_session_create(",
        "sqlbatch_value_convert(",
    ];
    for pair in order.windows(2) {
        assert!(at(pair[0]) < at(pair[1]), "{} must come before {}", pair[0], pair[1]);
    }
}

#[test]
fn header_declares_only_the_librarys_own_names() {
    // SQLite's symbols are hidden in libsqlbatch (scripts/hide-symbols.sh): a declaration of
    // one (cbindgen copies an `extern` block of src/ unless cbindgen.toml excludes it) would
    // promise a function that a program cannot link.
    let header = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/include/sqlbatch.h")).unwrap();
    let foreign: Vec<&str> = header
        .lines()
        .filter(|l| !l.starts_with(' ') && !l.starts_with('#') && !l.starts_with("/*") && l.contains('('))
        .filter(|l| !l.contains("sqlbatch_") || l.starts_with("extern "))
        .collect();
    assert!(foreign.is_empty(), "declarations of other names in the header: {foreign:?}");
}
