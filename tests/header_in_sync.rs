//! Fails when include/sqlbatch.h differs from what cbindgen generates from src/.
//! Run with SQLBATCH_BLESS=1 (or scripts/gen-header.sh) to rewrite the header.

use std::path::Path;

#[test]
fn header_matches_cbindgen_output() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(root.join("cbindgen.toml")).expect("read cbindgen.toml");
    let mut generated = Vec::new();
    cbindgen::Builder::new()
        .with_crate(root)
        .with_config(config)
        .generate()
        .expect("cbindgen failed")
        .write(&mut generated);
    let path = root.join("include/sqlbatch.h");
    if std::env::var_os("SQLBATCH_BLESS").is_some() {
        std::fs::write(&path, &generated).expect("write header");
        return;
    }
    let current = std::fs::read(&path).unwrap_or_default();
    assert!(
        current == generated,
        "include/sqlbatch.h is out of date with src/: run scripts/gen-header.sh and commit the result"
    );
}

#[test]
fn header_version_matches_cargo() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let header = std::fs::read_to_string(root.join("include/sqlbatch.h")).expect("read header");
    let want = format!("#define SQLBATCH_VERSION \"{}\"", env!("CARGO_PKG_VERSION"));
    assert!(header.contains(&want), "cbindgen.toml's SQLBATCH_VERSION must be {}", env!("CARGO_PKG_VERSION"));
    for (part, value) in ["MAJOR", "MINOR", "PATCH"].iter().zip(env!("CARGO_PKG_VERSION").split('.')) {
        assert!(
            header.contains(&format!("#define SQLBATCH_VERSION_{part} {value}\n")),
            "SQLBATCH_VERSION_{part}"
        );
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
