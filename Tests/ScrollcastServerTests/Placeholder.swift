import Testing
@testable import ScrollcastServer
