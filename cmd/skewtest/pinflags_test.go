package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/declare/pins"
)

var _ = Describe("build and pin flags", func() {
	It("parses the pin rules and the runner", func() {
		o, err := parseRun([]string{"--repo", "/r", "--pins", "v1,v2", "--pins", "v3", "--last", "3", "--window",
			"--ignore", "v1.4.19?-*", "--runner", "container"}, io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(o.options()).To(Equal(pins.Options{Refs: pins.Refs("explicit (--pins)", "v1", "v2", "v3"), Last: 3, Window: true, Ignore: []string{"v1.4.19?-*"}}))
		Expect(o.Runner).To(Equal("container"))
	})

	DescribeTable("refuses bad command lines with exit code 2",
		func(args []string, want string) {
			var stderr bytes.Buffer
			err := dispatch(context.Background(), args, io.Discard, io.Discard)
			Expect(exitCode(err, &stderr)).To(Equal(exitUsage))
			Expect(stderr.String()).To(ContainSubstring(want))
		},
		Entry("unknown runner", []string{"build", "--repo", "x", "--runner", "vm"}, `--runner "vm": want local or container`),
		Entry("cache without subcommand", []string{"cache"}, "want a subcommand: ls or prune"),
		Entry("bad age", []string{"cache", "prune", "--older-than", "soon"}, `"soon" is not a duration`),
		Entry("pins without repo", []string{"pins", "lock"}, "--repo is required"),
	)

	DescribeTable("maps pin errors to exit code 2",
		func(err error) {
			Expect(exitCode(err, io.Discard)).To(Equal(exitUsage))
		},
		Entry("moved tag", fmt.Errorf("x: %w", pins.ErrMovedTag)),
		Entry("bad rules", fmt.Errorf("x: %w", pins.ErrInvalidOptions)),
		Entry("no protocol", fmt.Errorf("x: %w", pins.ErrNoProtocol)),
		Entry("bad lock", fmt.Errorf("x: %w", error(&pins.LockError{File: "skewtest.lock", Line: 2, Msg: "x"}))),
	)

	It("keeps other errors infrastructure errors", func() {
		Expect(exitCode(errors.New("docker: no such host"), io.Discard)).To(Equal(exitInfra))
	})
})
