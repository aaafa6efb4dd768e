package drivercheck_test

import (
	"net"
	"os"
	"path/filepath"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/types"

	"github.com/skewtest/skewtest/internal/adopt/drivercheck"
	"github.com/skewtest/skewtest/internal/build/proc"
)

// shellDriver is a client driver in sh that speaks the protocol, unless MISBEHAVE names
// one way not to.
const shellDriver = `#!/bin/sh
[ "$MISBEHAVE" = log-first ] && echo "starting up"
[ "$MISBEHAVE" = silent ] && exec sleep 60
role=$SKEWTEST_ROLE
[ "$MISBEHAVE" = wrong-role ] && role=host
echo '{"type":"hello","protocol":1,"role":"'"$role"'","kind":"'"$SKEWTEST_KIND"'","actions":["stop"]}'
echo '{"type":"ready"}'
[ "$MISBEHAVE" = log ] && echo "connected to $SKEWTEST_HOST_URL"
while read -r line; do
  id=$(printf '%s' "$line" | sed -n 's/.*"id":\([0-9]*\).*/\1/p')
  case "$line" in
  *'"action":"stop"'*)
    [ "$MISBEHAVE" = ignore-stop ] && continue
    echo '{"type":"result","id":'"$id"',"ok":true}'
    exit 0;;
  *)
    [ "$MISBEHAVE" = silent-unknown ] && continue
    echo '{"type":"result","id":'"$id"',"ok":false,"error":{"code":"unsupported-action","message":"no such action"}}';;
  esac
done
[ "$MISBEHAVE" = linger ] && exec sleep 60
exit 0
`

var _ = Describe("A driver check", func() {
	var script string

	BeforeEach(func() {
		script = filepath.Join(GinkgoT().TempDir(), "driver.sh")
		Expect(os.WriteFile(script, []byte(shellDriver), 0o755)).To(Succeed())
	})

	check := func(ctx SpecContext, c drivercheck.Config) map[string]drivercheck.Check {
		GinkgoHelper()
		c.ReadyTimeout, c.Grace = 2*time.Second, time.Second
		r, err := drivercheck.Run(ctx, c)
		Expect(err).NotTo(HaveOccurred())
		out := map[string]drivercheck.Check{}
		for _, ch := range r.Checks {
			out[ch.Name] = ch
		}
		return out
	}
	passed := HaveField("OK", BeTrue())
	failed := func(detail types.GomegaMatcher) types.GomegaMatcher {
		return And(HaveField("OK", BeFalse()), HaveField("Skipped", BeFalse()), HaveField("Detail", detail))
	}

	It("passes the driver kit's example, as a host and as a client, every check made", func(ctx SpecContext) {
		for _, c := range []drivercheck.Config{{Argv: []string{minimal}, Role: "host"}, {Argv: []string{minimal}, Role: "client", Kind: "desktop"}} {
			r, err := drivercheck.Run(ctx, c)
			Expect(err).NotTo(HaveOccurred())
			Expect(r.Failed()).To(BeEmpty())
			var names []string
			for _, ch := range r.Checks {
				Expect(ch.Skipped).To(BeFalse(), ch.String())
				names = append(names, ch.Name)
			}
			Expect(names).To(Equal([]string{"start", "hello", "ready", "unknown action", "decode", "stop", "stdout", "stdin closed"}))
		}
	}, SpecTimeout(time.Minute))

	It("passes a driver written in sh that speaks the protocol, leaving out decode it does not offer", func(ctx SpecContext) {
		got := check(ctx, drivercheck.Config{Argv: []string{script}, Role: "client", Kind: "cli"})
		for _, name := range []string{"start", "hello", "ready", "unknown action", "stop", "stdout", "stdin closed"} {
			Expect(got[name]).To(passed, name)
		}
		Expect(got["decode"].Skipped).To(BeTrue())
	}, SpecTimeout(time.Minute))

	It("judges stop and a closed stdin by when the driver exited, not by its guardian's teardown", func(ctx SpecContext) {
		// Each guardian holds its teardown (killing what the driver left, as a saturated
		// machine makes it slow) until the hold is released, three graces after it began.
		hold := filepath.Join(GinkgoT().TempDir(), "hold")
		Expect(syscall.Mkfifo(hold, 0o600)).To(Succeed())
		done := make(chan struct{})
		released := make(chan struct{})
		go func() {
			defer close(released)
			for {
				select {
				case <-time.After(3 * time.Second):
					if f, err := os.OpenFile(hold, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
						f.Close()
					}
				case <-done:
					return
				}
			}
		}()
		DeferCleanup(func() { close(done); <-released })
		got := check(ctx, drivercheck.Config{Argv: []string{script}, Role: "client", Kind: "cli", Env: []string{proc.EnvHoldTeardown + "=" + hold}})
		Expect(got["stop"]).To(passed)
		Expect(got["stdin closed"]).To(passed)
	}, SpecTimeout(time.Minute))

	DescribeTable("fails a driver that breaks the protocol, saying how", func(ctx SpecContext, misbehave, name string, detail types.GomegaMatcher) {
		got := check(ctx, drivercheck.Config{Argv: []string{script}, Role: "client", Kind: "cli", Env: []string{"MISBEHAVE=" + misbehave}})
		Expect(got).To(HaveKeyWithValue(name, failed(detail)))
	},
		Entry("never says hello", "silent", "hello", ContainSubstring("wait for ready")),
		Entry("logs to stdout before its hello", "log-first", "hello", Equal(`its first line is not a hello: "starting up"`)),
		Entry("logs to stdout later", "log", "stdout", ContainSubstring(`"connected to ws://127.0.0.1:`)),
		Entry("says it is another role", "wrong-role", "hello", HavePrefix(`role "host", want "client" (SKEWTEST_ROLE)`)),
		Entry("ignores an unknown action", "silent-unknown", "unknown action", ContainSubstring("no result")),
		Entry("ignores stop", "ignore-stop", "stop", ContainSubstring("no result")),
		Entry("lingers once its stdin closed", "linger", "stdin closed", Equal("still running 1s after its stdin closed (it must exit promptly)")),
	)

	It("fails a command that cannot start, and a host whose url nothing listens at", func(ctx SpecContext) {
		got := check(ctx, drivercheck.Config{Argv: []string{filepath.Join(GinkgoT().TempDir(), "no-such-driver")}, Role: "host"})
		Expect(got["start"]).To(failed(ContainSubstring("no-such-driver")))

		host := filepath.Join(GinkgoT().TempDir(), "host.sh")
		Expect(os.WriteFile(host, []byte(`#!/bin/sh
echo '{"type":"hello","protocol":1,"role":"host","actions":["stop"]}'
echo '{"type":"ready","url":"ws://127.0.0.1:1"}'
while read -r line; do exit 0; done
`), 0o755)).To(Succeed())
		got = check(ctx, drivercheck.Config{Argv: []string{host}, Role: "host"})
		Expect(got["ready"]).To(failed(HavePrefix("url ws://127.0.0.1:1: nothing listens there")))
	}, SpecTimeout(time.Minute))

	It("hands a host the certificate a run would, and takes a URL of every transport", func(ctx SpecContext) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		Expect(err).NotTo(HaveOccurred())
		defer ln.Close()
		host := filepath.Join(GinkgoT().TempDir(), "host.sh")
		Expect(os.WriteFile(host, []byte(`#!/bin/sh
grep -q "BEGIN CERTIFICATE" "$SKEWTEST_TLS_CERT" && grep -q "PRIVATE KEY" "$SKEWTEST_TLS_KEY" && grep -q "BEGIN CERTIFICATE" "$SKEWTEST_TLS_CA" || exit 3
echo '{"type":"hello","protocol":1,"role":"host","actions":["stop"]}'
echo '{"type":"ready","url":"'"$URL"'"}'
while read -r line; do exit 0; done
`), 0o755)).To(Succeed())
		for _, scheme := range []string{"tls", "tcp", "wss"} {
			got := check(ctx, drivercheck.Config{Argv: []string{host}, Role: "host", Env: []string{"URL=" + scheme + "://" + ln.Addr().String()}})
			Expect(got["ready"]).To(passed, scheme)
		}
		got := check(ctx, drivercheck.Config{Argv: []string{host}, Role: "host", Env: []string{"URL=quic://" + ln.Addr().String()}})
		Expect(got["ready"]).To(failed(ContainSubstring("want ws://127.0.0.1:PORT (or wss://, tcp://, tls:// for a channel of that transport)")))
	}, SpecTimeout(time.Minute))
})
