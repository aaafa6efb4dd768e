package checks

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/skewtest/skewtest/contract"
)

// commandVersion splits a command condition's argument, NAME@V.
func commandVersion(arg string) (name string, version int, err error) {
	name, v, ok := strings.Cut(arg, "@")
	if !ok || name == "" {
		return "", 0, fmt.Errorf("want NAME@V (a command id and a version), not %q", arg)
	}
	version, err = strconv.Atoi(v)
	if err != nil || version < 1 {
		return "", 0, fmt.Errorf("version %q of %s is not a positive number", v, name)
	}
	return name, version, nil
}

// checkCommandArg says what is wrong with a command condition's argument, or nil.
func checkCommandArg(arg string) error {
	_, _, err := commandVersion(arg)
	return err
}

// speaks reports whether contract k declares the command version arg (NAME@V): on the
// channel of the journey's path, or on any channel before the journey has used one.
func (c *condContext) speaks(k *contract.Contract, arg string) bool {
	name, version, err := commandVersion(arg)
	if k == nil || err != nil {
		return false
	}
	if c.path != "" {
		ch := k.Channel(c.path)
		return ch != nil && ch.Speaks(name, version)
	}
	for i := range k.Channels {
		if k.Channels[i].Speaks(name, version) {
			return true
		}
	}
	return false
}
