module github.com/sqlbatch/sqlbatch/bindings/go/lib/linux-amd64

go 1.24
