import Testing
@testable import ScrollWire
