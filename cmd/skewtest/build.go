package main

import (
	"context"
	"io"

	"github.com/skewtest/skewtest/builds"
	"github.com/skewtest/skewtest/harness"
	"github.com/skewtest/skewtest/pins"
)

func cmdBuild(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o := &runOptions{}
	fs := newFlagSet("build", stderr, "build --repo DIR [--pins REF,...]")
	o.register(fs)
	pinList := fs.String("pins", "", "refs to build besides the working tree (default: the newest stable tag)")
	if err := parse(fs, args, 0); err != nil {
		return err
	}
	if err := o.check(); err != nil {
		return err
	}
	sel, err := pins.Resolve(ctx, o.Repo, pins.Options{Refs: pins.Refs("", list(*pinList)...)})
	if err != nil {
		return err
	}
	srcs := []builds.Source{builds.Worktree()}
	for _, p := range sel.Pins {
		srcs = append(srcs, builds.AtCommit(p.Ref, p.Commit))
	}
	b := &builds.Builder{CacheDir: o.CacheDir, Log: stderr}
	_, recs, err := harness.BuildAll(ctx, b, o.Repo, srcs, stdout)
	if err != nil {
		return err
	}
	failed := 0
	for _, r := range recs {
		if r.Status == "error" {
			failed++
		}
	}
	if failed > 0 {
		return &exitError{exitInfra}
	}
	return nil
}
