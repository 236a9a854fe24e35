import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import SyncClient
import SyncProtocol
import TestSupport
import Testing

/// A value shared with transport hooks and progress handlers.
final class Shared<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func update<R>(_ body: (inout Value) -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
    var current: Value { update { $0 } }
}

/// Retry counting and parking, progress events, and coalescing of concurrent sync requests.
@Suite struct EngineQueueTests {
    struct Refused: Error, CustomStringConvertible { var description: String { "the store refused the upload" } }

    @Test func aFileFailingThreeSyncsIsParkedUntilRetriedWhileTheRestKeepsSyncing() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let laptop = try await TestVault.link(user, deviceName: "laptop")
            let phone = try await TestVault.link(user, deviceName: "phone")
            defer { laptop.remove(); phone.remove() }
            // Larger than the inline limit, so its bytes go through an upload that the hook refuses.
            let big = String(repeating: "b", count: Int(InlineContent.maxFileBytes) + 1)
            let bigHash = ContentHasher.hash(Data(big.utf8)).hex
            let refuse = Shared(true)
            let attempts = Shared(0)
            let transport = HookedTransport { request in
                guard request.httpMethod == "PUT", request.url?.path.contains(String(bigHash)) == true else { return }
                attempts.update { $0 += 1 }
                if refuse.current { throw Refused() }
            }
            let engine = try SyncEngine(root: laptop.root, transport: transport)
            try laptop.write("big.txt", big)
            for run in 1...3 {
                try laptop.write("note-\(run).md", "run \(run)")
                let report = try await engine.sync()
                #expect(report.status == .error)
                #expect(report.pushed.map(\.rawValue) == ["note-\(run).md"], "other files keep syncing")
                #expect(report.failures.contains { $0.hasPrefix("big.txt:") })
                #expect(report.parked == (run < 3 ? [] : [try VaultPath("big.txt")]), "run \(run)")
            }
            #expect(attempts.current == 3)
            #expect(try await engine.state.failures().map(\.attempts) == [3])

            // Parked: not tried again, reported, and the rest still syncs.
            try laptop.write("note-4.md", "run 4")
            let fourth = try await engine.sync()
            #expect(attempts.current == 3)
            #expect(fourth.parked == [try VaultPath("big.txt")])
            #expect(fourth.failures.isEmpty)
            #expect(fourth.status == .error)
            #expect(fourth.pushed.map(\.rawValue) == ["note-4.md"])

            // The store works again; retry brings it through and clears the record.
            refuse.update { $0 = false }
            #expect(try await engine.retry() == [try VaultPath("big.txt")])
            let fifth = try await engine.sync()
            #expect(fifth.status == .idle)
            #expect(fifth.pushed.map(\.rawValue) == ["big.txt"])
            #expect(try await engine.state.failures().isEmpty)
            try await phone.sync()
            #expect(phone.read("big.txt") == big)
        }
    }

    @Test func aParkedPullKeepsTheCursorSoTheChangeArrivesAfterRetry() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let laptop = try await TestVault.link(user, deviceName: "laptop")
            let phone = try await TestVault.link(user, deviceName: "phone")
            defer { laptop.remove(); phone.remove() }
            let big = String(repeating: "p", count: Int(InlineContent.maxFileBytes) + 1)
            try laptop.write("big.txt", big)
            try await laptop.sync()
            let refuse = Shared(true)
            let transport = HookedTransport { request in
                if request.httpMethod == "GET", request.url?.path.contains("/blobs/") == true, refuse.current { throw Refused() }
            }
            let engine = try SyncEngine(root: phone.root, transport: transport)
            for _ in 1...3 { _ = try await engine.sync() }
            #expect(try await engine.state.failures().first?.parked == true)
            try laptop.write("later.md", "after the parking")
            try await laptop.sync()
            #expect(try await engine.sync().pulled.map(\.rawValue) == ["later.md"])
            refuse.update { $0 = false }
            try await engine.retry([try VaultPath("big.txt")])
            let report = try await engine.sync()
            #expect(report.pulled.map(\.rawValue) == ["big.txt"])
            #expect(phone.read("big.txt") == big)
        }
    }

    @Test func progressCountsEveryFileAndByteOnce() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let laptop = try await TestVault.link(user, deviceName: "laptop")
            let phone = try await TestVault.link(user, deviceName: "phone")
            defer { laptop.remove(); phone.remove() }
            var bytes: Int64 = 0
            for i in 0..<30 {
                let text = String(repeating: "line \(i)\n", count: i + 1)
                bytes += Int64(text.utf8.count)
                try laptop.write("n\(i).md", text)
            }
            for (vault, label) in [(laptop, "upload"), (phone, "download")] {
                let events = Shared<[SyncProgress]>([])
                _ = try await vault.engine.sync { progress in events.update { $0.append(progress) } }
                let seen = events.current
                let transferring = seen.filter { $0.phase == .transferring }
                #expect(seen.first?.phase == .scanning, "\(label)")
                #expect(seen.last?.phase == .finished, "\(label)")
                #expect(transferring.last?.filesDone == 30 && transferring.last?.filesTotal == 30, "\(label)")
                #expect(transferring.last?.bytesDone == bytes && transferring.last?.bytesTotal == bytes, "\(label)")
                #expect(zip(transferring, transferring.dropFirst()).allSatisfy { $0.filesDone <= $1.filesDone && $0.bytesDone <= $1.bytesDone }, "\(label)")
            }
        }
    }

    @Test func requestsDuringASyncShareOneFollowUpSync() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let laptop = try await TestVault.link(user, deviceName: "laptop")
            defer { laptop.remove() }
            let stateCalls = Shared(0)
            let gate = Shared<CheckedContinuation<Void, Never>?>(nil)
            let transport = HookedTransport { request in
                guard request.url?.path.hasSuffix("/vault/state") == true else { return }
                if stateCalls.update({ $0 += 1; return $0 }) == 1 {
                    await withCheckedContinuation { continuation in gate.update { $0 = continuation } }
                }
            }
            let engine = try SyncEngine(root: laptop.root, transport: transport)
            try laptop.write("a.md", "before")
            let first = Task { try await engine.sync() }
            while gate.current == nil { try await Task.sleep(for: .milliseconds(5)) }  // the first sync is running
            try laptop.write("b.md", "written while the first sync runs")
            async let second = engine.sync()
            async let third = SyncEngine(root: laptop.root, transport: transport).sync()  // another engine, same vault
            try await Task.sleep(for: .milliseconds(200))
            gate.update { $0?.resume() }
            let reports = try await [first.value, second, third]
            #expect(stateCalls.current == 2, "one sync plus one shared follow-up")
            #expect(reports[0].pushed.contains(try VaultPath("a.md")))
            #expect(reports[1] == reports[2])
            #expect(reports[1].pushed.map(\.rawValue) == ["b.md"], "the follow-up sees the change made during the first sync")
        }
    }
}
