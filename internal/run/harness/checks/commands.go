package checks

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/skewtest/skewtest/internal/declare/contract"
)

// CommandVersion splits a command condition's argument, NAME@V ([command:NAME@V],
// [host-command:NAME@V]).
func CommandVersion(arg string) (name string, version int, err error) {
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
	_, _, err := CommandVersion(arg)
	return err
}

// commandConditions are the conditions whose argument is NAME@V.
var commandConditions = []string{"command", "host-command"}

// CommandArg returns the command id a condition names ([command:NAME@V] and
// [host-command:NAME@V]), or false for another condition or a malformed argument.
func CommandArg(c string) (string, bool) {
	key, arg, _ := strings.Cut(c, ":")
	if !slices.Contains(commandConditions, key) {
		return "", false
	}
	name, _, err := CommandVersion(arg)
	return name, err == nil
}

// speaks reports whether contract k declares the command version arg (NAME@V): on the
// line's channel (ConditionChannels), or on any channel where the line has none.
func (c *condContext) speaks(k *contract.Contract, arg string) bool {
	name, version, err := CommandVersion(arg)
	if k == nil || err != nil {
		return false
	}
	if lc, ok := c.channel(); ok {
		ch := k.ChannelNamed(lc.Name)
		return ch != nil && ch.Speaks(name, version)
	}
	for i := range k.Channels {
		if k.Channels[i].Speaks(name, version) {
			return true
		}
	}
	return false
}
