/// An HTML page as it goes out: each `src="…"` and `href="…"` attribute that names a file the
/// server serves gets that file's content version, `NAME?v=VERSION` (docs/design.md, "Static
/// files"). The page itself is asked about on every load; what it names is then fetched once per
/// version and kept, so a reload costs one round trip and a new build shows at once. The file on
/// disk keeps plain names, so any other server serves it as it is.
struct VersionedPage {
    /// The page's bytes with the versions written in.
    let body: [UInt8]
    /// A strong validator: the digest of `body`, so a page whose named files changed gets a new tag.
    let entityTag: String

    /// Rewrites `html`, the page at `page`'s path; `version` gives a served file's version (nil:
    /// left as it is). Only relative names and names from the root (`/…`) are versioned; those with
    /// a scheme, a query or a fragment, and other pages, are left as they are.
    init(html: [UInt8], page: StaticFiles.File, files: StaticFiles, version: (StaticFiles.File) -> String?) {
        let folder = page.path.dropFirst(files.root.count).split(separator: "/").dropLast().joined(separator: "/")
        var out: [UInt8] = []
        out.reserveCapacity(html.count + 256)
        var index = 0
        while index < html.count {
            guard let valueStart = VersionedPage.attributeValueStart(html, at: index),
                  let valueEnd = html[valueStart...].firstIndex(of: UInt8(ascii: "\"")) else {
                out.append(html[index])
                index += 1
                continue
            }
            let value = String(decoding: html[valueStart..<valueEnd], as: UTF8.self)
            out.append(contentsOf: html[index..<valueEnd])
            if let file = VersionedPage.servedFile(named: value, folder: folder, files: files),
               !file.contentType.hasPrefix("text/html"), let version = version(file) {
                out.append(contentsOf: Array("?v=\(version)".utf8))
            }
            index = valueEnd
        }
        body = out
        entityTag = "\"p-\(StaticFileVersions.digest(out))\""
    }

    private static let attributes: [[UInt8]] = [Array(" src=\"".utf8), Array(" href=\"".utf8)]

    /// Where an attribute value starts if `src="` or `href="`, after white space, starts at `index`.
    private static func attributeValueStart(_ html: [UInt8], at index: Int) -> Int? {
        let byte = html[index]
        guard byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\t") else { return nil }
        for attribute in attributes where index + attribute.count <= html.count
            && html[(index + 1)..<(index + attribute.count)].elementsEqual(attribute.dropFirst()) {
            return index + attribute.count
        }
        return nil
    }

    /// The served file a reference names, relative to the page's folder or from the root; nil
    /// for anything else.
    private static func servedFile(named value: String, folder: String, files: StaticFiles) -> StaticFiles.File? {
        guard !value.isEmpty, !value.hasPrefix("//"), !value.contains(where: { ":?#%".contains($0) }) else { return nil }
        let path = value.hasPrefix("/") ? value : "/" + (folder.isEmpty ? "" : folder + "/") + value
        return files.resolve(path)
    }
}
