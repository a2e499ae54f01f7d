module github.com/sqlbatch/sqlbatch/bindings/go/lib/darwin-arm64

go 1.24
