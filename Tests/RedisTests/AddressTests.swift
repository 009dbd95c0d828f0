import Redis
import RedisTesting
import Testing

@Suite struct AddressTests {
    @Test(arguments: [
        ("redis://localhost", "localhost", 6379, 0),
        ("redis://10.0.0.7:7000", "10.0.0.7", 7000, 0),
        ("redis://cache.internal:6380/3", "cache.internal", 6380, 3),
        ("redis://h/12", "h", 6379, 12),
        ("redis://h:6379/", "h", 6379, 0),
        ("redis://[::1]:6390/2", "::1", 6390, 2),
        ("REDIS://Host", "Host", 6379, 0),
    ])
    func parsesGoodURLs(url: String, host: String, port: Int, database: Int) throws {
        let address = try RedisAddress(url: url)
        #expect(address.host == host)
        #expect(address.port == port)
        #expect(address.database == database)
    }

    @Test(arguments: [
        ("http://localhost:6379", "does not start with redis://"),
        ("localhost:6379", "does not start with redis://"),
        ("redis://", "has no host"),
        ("redis://:6379", "has no host"),
        ("redis://h:0", "has a bad port '0'"),
        ("redis://h:65536", "has a bad port '65536'"),
        ("redis://h:http", "has a bad port 'http'"),
        ("redis://h:", "has a bad port ''"),
        ("redis://h:+5", "has a bad port '+5'"),
        ("redis://h/x", "has a bad database 'x'"),
        ("redis://h/-1", "has a bad database '-1'"),
        ("redis://user:secret@h", "holds credentials"),
        ("redis://h?db=1", "has a query or fragment"),
        ("redis://[::1", "without its closing ']'"),
    ])
    func refusesBadURLs(url: String, expected: String) {
        do {
            let address = try RedisAddress(url: url)
            Issue.record("\(url) parsed as \(address)")
        } catch {
            #expect(error.message.contains(expected), "\(error.message)")
            #expect(error.code == .invalidAddress, "\(error)")
            #expect(error.message.contains("'\(url)'"), "the message names the URL: \(error.message)")
        }
    }

    @Test func describesItselfAsAURL() throws {
        #expect(try RedisAddress(url: "redis://h").description == "redis://h:6379/0")
        #expect(try RedisAddress(url: "redis://[::1]:7/1").description == "redis://[::1]:7/1")
    }
}
