import GRDB
public import SyncProtocol

/// `sent_pushes`: the content of each file this device sent in a push, written before the push
/// goes out. An answer lost on the way (or a crash before it was recorded) leaves the server with
/// a version this device wrote but never recorded; the next sync finds it here by its hash and
/// takes that version as synced, so that the device's own change is not mistaken for another
/// device's (which would, say, bring back a file deleted here since).
extension StateStore {
    /// Notes what a push is about to send.
    func recordSent(_ files: [(VaultPath, ContentHash)]) async throws {
        try await db.write { db in
            for (path, hash) in files {
                try db.run("INSERT OR REPLACE INTO sent_pushes (relative_path, content_hash) VALUES (?, ?)", [path.rawValue, hash.rawValue])
            }
        }
    }

    /// What earlier pushes sent, by path.
    func sentPushes() async throws -> [VaultPath: ContentHash] {
        try await db.read { db in
            var result: [VaultPath: ContentHash] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT relative_path, content_hash FROM sent_pushes") {
                result[VaultPath(alreadyValidated: row[0])] = ContentHash(alreadyValidated: row[1])
            }
            return result
        }
    }

    /// Forgets every sent push (once compared with the server's state).
    func clearSent() async throws {
        try await db.write { try $0.execute(sql: "DELETE FROM sent_pushes") }
    }
}
