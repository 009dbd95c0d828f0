import Testing
@testable import scrollcast_load

@Suite("--url: one server or a cluster's nodes")
struct NodeListTests {
    @Test("one URL is one node, as --url always was")
    func oneURL() throws {
        let nodes = try NodeList(urls: "ws://127.0.0.1:8080/ws")
        #expect(nodes.count == 1 && !nodes.isCluster)
        #expect(nodes[0] == (try ServerAddress(url: "ws://127.0.0.1:8080/ws")))
        #expect(nodes.description == "ws://127.0.0.1:8080/ws")
    }

    @Test("comma-separated URLs are the nodes in order; spaces around commas are ignored")
    func severalURLs() throws {
        let nodes = try NodeList(urls: "ws://127.0.0.1:8001/ws, ws://127.0.0.1:8002/ws ,ws://[::1]:8003")
        #expect(nodes.count == 3 && nodes.isCluster)
        #expect(nodes.addresses.map(\.port) == [8001, 8002, 8003])
        #expect(nodes.description == "ws://127.0.0.1:8001/ws,ws://127.0.0.1:8002/ws,ws://[::1]:8003/")
        #expect(nodes.name(of: 1) == "node 1 (ws://127.0.0.1:8002/ws)")
    }

    @Test("an empty entry, a bad URL or too many nodes are refused with the reason",
          arguments: [
              ("ws://a:1/ws,,ws://b:2/ws", "empty entry"),
              ("ws://a:1/ws,", "empty entry"),
              ("ws://a:1/ws,http://b:2/ws", "must start with ws://"),
              ("ws://a:1/ws,ws://b:99999/ws", "invalid port"),
              (Array(repeating: "ws://a:1/ws", count: 65).joined(separator: ","), "at most 64"),
          ])
    func refused(urls: String, reason: String) {
        #expect {
            _ = try NodeList(urls: urls)
        } throws: { error in
            "\(error)".contains(reason)
        }
    }
}
