import Foundation
import SyncClient
import SyncProtocol
import SyncServer
import TestSupport
import Testing

@Suite struct VaultStateTests {
    @Test func cursorsReturnExactlyTheChangesAfterThem() async throws {
        try await TestServer.with { server in
            let device = try await server.newUser().newDevice()
            try await device.write([("a.md", "a", nil), ("b.md", "b", nil), ("c.md", "c", nil)])
            let full = try await device.allChanges()
            #expect(full.files.map(\.path.rawValue).sorted() == ["a.md", "b.md", "c.md"])
            let cursor = try #require(full.cursor)
            // Nothing new: same cursor back, empty page.
            let idle = try await device.api.state(device.session, cursor: cursor)
            #expect(idle.files.isEmpty && idle.deletedSince.isEmpty)
            #expect(idle.cursor == cursor)
            #expect(idle.hasMore == false)

            try await device.write("b.md", "b2", base: 1)
            _ = try await device.api.delete(DeleteRequest(files: [DeleteFile(path: try VaultPath("c.md"), baseVersion: 1)]), session: device.session)
            let changes = try await device.api.state(device.session, cursor: cursor)
            #expect(changes.files.map(\.path.rawValue) == ["b.md"])
            #expect(changes.files.first?.version == 2)
            #expect(changes.deletedSince.map(\.path.rawValue) == ["c.md"])
        }
    }

    /// `skip=` leaves folders out of the listing (a device's folders left out, issue 58) and the
    /// cursor passes their changes; a folder of a similar name stays; a bad folder is refused.
    @Test func skippedFoldersAreLeftOutAndTheirChangesPassed() async throws {
        try await TestServer.with { server in
            let device = try await server.newUser().newDevice()
            try await device.write([("Archive/a.md", "a", nil), ("Archived/b.md", "b", nil), ("Café Notes/c.md", "c", nil), ("d.md", "d", nil)])
            let full = try await device.api.state(device.session, skip: ["Archive/", "Café Notes/"])
            #expect(full.files.map(\.path.rawValue).sorted() == ["Archived/b.md", "d.md"])
            // Changes only in the folders left out: none listed, and the cursor moves past them.
            try await device.write("Archive/a.md", "a2", base: 1)
            _ = try await device.api.delete(DeleteRequest(files: [DeleteFile(path: try VaultPath("Café Notes/c.md"), baseVersion: 1)]), session: device.session)
            let quiet = try await device.api.state(device.session, cursor: full.cursor, skip: ["Archive/", "Café Notes/"])
            #expect(quiet.files.isEmpty && quiet.deletedSince.isEmpty && quiet.cursor != full.cursor)
            try await device.write("d.md", "d2", base: 1)
            let next = try await device.api.state(device.session, cursor: quiet.cursor, skip: ["Archive/", "Café Notes/"])
            #expect(next.files.map(\.path.rawValue) == ["d.md"])
            let unfiltered = try await device.api.state(device.session, cursor: full.cursor)
            #expect(unfiltered.files.map(\.path.rawValue).sorted() == ["Archive/a.md", "d.md"] && unfiltered.deletedSince.map(\.path.rawValue) == ["Café Notes/c.md"])
            for bad in [["Archive"], ["../x/"], Array(repeating: "a/", count: 101)] {
                await #expect(performing: { try await device.api.state(device.session, skip: bad) }, throws: { ($0 as? SyncAPIError)?.status == 400 })
            }
        }
    }

    @Test func pagesFollowTheChangeSequence() async throws {
        try await TestServer.with { server in
            let device = try await server.newUser().newDevice()
            try await device.write((0..<25).map { ("p\($0).md", "content \($0)", nil) })
            let first = try await device.api.state(device.session, limit: 10)
            #expect(first.files.count == 10)
            #expect(first.hasMore == true)
            let all = try await device.allChanges(pageSize: 10)
            #expect(Set(all.files.map(\.path.rawValue)).count == 25)
            #expect(all.files.count == 25)
        }
    }

    @Test func sinceTimestampStillWorks() async throws {
        try await TestServer.with { server in
            let device = try await server.newUser().newDevice()
            try await device.write("old.md", "old")
            let mark = server.clock.now
            server.clock.advance(by: 60)
            try await device.write("new.md", "new")
            let page = try await device.api.state(device.session, since: mark)
            #expect(page.files.map(\.path.rawValue) == ["new.md"])
            #expect(abs(page.serverTime.timeIntervalSince(server.clock.now)) < 0.001)
        }
    }

    @Test func badCursorsAndLimitsAreClearErrors() async throws {
        try await TestServer.with { server in
            let device = try await server.newUser().newDevice()
            for query in ["cursor=garbage", "cursor=YzEuLTE", "limit=0", "limit=abc", "since=yesterday"] {
                let url = URL(string: server.baseURL.absoluteString + "/vault/state?" + query)!
                let answer = try await RawHTTP.send("GET", url, headers: RawHTTP.vaultHeaders(device.session.accessToken, device: device.session.deviceID))
                #expect(answer.status == 400, "\(query)")
                #expect(answer.code == (query.hasPrefix("cursor") ? .invalidCursor : .invalidRequest), "\(query)")
            }
        }
    }

    /// Writers commit concurrently (in whatever order Postgres finishes them) while a reader
    /// follows cursors in small pages: the reader must see every created file exactly once.
    @Test func aReaderFollowingCursorsSeesEveryConcurrentChangeExactlyOnce() async throws {
        try await TestServer.with(configure: { $0.databasePoolSize = 8 }) { server in
            let user = try await server.newUser()
            let writers = try await (0..<4).asyncMap { try await user.newDevice("writer-\($0)") }
            let reader = try await user.newDevice("reader")
            let batches = 12
            let perBatch = 5
            let done = ManagedFlag()
            async let written: [String] = withThrowingTaskGroup(of: [String].self) { group in
                for (w, writer) in writers.enumerated() {
                    group.addTask {
                        var paths: [String] = []
                        for b in 0..<batches {
                            let files = (0..<perBatch).map { ("w\(w)/b\(b)/f\($0).md", "writer \(w) batch \(b) file \($0)", Int?.none) }
                            let result = try await writer.write(files)
                            #expect(result.confirmed.count == perBatch)
                            paths += files.map(\.0)
                        }
                        return paths
                    }
                }
                var all: [String] = []
                for try await paths in group { all += paths }
                done.set()
                return all
            }
            var seen: [String] = []
            var cursor: String?
            var finalPass = false
            while true {
                let page = try await reader.api.state(reader.session, cursor: cursor, limit: 7)
                seen += page.files.map(\.path.rawValue)
                cursor = page.cursor
                if page.hasMore == true { continue }
                if finalPass { break }
                if done.isSet { finalPass = true }
                try await Task.sleep(for: .milliseconds(5))
            }
            let all = try await written
            #expect(all.count == writers.count * batches * perBatch)
            #expect(seen.count == all.count, "every change exactly once")
            #expect(Set(seen) == Set(all))
        }
    }
}

/// A flag set once, read from other tasks.
final class ManagedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func set() {
        lock.lock()
        value = true
        lock.unlock()
    }
    var isSet: Bool {
        lock.lock()
        defer { lock.unlock() }
        return value
    }
}

extension Sequence where Element: Sendable {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var result: [T] = []
        for element in self { result.append(try await transform(element)) }
        return result
    }
}
