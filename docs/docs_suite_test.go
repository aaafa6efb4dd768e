// Package docs_test holds the specs that keep skewtest's documentation true: the README and
// docs/*.md link only to files and headings that exist, the README's picture of report.html
// shows what the reports package renders now, and the CI workflows of docs/ci.md lint clean
// and build skewtest from refs that exist. It also keeps what ships beside the module working:
// the GitHub Action (action.yml, action/run.sh), the release workflow and the README's install
// of a released binary.
package docs_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestDocs(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Docs Suite")
}

// root is the module's root: specs run in docs/.
const root = ".."
