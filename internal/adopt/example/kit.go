package example

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/mod/modfile"

	"github.com/skewtest/skewtest/internal/adopt/example/internal/bundle"
)

// kitModule is skewtest's module, which holds the driver kit.
const kitModule = "github.com/skewtest/skewtest"

// kitDest is where a tree gets its copy of the kit's module.
const kitDest = "third_party/skewtest"

// kit is the driver kit as written into a tree: its module's go.mod, its Go sources and
// the Node.js kit (driverkit/node: driverkit.js and its type declarations).
type kit map[string][]byte

// loadKit reads the kit from a skewtest repository: a go.mod for the module with the
// repository's go directive and no requirements (the kit uses the standard library only),
// and the kit's sources (bundle.KitFiles).
func loadKit(root fs.FS) (kit, error) {
	data, err := fs.ReadFile(root, bundle.ModFile)
	if err != nil {
		return nil, fmt.Errorf("read the driver kit: %w", err)
	}
	mf, err := modfile.ParseLax(bundle.ModFile, data, nil)
	if err != nil {
		return nil, fmt.Errorf("read the driver kit: %w", err)
	}
	if mf.Go == nil {
		return nil, fmt.Errorf("read the driver kit: %s has no go directive", bundle.ModFile)
	}
	k := kit{"go.mod": fmt.Appendf(nil, "// skewtest's driver kit, written here by `skewtest example` so this tree builds by itself.\nmodule %s\n\ngo %s\n", kitModule, mf.Go.Version)}
	files, err := bundle.KitFiles(root)
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		if k[f], err = fs.ReadFile(root, f); err != nil {
			return nil, fmt.Errorf("read the driver kit: %w", err)
		}
	}
	return k, nil
}

// vendorKit points a tree's go.mod at its own copy of the kit when the module requires
// skewtest's: it writes the kit under kitDest and replaces the module with it. A go.mod
// that does not require skewtest's module is left alone.
func vendorKit(dest string, k kit) error {
	edited, err := editKitModule(dest, func(mf *modfile.File) error {
		// Updates the module's replace in place (any version), or adds one.
		return mf.AddReplace(kitModule, "", "./"+kitDest, "")
	})
	if err != nil || !edited {
		return err
	}
	for name, data := range k {
		if err := writeFile(filepath.Join(dest, filepath.FromSlash(kitDest), filepath.FromSlash(name)), data); err != nil {
			return err
		}
	}
	return nil
}

// dropKit takes skewtest's module out of a tree's go.mod (its requirement and replace): a
// tree from before the product adopted skewtest knows nothing of it. A go.mod that does not
// require it is left alone.
func dropKit(dest string) error {
	_, err := editKitModule(dest, func(mf *modfile.File) error {
		if err := mf.DropRequire(kitModule); err != nil {
			return err
		}
		return mf.DropReplace(kitModule, "")
	})
	return err
}

// editKitModule edits the tree's go.mod with edit and writes it back, when the module
// requires skewtest's; it says whether it did. A tree without a go.mod is no Go module.
func editKitModule(dest string, edit func(*modfile.File) error) (bool, error) {
	gomod := filepath.Join(dest, "go.mod")
	data, err := os.ReadFile(gomod)
	if err != nil {
		return false, nil // not a Go module
	}
	mf, err := modfile.Parse("go.mod", data, nil)
	if err != nil {
		return false, err
	}
	if !slices.ContainsFunc(mf.Require, func(r *modfile.Require) bool { return r.Mod.Path == kitModule }) {
		return false, nil
	}
	if err := edit(mf); err != nil {
		return false, err
	}
	mf.Cleanup()
	out, err := mf.Format()
	if err != nil {
		return false, err
	}
	return true, writeFile(gomod, out)
}

// DriverKit returns the Go driver kit as a module of its own, for a product's driver to
// build against without the network (`skewtest init --vendor-kit`): its go.mod (the module
// github.com/skewtest/skewtest, with skewtest's go directive and no requirements) and the
// Go sources of driverkit, by slash-separated path. They come from the skewtest checkout
// around the working directory or the skewtest binary, else from the copy built into
// skewtest, as `skewtest example` writes them.
func DriverKit() (map[string][]byte, error) {
	src, err := FindSource("")
	if err != nil {
		return nil, err
	}
	k, err := loadKit(src.kit)
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	for name, data := range k {
		if strings.HasPrefix(name, bundle.NodeKitDir+"/") {
			continue // the Node.js kit: not for a Go driver
		}
		out[name] = data
	}
	return out, nil
}
