// Package future rewrites tapped frames into what a later release of their sender is allowed
// to send under the contract's append-only rules (docs/contract.md, "Future peers"), so the
// working tree's decoders meet tomorrow's peers before those exist.
//
// Every rewrite comes from the sending build's contract, never from knowledge of a product:
//
//	optional-field   a new optional field at the top of a JSON frame
//	nested-field     a new optional field inside an object the contract lists fields for
//	                 (at any depth, array elements included)
//	feature-key      a new key in an object whose keys are the channel's feature names
//	                 (H>C: features are what a host advertises)
//	capability-key   a new key in an object whose keys are the channel's capability names
//	                 (C>H: capabilities are what a client declares)
//	command-version  a version above every one spoken, for each command of an object whose
//	                 keys are the channel's command ids with lists of versions, and a new
//	                 command
//
// What the rules do not allow a later release to send is never generated: a frame gated on a
// capability the receiver never declared is never sent to it (its gate is what a receiver
// sees: a capability or feature key it does not know), and a new enum value is not promised
// to be tolerated (the field check holds receivers to their own enums). Frames whose payload
// cannot carry an extra field (text, binary fields by offset, protobuf, a header with a
// length field, batches, streams) are left alone.
//
// A Rewriter is a tap.Rewriter: it rewrites the frames travelling in the directions it was
// given (those bound for the working-tree build), every one it can, with all of its variants
// at once (All; or one of them, Config.One), the names and values added chosen by a generator
// seeded from (seed, connection, direction, message number), so the same seed gives the same
// rewrites whatever the timing.
package future
