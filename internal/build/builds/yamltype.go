package builds

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// yaml.v3 says a value has the wrong type as "cannot unmarshal !!str `remotet...` into
// []string": YAML tags, Go types and a value cut at seven characters. typeMismatch says it
// in the words of a skewtest.yaml (the key, what it holds, what it wants) with the value
// whole, read from the document.
var cannotUnmarshal = regexp.MustCompile("(?s)^cannot unmarshal (!\\S*)(?: `(.*)`)? into (\\S+)$")

// yamlKinds names YAML tags in plain words.
var yamlKinds = map[string]string{
	"!!str": "a string", "!!int": "a number", "!!float": "a number", "!!bool": "true or false",
	"!!seq": "a list", "!!map": "a mapping", "!!null": "empty", "!!timestamp": "a date",
}

// goKinds names the Go types of the config in plain words, with an example where one helps.
var goKinds = map[string]string{
	"[]string":            "a list of strings",
	"string":              "a string",
	"int":                 "a whole number",
	"bool":                "true or false",
	"map[string][]string": `a mapping of names to lists of strings, such as {desktop: ["./driver", "client"]}`,
}

// typeMismatch rewrites a yaml.v3 type error at line into plain words, or returns "" when
// msg is not one.
func typeMismatch(msg string, line int, root *yaml.Node) string {
	m := cannotUnmarshal.FindStringSubmatch(msg)
	if m == nil {
		return ""
	}
	tag, value, goType := m[1], m[2], m[3]
	have := yamlKinds[tag]
	if have == "" {
		have = "a value tagged " + tag // a YAML tag skewtest does not read (!foo)
	}
	want := goKinds[goType]
	if want == "" {
		want = "a mapping"
		if known, ok := knownKeys[strings.TrimPrefix(goType, "[]")]; ok {
			want += " of " + known
		}
		if strings.HasPrefix(goType, "[]") {
			want = "a list of entries, each " + want
		}
	}
	key := ""
	if root != nil {
		if path, n := valueAt(root, line, tag, ""); n != nil {
			key = path + " "
			if n.Kind == yaml.ScalarNode {
				value = n.Value
			}
		}
	}
	shown := ""
	if tag != "!!seq" && tag != "!!map" {
		shown = " (" + strconv.Quote(value) + ")"
	}
	if goType == "[]string" && (strings.HasPrefix(key, "drivers.") || strings.HasPrefix(key, "contractCommand")) {
		want += `, the command's argv, such as ["./driver", "host"]`
	}
	return fmt.Sprintf("%sis %s%s, want %s", key, have, shown, want)
}

// valueAt finds the first value at line whose tag is tag, below n, and its dotted key path.
func valueAt(n *yaml.Node, line int, tag, path string) (string, *yaml.Node) {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			if p, v := valueAt(c, line, tag, path); v != nil {
				return p, v
			}
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			p := k.Value
			if path != "" {
				p = path + "." + k.Value
			}
			if v.Line == line && v.ShortTag() == tag {
				return p, v
			}
			if p, v := valueAt(v, line, tag, p); v != nil {
				return p, v
			}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			p := fmt.Sprintf("%s[%d]", path, i)
			if c.Line == line && c.ShortTag() == tag {
				return p, c
			}
			if p, v := valueAt(c, line, tag, p); v != nil {
				return p, v
			}
		}
	}
	return "", nil
}
