module github.com/sqlbatch/sqlbatch/tests/durability/gochild

go 1.24

require github.com/sqlbatch/sqlbatch/bindings/go v0.0.0

require (
	github.com/sqlbatch/sqlbatch/bindings/go/lib/darwin-amd64 v1.0.0 // indirect
	github.com/sqlbatch/sqlbatch/bindings/go/lib/darwin-arm64 v1.0.0 // indirect
	github.com/sqlbatch/sqlbatch/bindings/go/lib/linux-amd64 v1.0.0 // indirect
	github.com/sqlbatch/sqlbatch/bindings/go/lib/linux-arm64 v1.0.0 // indirect
)

// The checkout's module and its per-platform modules (which link build/lib/libsqlbatch.a), as
// bindings/go/go.mod replaces them: its replace directives do not apply here.
replace (
	github.com/sqlbatch/sqlbatch/bindings/go => ../../../bindings/go
	github.com/sqlbatch/sqlbatch/bindings/go/lib/darwin-amd64 => ../../../bindings/go/lib/darwin-amd64
	github.com/sqlbatch/sqlbatch/bindings/go/lib/darwin-arm64 => ../../../bindings/go/lib/darwin-arm64
	github.com/sqlbatch/sqlbatch/bindings/go/lib/linux-amd64 => ../../../bindings/go/lib/linux-amd64
	github.com/sqlbatch/sqlbatch/bindings/go/lib/linux-arm64 => ../../../bindings/go/lib/linux-arm64
)
