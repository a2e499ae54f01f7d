// Command modproxy adds one version of a Go module to a module proxy tree on disk, in the
// layout that GOPROXY=file://DIR serves and the go command verifies:
//
//	DIR/<escaped module path>/@v/list         the versions, one a line
//	DIR/<escaped module path>/@v/VERSION.info {"Version": ..., "Time": ...}
//	DIR/<escaped module path>/@v/VERSION.mod  the module's go.mod
//	DIR/<escaped module path>/@v/VERSION.zip  the module's files, as golang.org/x/mod/zip makes them
//
// Usage:
//
//	modproxy -module PATH -version vX.Y.Z -dir SRC -out DIR [-time RFC3339]
//
// SRC holds the module's files (go.mod at its top). The zip takes what the go command would
// take from a repository at that version: nested modules, vendor directories and version
// control directories are left out, and the paths must be valid module file paths. It is
// then checked as the go command checks a downloaded zip. `make dist` at the top of the
// repository runs it for the bindings/go module and for the per-platform module.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
	"golang.org/x/mod/zip"
)

func main() {
	modPath := flag.String("module", "", "module path")
	version := flag.String("version", "", "version (vX.Y.Z)")
	dir := flag.String("dir", "", "directory holding the module's files")
	out := flag.String("out", "", "the proxy tree to add the version to")
	when := flag.String("time", "", "the version's time (RFC 3339; default now)")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("modproxy: ")
	if *modPath == "" || *version == "" || *dir == "" || *out == "" || flag.NArg() != 0 {
		flag.Usage()
		os.Exit(2)
	}
	t := time.Now().UTC()
	if *when != "" {
		var err error
		if t, err = time.Parse(time.RFC3339, *when); err != nil {
			log.Fatal(err)
		}
	}
	if err := add(module.Version{Path: *modPath, Version: *version}, *dir, *out, t.UTC()); err != nil {
		log.Fatal(err)
	}
}

func add(m module.Version, dir, out string, t time.Time) error {
	if err := module.Check(m.Path, m.Version); err != nil {
		return err
	}
	if semver.Canonical(m.Version) != m.Version {
		return fmt.Errorf("%s is not a canonical semantic version", m.Version)
	}
	goMod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return err
	}
	if want := "module " + m.Path + "\n"; !strings.HasPrefix(string(goMod), want) && !strings.Contains(string(goMod), "\n"+want) {
		return fmt.Errorf("%s/go.mod does not declare module %s", dir, m.Path)
	}
	escaped, err := module.EscapePath(m.Path)
	if err != nil {
		return err
	}
	vdir := filepath.Join(out, filepath.FromSlash(escaped), "@v")
	if err := os.MkdirAll(vdir, 0o755); err != nil {
		return err
	}
	base := filepath.Join(vdir, m.Version)

	tmp, err := os.CreateTemp(vdir, ".zip-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := zip.CreateFromDir(tmp, m, dir); err != nil {
		tmp.Close()
		return fmt.Errorf("zip of %s: %w", dir, err)
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if _, err := zip.CheckZip(m, tmp.Name()); err != nil {
		return fmt.Errorf("the zip fails the go command's checks: %w", err)
	}
	if err := os.Rename(tmp.Name(), base+".zip"); err != nil {
		return err
	}
	if err := os.WriteFile(base+".mod", goMod, 0o644); err != nil {
		return err
	}
	info, err := json.Marshal(struct {
		Version string
		Time    time.Time
	}{m.Version, t})
	if err != nil {
		return err
	}
	if err := os.WriteFile(base+".info", append(info, '\n'), 0o644); err != nil {
		return err
	}

	// The list: every version with a zip, in semver order.
	var versions []string
	if data, err := os.ReadFile(filepath.Join(vdir, "list")); err == nil {
		versions = strings.Fields(string(data))
	}
	if !slices.Contains(versions, m.Version) {
		versions = append(versions, m.Version)
	}
	semver.Sort(versions)
	if err := os.WriteFile(filepath.Join(vdir, "list"), []byte(strings.Join(versions, "\n")+"\n"), 0o644); err != nil {
		return err
	}
	st, err := os.Stat(base + ".zip")
	if err != nil {
		return err
	}
	fmt.Printf("%s@%s: %s (%d KiB)\n", m.Path, m.Version, base+".zip", st.Size()>>10)
	return nil
}
