import GRDB
import SyncCore
public import SyncProtocol

/// `placed_pulls`: each file a pull is about to put in place, with the version it is, written
/// before the renames. A crash or a power cut between putting files in place and recording them
/// leaves files `sync.db` does not know; the next sync finds each here by its hash and takes it as
/// synced at that version, so that a pulled file is not mistaken for an edit made here (which
/// would bring back a file another device deleted since, or merge it as this device's change).
extension StateStore {
    /// Notes what a pull is about to put in place.
    func recordPlacing(_ files: [VaultPath: SyncedEntry]) async throws {
        guard !files.isEmpty else { return }
        try await db.write { db in
            for (path, entry) in files {
                try db.run(
                    "INSERT OR REPLACE INTO placed_pulls (relative_path, content_hash, server_version) VALUES (?, ?, ?)",
                    [path.rawValue, entry.hash.rawValue, entry.version])
            }
        }
    }

    /// What earlier pulls put in place and may not have recorded, by path.
    func placedPulls() async throws -> [VaultPath: SyncedEntry] {
        try await db.read { db in
            var result: [VaultPath: SyncedEntry] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT relative_path, content_hash, server_version FROM placed_pulls") {
                result[VaultPath(alreadyValidated: row[0])] = SyncedEntry(hash: ContentHash(alreadyValidated: row[1]), version: row[2])
            }
            return result
        }
    }

    /// Forgets every placed pull (once compared with the folder).
    func clearPlaced() async throws {
        try await db.write { try $0.execute(sql: "DELETE FROM placed_pulls") }
    }
}
