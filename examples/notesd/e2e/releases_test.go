package e2e_test

import (
	"encoding/json"
	"os"
	"strings"

	. "github.com/onsi/gomega"
	"go.yaml.in/yaml/v3"

	"github.com/skewtest/skewtest/examples/notesd/release"
)

// build is one release: its features and its contract.
type build struct {
	name     string
	features release.Features
	contract map[string]any
}

// loadBuilds derives every release and the working tree from history.yaml and the
// contract template, the way the history writer does: features accumulate release by
// release, and an object of the template carrying "feature": "name" ("!name") is kept only
// when that feature is on (off).
func loadBuilds() []build {
	var h struct {
		Releases []struct {
			Tag string         `yaml:"tag"`
			Set map[string]any `yaml:"set"`
		} `yaml:"releases"`
		Worktree struct {
			Set map[string]any `yaml:"set"`
		} `yaml:"worktree"`
	}
	data, err := os.ReadFile("../history.yaml")
	Expect(err).NotTo(HaveOccurred())
	Expect(yaml.Unmarshal(data, &h)).To(Succeed())
	template, err := os.ReadFile("../contract.template.json")
	Expect(err).NotTo(HaveOccurred())

	var out []build
	acc := map[string]any{}
	add := func(name string, set map[string]any) {
		for k, v := range set {
			acc[k] = v
		}
		doc := map[string]any{"version": name}
		for k, v := range acc {
			doc[k] = v
		}
		raw, err := json.Marshal(doc)
		Expect(err).NotTo(HaveOccurred())
		f, err := release.Parse(raw)
		Expect(err).NotTo(HaveOccurred(), "release %s", name)
		var c any
		Expect(json.Unmarshal(template, &c)).To(Succeed())
		kept, _ := filter(c, acc)
		out = append(out, build{name: name, features: f, contract: kept.(map[string]any)})
	}
	for _, r := range h.Releases {
		add(r.Tag, r.Set)
	}
	add("worktree", h.Worktree.Set)
	return out
}

func filter(v any, features map[string]any) (any, bool) {
	switch v := v.(type) {
	case map[string]any:
		if f, ok := v["feature"].(string); ok {
			want := !strings.HasPrefix(f, "!")
			on, _ := features[strings.TrimPrefix(f, "!")].(bool)
			if on != want {
				return nil, false
			}
		}
		out := map[string]any{}
		for k, e := range v {
			if k == "feature" {
				continue
			}
			if fe, keep := filter(e, features); keep {
				out[k] = fe
			}
		}
		return out, true
	case []any:
		out := []any{}
		for _, e := range v {
			if fe, keep := filter(e, features); keep {
				out = append(out, fe)
			}
		}
		return out, true
	}
	return v, true
}
