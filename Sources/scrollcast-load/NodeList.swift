/// The servers of a run, from `--url`: one URL (a single server, as before clusters) or the
/// comma-separated nodes of one cluster (`scrollcast --redis … --node-id …`), numbered from 0 in
/// the order given. Connections are spread over them by `NodePlacement`.
struct NodeList: Sendable, Equatable {
    /// At most this many nodes: the identity check keeps the nodes that delivered a frame as
    /// bits of one 64-bit word.
    static let maximum = 64

    /// Why a `--url` list was not accepted.
    struct Invalid: Error, CustomStringConvertible {
        var description: String
    }

    /// The nodes, node 0 first.
    let addresses: [ServerAddress]

    /// Parses `ws://A/ws,ws://B/ws,…` (spaces around the commas are ignored). One URL is one
    /// node, exactly as `--url` always was.
    init(urls: String) throws {
        let parts = urls.split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: " ") }
        guard !parts.contains(where: \.isEmpty) else {
            throw Invalid(description: "--url has an empty entry (\"\(urls)\"): give one URL, or URLs separated by single commas")
        }
        guard parts.count <= Self.maximum else {
            throw Invalid(description: "--url lists \(parts.count) nodes; at most \(Self.maximum)")
        }
        addresses = try parts.map { try ServerAddress(url: $0) }
    }

    var count: Int { addresses.count }

    /// Whether the run spreads its connections over several nodes (and checks that they all
    /// deliver the same bytes).
    var isCluster: Bool { addresses.count > 1 }

    subscript(node: Int) -> ServerAddress { addresses[node] }

    /// The normalised URLs, comma-separated, as the report's `url` gives them.
    var description: String { addresses.map(\.webSocketURL).joined(separator: ",") }

    /// How messages name a node: "node 2 (ws://127.0.0.1:8082/ws)".
    func name(of node: Int) -> String { "node \(node) (\(addresses[node].webSocketURL))" }
}

extension Substring {
    /// The text without `character` at either end.
    fileprivate func trimmingCharacters(in character: Character) -> String {
        var text = self
        while text.first == character { text.removeFirst() }
        while text.last == character { text.removeLast() }
        return String(text)
    }
}
