/// Turns a queue or subscriber name into one `CLIENT SETNAME` accepts: Redis refuses spaces,
/// newlines and anything outside printable ASCII.
enum ClientName {
    static func sanitized(_ name: String) -> String {
        let printable = name.unicodeScalars.map { scalar in
            (33...126).contains(scalar.value) ? Character(scalar) : "_"
        }
        return printable.isEmpty ? "scrollcast" : String(printable)
    }
}
