package skew_test

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/results"
)

// A go test caller of skewtesting whose host serves TLS: the run makes a throwaway
// certificate authority (a private key among its files) in $TMPDIR, and nothing but the
// run removes it, since no skewtest command is there to do it on its way out.
var _ = Describe("notesd's working tree serving TLS", func() {
	It("leaves no certificate authority in $TMPDIR once skewtesting.Run returns", func(ctx SpecContext) {
		repo := writeHistory(ctx)
		// The working tree's host serves its rpc channel as TLS-wrapped JSON lines (its
		// transport switch); the run hands it the CA's certificate and key.
		path := filepath.Join(repo, "skewtest.yaml")
		data, err := os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		yaml := string(data)
		host := `host: ["./notesd-driver", "host"]`
		Expect(yaml).To(ContainSubstring(host))
		Expect(yaml).NotTo(ContainSubstring("\nchannels:"))
		yaml = strings.Replace(yaml, host, `host: ["./notesd-driver", "host", "--transport", "tls"]`, 1)
		yaml += "channels:\n  rpc: {transport: tls, framing: lines}\n"
		Expect(os.WriteFile(path, []byte(yaml), 0o644)).To(Succeed())

		// A plain Go test (testdata/tlsrun) calls skewtesting.Run, with a $TMPDIR of its own
		// (os.MkdirTemp makes the CA's directory there).
		tmp, report := GinkgoT().TempDir(), GinkgoT().TempDir()
		cmd := exec.CommandContext(ctx, "go", "test", "-count=1", "-v", "./testdata/tlsrun")
		cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "NOTESD_SKEW_REPO="+repo, "NOTESD_SKEW_CACHE="+cache,
			"NOTESD_SKEW_REPORT="+report)
		out, err := cmd.CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), "%s", out)
		Expect(string(out)).To(ContainSubstring("--- PASS: TestTLSRun"))
		run, err := results.Load(filepath.Join(report, "results.json"))
		Expect(err).NotTo(HaveOccurred())
		Expect(run.Builds).To(ContainElement(And(HaveField("Label", results.WorktreeLabel), HaveField("Transport", "tls (channel rpc, lines framing)"))))
		Expect(run.Pairings).NotTo(BeEmpty(), "pairings ran over TLS: the run needed its CA")

		var left []string
		Expect(filepath.WalkDir(tmp, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			name := d.Name()
			if strings.HasPrefix(name, "skewtest-tls-") || (strings.Contains(name, "key") && strings.HasSuffix(name, ".pem")) {
				left = append(left, path)
			}
			return nil
		})).To(Succeed())
		Expect(left).To(BeEmpty(), "the run's CA, left behind in $TMPDIR")
	}, SpecTimeout(10*time.Minute))
})
