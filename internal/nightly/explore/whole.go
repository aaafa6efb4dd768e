package explore

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/skewtest/skewtest/internal/declare/journeys"
	"github.com/skewtest/skewtest/internal/nightly/campaign"
)

// WholeJourney is a generator whose every case is journey j whole, as written: its
// script is the setup, its frames section the frames, and no event is drawn, so the
// case's schedule (fuzz.Schedule) is what varies. Explore writes one for each journey of a
// product without generators of its own: the journey's later steps and the actions its
// drivers do not describe are explored too, and a product whose drivers describe nothing
// still gets a night of schedule exploration. The journey's own settle line is left out:
// the schedule decides.
func WholeJourney(j *journeys.Journey) ([]byte, error) {
	data, err := os.ReadFile(j.File)
	if err != nil {
		return nil, fmt.Errorf("journey %s: %w", j.File, err)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s%s: journey %s whole, under the schedules explore draws\n", campaign.WholePrefix, j.Name, j.File)
	b.WriteString("kind " + strings.Join(j.Kinds, ",") + "\n")
	if j.Timeout > 0 {
		b.WriteString("timeout " + j.Timeout.String() + "\n")
	}
	if j.Quiet > 0 {
		b.WriteString("quiet " + j.Quiet.String() + "\n")
	}
	b.WriteString("events 0..0\npack 1\n")
	for _, f := range txtar.Parse(data).Files {
		switch strings.TrimSpace(f.Name) {
		case "script":
			b.WriteString("\n-- setup --\n")
			b.Write(f.Data)
		case "frames":
			b.WriteString("-- frames --\n")
			b.Write(f.Data)
		}
	}
	return b.Bytes(), nil
}
