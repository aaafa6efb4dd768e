package driverproto

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
)

// Handler carries out one action. It returns the result's data (nil for {}) or an error;
// wrap bad arguments with BadArgs.
type Handler func(ctx context.Context, args json.RawMessage) (any, error)

// Registry maps action names to handlers.
type Registry struct {
	handlers map[string]Handler
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{handlers: map[string]Handler{}}
}

// Register adds the action name. Registering a name twice is a programming error and
// panics.
func (r *Registry) Register(name string, h Handler) {
	if _, dup := r.handlers[name]; dup {
		panic(fmt.Sprintf("driverproto: action %q registered twice", name))
	}
	r.handlers[name] = h
}

// Actions lists the registered action names, sorted.
func (r *Registry) Actions() []string {
	names := make([]string, 0, len(r.handlers))
	for n := range r.handlers {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Args decodes an action's args into a T. Unknown fields are ignored (the protocol is
// append-only); absent or null args decode as T's zero value.
func Args[T any](raw json.RawMessage) (T, error) {
	var v T
	if len(raw) == 0 || string(raw) == "null" {
		return v, nil
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return v, BadArgs("args: %v", err)
	}
	return v, nil
}
