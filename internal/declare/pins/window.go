package pins

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"

	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/skewtest/skewtest/internal/declare/contract"
	"go.yaml.in/yaml/v3"
)

// configFile is the subject's configuration, builds.ConfigFile (pins cannot import
// builds). The window rule reads only its contract key, leniently: an old tag's
// configuration is read the way it was written, not checked against today's schema.
const configFile = "skewtest.yaml"

// Protocol is a build's protocol window, from its wire contract's "protocol" object; its
// Overlaps is the one window rule.
type Protocol = contract.Protocol

// errNoVersion is parseProtocol's error for a contract that declares no protocol version.
var errNoVersion = errors.New("no protocol.version")

// parseProtocol reads the protocol object of a contract. A contract that declares no
// version returns its window (version 0) with an error wrapping errNoVersion: a peer's
// default for such a build (protocol.omitted) may still place it.
func parseProtocol(name string, data []byte) (Protocol, error) {
	var c struct {
		Protocol *Protocol `json:"protocol"`
	}
	if err := json.Unmarshal(data, &c); err != nil {
		return Protocol{}, fmt.Errorf("read %s: %w", name, err)
	}
	if c.Protocol == nil || c.Protocol.Version <= 0 {
		var p Protocol
		if c.Protocol != nil {
			p = *c.Protocol
		}
		return p, fmt.Errorf("%s has %w", name, errNoVersion)
	}
	return *c.Protocol, nil
}

// contractPath reads the contract key of a skewtest.yaml; fallback is used when the
// file has none.
func contractPath(name string, data []byte) (string, error) {
	var c struct {
		Contract string `yaml:"contract"`
	}
	if err := yaml.Unmarshal(data, &c); err != nil {
		return "", fmt.Errorf("read %s: %w", name, err)
	}
	if c.Contract == "" {
		return "", fmt.Errorf("%s names no contract", name)
	}
	return c.Contract, nil
}

// worktreeProtocol reads the working tree's protocol window: the contract its
// skewtest.yaml names. Errors wrap ErrNoProtocol.
func worktreeProtocol(root string) (Protocol, string, error) {
	cfgPath := filepath.Join(root, configFile)
	data, err := os.ReadFile(cfgPath)
	if err != nil {
		return Protocol{}, "", fmt.Errorf("%w of the working tree: %w", ErrNoProtocol, err)
	}
	rel, err := contractPath(cfgPath, data)
	if err != nil {
		return Protocol{}, "", fmt.Errorf("%w of the working tree: %w", ErrNoProtocol, err)
	}
	contract := filepath.Join(root, filepath.FromSlash(rel))
	data, err = os.ReadFile(contract)
	if err != nil {
		return Protocol{}, "", fmt.Errorf("%w of the working tree: %w", ErrNoProtocol, err)
	}
	p, err := parseProtocol(contract, data)
	if err != nil {
		return Protocol{}, "", fmt.Errorf("%w of the working tree: %w", ErrNoProtocol, err)
	}
	return p, rel, nil
}

// commitProtocol reads a commit's protocol window from its object database, without a
// checkout: the contract its own skewtest.yaml names, or fallback (the working tree's
// contract path) when the commit predates skewtest.yaml.
func commitProtocol(commit *object.Commit, label, fallback string) (Protocol, error) {
	tree, err := commit.Tree()
	if err != nil {
		return Protocol{}, fmt.Errorf("tree of %s: %w", label, err)
	}
	rel := fallback
	switch f, err := tree.File(configFile); {
	case errors.Is(err, object.ErrFileNotFound):
	case err != nil:
		return Protocol{}, fmt.Errorf("read %s:%s: %w", label, configFile, err)
	default:
		data, err := f.Contents()
		if err != nil {
			return Protocol{}, fmt.Errorf("read %s:%s: %w", label, configFile, err)
		}
		if rel, err = contractPath(label+":"+configFile, []byte(data)); err != nil {
			return Protocol{}, err
		}
	}
	name := label + ":" + path.Clean(rel)
	f, err := tree.File(path.Clean(rel))
	if err != nil {
		return Protocol{}, fmt.Errorf("read %s: %w", name, err)
	}
	data, err := f.Contents()
	if err != nil {
		return Protocol{}, fmt.Errorf("read %s: %w", name, err)
	}
	return parseProtocol(name, []byte(data))
}
