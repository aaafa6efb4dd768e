package e2e_test

import "github.com/skewtest/skewtest/examples/remoteterm/release"

// Releases as history.yaml defines them, for the features the terminal stream reads.
var (
	v120 = release.Features{Version: "v1.4.120", PublishCwd: true}
	v147 = release.Features{Version: "v1.4.147", PublishCwd: true, Ack: true, ClaimViewport: true, OutputSpan: true}
	v157 = with(v147, "v1.4.157", func(f *release.Features) {
		f.ClientAckOutput, f.ClientAckSourceRanges, f.HostLedger = true, true, true
	})
	v173 = with(v157, "v1.4.173", func(f *release.Features) { f.SubscribeSpanGate, f.OutputPause = true, true })
	v180 = with(v173, "v1.4.180", func(f *release.Features) { f.MultiplexSpanGate, f.DesktopDeclaresOutputSpan = true, true })
	v190 = with(v173, "v1.4.190", func(f *release.Features) { f.TransformedRunsOption = true })
	wt   = with(v190, "worktree", func(f *release.Features) {
		f.SnapshotOwnerFields, f.WriteUnavailable, f.LegacyDesktopSeqRebase = true, true, true
	})
)

func with(f release.Features, version string, change func(*release.Features)) release.Features {
	f.Version = version
	change(&f)
	return f
}
