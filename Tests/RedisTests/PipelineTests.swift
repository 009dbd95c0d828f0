import Foundation
import Redis
import TestSupport
import RedisTesting
import Testing

@Suite(.serialized) struct PipelineTests {
    /// Two threads send 5,000 INCRs each on their own key: every command completes, and each
    /// thread's replies come back in the order it sent them (1, 2, 3, ...).
    @Test func tenThousandCommandsFromTwoThreadsCompleteInOrder() throws {
        let server = try RedisTestServer()
        let (queue, _) = try connectedQueue(server)
        defer { queue.close() }
        let perThread = 5000
        let replies = [EventCollector<Int64>(), EventCollector<Int64>()]
        let failures = EventCollector<RedisError>()

        let senders = DispatchGroup()
        for sender in 0..<2 {
            let key = "counter-\(sender)"
            let log = replies[sender]
            DispatchQueue.global().async(group: senders) {
                for _ in 0..<perThread {
                    queue.send(["INCR", key]) { result in
                        switch result {
                        case .success(let value): log.append(value.integer ?? -1)
                        case .failure(let error): failures.append(error)
                        }
                    }
                }
            }
        }
        #expect(senders.wait(timeout: .now() + 30) == .success)
        for log in replies {
            #expect(log.wait(timeout: 60) { $0.count + failures.all.count >= perThread })
        }
        #expect(failures.all.isEmpty, "\(failures.all.prefix(3))")
        for log in replies {
            #expect(log.all == (1...Int64(perThread)).map { $0 })
        }
    }
}
