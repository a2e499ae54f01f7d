package driver

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"strings"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
)

// DriverName is the name the driver is registered under with database/sql.
const DriverName = "sqlbatch"

func init() {
	sql.Register(DriverName, &Driver{})
}

// Driver is the database/sql driver. It is registered as "sqlbatch" when this package is
// imported; use it directly only to set Extensions or ConnectHook, registering it under a
// name of its own with sql.Register.
type Driver struct {
	// Extensions are shared libraries of SQLite extensions loaded on every new connection,
	// after its DSN options were applied and before ConnectHook, each with SQLite's default
	// entry point (see Conn.LoadExtension), as mattn/go-sqlite3's SQLiteDriver.Extensions;
	// loading is enabled only while they load. A library that fails to load fails the
	// connection.
	Extensions []string
	// ConnectHook, if set, is called on every new connection after its DSN options were
	// applied; an error fails the connection.
	ConnectHook func(*Conn) error
}

var (
	_ driver.Driver        = (*Driver)(nil)
	_ driver.DriverContext = (*Driver)(nil)
	_ driver.Connector     = (*Connector)(nil)
)

// Open opens a connection for the DSN (see ParseDSN). database/sql calls OpenConnector
// instead, which parses the DSN once.
func (d *Driver) Open(dsn string) (driver.Conn, error) {
	c, err := d.OpenConnector(dsn)
	if err != nil {
		return nil, err
	}
	return c.Connect(context.Background())
}

// OpenConnector parses the DSN and returns a Connector for it.
func (d *Driver) OpenConnector(dsn string) (driver.Connector, error) {
	cfg, err := ParseDSN(dsn)
	if err != nil {
		return nil, err
	}
	return &Connector{Config: cfg, driver: d}, nil
}

// Connector opens connections with a fixed Config. Use it with sql.OpenDB to configure a
// pool from Go instead of a DSN:
//
//	cfg, err := driver.ParseDSN("app.db?_journal_mode=WAL")
//	if err != nil {
//		return err
//	}
//	cfg.Pragmas = append(cfg.Pragmas, "PRAGMA temp_store = MEMORY")
//	db := sql.OpenDB(driver.NewConnector(cfg))
type Connector struct {
	Config *Config
	driver *Driver
}

// NewConnector returns a Connector for cfg.
func NewConnector(cfg *Config) *Connector { return &Connector{Config: cfg, driver: &Driver{}} }

// Driver returns the Driver of c.
func (c *Connector) Driver() driver.Driver { return c.driver }

// Connect opens a new connection and applies the Config's busy timeout and pragmas to it
// (one call into C for all the pragmas).
func (c *Connector) Connect(ctx context.Context) (driver.Conn, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	cfg := c.Config
	path, flags := cfg.openArgs()
	var raw *sqlbatch.Conn
	var err error
	if cfg.Key != nil {
		raw, err = sqlbatch.OpenEncrypted(path, flags, cfg.Key, cfg.Cipher)
	} else {
		raw, err = sqlbatch.OpenWithFlags(path, flags)
	}
	if err != nil {
		return nil, err
	}
	conn := &Conn{c: raw, cfg: cfg}
	if cfg.StmtCacheSize > 0 {
		conn.cache = newStmtCache(cfg.StmtCacheSize)
	}
	fail := func(err error) (driver.Conn, error) {
		raw.Close()
		return nil, err
	}
	if err := raw.SetBusyTimeout(cfg.BusyTimeout); err != nil {
		return fail(err)
	}
	if len(cfg.Pragmas) > 0 {
		if _, err := raw.ExecScript(strings.Join(cfg.Pragmas, ";\n")); err != nil {
			return fail(err)
		}
	}
	if c.driver != nil && len(c.driver.Extensions) > 0 {
		if err := conn.loadExtensions(c.driver.Extensions, ""); err != nil {
			return fail(err)
		}
	}
	if c.driver != nil && c.driver.ConnectHook != nil {
		if err := c.driver.ConnectHook(conn); err != nil {
			return fail(err)
		}
	}
	return conn, nil
}
