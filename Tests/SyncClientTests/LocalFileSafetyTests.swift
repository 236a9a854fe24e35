import Foundation
import SyncClient
import SyncCore
import SyncProtocol
import Testing

@Suite struct AtomicFileWriterTests {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("vaultsync-atomic-\(UUID().uuidString)")

    func scanStat(_ path: String) throws -> CachedStat {
        try #require(LocalScanner(root: root, ignore: IgnoreRules()).scan(cache: [:]).stat(atDisk: path))
    }

    @Test func replacesAFileUnchangedSinceTheScan() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try Data("old".utf8).write(to: root.appendingPathComponent("n.md"))
        let writer = AtomicFileWriter(root: root)
        let stat = try scanStat("n.md")
        try writer.commit(staged: try writer.stage(Data("new".utf8)), to: "n.md", expected: .unchanged(stat))
        #expect(try String(contentsOf: root.appendingPathComponent("n.md"), encoding: .utf8) == "new")
        // Nothing is left behind in .vaultsync/tmp.
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(".vaultsync/tmp").path).isEmpty)
    }

    @Test func neverOverwritesAFileEditedAfterTheScan() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try Data("old".utf8).write(to: root.appendingPathComponent("n.md"))
        let writer = AtomicFileWriter(root: root)
        let stat = try scanStat("n.md")
        try Data("edited by the user meanwhile".utf8).write(to: root.appendingPathComponent("n.md"))
        #expect(throws: AtomicWriteError.changedSinceScan("n.md")) {
            try writer.commit(staged: try writer.stage(Data("from server".utf8)), to: "n.md", expected: .unchanged(stat))
        }
        #expect(try String(contentsOf: root.appendingPathComponent("n.md"), encoding: .utf8) == "edited by the user meanwhile")
        #expect(throws: AtomicWriteError.changedSinceScan("n.md")) { try writer.removeIfUnchanged("n.md", expected: stat) }
        #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent("n.md").path))
        // A file that appeared where the server's new file was to go is not overwritten either.
        try Data("local".utf8).write(to: root.appendingPathComponent("new.md"))
        #expect(throws: AtomicWriteError.changedSinceScan("new.md")) {
            try writer.commit(staged: try writer.stage(Data("remote".utf8)), to: "new.md", expected: .absent)
        }
        #expect(try String(contentsOf: root.appendingPathComponent("new.md"), encoding: .utf8) == "local")
    }

    @Test func createsFoldersForNewFiles() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let writer = AtomicFileWriter(root: root)
        try writer.commit(staged: try writer.stage(Data("x".utf8)), to: "a/b/c.md", expected: .absent)
        #expect(try String(contentsOf: root.appendingPathComponent("a/b/c.md"), encoding: .utf8) == "x")
    }
}

@Suite struct VaultLockAndCredentialTests {
    let state = FileManager.default.temporaryDirectory.appendingPathComponent("vaultsync-lock-\(UUID().uuidString)")

    /// A value shared with the lock's wait callback.
    final class Shared<Value: Sendable>: @unchecked Sendable {
        private let lock = NSLock()
        private var value: Value
        init(_ value: Value) { self.value = value }
        func update(_ change: (inout Value) -> Void) { lock.withLock { change(&value) } }
        var current: Value { lock.withLock { value } }
    }

    @Test func oneSyncAtATimeAndTheLockIsReleased() async throws {
        defer { try? FileManager.default.removeItem(at: state) }
        var first: VaultLock? = try await VaultLock(stateFolder: state)
        #expect(VaultLock.isHeld(stateFolder: state))
        let waits = Shared(0)
        await #expect(throws: VaultLockError.busy(waited: .milliseconds(300))) {
            try await VaultLock(stateFolder: state, timeout: .milliseconds(300)) { waits.update { $0 += 1 } }
        }
        #expect(waits.current == 1)  // announced once, not once per poll
        _ = first
        first = nil
        #expect(!VaultLock.isHeld(stateFolder: state))
        await #expect(throws: Never.self) { _ = try await VaultLock(stateFolder: state) }
    }

    @Test func aSecondLockWaitsForTheFirstToBeReleased() async throws {
        defer { try? FileManager.default.removeItem(at: state) }
        let holder = Shared<VaultLock?>(try await VaultLock(stateFolder: state))
        let waited = Shared(false)
        let second = try await VaultLock(stateFolder: state, timeout: .seconds(30)) {
            waited.update { $0 = true }
            holder.update { $0 = nil }  // the first sync ends while the second waits
        }
        #expect(waited.current)
        #expect(VaultLock.isHeld(stateFolder: state))
        withExtendedLifetime(second) {}
    }

    @Test func credentialsAreOwnerOnlyAndRoundTrip() throws {
        defer { try? FileManager.default.removeItem(at: state) }
        let store = CredentialStore(stateFolder: state)
        #expect(try store.load() == nil)
        let credentials = Credentials(
            server: URL(string: "http://127.0.0.1:8080")!, userID: UUID(), deviceID: UUID(), deviceName: "laptop", accessToken: "a.b.c", refreshToken: "r",
            vaultKey: Data(repeating: 7, count: 32))
        try store.save(credentials)
        try store.save(credentials)
        #expect(try store.load() == credentials)
        let mode = try FileManager.default.attributesOfItem(atPath: state.appendingPathComponent("credentials.json").path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        // A file written before encrypted vaults (no key) still reads.
        let older = #"{"server":"http://127.0.0.1:8080","userID":"\#(credentials.userID)","deviceID":"\#(credentials.deviceID)","deviceName":"laptop","accessToken":"a","refreshToken":"r"}"#
        try Data(older.utf8).write(to: state.appendingPathComponent("credentials.json"))
        #expect(try store.load()?.vaultKey == nil)
        try store.remove()
        #expect(try store.load() == nil)
    }
}
