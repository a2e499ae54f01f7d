module github.com/sqlbatch/sqlbatch/bindings/go/lib/linux-arm64

go 1.24
