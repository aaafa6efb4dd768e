package chunker_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestChunker(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "chunker")
}
