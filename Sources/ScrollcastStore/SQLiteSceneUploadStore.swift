import Foundation
import GRDB
import ScrollcastRooms

/// Uploaded scenes in the room database (tables `sceneUpload` and `sceneUploadImage`,
/// `RoomSchema`), beside the rooms that show them, so both come back after a restart.
/// Writes go through the pool's writer (serialised with the room store's batches) and return
/// once committed; an upload is rare and at most `SceneUploadLimits.maxSceneBytes`.
public final class SQLiteSceneUploadStore: SceneUploadStore {
    private let database: RoomDatabase

    public init(database: RoomDatabase) {
        self.database = database
    }

    public func saveUpload(_ upload: StoredSceneUpload) throws {
        try database.pool.write { db in
            try db.execute(sql: "INSERT OR IGNORE INTO sceneUpload (name, fileName, scene, uploadedAt) VALUES (?, ?, ?, ?)",
                           arguments: [upload.name, upload.fileName, Data(upload.scene), Date()])
            for (fileName, bytes) in upload.images {
                try db.execute(sql: "INSERT OR IGNORE INTO sceneUploadImage (scene, fileName, bytes) VALUES (?, ?, ?)",
                               arguments: [upload.name, fileName, Data(bytes)])
            }
        }
    }

    public func loadUploads() throws -> [StoredSceneUpload] {
        try database.pool.read { db in
            let scenes = try Row.fetchAll(db, sql: "SELECT name, fileName, scene FROM sceneUpload ORDER BY uploadedAt, name")
            return try scenes.map { row in
                let name: String = row["name"]
                var images: [String: [UInt8]] = [:]
                for image in try Row.fetchAll(db, sql: "SELECT fileName, bytes FROM sceneUploadImage WHERE scene = ?", arguments: [name]) {
                    images[image["fileName"]] = Array(image["bytes"] as Data)
                }
                return StoredSceneUpload(name: name, fileName: row["fileName"], scene: Array(row["scene"] as Data), images: images)
            }
        }
    }
}
