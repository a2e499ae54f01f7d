module github.com/sqlbatch/sqlbatch/bindings/go

go 1.24
