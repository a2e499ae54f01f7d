package driver

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	sqlbatch "github.com/sqlbatch/sqlbatch/bindings/go"
)

// Config is a parsed DSN: what to open and how to set up each new connection.
// ParseDSN makes one; a Connector made from it opens connections with it.
type Config struct {
	// Path is what SQLite opens: a file name, ":memory:", "" (a private temporary file), or
	// a "file:" URI when URI is set (SQLite then reads its own parameters, such as mode,
	// cache and vfs, from it).
	Path string
	// URI says that Path is a "file:" URI.
	URI bool
	// Flags are extra open flags (OpenReadOnly for mode=ro, OpenFullMutex for _mutex=full,
	// OpenFetchAhead for _fetch_ahead=1, OpenUntrusted for _untrusted=1...).
	Flags sqlbatch.OpenFlags
	// BusyTimeout is how long a statement waits for a lock held by another connection
	// before failing with ErrBusy (_busy_timeout, in milliseconds; default 5000, as mattn).
	BusyTimeout time.Duration
	// TxLock is the statement that begins a transaction: "BEGIN" (default, _txlock=deferred),
	// "BEGIN IMMEDIATE" or "BEGIN EXCLUSIVE".
	TxLock string
	// Loc, if set (_loc=auto for time.Local, or an IANA name), is the location times read
	// from DATE, DATETIME and TIMESTAMP columns are converted to; otherwise they are UTC.
	Loc *time.Location
	// Pragmas are run, in order and as one script, on every new connection:
	// "PRAGMA foreign_keys = 1" and the like, from the DSN's underscore options, then one
	// per _pragma option ("_pragma=busy_timeout(10000)": "PRAGMA busy_timeout(10000)") in
	// the DSN's order, last so that they win over the options and their defaults.
	Pragmas []string
	// BatchRows is how many rows a query fetches per call into C (_batch_rows; default
	// sqlbatch.DefaultBatchRows, or AheadBatchRows with _fetch_ahead).
	BatchRows int
	// StmtCacheSize is how many statements of Query and Exec calls each connection keeps
	// prepared, by SQL text, to run them again without preparing them (_stmt_cache; default
	// DefaultStmtCacheSize; 0 turns the cache off).
	StmtCacheSize int
	// QueryOnly is whether PRAGMA query_only is on for the connection (_query_only), so that
	// read-only transactions restore it.
	QueryOnly bool
	// VFS is the name of the SQLite VFS to open the database with (the DSN's vfs option);
	// "" for SQLite's default. For a plain file name it is given to SQLite by opening the
	// name as a "file:" URI with a vfs parameter; a "file:" URI DSN carries its vfs itself
	// (SQLite reads it), and VFS is then left empty.
	VFS string
	// Key, if set, opens the database encrypted with it (sqlbatch.OpenEncrypted; an
	// encrypted build of the library): the DSN's _key or _pragma_key option, or a
	// _pragma=key(...) / _pragma=hexkey(...) option as the SQLCipher forks of mattn and
	// ncruces/go-sqlite3 take it. A hex key becomes SQLCipher's raw key form x'…'.
	Key []byte
	// Cipher holds the SQLCipher settings given with the key: the _pragma_cipher_compatibility,
	// _pragma_cipher_page_size, _pragma_kdf_iter and _pragma_cipher_plaintext_header_size
	// options (or the same names as _pragma=name(value)); nil when none is given.
	Cipher *sqlbatch.Cipher
	// Immutable opens a plain file name as immutable (the DSN's immutable option: SQLite's
	// URI parameter, https://sqlite.org/uri.html#uriimmutable), by the same URI as VFS.
	Immutable bool
}

// openArgs returns the name and flags to open: Path and Flags, or, when VFS or Immutable
// asks for what only a URI can say, Path as a "file:" URI with those parameters.
func (cfg *Config) openArgs() (string, sqlbatch.OpenFlags) {
	if cfg.VFS == "" && !cfg.Immutable {
		return cfg.Path, cfg.Flags
	}
	var b strings.Builder
	sep := "?"
	if cfg.URI {
		b.WriteString(cfg.Path)
		if strings.IndexByte(cfg.Path, '?') >= 0 {
			sep = "&"
		}
	} else {
		b.WriteString("file:")
		if strings.HasPrefix(cfg.Path, "/") {
			b.WriteString("//") // an empty authority, so that "//x" stays a path
		}
		uriEscape(&b, cfg.Path)
	}
	if cfg.VFS != "" {
		b.WriteString(sep + "vfs=")
		uriEscape(&b, cfg.VFS)
		sep = "&"
	}
	if cfg.Immutable {
		b.WriteString(sep + "immutable=1")
	}
	return b.String(), cfg.Flags | sqlbatch.OpenURI
}

// uriEscape writes s with every byte but letters, digits, "-._~/:" as %XX, which SQLite
// decodes in a URI's path and parameters (https://sqlite.org/uri.html).
func uriEscape(b *strings.Builder, s string) {
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~/:", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
}

// pragmaOf checks a _pragma value (name, name(value) or name=value, the name optionally
// schema-qualified) and returns its statement. One statement only: a ';' outside quotes
// is refused, so that a DSN cannot smuggle other SQL into every new connection.
func pragmaOf(v string) (string, error) {
	bad := func(why string) (string, error) {
		return "", fmt.Errorf("sqlbatch: invalid _pragma: %q: %s; expecting name, name(value) or name=value", v, why)
	}
	s := strings.TrimSpace(v)
	ident := func(i int) int {
		j := i
		for j < len(s) && (s[j] == '_' || 'a' <= s[j] && s[j] <= 'z' || 'A' <= s[j] && s[j] <= 'Z' || j > i && '0' <= s[j] && s[j] <= '9') {
			j++
		}
		return j
	}
	i := ident(0)
	if i == 0 {
		return bad("no pragma name")
	}
	if i < len(s) && s[i] == '.' {
		j := ident(i + 1)
		if j == i+1 {
			return bad("no pragma name after the schema")
		}
		i = j
	}
	rest := strings.TrimSpace(s[i:])
	switch {
	case rest == "":
	case rest[0] == '=':
		if strings.TrimSpace(rest[1:]) == "" {
			return bad("no value after =")
		}
	case rest[0] == '(' && rest[len(rest)-1] == ')':
	default:
		return bad("unexpected " + strconv.Quote(rest))
	}
	var quote byte
	for k := 0; k < len(rest); k++ {
		switch c := rest[k]; {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == ';':
			return bad("more than one statement")
		}
	}
	if quote != 0 {
		return bad("unterminated quote")
	}
	return "PRAGMA " + s, nil
}

// AheadBatchRows is the default of _batch_rows with _fetch_ahead: fewer, larger batches than
// sqlbatch.DefaultBatchRows make fewer hand-overs between the goroutine that reads the rows
// and the worker thread that steps them. Through database/sql (medians of interleaved runs
// on 2 cores, 2026-12-06), 1024 rows against 256 took fetch_wide from 1.19x to 1.29x the
// synchronous speed and fetch_work from 1.11x to 1.34x; the synchronous speed does not
// change with it.
const AheadBatchRows = 1024

// ParseDSN parses a data source name in mattn/go-sqlite3's format: a file name or a
// "file:" URI, optionally followed by "?" and options. See the package documentation for
// the options. Every option mattn/go-sqlite3 documents is applied or, for its user
// authentication (_auth...), refused with an error; other unknown options are ignored, as by
// mattn/go-sqlite3 (and by SQLite in URIs).
func ParseDSN(dsn string) (*Config, error) {
	cfg := &Config{
		Path:          dsn,
		URI:           strings.HasPrefix(dsn, "file:"),
		BusyTimeout:   5 * time.Second,
		TxLock:        "BEGIN",
		BatchRows:     sqlbatch.DefaultBatchRows,
		StmtCacheSize: DefaultStmtCacheSize,
	}
	var (
		pragmas   []string
		sync      = "NORMAL"
		locking   = "NORMAL"
		journal   string
		queryOnly = -1
		// userPragmas are the _pragma options, run after the others so that they win.
		userPragmas []string
	)
	pos := strings.IndexByte(dsn, '?')
	if pos >= 1 {
		params, err := url.ParseQuery(dsn[pos+1:])
		if err != nil {
			return nil, fmt.Errorf("sqlbatch: invalid DSN options %q: %w", dsn[pos+1:], err)
		}
		get := func(keys ...string) string {
			v := ""
			for _, k := range keys {
				if _, ok := params[k]; ok {
					v = params.Get(k)
				}
			}
			return v
		}
		boolOpt := func(name string, keys ...string) (int, error) {
			v := get(keys...)
			switch strings.ToLower(v) {
			case "":
				return -1, nil
			case "0", "no", "false", "off":
				return 0, nil
			case "1", "yes", "true", "on":
				return 1, nil
			}
			return -1, fmt.Errorf("sqlbatch: invalid %s: %q, expecting a boolean (0 1 false true no yes off on)", name, v)
		}
		if v := get("_loc"); v != "" {
			if strings.EqualFold(v, "auto") {
				cfg.Loc = time.Local
			} else {
				loc, err := time.LoadLocation(v)
				if err != nil {
					return nil, fmt.Errorf("sqlbatch: invalid _loc: %q: %w", v, err)
				}
				cfg.Loc = loc
			}
		}
		switch v := strings.ToLower(get("_mutex")); v {
		case "", "no":
		case "full":
			cfg.Flags |= sqlbatch.OpenFullMutex
		default:
			return nil, fmt.Errorf("sqlbatch: invalid _mutex: %q, expecting no or full", v)
		}
		switch v := strings.ToLower(get("_txlock")); v {
		case "", "deferred":
		case "immediate":
			cfg.TxLock = "BEGIN IMMEDIATE"
		case "exclusive":
			cfg.TxLock = "BEGIN EXCLUSIVE"
		default:
			return nil, fmt.Errorf("sqlbatch: invalid _txlock: %q, expecting deferred, immediate or exclusive", v)
		}
		if v := get("_busy_timeout", "_timeout"); v != "" {
			ms, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("sqlbatch: invalid _busy_timeout: %q: %w", v, err)
			}
			cfg.BusyTimeout = time.Duration(ms) * time.Millisecond
		}
		if v := get("_batch_rows"); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return nil, fmt.Errorf("sqlbatch: invalid _batch_rows: %q, expecting a positive integer", v)
			}
			cfg.BatchRows = n
		}
		fa, err := boolOpt("_fetch_ahead", "_fetch_ahead")
		if err != nil {
			return nil, err
		}
		if fa == 1 {
			cfg.Flags |= sqlbatch.OpenFetchAhead
			if get("_batch_rows") == "" {
				cfg.BatchRows = AheadBatchRows
			}
		}
		untrusted, err := boolOpt("_untrusted", "_untrusted")
		if err != nil {
			return nil, err
		}
		if untrusted == 1 {
			cfg.Flags |= sqlbatch.OpenUntrusted
		}
		// _stmt_cache_size is mattn's name (mattn's cache is off by default; this one is on).
		for _, k := range []string{"_stmt_cache", "_stmt_cache_size"} {
			if v := get(k); v != "" {
				n, err := strconv.Atoi(v)
				if err != nil || n < 0 {
					return nil, fmt.Errorf("sqlbatch: invalid %s: %q, expecting a number of statements (0: none)", k, v)
				}
				cfg.StmtCacheSize = n
			}
		}
		for _, k := range []string{"_auth", "_auth_user", "_auth_pass", "_auth_crypt", "_auth_salt"} {
			if _, ok := params[k]; ok {
				return nil, fmt.Errorf("sqlbatch: %s: user authentication is not supported (SQLite no longer has its userauth extension, and mattn/go-sqlite3 1.14.53 no longer supports it either)", k)
			}
		}
		for _, v := range params["_pragma"] {
			if ok, err := cfg.cipherPragma(v); ok || err != nil {
				if err != nil {
					return nil, err
				}
				continue
			}
			p, err := pragmaOf(v)
			if err != nil {
				return nil, err
			}
			userPragmas = append(userPragmas, p)
		}
		for _, k := range []string{"_key", "_pragma_key"} {
			if v := get(k); v != "" {
				cfg.Key = []byte(unquote(v))
			}
		}
		for _, name := range cipherSettings {
			if v := get("_pragma_" + name); v != "" {
				if err := cfg.setCipher(name, v); err != nil {
					return nil, err
				}
			}
		}
		if cfg.Cipher != nil && cfg.Key == nil {
			return nil, fmt.Errorf("sqlbatch: cipher settings without a key (_key or _pragma_key)")
		}
		if v := get("_auto_vacuum", "_vacuum"); v != "" {
			switch strings.ToLower(v) {
			case "0", "none":
				pragmas = append(pragmas, "PRAGMA auto_vacuum = 0")
			case "1", "full":
				pragmas = append(pragmas, "PRAGMA auto_vacuum = 1")
			case "2", "incremental":
				pragmas = append(pragmas, "PRAGMA auto_vacuum = 2")
			default:
				return nil, fmt.Errorf("sqlbatch: invalid _auto_vacuum: %q, expecting 0 1 2 none full incremental", v)
			}
		}
		for _, o := range []struct {
			name   string
			keys   []string
			pragma string
		}{
			{"_case_sensitive_like", []string{"_case_sensitive_like", "_cslike"}, "case_sensitive_like"},
			{"_defer_foreign_keys", []string{"_defer_foreign_keys", "_defer_fk"}, "defer_foreign_keys"},
			{"_foreign_keys", []string{"_foreign_keys", "_fk"}, "foreign_keys"},
			{"_ignore_check_constraints", []string{"_ignore_check_constraints"}, "ignore_check_constraints"},
			{"_recursive_triggers", []string{"_recursive_triggers", "_rt"}, "recursive_triggers"},
			{"_writable_schema", []string{"_writable_schema"}, "writable_schema"},
		} {
			b, err := boolOpt(o.name, o.keys...)
			if err != nil {
				return nil, err
			}
			if b >= 0 {
				pragmas = append(pragmas, fmt.Sprintf("PRAGMA %s = %d", o.pragma, b))
			}
		}
		if queryOnly, err = boolOpt("_query_only", "_query_only"); err != nil {
			return nil, err
		}
		if v := get("_journal_mode", "_journal"); v != "" {
			switch v = strings.ToUpper(v); v {
			case "DELETE", "TRUNCATE", "PERSIST", "MEMORY", "OFF", "WAL":
				journal = v
			default:
				return nil, fmt.Errorf("sqlbatch: invalid _journal_mode: %q, expecting DELETE TRUNCATE PERSIST MEMORY WAL OFF", v)
			}
		}
		if v := get("_locking_mode", "_locking"); v != "" {
			switch v = strings.ToUpper(v); v {
			case "NORMAL", "EXCLUSIVE":
				locking = v
			default:
				return nil, fmt.Errorf("sqlbatch: invalid _locking_mode: %q, expecting NORMAL or EXCLUSIVE", v)
			}
		}
		if v := get("_secure_delete"); v != "" {
			switch strings.ToLower(v) {
			case "0", "no", "false", "off":
				pragmas = append(pragmas, "PRAGMA secure_delete = OFF")
			case "1", "yes", "true", "on":
				pragmas = append(pragmas, "PRAGMA secure_delete = ON")
			case "fast":
				pragmas = append(pragmas, "PRAGMA secure_delete = FAST")
			default:
				return nil, fmt.Errorf("sqlbatch: invalid _secure_delete: %q, expecting a boolean or fast", v)
			}
		}
		if v := get("_synchronous", "_sync"); v != "" {
			switch v = strings.ToUpper(v); v {
			case "0", "OFF", "1", "NORMAL", "2", "FULL", "3", "EXTRA":
				sync = v
			default:
				return nil, fmt.Errorf("sqlbatch: invalid _synchronous: %q, expecting 0 1 2 3 OFF NORMAL FULL EXTRA", v)
			}
		}
		if v := get("_cache_size"); v != "" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("sqlbatch: invalid _cache_size: %q: %w", v, err)
			}
			pragmas = append(pragmas, fmt.Sprintf("PRAGMA cache_size = %d", n))
		}
		if !cfg.URI {
			// SQLite reads vfs and immutable from a URI itself; for a plain file name they
			// make Connect open a URI (see openArgs).
			cfg.VFS = get("vfs")
			if _, ok := params["vfs"]; ok && cfg.VFS == "" {
				return nil, fmt.Errorf("sqlbatch: invalid vfs: empty, expecting the name of a VFS")
			}
			imm, err := boolOpt("immutable", "immutable")
			if err != nil {
				return nil, err
			}
			cfg.Immutable = imm == 1
			// SQLite reads mode and cache from a URI itself; for a plain file name they
			// become open flags (mattn/go-sqlite3 drops them there).
			switch v := get("mode"); v {
			case "":
			case "ro":
				cfg.Flags |= sqlbatch.OpenReadOnly
			case "rw":
				cfg.Flags |= sqlbatch.OpenReadWrite
			case "rwc":
				cfg.Flags |= sqlbatch.OpenReadWrite | sqlbatch.OpenCreate
			case "memory":
				cfg.Flags |= sqlbatch.OpenMemory
			default:
				return nil, fmt.Errorf("sqlbatch: invalid mode: %q, expecting ro rw rwc memory", v)
			}
			switch v := get("cache"); v {
			case "":
			case "shared":
				cfg.Flags |= sqlbatch.OpenSharedCache
			case "private":
				cfg.Flags |= sqlbatch.OpenPrivateCache
			default:
				return nil, fmt.Errorf("sqlbatch: invalid cache: %q, expecting shared or private", v)
			}
			cfg.Path = dsn[:pos]
		}
	}
	if cfg.URI {
		cfg.Flags |= sqlbatch.OpenURI
	}
	// In mattn/go-sqlite3's order: journal mode, locking mode, query_only, synchronous.
	if journal != "" {
		pragmas = append(pragmas, "PRAGMA journal_mode = "+journal)
	}
	pragmas = append(pragmas, "PRAGMA locking_mode = "+locking)
	if queryOnly >= 0 {
		pragmas = append(pragmas, fmt.Sprintf("PRAGMA query_only = %d", queryOnly))
		cfg.QueryOnly = queryOnly == 1
	}
	pragmas = append(pragmas, "PRAGMA synchronous = "+sync)
	cfg.Pragmas = append(pragmas, userPragmas...)
	return cfg, nil
}

// cipherSettings are the SQLCipher settings a DSN may give with its key.
var cipherSettings = []string{"cipher_compatibility", "cipher_page_size", "kdf_iter", "cipher_plaintext_header_size"}

// cipherPragma takes a _pragma option that keys the database or sets a cipher setting
// (key, hexkey, textkey and the cipherSettings, as name(value) or name=value): they must
// apply before anything reads the file, so they go to OpenEncrypted instead of the pragmas
// run after opening. It reports whether v was one.
func (cfg *Config) cipherPragma(v string) (bool, error) {
	s := strings.TrimSpace(v)
	i := strings.IndexAny(s, "(=")
	if i < 0 {
		return false, nil
	}
	name, arg := strings.ToLower(strings.TrimSpace(s[:i])), strings.TrimSpace(s[i+1:])
	if s[i] == '(' {
		if !strings.HasSuffix(arg, ")") {
			return false, nil
		}
		arg = strings.TrimSpace(arg[:len(arg)-1])
	}
	switch name {
	case "key", "textkey":
		cfg.Key = []byte(unquote(arg))
	case "hexkey":
		hex := unquote(arg)
		cfg.Key = []byte("x'" + hex + "'")
	default:
		for _, c := range cipherSettings {
			if name == c {
				return true, cfg.setCipher(name, unquote(arg))
			}
		}
		return false, nil
	}
	return true, nil
}

// setCipher sets one of the cipherSettings from its DSN value.
func (cfg *Config) setCipher(name, v string) error {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return fmt.Errorf("sqlbatch: invalid %s: %q, expecting a number", name, v)
	}
	if cfg.Cipher == nil {
		cfg.Cipher = &sqlbatch.Cipher{}
	}
	switch name {
	case "cipher_compatibility":
		cfg.Cipher.Compatibility = n
	case "cipher_page_size":
		cfg.Cipher.PageSize = n
	case "kdf_iter":
		cfg.Cipher.KDFIter = n
	case "cipher_plaintext_header_size":
		cfg.Cipher.PlaintextHeaderSize = n
	}
	return nil
}

// unquote removes one pair of SQL quotes ('…' or "…", a doubled quote inside becoming one)
// around a key: _pragma_key='secret' and _pragma_key=secret give the same key. A raw key
// x'…' keeps its quotes.
func unquote(v string) string {
	if len(v) >= 2 && (v[0] == '\'' || v[0] == '"') && v[len(v)-1] == v[0] {
		q := string(v[0])
		return strings.ReplaceAll(v[1:len(v)-1], q+q, q)
	}
	return v
}
