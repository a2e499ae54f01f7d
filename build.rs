//! Build script: link settings of the shared library (and, see mem_layout, the compile-time
//! check of the SQLite layout that direct reads rely on).

fn main() {
    // libsqlbatch.so gets a SONAME: for a 0.x version the minor number is the ABI version
    // (as in Cargo's semver rules), so 0.2.x is libsqlbatch.so.0.2.
    let major = std::env::var("CARGO_PKG_VERSION_MAJOR").unwrap_or_default();
    let minor = std::env::var("CARGO_PKG_VERSION_MINOR").unwrap_or_default();
    let soname = if major == "0" { format!("libsqlbatch.so.0.{minor}") } else { format!("libsqlbatch.so.{major}") };
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,{soname}");
    println!("cargo:rerun-if-changed=build.rs");
}
