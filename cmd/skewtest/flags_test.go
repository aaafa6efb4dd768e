package main

import (
	"bytes"
	"context"
	"fmt"
	"io"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/builds"
	"github.com/skewtest/skewtest/journeys"
	"github.com/skewtest/skewtest/pins"
)

var _ = Describe("flags", func() {
	It("parses run", func() {
		o, err := parseRun([]string{"--repo", "/r", "--pins", "v1, v2", "--matrix", "full", "--kind", "desktop",
			"--journey", "terminal", "--timeout", "3s", "--seed", "7", "--report-dir", "out"}, io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(o.Repo).To(Equal("/r"))
		Expect(o.Pins).To(Equal([]string{"v1", "v2"}))
		Expect(o.Matrix).To(Equal("full"))
		Expect(o.Kinds).To(Equal([]string{"desktop"}))
		Expect(o.Journeys).To(Equal([]string{"terminal"}))
		Expect(o.Timeout.String()).To(Equal("3s"))
		Expect(o.Seed).To(Equal(int64(7)))
		Expect(o.ReportDir).To(Equal("out"))
	})

	It("parses --future-peers for run and repro, off by default", func() {
		o, err := parseRun([]string{"--repo", "/r"}, io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(o.FuturePeers).To(BeFalse())
		o, err = parseRun([]string{"--repo", "/r", "--future-peers"}, io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(o.FuturePeers).To(BeTrue())
		o, err = parseRepro([]string{"--repo", "/r", "--host", "v1", "--client", "worktree", "--future-peers"}, io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(o.FuturePeers).To(BeTrue())
	})

	It("draws a seed when none is given", func() {
		o, err := parseRun([]string{"--repo", "/r"}, io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(o.Seed).NotTo(BeZero())
	})

	It("parses repro", func() {
		o, err := parseRepro([]string{"--repo", "/r", "--host", "v1.4.190", "--client", "worktree", "--kind", "mobile"}, io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(o.Host).To(Equal("v1.4.190"))
		Expect(o.Client).To(Equal("worktree"))
		Expect(o.Kinds).To(Equal([]string{"mobile"}))
	})

	DescribeTable("refuses bad command lines with exit code 2",
		func(args []string, want string) {
			var stderr bytes.Buffer
			err := dispatch(context.Background(), args, io.Discard, io.Discard)
			Expect(err).To(HaveOccurred())
			Expect(exitCode(err, &stderr)).To(Equal(exitUsage))
			Expect(stderr.String()).To(ContainSubstring(want))
		},
		Entry("no command", []string{}, "no command"),
		Entry("unknown command", []string{"frobnicate"}, `unknown command "frobnicate"`),
		Entry("run without repo", []string{"run"}, "--repo is required"),
		Entry("unknown flag", []string{"run", "--repo", "x", "--bogus"}, "flag provided but not defined: -bogus"),
		Entry("stray argument", []string{"run", "--repo", "x", "extra"}, `unexpected argument "extra"`),
		Entry("repro without client", []string{"repro", "--repo", "x", "--host", "v1"}, "repro needs --host and --client"),
		Entry("example without dir", []string{"example"}, "want 1 argument(s), got 0"),
		Entry("not a repository", []string{"pins", "--repo", "/"}, "not a git repository"),
	)

	DescribeTable("maps errors to exit codes",
		func(err error, code int) {
			Expect(exitCode(err, io.Discard)).To(Equal(code))
		},
		Entry("nil", nil, exitOK),
		Entry("findings", &exitError{exitFindings}, exitFindings),
		Entry("config", fmt.Errorf("load: %w", &builds.ConfigError{File: "skewtest.yaml", Line: 3, Msg: "x"}), exitUsage),
		Entry("journey", &journeys.SyntaxError{File: "j.txtar", Line: 1, Msg: "x"}, exitUsage),
		Entry("no tags", fmt.Errorf("x: %w", pins.ErrNoStableTag), exitUsage),
		Entry("other", fmt.Errorf("disk full"), exitInfra),
	)

	It("prints help and exits 0", func() {
		var out bytes.Buffer
		Expect(dispatch(context.Background(), []string{"help"}, &out, io.Discard)).To(Succeed())
		Expect(out.String()).To(ContainSubstring("skewtest repro"))
		err := dispatch(context.Background(), []string{"run", "-h"}, io.Discard, io.Discard)
		Expect(exitCode(err, io.Discard)).To(Equal(exitOK))
	})
})
