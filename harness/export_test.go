package harness

// ActionArgs is actionArgs, for the specs.
var ActionArgs = actionArgs
