// Deliberate: this is the one testing module (docs/design.md), so a room, store or cluster test
// imports it alone and gets the generic collector and polling wait with the room layer's test
// doubles. TestSupport stays a module of its own (Foundation only) because the transport and
// Redis tests use it without depending on the room layer.
@_exported import TestSupport
