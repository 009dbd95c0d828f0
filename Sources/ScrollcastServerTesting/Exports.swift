// The generic collector and polling wait come with the room layer's test doubles, so a room,
// store or cluster test imports one testing module.
@_exported import TestSupport
