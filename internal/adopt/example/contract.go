package example

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// deriveContract derives a release's contract from the template: an object carrying
// "feature": "k" is kept only when feature k is on ("!k": off), and one carrying a list
// ("feature": ["k", "!j"]) only when all of them hold, without the key. The
// contract's "version" is the release's; with protocolFrom, its "protocol" is
// {"version", "minCompatible"} from the features it names.
func deriveContract(template []byte, version string, features map[string]any, c *contractSettings) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(template))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, err
	}
	kept, keep, err := filter(doc, features)
	if err != nil {
		return nil, err
	}
	m, ok := kept.(map[string]any)
	if !keep || !ok {
		return nil, errors.New("the template's top level must be an unconditional object")
	}
	m["version"] = version
	if p := c.ProtocolFrom; p != nil {
		v, vok := features[p.Version]
		mc, mok := features[p.MinCompatible]
		if !vok || !mok {
			return nil, fmt.Errorf("contract.protocolFrom names features %s and %s; set both from the first release on", p.Version, p.MinCompatible)
		}
		m["protocol"] = map[string]any{"version": v, "minCompatible": mc}
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false) // directions read "H>C"
	enc.SetIndent("", "  ")
	err = enc.Encode(m)
	return out.Bytes(), err
}

// holds reports whether a "feature" value (a name, "!name", or a list of them) holds.
func holds(f any, features map[string]any) (bool, error) {
	var names []any
	switch f := f.(type) {
	case string:
		names = []any{f}
	case []any:
		names = f
	}
	if len(names) == 0 {
		return false, fmt.Errorf("\"feature\" must name a feature or a list of them, got %v", f)
	}
	for _, n := range names {
		name, ok := n.(string)
		if !ok || name == "" || name == "!" {
			return false, fmt.Errorf("\"feature\" must name a feature, got %v", n)
		}
		want := true
		if strings.HasPrefix(name, "!") {
			want, name = false, name[1:]
		}
		if truthy(features[name]) != want {
			return false, nil
		}
	}
	return true, nil
}

func filter(v any, features map[string]any) (any, bool, error) {
	switch v := v.(type) {
	case map[string]any:
		if f, ok := v["feature"]; ok {
			keep, err := holds(f, features)
			if err != nil || !keep {
				return nil, false, err
			}
		}
		out := map[string]any{}
		for k, e := range v {
			if k == "feature" {
				continue
			}
			fe, keep, err := filter(e, features)
			if err != nil {
				return nil, false, err
			}
			if keep {
				out[k] = fe
			}
		}
		return out, true, nil
	case []any:
		out := []any{}
		for _, e := range v {
			fe, keep, err := filter(e, features)
			if err != nil {
				return nil, false, err
			}
			if keep {
				out = append(out, fe)
			}
		}
		return out, true, nil
	}
	return v, true, nil
}

func truthy(v any) bool {
	switch v := v.(type) {
	case nil:
		return false
	case bool:
		return v
	case int:
		return v != 0
	case float64:
		return v != 0
	case string:
		return v != ""
	case []any:
		return len(v) > 0
	case map[string]any:
		return len(v) > 0
	}
	return true
}
