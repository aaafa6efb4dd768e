package session

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"path"
)

// CommandError is a command that ran and failed; the daemon answers command_failed.
type CommandError struct {
	Command string
	Message string
}

func (e *CommandError) Error() string { return fmt.Sprintf("%s: %s", e.Command, e.Message) }

// handler runs one version of a command on input that already passed the input schema.
type handler func(ctx context.Context, input json.RawMessage) (any, error)

type commandKey struct {
	id      string
	version int
}

// handlers are the daemon's implementations, one per command version in the registry.
func (d *Daemon) handlers() map[commandKey]handler {
	return map[commandKey]handler{
		{"ping", 1}: func(_ context.Context, input json.RawMessage) (any, error) {
			return input, nil // echo
		},
		{"workspace.open", 1}: func(_ context.Context, input json.RawMessage) (any, error) {
			var in struct {
				Path string `json:"path"`
			}
			if err := json.Unmarshal(input, &in); err != nil {
				return nil, err
			}
			if !path.IsAbs(in.Path) {
				return nil, &CommandError{Command: "workspace.open", Message: fmt.Sprintf("path %q is not absolute", in.Path)}
			}
			h := fnv.New32a()
			h.Write([]byte(path.Clean(in.Path)))
			return map[string]string{"workspaceId": fmt.Sprintf("ws-%08x", h.Sum32())}, nil
		},
		{"review.start", 1}: func(_ context.Context, input json.RawMessage) (any, error) {
			return map[string]string{"reviewId": d.newReviewID()}, nil
		},
		{"review.comment", 1}: func(_ context.Context, input json.RawMessage) (any, error) {
			return map[string]string{"commentId": "c-" + d.newReviewID()}, nil
		},
		{"review.start", 2}: func(_ context.Context, input json.RawMessage) (any, error) {
			var in struct {
				Base string `json:"base"`
			}
			if err := json.Unmarshal(input, &in); err != nil {
				return nil, err
			}
			return map[string]string{"reviewId": d.newReviewID(), "base": in.Base}, nil
		},
	}
}

func (d *Daemon) newReviewID() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.reviews++
	return fmt.Sprintf("rv-%d", d.reviews)
}
