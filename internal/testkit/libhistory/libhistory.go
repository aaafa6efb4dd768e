// Package libhistory writes a small synthetic Go library's git history for specs of a late
// adoption: wirelib, a stream library over plain TCP whose first tags predate modules, whose
// frames carry a binary, little-endian, length-prefixed header, whose host sends a keepalive
// on a timer, and whose protocol version changed without negotiation between two tags.
//
// The history, oldest first (each commit's library from testdata/lib, by template):
//
//	v0.1.0   GOPATH era: no go.mod, protocol 1
//	         a plain commit (README)
//	v0.2.0   still no go.mod
//	v0.3.0   adopts modules (go.mod: module example.com/wirelib)
//	         two plain commits
//	         "wire: protocol 2": the version byte becomes 2; protocol-1 peers refuse it
//	         a plain commit
//	v0.4.0   protocol 2
//
// Every commit has the library (wire.go) and its example, examples/echo (a host and a
// client on a TCP address). The working tree is v0.4.0, clean. The driver a user writes on
// top of skewtest init's skeleton to adopt skewtest is testdata/adopt/driver/main.go, read
// through Adoption; the contracts, the journey and the skewtest.yaml rows are the blocks of
// docs/subject.md's walkthrough ("Late adoption of a library, step by step"), which its
// spec runs.
package libhistory

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"text/template"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

//go:embed testdata/lib testdata/adopt
var sources embed.FS

// Module is the library's module path (from v0.3.0 on; earlier tags have none).
const Module = "example.com/wirelib"

// History is a written history.
type History struct {
	// Dir is the repository, its working tree at v0.4.0.
	Dir string
	// Tags maps each tag to its commit.
	Tags map[string]string
	// ProtocolTwo is the commit that changed the version byte to 2.
	ProtocolTwo string
	// Commits lists every commit, oldest first, with its subject line.
	Commits []Commit
}

// Commit is one commit of the history.
type Commit struct {
	Hash, Subject string
}

// step is one commit to make: the library's template values, what changes, its tag.
type step struct {
	subject  string
	version  string // the Version constant
	protocol int
	gomod    bool
	note     string // a line added to the README
	tag      string
}

// steps is the history, oldest first.
var steps = []step{
	{subject: "wirelib: frames with a version byte, a type, a u16le length and a stream id", version: "v0.1.0", protocol: 1, note: "v0.1.0: hello, welcome, ping, pong, keepalive", tag: "v0.1.0"},
	{subject: "README: the frame header", version: "v0.1.0", protocol: 1, note: "the header: version u8, type u8, length u16le, stream u32le"},
	{subject: "release v0.2.0", version: "v0.2.0", protocol: 1, note: "v0.2.0", tag: "v0.2.0"},
	{subject: "go.mod: the library is a module", version: "v0.3.0", protocol: 1, gomod: true, note: "v0.3.0: a Go module", tag: "v0.3.0"},
	{subject: "README: how a host serves", version: "v0.3.0", protocol: 1, gomod: true, note: "Host.Serve serves one connection"},
	{subject: "README: keepalives", version: "v0.3.0", protocol: 1, gomod: true, note: "a host sends Keepalive every Host.Keepalive"},
	{subject: "wire: protocol 2", version: "v0.3.0", protocol: 2, gomod: true, note: "protocol 2: the version byte is 2, and protocol-1 peers are refused"},
	{subject: "README: protocol 2", version: "v0.3.0", protocol: 2, gomod: true, note: "upgrade hosts and clients together"},
	{subject: "release v0.4.0", version: "v0.4.0", protocol: 2, gomod: true, note: "v0.4.0", tag: "v0.4.0"},
}

// Write writes the history into dir, a new directory.
func Write(dir string) (*History, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	repo, err := git.PlainInit(dir, false)
	if err != nil {
		return nil, err
	}
	wt, err := repo.Worktree()
	if err != nil {
		return nil, err
	}
	tmpl, err := template.ParseFS(sources, "testdata/lib/*.tmpl")
	if err != nil {
		return nil, err
	}
	h := &History{Dir: dir, Tags: map[string]string{}}
	readme := "# wirelib\n\nFrames between a host and its clients over plain TCP.\n\n"
	for i, s := range steps {
		readme += "- " + s.note + "\n"
		files := map[string]string{"README.md": readme}
		for name, file := range map[string]string{"wire.go.tmpl": "wire.go", "echo.go.tmpl": "examples/echo/main.go"} {
			var b bytes.Buffer
			if err := tmpl.ExecuteTemplate(&b, name, map[string]any{"Version": s.version, "Protocol": s.protocol, "Module": Module}); err != nil {
				return nil, err
			}
			files[file] = b.String()
		}
		if s.gomod {
			files["go.mod"] = "module " + Module + "\n\ngo 1.22\n"
		}
		for name, body := range files {
			if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
				return nil, err
			}
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
				return nil, err
			}
		}
		if err := wt.AddWithOptions(&git.AddOptions{All: true}); err != nil {
			return nil, err
		}
		sig := &object.Signature{Name: "wirelib maintainers", Email: "maintainers@example.com", When: time.Date(2019, 1, 1+i, 12, 0, 0, 0, time.UTC)}
		c, err := wt.Commit(s.subject, &git.CommitOptions{Author: sig, Committer: sig})
		if err != nil {
			return nil, err
		}
		h.Commits = append(h.Commits, Commit{Hash: c.String(), Subject: s.subject})
		if s.protocol == 2 && h.ProtocolTwo == "" {
			h.ProtocolTwo = c.String()
		}
		if s.tag != "" {
			if _, err := repo.CreateTag(s.tag, c, &git.CreateTagOptions{Tagger: sig, Message: s.tag}); err != nil {
				return nil, err
			}
			h.Tags[s.tag] = c.String()
		}
	}
	return h, nil
}

// Hash is the commit of a tag.
func (h *History) Hash(tag string) plumbing.Hash { return plumbing.NewHash(h.Tags[tag]) }

// Adoption returns a file a user writes on top of skewtest init's skeleton to adopt
// skewtest on this library: name is its path under testdata/adopt (driver/main.go).
func Adoption(name string) (string, error) {
	b, err := fs.ReadFile(sources, "testdata/adopt/"+name)
	if err != nil {
		return "", fmt.Errorf("libhistory: %w", err)
	}
	return string(b), nil
}
