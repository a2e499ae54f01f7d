package driver

// BackupToFile copies database schema ("" is "main") into the file at path, created or
// replaced, in one call; see sqlbatch.Conn.BackupToFile.
func (c *Conn) BackupToFile(schema, path string) error { return c.c.BackupToFile(schema, path) }

// RestoreFromFile replaces database schema ("" is "main") with the database in the file at
// path, in one call; see sqlbatch.Conn.RestoreFromFile.
func (c *Conn) RestoreFromFile(schema, path string) error {
	return c.c.RestoreFromFile(schema, path)
}
