package driverkit

import (
	"io"
	"os"
	"sync"
)

// stdio is the process's protocol streams, made once.
var stdio = sync.OnceValues(func() (io.Reader, io.Writer) {
	out := os.Stdout
	if f := protocolStdout(); f != nil {
		out = f
	}
	os.Stdout = os.Stderr
	return os.Stdin, out
})

// Stdio returns the driver's protocol streams, stdin and stdout, and keeps everything else
// off stdout: anything the process writes to stdout from then on (fmt.Println, a library
// logging to os.Stdout, a child process that inherits it) goes to stderr, the driver's
// log. Only the returned writer reaches skewtest. Call it first thing in main, before any
// library starts. On Unix it moves the protocol to a new file descriptor and points file
// descriptor 1 at stderr; elsewhere it points os.Stdout at os.Stderr. Later calls return
// the same streams.
func Stdio() (in io.Reader, out io.Writer) {
	return stdio()
}
