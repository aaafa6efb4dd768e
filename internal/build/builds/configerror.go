package builds

import "fmt"

// ConfigError is a problem in a skewtest.yaml, at a line when one is known. The CLI exits
// with status 2 for it.
type ConfigError struct {
	File string // as given to LoadConfig or ParseConfig; "v1.4.175:skewtest.yaml" for a commit
	Line int    // 1-based; 0 when the problem is the whole file
	Msg  string
}

// Error returns "skewtest.yaml:12: msg", or "skewtest.yaml: msg" without a line.
func (e *ConfigError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// UserMistake marks a configuration error as the user's to fix (usage.Mistake).
func (*ConfigError) UserMistake() {}
