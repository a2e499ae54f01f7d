package driver

import (
	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
)

// held is a statement a connection keeps between uses: one prepared through database/sql
// (stmt) or one in the statement cache (cached).
type held struct {
	s *sqlbatch.Stmt
	// busy is set while rows of s are open: a query or exec meanwhile (possible inside a
	// transaction, or with nested queries) prepares a statement of its own instead of
	// rewinding s under the open rows.
	busy bool
	// drop is set when s is no longer wanted (the stmt was closed, or the cache evicted it)
	// while it was busy: the rows close it when they close.
	drop bool
	// meta is what the rows of s need to know about its columns, kept while they stay the same.
	meta rowsMeta
}

// release closes s now, or when its rows close. s may be nil (a script).
func (h *held) release() {
	if h.busy {
		h.drop = true
		return
	}
	if h.s != nil {
		h.s.Close()
	}
}

// Statement cache: each connection keeps the statements of its recent Query and Exec calls,
// keyed by their SQL text, so that running the same SQL again skips preparing it (parsing
// and planning take longer than running a simple statement). It holds single statements up
// to maxCachedSQL bytes long; a longer text, or one holding several statements (which Exec
// runs as a script), is not kept (the cache only remembers that the text is a script).
//
// A cached statement stays correct when the schema changes: SQLite recompiles it when it
// next runs (sqlite3_prepare_v3 statements do so by themselves), and the driver reads its
// columns again after that first step (see rows). Config.StmtCacheSize (the DSN's
// _stmt_cache) sets the size; 0 turns the cache off.

// maxCachedSQL is the longest SQL text the cache keeps; longer ones are scripts or one-off
// statements, not worth hashing on every call.
const maxCachedSQL = 4096

// DefaultStmtCacheSize is the number of statements a connection keeps by default.
const DefaultStmtCacheSize = 32

// cached is an entry of the cache: a statement, or (s == nil) the knowledge that the text
// holds several statements.
type cached struct {
	held
	query      string
	prev, next *cached // the LRU list, most recent first
}

type stmtCache struct {
	max  int
	m    map[string]*cached
	list cached // sentinel of the LRU list
}

func newStmtCache(max int) *stmtCache {
	c := &stmtCache{max: max, m: make(map[string]*cached, max)}
	c.list.prev, c.list.next = &c.list, &c.list
	return c
}

// get returns the entry of query (making it the most recent), or nil.
func (c *stmtCache) get(query string) *cached {
	if c == nil || len(query) > maxCachedSQL {
		return nil
	}
	e := c.m[query]
	if e != nil && c.list.next != e {
		c.unlink(e)
		c.pushFront(e)
	}
	return e
}

// put adds an entry for query with statement s (nil for a script), evicting the least
// recently used entry if the cache is full. The cache owns s from then on.
func (c *stmtCache) put(query string, s *sqlbatch.Stmt) *cached {
	if old := c.m[query]; old != nil {
		c.remove(old)
	}
	e := &cached{held: held{s: s}, query: query}
	c.m[query] = e
	c.pushFront(e)
	if len(c.m) > c.max {
		c.remove(c.list.prev)
	}
	return e
}

// remove drops e from the cache and releases its statement.
func (c *stmtCache) remove(e *cached) {
	c.unlink(e)
	delete(c.m, e.query)
	if e.s != nil {
		e.release()
	}
}

// closeAll drops every entry (the connection is closing).
func (c *stmtCache) closeAll() {
	if c == nil {
		return
	}
	for c.list.next != &c.list {
		c.remove(c.list.next)
	}
}

func (c *stmtCache) unlink(e *cached) { e.prev.next, e.next.prev = e.next, e.prev }

func (c *stmtCache) pushFront(e *cached) {
	e.prev, e.next = &c.list, c.list.next
	c.list.next.prev = e
	c.list.next = e
}

// cacheable reports whether query may be kept in the cache.
func (c *stmtCache) cacheable(query string) bool { return c != nil && len(query) <= maxCachedSQL }
