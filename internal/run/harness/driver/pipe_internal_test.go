package driver

import (
	"context"
	"os"
	"runtime"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("the driver's pipes", func() {
	BeforeEach(func() {
		if runtime.GOOS != "linux" {
			Skip("only Linux lets a process size a pipe")
		}
	})

	It("are 1 MiB each way, where a pipe is 64 KiB by default", func() {
		// The control: a pipe as os.Pipe makes it.
		r, w, err := os.Pipe()
		Expect(err).NotTo(HaveOccurred())
		defer r.Close()
		defer w.Close()
		Expect(pipeCapacity(r)).To(BeNumerically("<", pipeSize))

		d, err := Start(context.Background(), Spec{Argv: []string{"/bin/sh", "-c", "read x"}, StopGrace: time.Second}, nil)
		Expect(err).NotTo(HaveOccurred())
		defer func() { _ = d.Stop(context.Background()) }()
		Expect(pipeCapacity(d.stdin)).To(Equal(pipeSize))
		Expect(pipeCapacity(d.stdout)).To(Equal(pipeSize))
	})
})
