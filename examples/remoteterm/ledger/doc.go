// Package ledger is the host's source-range ledger: one per stream generation, it records
// which raw source range every admitted output frame carries, so that an acknowledgement of
// encoded bytes settles exactly the ranges the client has consumed.
//
// Admission is two-phase: Prepare checks and reserves, then Commit (the frame was sent) or
// Rollback (it was not). Prepare refuses zero-byte frames, more than MaxRetainedBytes
// retained, a second pending admission, a closed ledger, source ranges that are not
// contiguous with what came before, and a frame whose mapping mode (with or without source
// ranges) differs from the ledger's: the last one detaches the stream.
package ledger
