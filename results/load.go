package results

import (
	"encoding/json"
	"fmt"
	"os"
)

// Load reads a results.json: a run's, a shard's or a merged one. A file written by a newer
// skewtest (a greater schemaVersion) is refused; fields are only ever added, so an older
// file reads with the fields it lacks left empty.
func Load(path string) (*Run, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var run Run
	if err := json.Unmarshal(data, &run); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if run.SchemaVersion > SchemaVersion {
		return nil, fmt.Errorf("%s: schemaVersion %d is newer than this skewtest (%d)", path, run.SchemaVersion, SchemaVersion)
	}
	return &run, nil
}
