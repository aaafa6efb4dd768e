package driverproto

import "encoding/json"

// Version is the driver protocol version this package speaks.
const Version = 1

// Role is the role a driver plays.
type Role string

// Roles.
const (
	Host   Role = "host"
	Client Role = "client"
)

// Build identifies the build a driver runs.
type Build struct {
	Product string `json:"product"`
	Version string `json:"version"`
}

type hello struct {
	Type     string   `json:"type"`
	Protocol int      `json:"protocol"`
	Role     Role     `json:"role"`
	Kind     string   `json:"kind,omitempty"`
	Build    Build    `json:"build"`
	Actions  []string `json:"actions"`
}

type ready struct {
	Type string `json:"type"`
	URL  string `json:"url,omitempty"`
}

type result struct {
	Type  string       `json:"type"`
	ID    int64        `json:"id"`
	OK    bool         `json:"ok"`
	Data  any          `json:"data,omitempty"`
	Error *resultError `json:"error,omitempty"`
}

type resultError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

type observation struct {
	Type string `json:"type"`
	What string `json:"what"`
	Data any    `json:"data"`
}

// action is one line from the harness.
type action struct {
	ID     int64           `json:"id"`
	Action string          `json:"action"`
	Args   json.RawMessage `json:"args"`
}
