module github.com/sqlbatch/sqlbatch/benches/go

go 1.26.0

require (
	github.com/mattn/go-sqlite3 v1.14.53
	github.com/mutecomm/go-sqlcipher/v4 v4.4.2
	github.com/sqlbatch/sqlbatch/bindings/go v0.0.0
	modernc.org/sqlite v1.62.0
)

require (
	github.com/dustin/go-humanize v1.1.0 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/mattn/go-isatty v0.0.24 // indirect
	github.com/ncruces/go-strftime v1.1.0 // indirect
	github.com/remyoudompheng/bigfft v0.0.0-20230129092748-24d4a6f8daec // indirect
	github.com/sqlbatch/sqlbatch/bindings/go/lib/darwin-amd64 v1.0.0 // indirect
	github.com/sqlbatch/sqlbatch/bindings/go/lib/darwin-arm64 v1.0.0 // indirect
	github.com/sqlbatch/sqlbatch/bindings/go/lib/linux-amd64 v1.0.0 // indirect
	github.com/sqlbatch/sqlbatch/bindings/go/lib/linux-arm64 v1.0.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	modernc.org/libc v1.80.1 // indirect
	modernc.org/mathutil v1.7.1 // indirect
	modernc.org/memory v1.12.1 // indirect
)

replace github.com/sqlbatch/sqlbatch/bindings/go => ../../bindings/go

// bindings/go's per-platform modules, replaced as in bindings/go/go.mod (its replace
// directives do not apply here): they link build/lib/libsqlbatch.a.
replace (
	github.com/sqlbatch/sqlbatch/bindings/go/lib/darwin-amd64 => ../../bindings/go/lib/darwin-amd64
	github.com/sqlbatch/sqlbatch/bindings/go/lib/darwin-arm64 => ../../bindings/go/lib/darwin-arm64
	github.com/sqlbatch/sqlbatch/bindings/go/lib/linux-amd64 => ../../bindings/go/lib/linux-amd64
	github.com/sqlbatch/sqlbatch/bindings/go/lib/linux-arm64 => ../../bindings/go/lib/linux-arm64
)
