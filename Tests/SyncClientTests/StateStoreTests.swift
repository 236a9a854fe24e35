import Foundation
import GRDB
@testable import SyncClient
import SyncCore
import SyncProtocol
import Testing

@Suite struct StateStoreTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("vaultsync-state-\(UUID().uuidString)")

    @Test func syncedStateMetaAndLogPersistAcrossReopening() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let a = try VaultPath("a.md"), b = try VaultPath("dir/b.md")
        let h1 = ContentHasher.hash(Array("1".utf8)), h2 = ContentHasher.hash(Array("2".utf8))
        do {
            let store = try StateStore(stateFolder: folder)
            try await store.recordSynced([a: SyncedEntry(hash: h1, version: 1), b: SyncedEntry(hash: h2, version: 4)], at: Date())
            try await store.recordSynced([a: SyncedEntry(hash: h2, version: 2)], at: Date())
            try await store.forget([b])
            try await store.setMeta(.cursor, "YzEuNQ")
            try await store.setMeta(.deviceID, "dev")
            try await store.setMeta(.deviceID, nil)
            try await store.log(.push, path: "a.md", detail: "v2", at: Date(timeIntervalSince1970: 1))
            try await store.log(.conflict, path: "c.md", at: Date(timeIntervalSince1970: 2))
        }
        let reopened = try StateStore(stateFolder: folder)
        #expect(try await reopened.syncedEntries() == [a: SyncedEntry(hash: h2, version: 2)])
        #expect(try await reopened.meta(.cursor) == "YzEuNQ")
        #expect(try await reopened.meta(.deviceID) == nil)
        let log = try await reopened.recentLog()
        #expect(log.map(\.event) == [.conflict, .push])
        #expect(log.last?.detail == "v2")
    }

    /// A sent push is forgotten once the path is recorded as synced with the same bytes (its answer
    /// arrived, or the server's version of them is known), and kept otherwise: for the next sync
    /// to look for the version a lost answer would have named.
    @Test func aSentPushIsForgottenOnceItsBytesAreRecordedAsSynced() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try StateStore(stateFolder: folder)
        let answered = try VaultPath("answered.md"), other = try VaultPath("other-bytes.md"), unanswered = try VaultPath("unanswered.md")
        let sent = ContentHasher.hash(Array("sent".utf8)), newer = ContentHasher.hash(Array("newer".utf8))
        try await store.recordSent([(answered, sent), (other, sent), (unanswered, sent)])
        // The answer for one path; other bytes recorded for the second (say, pulled from another device).
        try await store.recordSynced([answered: SyncedEntry(hash: sent, version: 3), other: SyncedEntry(hash: newer, version: 4)], at: Date())
        #expect(try await store.sentPushes() == [other: sent, unanswered: sent])
        // Reopened, what is left is still there.
        let reopened = try StateStore(stateFolder: folder)
        #expect(try await reopened.sentPushes().keys.sorted { $0.rawValue < $1.rawValue } == [other, unanswered])
    }

    /// An encrypted vault's ciphertexts map to their plaintexts both ways, across reopening.
    @Test func ciphertextsAreFoundByEitherHash() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let plain = ContentHasher.hash(Array("note".utf8))
        let first = StateStore.Ciphertext(ciphertextHash: ContentHasher.hash(Array("c1".utf8)), ciphertextSize: 84, plaintextHash: plain, plaintextSize: 4)
        let second = StateStore.Ciphertext(ciphertextHash: ContentHasher.hash(Array("c2".utf8)), ciphertextSize: 84, plaintextHash: plain, plaintextSize: 4)
        let unknown = ContentHasher.hash(Array("c3".utf8))
        do {
            let store = try StateStore(stateFolder: folder)
            #expect(try await store.ciphertexts(holding: [plain]).isEmpty)
            try await store.recordCiphertexts([first, second])
        }
        let store = try StateStore(stateFolder: folder)
        #expect(try await store.plaintexts(of: [first.ciphertextHash, unknown, second.ciphertextHash]) == [first.ciphertextHash: first, second.ciphertextHash: second])
        let holding = try await store.ciphertexts(holding: [plain, unknown])
        #expect(holding.count == 1 && [first, second].contains(holding[plain]))
        try await store.forgetCiphertexts([first.ciphertextHash, second.ciphertextHash])
        #expect(try await store.ciphertexts(holding: [plain]).isEmpty)
    }

    @Test func statCacheIsReplacedByTheScan() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try StateStore(stateFolder: folder)
        let stat = CachedStat(sizeBytes: 3, mtimeNanoseconds: 1_700_000_000_123_456_789, inode: UInt64.max - 1, hash: ContentHasher.hash(Array("abc".utf8)))
        try await store.replaceStats([("x.md", stat), ("y.md", stat)], removed: [])
        try await store.replaceStats([], removed: ["y.md"])
        #expect(try await store.cachedStats() == ["x.md": stat])
    }

    @Test func aDatabaseFromANewerClientIsRefused() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try StateStore(stateFolder: folder)
        let queue = try DatabaseQueue(path: folder.appendingPathComponent("sync.db").path)
        try await queue.write { try $0.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99-future')") }
        try queue.close()
        #expect(throws: StateStoreError.self) { try StateStore(stateFolder: folder) }
    }
}
