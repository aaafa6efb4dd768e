package matrix

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/skewtest/skewtest/internal/after/reports"
	"github.com/skewtest/skewtest/internal/build/shell"
	"github.com/skewtest/skewtest/internal/declare/usage"
)

// ClaimReportDir makes the report directory this run's (reports.Claim), naming the run by its pid,
// start time and command line (its words quoted for a shell); a directory the user must fix
// is a usage error about ReportDir (*usage.OptionError).
func ClaimReportDir(dir string, command []string) (release func(), err error) {
	owner := fmt.Sprintf("pid %d, started %s: %s", os.Getpid(), time.Now().UTC().Format(time.RFC3339), shell.Join(append([]string{"skewtest"}, command...)))
	release, err = reports.Claim(dir, owner)
	var de *reports.DirError
	if errors.As(err, &de) {
		return nil, usage.Optionf("ReportDir", "%w", de)
	}
	return release, err
}
