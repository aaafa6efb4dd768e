package results

import (
	"fmt"
	"sort"
	"strings"
)

// Coverage categories (CoverageItem.Category).
const (
	CoverFrame      = "frame"      // a frame per direction and client kind: "H>C Delta (web)"
	CoverField      = "field"      // a field of a frame, by JSON pointer: "H>C Delta /range/start"
	CoverEnum       = "enum"       // one value of an enum field: `H>C Delta /kind = "insert"`
	CoverCapability = "capability" // a capability or feature negotiated: "feed capability typing"
	CoverAction     = "action"     // a driver action announced in hello: "client web: post"
	// CoverActionPair is one described action (docs/explore.md) starting a step right after
	// a step another started: "host: emit-output → client desktop: input".
	CoverActionPair = "action-pair"
	// CoverLimit is a value at a bound a driver declares for a parameter: "host
	// emit-output text: 49152 (limit)", "… 49153 (limit+1)", "client web: post mode = \"raw\"".
	CoverLimit = "limit"
)

// CoverageCategories lists the categories in the order reports show them.
var CoverageCategories = []string{CoverFrame, CoverField, CoverEnum, CoverCapability, CoverAction, CoverActionPair, CoverLimit}

// Coverage says which parts of the builds' contracts (and of what their drivers announced) a
// run exercised, and which it never did.
type Coverage struct {
	Items []CoverageItem `json:"items"`
}

// CoverageItem is one part of a contract and how often the run exercised it.
type CoverageItem struct {
	Category string `json:"category"`
	// Item is the part's human name, unique within its category (see the categories).
	Item string `json:"item"`
	// Channel is the contract channel it belongs to ("" for driver actions).
	Channel string `json:"channel,omitempty"`
	// Dir, Frame, Kind, Pointer and Value place it, where they apply.
	Dir     string `json:"dir,omitempty"`
	Frame   string `json:"frame,omitempty"`
	Kind    string `json:"kind,omitempty"`
	Pointer string `json:"pointer,omitempty"`
	Value   string `json:"value,omitempty"` // an enum value as JSON text, a capability or action name
	// Seen counts the pairings that exercised it (0: never).
	Seen int `json:"seen"`
}

// Key identifies the item across runs.
func (c CoverageItem) Key() string { return c.Category + "\x00" + c.Item }

// Count returns how many items of a category there are and how many were exercised.
func (c *Coverage) Count(category string) (covered, total int) {
	for _, it := range c.Items {
		if it.Category == category {
			total++
			if it.Seen > 0 {
				covered++
			}
		}
	}
	return covered, total
}

// Missing lists the items of a category never exercised, in order.
func (c *Coverage) Missing(category string) []CoverageItem {
	var out []CoverageItem
	for _, it := range c.Items {
		if it.Category == category && it.Seen == 0 {
			out = append(out, it)
		}
	}
	return out
}

// Summary is one line per category: "frames 40/42 covered; never sent: H>C Delta
// (desktop), …", naming at most limit missing items per category (0: all).
func (c *Coverage) Summary(limit int) []string {
	var out []string
	for _, cat := range CoverageCategories {
		covered, total := c.Count(cat)
		if total == 0 {
			continue
		}
		line := fmt.Sprintf("%s %d/%d covered", plural(cat), covered, total)
		if miss := c.Missing(cat); len(miss) > 0 {
			names := make([]string, 0, len(miss))
			for i, m := range miss {
				if limit > 0 && i == limit {
					names = append(names, fmt.Sprintf("… %d more", len(miss)-limit))
					break
				}
				names = append(names, m.Item)
			}
			line += "; " + neverText(cat) + ": " + strings.Join(names, ", ")
		}
		out = append(out, line)
	}
	return out
}

func plural(cat string) string {
	switch cat {
	case CoverCapability:
		return "capabilities"
	case CoverEnum:
		return "enum values"
	case CoverActionPair:
		return "action pairs"
	}
	return cat + "s"
}

func neverText(cat string) string {
	switch cat {
	case CoverFrame:
		return "frames never sent"
	case CoverField:
		return "fields never sent"
	case CoverEnum:
		return "enum values never sent"
	case CoverCapability:
		return "never negotiated"
	case CoverActionPair:
		return "never one after the other"
	case CoverLimit:
		return "never reached"
	}
	return "never used"
}

// MergeCoverage adds up the coverage of several runs (shards of one plan): the union of
// their items, seen counts summed, in a stable order. Nil inputs are skipped; it returns
// nil when all are nil.
func MergeCoverage(cs ...*Coverage) *Coverage {
	var out *Coverage
	at := map[string]int{}
	for _, c := range cs {
		if c == nil {
			continue
		}
		if out == nil {
			out = &Coverage{Items: []CoverageItem{}}
		}
		for _, it := range c.Items {
			if i, ok := at[it.Key()]; ok {
				out.Items[i].Seen += it.Seen
				continue
			}
			at[it.Key()] = len(out.Items)
			out.Items = append(out.Items, it)
		}
	}
	if out != nil {
		SortCoverage(out.Items)
	}
	return out
}

// SortCoverage orders items by category (CoverageCategories), then item name.
func SortCoverage(items []CoverageItem) {
	rank := map[string]int{}
	for i, c := range CoverageCategories {
		rank[c] = i
	}
	sort.SliceStable(items, func(i, j int) bool {
		a, b := items[i], items[j]
		if a.Category != b.Category {
			return rank[a.Category] < rank[b.Category]
		}
		return a.Item < b.Item
	})
}
