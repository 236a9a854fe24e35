import GRDB
import SyncCore
public import SyncProtocol

/// A file about to be put in place and what `sync.db` is to say of it once it is there.
struct PlacedFile: Sendable, Equatable {
    /// The bytes the file will hold.
    let fileHash: ContentHash
    /// The server's version it is synced at: the same bytes for a pull; for a merge, the server's
    /// version the merge was made on (the file holds this device's changes on top of it).
    let synced: SyncedEntry
}

/// `placed_pulls`: each file a pull or a merge is about to put in place, with the version it is
/// on, written before the renames. A crash or a power cut between putting files in place and
/// recording them leaves files `sync.db` does not know; the next sync finds each here by its hash
/// and takes it as synced at that version, so that a pulled file is not mistaken for an edit made
/// here (which would bring back a file another device deleted since, or merge it as this device's
/// change), and a merged file's base is the server's version it holds, not the older one (against
/// which the other side's changes would look like this device's and conflict with later ones).
/// Recording a path as synced removes its row.
extension StateStore {
    /// Notes what a pull is about to put in place.
    func recordPlacing(_ files: [VaultPath: SyncedEntry]) async throws {
        guard !files.isEmpty else { return }
        try await db.write { db in
            for (path, entry) in files {
                try db.run(
                    "INSERT OR REPLACE INTO placed_pulls (relative_path, content_hash, server_version, synced_hash) VALUES (?, ?, ?, NULL)",
                    [path.rawValue, entry.hash.rawValue, entry.version])
            }
        }
    }

    /// Notes that a merge holding `fileHash` is about to be put in place at `path`, made on the
    /// server's version `base`.
    func recordPlacing(_ path: VaultPath, holding fileHash: ContentHash, on base: SyncedEntry) async throws {
        try await db.write { db in
            try db.run(
                "INSERT OR REPLACE INTO placed_pulls (relative_path, content_hash, server_version, synced_hash) VALUES (?, ?, ?, ?)",
                [path.rawValue, fileHash.rawValue, base.version, base.hash.rawValue])
        }
    }

    /// What earlier pulls and merges put in place and may not have recorded, by path.
    func placedFiles() async throws -> [VaultPath: PlacedFile] {
        try await db.read { db in
            var result: [VaultPath: PlacedFile] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT relative_path, content_hash, server_version, synced_hash FROM placed_pulls") {
                let fileHash = ContentHash(alreadyValidated: row[1])
                let syncedHash = (row[3] as String?).map { ContentHash(alreadyValidated: $0) } ?? fileHash
                result[VaultPath(alreadyValidated: row[0])] = PlacedFile(fileHash: fileHash, synced: SyncedEntry(hash: syncedHash, version: row[2]))
            }
            return result
        }
    }

    /// Forgets every placed file (once compared with the folder).
    func clearPlaced() async throws {
        try await db.write { try $0.execute(sql: "DELETE FROM placed_pulls") }
    }
}
