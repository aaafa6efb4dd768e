package results_test

import (
	"fmt"

	"github.com/skewtest/skewtest/results"
)

// A CI step or dashboard reads a run's results.json: the verdict, each pairing, and each
// finding with the line that reruns its pairing alone.
func ExampleLoad() {
	run, err := results.Load("testdata/results.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("exit code", run.ExitCode())
	for _, p := range run.Pairings {
		fmt.Println(p.Label(), p.Status)
		for _, f := range p.Findings {
			fmt.Printf("  %s in step %s: %s %s\n", f.Kind, f.Step, f.Direction, f.Frame.Name)
			fmt.Println("  " + p.Repro)
		}
	}
	// Output:
	// exit code 1
	// host worktree × desktop client v1.4.120 · terminal pass
	// host v1.4.120 × desktop client worktree · terminal fail
	//   decoder-refusal in step live-output: C>H Ack
	//   skewtest repro --repo remoteterm --host v1.4.120 --client worktree --kind desktop --journey terminal --seed 20261015
}
