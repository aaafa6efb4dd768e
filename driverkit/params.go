package driverkit

import (
	"fmt"
	"slices"
	"strings"
)

// The types of a described parameter (Param.Type).
const (
	// Text is a string of bytes; a journey writes it as text="…" (the action gets it as
	// base64 in bytes) when the parameter is named text, else as a JSON string. Min and
	// Max bound its length in bytes; UTF8 says it must be valid UTF-8.
	Text = "text"
	// Int is an integer from Min to Max (both 0: any).
	Int = "int"
	// Bool is true or false.
	Bool = "bool"
	// Enum is one of Values.
	Enum = "enum"
	// ID names something an earlier action opened (a terminal, a topic): a generated
	// journey reuses the value its setup gave the same key, else Example.
	ID = "id"
	// JSON is any JSON value; a generated journey sends Example.
	JSON = "json"
)

// Param describes one parameter of an action in the hello line, so that skewtest explore
// can draw journeys from the vocabulary with no generator written by hand
// (docs/explore.md). Describing is optional and append-only: a driver that describes
// nothing is driven as before, and explore leaves its actions out.
type Param struct {
	Name string `json:"name"` // the key a journey writes: text, terminal, cols …
	Type string `json:"type"` // Text, Int, Bool, Enum, ID or JSON
	// Min and Max bound an Int's value or a Text's length in bytes.
	Min int `json:"min,omitempty"`
	Max int `json:"max,omitempty"`
	// Limits are sizes the product cuts or refuses at (a chunk cap, a maximum message):
	// explore draws values just below, at and above each, and text with a multi-byte code
	// point across each.
	Limits []int `json:"limits,omitempty"`
	// Values are an Enum's values.
	Values []string `json:"values,omitempty"`
	// UTF8 says a Text travels as text, so it must be valid UTF-8.
	UTF8 bool `json:"utf8,omitempty"`
	// Feeds names the contract's stream the parameter's value is sent on (a stream's sent
	// end lists this action): explore follows the action with a marker on the same stream
	// and awaits it on the other side.
	Feeds string `json:"feeds,omitempty"`
	// Optional parameters are sometimes left out.
	Optional bool `json:"optional,omitempty"`
	// Example is a value written as a journey writes it (2, "t1", {"message":"hi"}), sent
	// for a JSON parameter and for an ID its setup does not name.
	Example string `json:"example,omitempty"`
}

// Describe describes the parameters of a registered action in the hello line. Describing
// an action that is not registered when Run starts, a parameter without a name or of an
// unknown type, or describing after Run has started is a programming error and panics.
func (d *Driver) Describe(action string, params ...Param) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.running {
		panic(fmt.Sprintf("driverkit: Describe(%q) after Run", action))
	}
	for _, p := range params {
		if err := p.Check(); err != nil {
			panic(fmt.Sprintf("driverkit: Describe(%q): %v", action, err))
		}
	}
	if d.params == nil {
		d.params = map[string][]Param{}
	}
	d.params[action] = append([]Param(nil), params...)
}

// Check says what is wrong with a description: no name, an unknown type, an enum without
// values, bounds that do not go together, a json parameter without an example, a limit
// below 1. skewtest checks every hello's params with it.
func (p Param) Check() error {
	switch {
	case p.Name == "":
		return fmt.Errorf("a parameter needs a name")
	case !slices.Contains(ParamTypes, p.Type):
		return fmt.Errorf("parameter %s: type %q is not one of %s", p.Name, p.Type, strings.Join(ParamTypes, ", "))
	case p.Type == Enum && len(p.Values) == 0:
		return fmt.Errorf("parameter %s: an enum needs values", p.Name)
	case p.Max != 0 && p.Max < p.Min:
		return fmt.Errorf("parameter %s: max %d is below min %d", p.Name, p.Max, p.Min)
	case p.Type == Text && p.Min < 0:
		return fmt.Errorf("parameter %s: a length is not negative", p.Name)
	case p.Type == JSON && p.Example == "":
		return fmt.Errorf("parameter %s: a json parameter needs an example", p.Name)
	}
	for _, l := range p.Limits {
		if l < 1 {
			return fmt.Errorf("parameter %s: limit %d: a limit is a size of at least 1", p.Name, l)
		}
	}
	return nil
}

// ParamTypes are the types a Param may have.
var ParamTypes = []string{Text, Int, Bool, Enum, ID, JSON}

// described is hello's params: the described actions that are registered.
func (d *Driver) described() map[string][]Param {
	if len(d.params) == 0 {
		return nil
	}
	out := map[string][]Param{}
	for a, ps := range d.params {
		if _, ok := d.handlers[a]; !ok {
			panic(fmt.Sprintf("driverkit: Describe(%q): no such action is registered", a))
		}
		out[a] = ps
	}
	return out
}
