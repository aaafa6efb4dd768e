package driverkit

import "encoding/json"

// Version is the driver protocol version this package speaks.
const Version = 1

// The lines a driver writes (docs/driver-protocol.md).

type helloLine struct {
	Type     string    `json:"type"`
	Protocol int       `json:"protocol"`
	Role     string    `json:"role"`
	Kind     string    `json:"kind,omitempty"`
	Build    buildInfo `json:"build"`
	Actions  []string  `json:"actions"`
	// Params describes actions' parameters (Describe); absent when none is.
	Params map[string][]Param `json:"params,omitempty"`
}

type buildInfo struct {
	Product string `json:"product"`
	Version string `json:"version"`
}

type readyLine struct {
	Type string `json:"type"`
	URL  string `json:"url,omitempty"`
}

type resultLine struct {
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

type observeLine struct {
	Type string `json:"type"`
	Lane int    `json:"lane,omitempty"` // 0: the driver's own instance
	What string `json:"what"`
	Data any    `json:"data"`
}

// request is one action line from skewtest.
type request struct {
	ID     int64           `json:"id"`
	Lane   int             `json:"lane"` // 0 (or absent): the driver's own instance
	Action string          `json:"action"`
	Args   json.RawMessage `json:"args"`
}
