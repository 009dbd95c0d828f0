import Testing
@testable import WebSockets
