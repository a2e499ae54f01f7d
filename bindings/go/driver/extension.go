package driver

// LoadExtension loads the SQLite extension in the shared library lib into this connection
// and runs its entry point entry, as mattn/go-sqlite3's SQLiteConn.LoadExtension does:
// loading is enabled for the call and disabled again after it, whether it succeeded or not.
// An empty entry is SQLite's default (sqlite3_extension_init, else the name derived from
// the file name: sqlite3_vec_init for vec0.so). Reach it through sql.Conn.Raw, or from a
// ConnectHook for every connection of a pool; to load the same libraries on every
// connection, set Driver.Extensions instead. A failure is a *sqlbatch.Error with SQLite's
// message. Load only code you trust: it runs with the program's privileges.
func (c *Conn) LoadExtension(lib, entry string) error {
	return c.loadExtensions([]string{lib}, entry)
}

// loadExtensions loads each of libs with entry point entry, loading enabled for the
// duration only.
func (c *Conn) loadExtensions(libs []string, entry string) error {
	if err := c.c.EnableLoadExtension(true); err != nil {
		return err
	}
	for _, lib := range libs {
		if err := c.c.LoadExtension(lib, entry); err != nil {
			c.c.EnableLoadExtension(false) // the load's error is the one to report
			return err
		}
	}
	return c.c.EnableLoadExtension(false)
}
