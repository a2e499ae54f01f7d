module github.com/sqlbatch/sqlbatch/bindings/go/lib/darwin-amd64

go 1.24
