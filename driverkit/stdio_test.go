package driverkit_test

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("a driver process (testdata/minimal)", Ordered, func() {
	var binary string
	BeforeAll(func() {
		binary = filepath.Join(GinkgoT().TempDir(), "minimal")
		out, err := exec.Command("go", "build", "-o", binary, "./testdata/minimal").CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(out))
	})

	It("writes only protocol lines to stdout: stray output goes to its log", func(ctx SpecContext) {
		if runtime.GOOS == "windows" {
			Skip("descriptor 1 is only moved on Unix")
		}
		cmd := exec.CommandContext(ctx, binary)
		cmd.Env = append(os.Environ(), "SKEWTEST_ROLE=host")
		cmd.Stdin = strings.NewReader(strings.Join([]string{
			`{"id":1,"action":"add","args":{"n":2}}`,
			`{"id":2,"action":"add","args":{}}`,
			`{"id":3,"action":"decode","args":{"frames":[{"id":1,"data":"eyJ0eXBlIjoicGluZyJ9"},{"id":2,"binary":true,"data":"AA=="}]}}`,
			`{"id":4,"action":"stop"}`,
		}, "\n"))
		var stderr strings.Builder
		cmd.Stderr = &stderr
		stdout, err := cmd.Output()
		Expect(err).NotTo(HaveOccurred(), stderr.String())
		var got []map[string]any
		sc := bufio.NewScanner(strings.NewReader(string(stdout)))
		for sc.Scan() {
			var m map[string]any
			Expect(json.Unmarshal(sc.Bytes(), &m)).To(Succeed(), "stdout line %q", sc.Text())
			got = append(got, m)
		}
		Expect(got[0]).To(HaveKeyWithValue("actions", []any{"add", "decode", "stop"}))
		Expect(got[1]).To(HaveKeyWithValue("url", MatchRegexp(`^ws://127\.0\.0\.1:\d+$`)))
		Expect(got).To(ContainElement(map[string]any{"type": "observe", "what": "total", "data": map[string]any{"total": 2.0}}))
		Expect(got).To(ContainElement(HaveKeyWithValue("error", map[string]any{"code": "bad-args", "message": "add needs n"})))
		Expect(got).To(ContainElement(HaveKeyWithValue("data", map[string]any{"frames": []any{
			map[string]any{"id": 1.0, "type": "ping", "opcode": 0.0, "fields": map[string]any{"type": "ping"}},
			map[string]any{"id": 2.0, "refused": true, "reason": "not a JSON frame with a type"},
		}})))
		Expect(got[len(got)-1]).To(Equal(map[string]any{"type": "result", "id": 4.0, "ok": true, "data": map[string]any{}}))
		Expect(stderr.String()).To(ContainSubstring("stray output: goes to stderr"))
		Expect(stderr.String()).To(ContainSubstring("so does a raw write to fd 1"))
	})
})
