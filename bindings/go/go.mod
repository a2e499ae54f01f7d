module github.com/sqlbatch/sqlbatch/bindings/go

go 1.24

// The per-platform modules that carry the prebuilt libsqlbatch.a, at the library's version:
// internal/capi imports the one of the GOOS/GOARCH it is built for, and the go command
// downloads only that one.
require (
	github.com/sqlbatch/sqlbatch/bindings/go/lib/darwin-amd64 v1.0.0
	github.com/sqlbatch/sqlbatch/bindings/go/lib/darwin-arm64 v1.0.0
	github.com/sqlbatch/sqlbatch/bindings/go/lib/linux-amd64 v1.0.0
	github.com/sqlbatch/sqlbatch/bindings/go/lib/linux-arm64 v1.0.0
)

// In the repository they are the directories under lib/, whose libsqlbatch.a is a link to
// build/lib's (make lib). Replace directives apply only in the main module: a program that
// requires this module gets the per-platform modules from the module proxy.
replace (
	github.com/sqlbatch/sqlbatch/bindings/go/lib/darwin-amd64 => ./lib/darwin-amd64
	github.com/sqlbatch/sqlbatch/bindings/go/lib/darwin-arm64 => ./lib/darwin-arm64
	github.com/sqlbatch/sqlbatch/bindings/go/lib/linux-amd64 => ./lib/linux-amd64
	github.com/sqlbatch/sqlbatch/bindings/go/lib/linux-arm64 => ./lib/linux-arm64
)
