/// Why a room database file could not be used. Its message names the file and the way out,
/// because it is what an operator sees when the server refuses to start.
public struct RoomDatabaseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong with the file.
    public enum Kind: Sendable, Hashable {
        /// The file is not SQLite, is damaged, or is another program's database.
        case notAScrollcastDatabase
        /// The file was migrated by a newer build: it has migrations this one lacks.
        case newerSchema
        /// The file or its directory could not be opened or created.
        case cannotOpen
    }

    /// What is wrong.
    public var kind: Kind
    /// The database file.
    public var path: String
    /// What SQLite or the file system said, or which migrations are unknown.
    public var detail: String

    /// An error about the file at `path`.
    public init(_ kind: Kind, path: String, detail: String) {
        self.kind = kind
        self.path = path
        self.detail = detail
    }

    /// The whole message, e.g. "data/scrollcast.sqlite is not a Scrollcast database (file is not
    /// a database); move it away or pass --data none".
    public var description: String {
        switch kind {
        case .notAScrollcastDatabase:
            return "\(path) is not a Scrollcast database (\(detail)); move it away or pass --data none"
        case .newerSchema:
            return "\(path) was written by a newer Scrollcast (\(detail)); run a newer build, move the file away or pass --data none"
        case .cannotOpen:
            return "cannot open \(path) (\(detail)); pass another --data PATH or --data none"
        }
    }
}
