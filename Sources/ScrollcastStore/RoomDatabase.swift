import Foundation
import GRDB

/// An open room database file: a WAL-mode `DatabasePool` whose schema is this build's.
///
/// Opening never replaces or repairs a file it does not understand: garbage, a damaged file,
/// another program's database and a file from a newer build are all refused with a
/// `RoomDatabaseError`, and the file is left as it was for its owner to look at.
public final class RoomDatabase: Sendable {
    /// The database file.
    public let path: String
    /// The connections: one writer (used only by the store's writer queue) and readers
    /// (`loadRoom`, which reads while a write is under way thanks to WAL).
    let pool: DatabasePool

    private init(path: String, pool: DatabasePool) {
        self.path = path
        self.pool = pool
    }

    /// SQLite page cache of each reader connection, KiB (docs/recording.md, "Downloading").
    public static let readerCacheKiB = 256
    /// SQLite page cache of the writer connection, KiB (docs/reliability.md, "What is stored").
    public static let writerCacheKiB = 16_384

    /// Opens the database at `path`, creating the file and its directory if missing, and brings
    /// its schema up to this build's.
    public static func open(atPath path: String) throws(RoomDatabaseError) -> RoomDatabase {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw RoomDatabaseError(.cannotOpen, path: path, detail: "cannot create its directory: \(error.localizedDescription)")
            }
        }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw RoomDatabaseError(.cannotOpen, path: path, detail: "it is a directory")
        }

        var configuration = Configuration()
        configuration.label = "scrollcast.rooms"
        // Only `loadRoom` reads, once per room's first join.
        configuration.maximumReaderCount = 2
        // Another process holding the write lock (e.g. an operator's sqlite3 shell) delays a
        // batch instead of failing it at once.
        configuration.busyMode = .timeout(5)
        // Readers load a room's row, or scan a life's log once for a recording export, where a
        // page is read once and never again: SQLite's default page cache (2 MB per connection)
        // would only hold an export's memory up. Their cache stays at `readerCacheKiB`.
        configuration.prepareDatabase { db in
            if db.configuration.readonly {
                try db.execute(sql: "PRAGMA cache_size = -\(readerCacheKiB)")
            } else {
                // The writer: the staged log's pages, the tail of `roomLog` and of each logging
                // room's `roomLog_byRoom` page must stay in its cache. SQLite's default (2 MB,
                // ~500 pages) is about what 500 logging rooms need, so the writer kept re-reading
                // pages it had just written (bench/where-the-time-goes.md §13). 16 MiB holds
                // them for ~3,000 rooms (the default limit is 1,000), and is
                // only filled as pages are used.
                try db.execute(sql: "PRAGMA cache_size = -\(writerCacheKiB)")
            }
        }

        let pool: DatabasePool
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
        } catch {
            throw classify(error, path: path)
        }
        do {
            try prepareSchema(in: pool, path: path)
        } catch {
            try? pool.close()
            throw error
        }
        return RoomDatabase(path: path, pool: pool)
    }

    /// Refuses files that are not ours or are newer than this build, then runs the migrations
    /// the file lacks.
    private static func prepareSchema(in pool: DatabasePool, path: String) throws(RoomDatabaseError) {
        let migrator = RoomSchema.migrator
        do {
            let (unknown, foreignTables) = try pool.read { db in
                let applied = try migrator.appliedIdentifiers(db)
                let unknown = applied.subtracting(migrator.migrations).sorted()
                // A database with tables but no migration record was made by someone else:
                // migrating it would write our tables into their file.
                let tables = try String.fetchAll(db, sql: """
                    SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name
                    """)
                let foreign = applied.isEmpty ? tables.filter { $0 != "grdb_migrations" } : []
                return (unknown, foreign)
            }
            guard unknown.isEmpty else {
                throw RoomDatabaseError(.newerSchema, path: path,
                                        detail: "its schema has migrations this build does not know: \(unknown.joined(separator: ", "))")
            }
            guard foreignTables.isEmpty else {
                throw RoomDatabaseError(.notAScrollcastDatabase, path: path,
                                        detail: "it holds other tables: \(foreignTables.joined(separator: ", "))")
            }
            try migrator.migrate(pool)
        } catch let error as RoomDatabaseError {
            throw error
        } catch {
            throw classify(error, path: path)
        }
    }

    /// A GRDB or SQLite error while opening, as the operator should read it.
    private static func classify(_ error: any Error, path: String) -> RoomDatabaseError {
        guard let error = error as? DatabaseError else {
            return RoomDatabaseError(.cannotOpen, path: path, detail: "\(error)")
        }
        let detail = error.message ?? "SQLite error \(error.resultCode.rawValue)"
        switch error.resultCode {
        case .SQLITE_NOTADB, .SQLITE_CORRUPT:
            return RoomDatabaseError(.notAScrollcastDatabase, path: path, detail: detail)
        default:
            return RoomDatabaseError(.cannotOpen, path: path, detail: detail)
        }
    }

    /// Closes the connections. Call after the store's writer has drained.
    public func close() {
        try? pool.close()
    }
}
