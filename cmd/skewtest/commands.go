package main

import (
	"context"
	"io"
	"slices"
	"strings"
)

// command is a subcommand: its arguments (after its name), where it prints; its error
// maps to the exit code.
type command = func(ctx context.Context, args []string, stdout, stderr io.Writer) error

// commands are skewtest's subcommands by name: dispatch runs them, and the completion
// scripts are made from their flag sets (completion.go). A name that begins with "__" is
// hidden: neither the usage text nor the completion lists it.
func commands() map[string]command {
	return map[string]command{
		"run":           cmdRun,
		"plan":          cmdPlan,
		"repro":         cmdRepro,
		"bisect":        cmdBisect,
		"recheck":       cmdRecheck,
		"replay":        cmdReplay,
		"record":        cmdRecord,
		"driver":        cmdDriver,
		"doctor":        cmdDoctor,
		"init":          cmdInit,
		"compat":        cmdCompat,
		"tap":           cmdTap,
		"fuzz":          cmdFuzz,
		"explore":       cmdExplore,
		"pins":          cmdPins,
		"build":         cmdBuild,
		"cache":         cmdCache,
		"contract":      cmdContract,
		"merge-reports": cmdMerge,
		"transcript":    cmdTranscript,
		"example":       cmdExample,
		"demo":          cmdDemo,
		"version":       cmdVersion,
		"completion":    cmdCompletion,
		completeCommand: cmdComplete,
	}
}

// visibleCommands are the names of commands that are not hidden, sorted.
func visibleCommands() []string {
	var names []string
	for name := range commands() {
		if !strings.HasPrefix(name, "__") {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// subcommands are the words a command takes before its flags ("contract diff"): the
// command reads them from here to suggest one for a typo, and the completion offers them.
func subcommands(name string) []string {
	switch name {
	case "contract":
		return []string{"diff", "check", "verify", "decode", "infer", "descriptor"}
	case "cache":
		return []string{"ls", "prune"}
	case "pins":
		return []string{"lock"}
	case "driver":
		return []string{"check"}
	}
	return nil
}
