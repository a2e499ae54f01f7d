//go:build !go1.27

package driver

// scanState is empty before Go 1.27: database/sql reads rows through Next (rows.go).
type scanState struct{}
