import ArgumentParser
import Foundation

/// Finds the page's folder.
enum PublicDirectory {
    /// `explicit` if given (it must exist), else the first `Public/` found next to the executable,
    /// up to four folders above it (`.build/<triple>/debug/scrollcast` sits three below the
    /// package), or in the current directory.
    static func resolve(_ explicit: String?) throws -> String {
        let files = FileManager.default
        if let explicit {
            let path = URL(fileURLWithPath: explicit).standardizedFileURL.path
            guard isDirectory(path) else {
                throw ValidationError("--public \(explicit): no such folder")
            }
            return path
        }
        var candidates: [URL] = []
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0...4 {
            candidates.append(folder.appendingPathComponent("Public"))
            folder.deleteLastPathComponent()
        }
        candidates.append(URL(fileURLWithPath: files.currentDirectoryPath).appendingPathComponent("Public"))
        if let found = candidates.map({ $0.standardizedFileURL.path }).first(where: isDirectory) {
            return found
        }
        throw ValidationError("no Public/ folder found next to the executable or in \(files.currentDirectoryPath); pass --public PATH")
    }

    /// Where the compressed copies of `page`'s files are: `explicit` if given (it must exist),
    /// else `.build/public-encoded` in the folder above `page` (where `make precompress` puts
    /// them) if that exists, else nil (every file is sent as it is).
    static func encoded(_ explicit: String?, page: String) throws -> String? {
        if let explicit {
            let path = URL(fileURLWithPath: explicit).standardizedFileURL.path
            guard isDirectory(path) else { throw ValidationError("--encoded \(explicit): no such folder") }
            return path
        }
        let beside = URL(fileURLWithPath: page).deletingLastPathComponent()
            .appendingPathComponent(".build/public-encoded").standardizedFileURL.path
        return isDirectory(beside) ? beside : nil
    }

    private static func isDirectory(_ path: String) -> Bool {
        var isFolder: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) && isFolder.boolValue
    }
}
