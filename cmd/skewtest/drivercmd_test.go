package main

import (
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("skewtest driver check", func() {
	It("fails a driver that logs to stdout instead of saying hello, naming the line", func(ctx SpecContext) {
		script := filepath.Join(GinkgoT().TempDir(), "driver.sh")
		Expect(os.WriteFile(script, []byte("#!/bin/sh\necho 'listening on 8080'\nexec sleep 60\n"), 0o755)).To(Succeed())
		code, out := cli(ctx, "driver", "check", "--timeout", "2s", "--", script)
		Expect(code).To(Equal(exitFindings), out)
		Expect(out).To(ContainSubstring(`FAIL hello: its first line is not a hello: "listening on 8080"`))
		Expect(out).To(ContainSubstring(`FAIL stdout: 1 line(s) that are no protocol message`))
		Expect(out).To(MatchRegexp(`driver check: 2 checks of \d+ failed`))
	})

	DescribeTable("refuses what it cannot check", func(ctx SpecContext, args []string, want string) {
		code, out := cli(ctx, append([]string{"driver"}, args...)...)
		Expect(code).To(Equal(exitUsage), out)
		Expect(out).To(ContainSubstring(want))
	},
		Entry("no subcommand", []string{}, "driver: give check"),
		Entry("no command", []string{"check"}, "give the driver's command after --"),
		Entry("a client without its kind", []string{"check", "--role", "client", "--", "true"}, "a client needs --kind"),
		Entry("an unknown role", []string{"check", "--role", "peer", "--", "true"}, `--role "peer": want host or client`),
	)
})
