package harness

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/declare/journeys"
	"github.com/skewtest/skewtest/internal/run/harness/checks"
	"github.com/skewtest/skewtest/internal/run/harness/transcript"
)

// nearMisses is the most lines a stall's near miss keeps; the rest are counted.
const nearMisses = 6

// nearValue bounds a value a near miss quotes; the transcript keeps it whole.
const nearValue = 80

// frameNearMiss says what came close to meeting await frame DIR NAME [where …] [count=N] in
// step, for a stall: the frames of that name in the step whose fields failed the where (with
// the values they carried), how many met it when fewer than count did, frames of that name
// counted in another step, and frames of that name in the other direction.
func frameNearMiss(named []checks.Named, step, dir, name string, where []checks.Where, count, from int) []string {
	var out []string
	met := 0
	for _, f := range named {
		if f.Index <= from || f.Name != name || f.Teardown {
			continue
		}
		switch {
		case f.Dir != dir:
			out = append(out, fmt.Sprintf("#%d %s arrived in the other direction (step %s)", f.Index, f.Label(), f.Step))
		case f.Step != step:
			out = append(out, fmt.Sprintf("#%d %s was counted in step %s, not %s", f.Index, f.Label(), f.Step, step))
		case !f.Carries(where):
			var failed []string
			for _, w := range where {
				v, ok := f.Value(w.Key)
				switch {
				case !ok:
					failed = append(failed, fmt.Sprintf("%s is absent (want %s)", w.Key, quoteNear(w.Value)))
				case v != w.Value:
					failed = append(failed, fmt.Sprintf("%s is %s (want %s)", w.Key, quoteNear(v), quoteNear(w.Value)))
				}
			}
			out = append(out, fmt.Sprintf("#%d %s in step %s: where failed: %s", f.Index, f.Label(), f.Step, strings.Join(failed, ", ")))
		default:
			met++
		}
	}
	if met > 0 && met < count {
		out = append([]string{fmt.Sprintf("%d of count=%d frames %s %s met it in step %s", met, count, dir, name, step)}, out...)
	}
	if len(out) == 0 {
		other := contract.HostToClient
		if dir == other {
			other = contract.ClientToHost
		}
		out = append(out, fmt.Sprintf("no frame %s came after the step began, in either direction (%s or %s)", name, dir, other))
	}
	return capNear(out)
}

// observationNearMiss says what came close to meeting await ROLE WHAT [k=v …] [count=N]: the
// observations of that kind whose fields differ (with the values they carried), and how many
// met it when fewer than count did.
func observationNearMiss(obs []transcript.Observation, role transcript.Role, what string, want []journeys.Arg, count int) []string {
	var out []string
	met, other := 0, 0
	for _, o := range obs {
		if o.What != what {
			continue
		}
		if o.Role != role {
			other++
			continue
		}
		if fieldsMatch(o, want) {
			met++
			continue
		}
		v, _ := o.Value()
		m, _ := v.(map[string]any)
		var failed []string
		for _, a := range want {
			x, ok := m[a.Key]
			if !ok {
				failed = append(failed, fmt.Sprintf("%s is absent (want %s)", a.Key, quoteNear(a.Value)))
				continue
			}
			s, isString := x.(string)
			if !isString {
				raw, _ := json.Marshal(x)
				s = string(raw)
			}
			if s != a.Value {
				failed = append(failed, fmt.Sprintf("%s is %s (want %s)", a.Key, quoteNear(s), quoteNear(a.Value)))
			}
		}
		out = append(out, fmt.Sprintf("%s %s in step %s: %s", role, what, o.Step, strings.Join(failed, ", ")))
	}
	if met > 0 && met < count {
		out = append([]string{fmt.Sprintf("%d of count=%d observations %s %s met it", met, count, role, what)}, out...)
	}
	if other > 0 {
		out = append(out, fmt.Sprintf("%d observations %s came from the other role, not %s", other, what, role))
	}
	if len(out) == 0 {
		out = append(out, fmt.Sprintf("the %s driver reported no %s after the step began", role, what))
	}
	return capNear(out)
}

// quoteNear quotes a value a near miss shows, cut to nearValue bytes.
func quoteNear(v string) string {
	if len(v) > nearValue {
		cut := nearValue
		for cut > 0 && !utf8.RuneStart(v[cut]) {
			cut--
		}
		return fmt.Sprintf("%q…(%d bytes)", v[:cut], len(v))
	}
	return fmt.Sprintf("%q", v)
}

func capNear(out []string) []string {
	if len(out) > nearMisses {
		n := len(out) - nearMisses + 1
		out = append(out[:nearMisses-1], fmt.Sprintf("and %d more", n))
	}
	return out
}
