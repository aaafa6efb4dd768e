package driver_test

import (
	"os"
	"path/filepath"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/goleak"

	"github.com/skewtest/skewtest/internal/build/proc"
)

// TestMain lets this test binary be a guardian (proc.Main), and a process
// that starts a driver and waits to be killed (see killed_test.go).
func TestMain(m *testing.M) {
	proc.Main()
	if script := os.Getenv(helperEnv); script != "" {
		os.Exit(helper(script))
	}
	os.Exit(m.Run())
}

func TestDriver(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Driver Suite")
}

// scripts are the test drivers, written once per suite into scriptDir.
var scripts = map[string]string{
	// polite follows the protocol: it answers actions and exits 0 on stop
	// or when stdin closes.
	"polite.sh": `#!/bin/sh
printf '%s\n' '{"type":"hello","protocol":1,"role":"host","kind":"","build":{"product":"test","version":"v0"},"actions":["echo","fail","garbage","crash","stop"],"future":true}'
printf '%s\n' '{"type":"ready","url":"ws://127.0.0.1:1"}'
echo "started in $PWD as $SKEWTEST_ROLE" >&2
while IFS= read -r line; do
  id=${line#*\"id\":}; id=${id%%,*}
  case $line in
  *'"action":"echo"'*)
    args=${line#*\"args\":}; args=${args%?}
    printf '{"type":"result","id":%s,"ok":true,"data":%s}\n' "$id" "$args" ;;
  *'"action":"fail"'*)
    printf '{"type":"result","id":%s,"ok":false,"error":{"code":"unsupported-action","message":"no action \\"fail\\" in v0"}}\n' "$id" ;;
  *'"action":"garbage"'*)
    printf 'not json\n[1,2]\n{"no":"type"}\n{"type":"observe","what":"error","data":{"message":"x"},"extra":1}\n'
    printf '{"type":"result","id":%s,"ok":true}\n' "$id" ;;
  *'"action":"crash"'*)
    echo "boom: simulated crash" >&2; exit 3 ;;
  *'"action":"stop"'*)
    printf '{"type":"result","id":%s,"ok":true}\n' "$id"; exit 0 ;;
  *)
    printf '{"type":"result","id":%s,"ok":false,"error":{"code":"unsupported-action"}}\n' "$id" ;;
  esac
done
`,
	// termable ignores stop and stdin but dies on SIGTERM.
	"termable.sh": `#!/bin/sh
printf '{"type":"hello","protocol":1,"role":"client"}\n{"type":"ready"}\n'
while :; do sleep 1; done
`,
	// stubborn ignores stop, stdin and SIGTERM.
	"stubborn.sh": `#!/bin/sh
trap '' TERM
printf '{"type":"hello","protocol":1,"role":"client"}\n{"type":"ready"}\n'
while :; do sleep 1; done
`,
	// stubborn-grandchild is stubborn and leaves a grandchild in its group
	// that holds stdout open.
	"stubborn-grandchild.sh": `#!/bin/sh
trap '' TERM
sleep 1000 &
printf '{"type":"hello","protocol":1,"role":"client"}\n{"type":"ready"}\n'
while :; do sleep 1; done
`,
	// tree leaves a child, an orphan, and a process in a new session (out
	// of the group), all holding stdout, and ignores stop and SIGTERM.
	"tree.sh": `#!/bin/sh
trap '' TERM
sleep 1000 &
(sleep 1000 &)
setsid sleep 1000 &
printf '{"type":"hello","protocol":1,"role":"host"}\n{"type":"ready"}\n'
while :; do sleep 1; done
`,
	// early-exit fails before it is ready.
	"early-exit.sh": `#!/bin/sh
echo "cannot load build: missing libfoo" >&2
exit 2
`,
	// no-hello starts with ready.
	"no-hello.sh": `#!/bin/sh
printf '{"type":"ready"}\n'
read -r line
`,
	// never-ready says hello and then nothing until stdin closes.
	"never-ready.sh": `#!/bin/sh
printf '{"type":"hello","protocol":1,"role":"client"}\n'
while read -r line; do :; done
`,
}

var scriptDir string

var _ = BeforeSuite(func() {
	dir, err := os.MkdirTemp("", "driver-test-")
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(os.RemoveAll, dir)
	for name, body := range scripts {
		Expect(os.WriteFile(filepath.Join(dir, name), []byte(body), 0o755)).To(Succeed())
	}
	scriptDir = dir
})

// Every spec must leave no goroutine and no child process behind. This is
// registered first, so it runs after every other cleanup.
var _ = BeforeEach(func() {
	ignore := goleak.IgnoreCurrent()
	DeferCleanup(func() {
		Eventually(children).Should(BeEmpty(), "child processes never waited for")
		Expect(goleak.Find(ignore)).To(Succeed())
	})
})
